//! GitLab Code Quality JSON: one issue per finding, as the merge request
//! widget reads them. The fingerprint stays the same from run to run for
//! the same finding, even when lines above it move: it hashes the path,
//! the code, the message and which occurrence of that triple it is.
//!
//! Issues are serialized as they are built, one at a time. The description
//! (what the widget shows) has control characters and bidi overrides shown
//! as `\u{..}`; the path is the file's own, for the widget to link; the
//! fingerprint hashes the contract's own text, so it stays what it was. The
//! bytes written hold no control character (`safe_json`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

use phaselint_lint::diagnostic::{Diagnostic, Severity};
use serde::{Serialize, Serializer};
use sha2::Digest;

use super::{Linted, Report, other_file_notes, position, safe_json};
use crate::terminal;

#[derive(Serialize)]
struct Issue<'a> {
    description: String,
    check_name: &'a str,
    fingerprint: String,
    severity: &'static str,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: usize,
}

fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

pub fn render(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    safe_json::to_writer_pretty(
        &mut *out,
        &Issues {
            report,
            seen: RefCell::new(HashMap::new()),
        },
    )?;
    writeln!(out)
}

/// The issues, built as they are written; `seen` counts each (file, code,
/// message) so far, borrowing them from the report.
struct Issues<'r, 'a> {
    report: &'r Report<'a>,
    seen: RefCell<HashMap<(&'a Path, &'a str, &'a str), usize>>,
}

impl Serialize for Issues<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.report
                .diagnostics()
                .map(|(file, d)| self.issue(file, d)),
        )
    }
}

impl<'a> Issues<'_, 'a> {
    fn issue(&self, file: &'a Linted, d: &'a Diagnostic) -> Issue<'a> {
        let path = file.path.to_string_lossy().replace('\\', "/");
        let occurrence = {
            let mut seen = self.seen.borrow_mut();
            let n = seen
                .entry((file.path.as_path(), d.code.as_str(), d.message.as_str()))
                .and_modify(|n| *n += 1)
                .or_insert(0);
            *n
        };
        let mut hasher = sha2::Sha256::new();
        for part in [
            path.as_bytes(),
            d.code.as_str().as_bytes(),
            d.message.as_bytes(),
        ] {
            hasher.update(part);
            hasher.update([0]);
        }
        hasher.update(occurrence.to_string().as_bytes());
        Issue {
            description: std::iter::once(format!("{}: {}", d.code, terminal::inline(&d.message)))
                .chain(other_file_notes(file, d))
                .collect::<Vec<_>>()
                .join("; "),
            check_name: d.code.as_str(),
            fingerprint: phaselint_lint::input::hex(&hasher.finalize()),
            severity: severity(d.severity),
            location: Location {
                lines: Lines {
                    begin: position(file, d.span.start).line,
                },
                path,
            },
        }
    }
}
