//! `path:line:col: CODE [severity] message; help: …`, one finding per
//! line, the help (and its did-you-mean) kept: this is the format of CI
//! logs and editors' quickfix lists, where a help that is cut is lost.

use std::io::{self, Write};

use super::{Report, position};

pub fn render(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    for (file, d) in report.diagnostics() {
        let at = position(file, d.span.start);
        writeln!(
            out,
            "{}:{}:{}: {} [{}] {}{}",
            file.path.display(),
            at.line,
            at.column,
            d.code,
            d.severity.as_str(),
            d.message,
            d.help
                .as_ref()
                .map_or(String::new(), |help| format!("; help: {help}"))
        )?;
    }
    Ok(())
}
