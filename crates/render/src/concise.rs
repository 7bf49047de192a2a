//! `path:line:col: CODE [severity] message; help: …`, one finding per
//! line, the help (and its did-you-mean) kept, then each related location
//! in another file (`; note: old.yaml:3:5: …`, `phaselint diff`'s OLD): this is the format of CI
//! logs and editors' quickfix lists, where a help that is cut is lost.
//! The path, message and help are shown through `terminal::inline`: one
//! finding stays one line, and nothing from a contract reaches the terminal
//! as a control character.

use std::io::{self, Write};

use super::{Report, other_file_notes, position};
use crate::terminal::inline;

pub fn render(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    for (file, d) in report.diagnostics() {
        let at = position(file, d.span.start);
        writeln!(
            out,
            "{}:{}:{}: {} [{}] {}{}{}",
            inline(&file.path.display().to_string()),
            at.line,
            at.column,
            d.code,
            d.severity.as_str(),
            inline(&d.message),
            d.help
                .as_ref()
                .map_or(String::new(), |help| format!("; help: {}", inline(help))),
            other_file_notes(file, d)
                .iter()
                .map(|note| format!("; {note}"))
                .collect::<String>()
        )?;
    }
    Ok(())
}
