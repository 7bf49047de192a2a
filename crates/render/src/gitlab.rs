//! GitLab Code Quality JSON: one issue per finding, as the merge request
//! widget reads them. The fingerprint stays the same from run to run for
//! the same finding, even when lines above it move: it hashes the path,
//! the code, the message and which occurrence of that triple it is.

use std::collections::HashMap;
use std::io::{self, Write};

use phaselint_lint::diagnostic::Severity;
use serde::Serialize;
use sha2::Digest;

use super::{Report, position};

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
    let mut seen: HashMap<(String, &str, &str), usize> = HashMap::new();
    let issues: Vec<Issue<'_>> = report
        .diagnostics()
        .map(|(file, d)| {
            let path = file.path.to_string_lossy().replace('\\', "/");
            let occurrence = seen
                .entry((path.clone(), d.code, d.message.as_str()))
                .and_modify(|n| *n += 1)
                .or_insert(0);
            let mut hasher = sha2::Sha256::new();
            for part in [path.as_bytes(), d.code.as_bytes(), d.message.as_bytes()] {
                hasher.update(part);
                hasher.update([0]);
            }
            hasher.update(occurrence.to_string().as_bytes());
            Issue {
                description: format!("{}: {}", d.code, d.message),
                check_name: d.code,
                fingerprint: phaselint_lint::input::hex(&hasher.finalize()),
                severity: severity(d.severity),
                location: Location {
                    lines: Lines {
                        begin: position(file, d.span.start).line,
                    },
                    path,
                },
            }
        })
        .collect();
    let text = serde_json::to_string_pretty(&issues).map_err(io::Error::other)?;
    writeln!(out, "{text}")
}
