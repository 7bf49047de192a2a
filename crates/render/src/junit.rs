//! JUnit XML, for CI systems that show test reports (GitLab's test report,
//! Jenkins, Azure Pipelines): one testsuite per linted file. A finding that
//! fails the run is a failing testcase: every error, and every warning past
//! `--max-warnings` (counted over the whole run, in report order, as the
//! exit code counts them). A file with no such finding is one passing
//! testcase; its other findings are listed in the suite's `system-out`, so
//! they are seen without turning the report red.
//!
//! Written by hand rather than with an XML crate: the output is five
//! elements, and the one subtle part, characters XML 1.0 cannot carry even
//! escaped (from a contract's own text), a writer crate leaves to its
//! caller anyway. Text from a contract is shown through `terminal::inline`
//! first (a control character as `\u{1b}`, as every human format shows
//! it), then escaped for XML (`xml.rs`).

use std::io::{self, Write};

use phaselint_lint::diagnostic::{Diagnostic, Severity};

use super::xml::{attribute, text};
use super::{Linted, Report, other_file_notes, position};
use crate::terminal;

/// Whether each finding of the report fails the run, in report order.
struct Verdicts {
    warnings_seen: usize,
    max_warnings: Option<usize>,
}

impl Verdicts {
    fn new(report: &Report<'_>) -> Self {
        Verdicts {
            warnings_seen: 0,
            max_warnings: report.max_warnings,
        }
    }

    fn fails(&mut self, d: &Diagnostic) -> bool {
        match d.severity {
            Severity::Error => true,
            Severity::Warning => {
                self.warnings_seen += 1;
                self.max_warnings
                    .is_some_and(|max| self.warnings_seen > max)
            }
            Severity::Info => false,
        }
    }
}

/// A file's path as the report shows it: `/` separators, control
/// characters shown as `\u{..}` (XML 1.0 cannot carry most of them, and a
/// test report is read by people, in CI logs too).
fn shown_path(file: &Linted) -> String {
    terminal::inline(&file.path.to_string_lossy().replace('\\', "/")).into_owned()
}

/// Written as it goes: one pass counts the testcases and failures the
/// root element states, a second writes each suite.
pub fn render(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    let (mut tests, mut failures) = (0, 0);
    let mut verdicts = Verdicts::new(report);
    for file in report.files {
        let failing = file
            .analysis
            .diagnostics
            .iter()
            .filter(|d| verdicts.fails(d))
            .count();
        tests += failing.max(1);
        failures += failing;
    }
    let errors = report.unreadable.len();
    tests += errors;
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="phaselint" tests="{tests}" failures="{failures}" errors="{errors}">"#
    )?;
    let mut verdicts = Verdicts::new(report);
    for file in report.files {
        let path = shown_path(file);
        let (failing, passing): (Vec<&Diagnostic>, Vec<&Diagnostic>) = file
            .analysis
            .diagnostics
            .iter()
            .partition(|d| verdicts.fails(d));
        writeln!(
            out,
            r#"  <testsuite name="{}" file="{}" tests="{}" failures="{}" errors="0" skipped="0">"#,
            attribute(&path),
            attribute(&path),
            failing.len().max(1),
            failing.len(),
        )?;
        if failing.is_empty() {
            writeln!(
                out,
                r#"    <testcase name="phaselint" classname="{}"/>"#,
                attribute(&path)
            )?;
        }
        for d in &failing {
            let at = position(file, d.span.start);
            writeln!(
                out,
                r#"    <testcase name="{} at {}:{}" classname="{}">"#,
                d.code,
                at.line,
                at.column,
                attribute(&path)
            )?;
            writeln!(
                out,
                r#"      <failure type="{}" message="{}">{}</failure>"#,
                d.code,
                attribute(&terminal::inline(&d.message)),
                text(&describe(file, &path, d))
            )?;
            out.write_all(b"    </testcase>\n")?;
        }
        if !passing.is_empty() {
            out.write_all(b"    <system-out>")?;
            for (i, d) in passing.iter().enumerate() {
                if i > 0 {
                    out.write_all(b"\n")?;
                }
                out.write_all(text(&describe(file, &path, d)).as_bytes())?;
            }
            out.write_all(b"</system-out>\n")?;
        }
        out.write_all(b"  </testsuite>\n")?;
    }
    // A file that could not be read is an error testcase: the report must
    // not look clean when a file was never checked.
    for file in report.unreadable {
        let path = attribute(&terminal::inline(
            &file.path.to_string_lossy().replace('\\', "/"),
        ));
        writeln!(
            out,
            r#"  <testsuite name="{path}" file="{path}" tests="1" failures="0" errors="1" skipped="0">"#
        )?;
        writeln!(out, r#"    <testcase name="phaselint" classname="{path}">"#)?;
        writeln!(
            out,
            r#"      <error type="unreadable" message="{}"/>"#,
            attribute(&terminal::inline(&format!(
                "cannot read the file: {}",
                file.reason
            )))
        )?;
        out.write_all(b"    </testcase>\n  </testsuite>\n")?;
    }
    writeln!(out, "</testsuites>")
}

/// One finding as the concise format writes it, so a test report reads
/// like the CI log: `path` is already shown safely, the message and help
/// are shown here.
fn describe(file: &Linted, path: &str, d: &Diagnostic) -> String {
    let at = position(file, d.span.start);
    let mut text = format!(
        "{path}:{}:{}: {} [{}] {}",
        at.line,
        at.column,
        d.code,
        d.severity.as_str(),
        terminal::inline(&d.message)
    );
    if let Some(help) = &d.help {
        text.push_str("\nhelp: ");
        text.push_str(&terminal::inline(help));
    }
    for note in other_file_notes(file, d) {
        text.push('\n');
        text.push_str(&note);
    }
    text
}
