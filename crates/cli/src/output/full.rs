//! Source snippets with labels, rustc style (codespan-reporting). Colour
//! only on a terminal, and never when `NO_COLOR` is set.

use std::io::{self, IsTerminal, Write};

use codespan_reporting::diagnostic::{Diagnostic as Snippet, Label, Severity as Level};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};
use phaselint_lint::diagnostic::Severity;

use super::{Report, summary};

pub fn render(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    let color = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut files = SimpleFiles::new();
    let config = term::Config::default();
    let mut buffer = if color {
        termcolor::Buffer::ansi()
    } else {
        termcolor::Buffer::no_color()
    };
    for file in report.files {
        if file.analysis.diagnostics.is_empty() {
            continue;
        }
        let id = files.add(
            file.path.display().to_string(),
            file.analysis.source.as_str(),
        );
        for d in &file.analysis.diagnostics {
            let level = match d.severity {
                Severity::Error => Level::Error,
                Severity::Warning => Level::Warning,
                Severity::Info => Level::Note,
            };
            let mut labels = vec![Label::primary(id, d.span.start..d.span.end)];
            labels.extend(d.related.iter().map(|r| {
                Label::secondary(id, r.span.start..r.span.end).with_message(r.message.clone())
            }));
            let mut notes = Vec::new();
            if let Some(help) = &d.help {
                notes.push(format!("help: {help}"));
            }
            if let Some(fix) = &d.fix {
                let kind = match fix.applicability {
                    phaselint_lint::diagnostic::Applicability::Safe => "fix",
                    phaselint_lint::diagnostic::Applicability::Unsafe => "suggestion",
                };
                notes.push(format!("{kind}: {}", fix.title));
            }
            let snippet = Snippet::new(level)
                .with_code(d.code)
                .with_message(&d.message)
                .with_labels(labels)
                .with_notes(notes);
            term::emit_to_write_style(&mut buffer, &config, &files, &snippet)
                .map_err(|e| io::Error::other(e.to_string()))?;
        }
    }
    out.write_all(buffer.as_slice())?;
    summary(report, out)
}
