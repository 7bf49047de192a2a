//! `path:line:col: CODE message`, one finding per line.

use std::io::{self, Write};

use super::{Report, position, summary};

pub fn render(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    for (file, d) in report.diagnostics() {
        let at = position(file, d.span.start);
        writeln!(
            out,
            "{}:{}:{}: {} [{}] {}",
            file.path.display(),
            at.line,
            at.column,
            d.code,
            d.severity.as_str(),
            d.message
        )?;
    }
    summary(report, out)
}
