//! GitHub Actions workflow commands, so findings annotate the pull request.
//! The log they are written to is shown in a browser that reads ANSI
//! sequences, and downloaded to terminals: text from a contract goes
//! through `terminal::inline` first (a finding's message and help are one
//! line each; a newline a contract put in a name is shown as `\u{a}`, so
//! it cannot start a forged line), then the workflow commands' own
//! escaping.

use std::io::{self, Write};

use phaselint_lint::diagnostic::Severity;

use super::{Report, other_file_notes, range};
use crate::terminal;

pub fn render(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    for (file, d) in report.diagnostics() {
        let (start, end) = range(file, d.span);
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut message = terminal::inline(&d.message).into_owned();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(&terminal::inline(help));
        }
        for note in other_file_notes(file, d) {
            message.push('\n');
            message.push_str(&note);
        }
        writeln!(
            out,
            "::{command} title={code},file={file},line={line},col={col},endLine={end_line},endColumn={end_col}::{code} {message}",
            code = d.code,
            file = escape_property(&terminal::inline(&file.path.display().to_string())),
            line = start.line,
            col = start.column,
            end_line = end.line,
            end_col = end.column,
            message = escape_data(&message),
        )?;
    }
    Ok(())
}

fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
