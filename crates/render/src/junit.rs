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
//! caller anyway (`xml.rs`).

use std::fmt::Write as _;
use std::io::{self, Write};

use phaselint_lint::diagnostic::{Diagnostic, Severity};

use super::xml::{attribute, text};
use super::{Linted, Report, position};

pub fn render(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    let mut warnings_seen = 0;
    let mut suites = String::new();
    let (mut tests, mut failures) = (0, 0);
    for file in report.files {
        let path = file.path.to_string_lossy().replace('\\', "/");
        let mut failing = Vec::new();
        let mut passing = Vec::new();
        for d in &file.analysis.diagnostics {
            let fails = match d.severity {
                Severity::Error => true,
                Severity::Warning => {
                    warnings_seen += 1;
                    report.max_warnings.is_some_and(|max| warnings_seen > max)
                }
                Severity::Info => false,
            };
            if fails {
                failing.push(d);
            } else {
                passing.push(d);
            }
        }
        let cases = failing.len().max(1);
        tests += cases;
        failures += failing.len();
        let _ = writeln!(
            suites,
            r#"  <testsuite name="{}" file="{}" tests="{cases}" failures="{}" errors="0" skipped="0">"#,
            attribute(&path),
            attribute(&path),
            failing.len(),
        );
        if failing.is_empty() {
            let _ = writeln!(
                suites,
                r#"    <testcase name="phaselint" classname="{}"/>"#,
                attribute(&path)
            );
        }
        for d in &failing {
            let at = position(file, d.span.start);
            let _ = writeln!(
                suites,
                r#"    <testcase name="{} at {}:{}" classname="{}">"#,
                d.code,
                at.line,
                at.column,
                attribute(&path)
            );
            let _ = writeln!(
                suites,
                r#"      <failure type="{}" message="{}">{}</failure>"#,
                d.code,
                attribute(&d.message),
                text(&describe(file, &path, d))
            );
            suites.push_str("    </testcase>\n");
        }
        if !passing.is_empty() {
            let lines: Vec<String> = passing.iter().map(|d| describe(file, &path, d)).collect();
            let _ = writeln!(
                suites,
                "    <system-out>{}</system-out>",
                text(&lines.join("\n"))
            );
        }
        suites.push_str("  </testsuite>\n");
    }
    // A file that could not be read is an error testcase: the report must
    // not look clean when a file was never checked.
    for file in report.unreadable {
        let path = attribute(&file.path.to_string_lossy().replace('\\', "/"));
        let _ = writeln!(
            suites,
            r#"  <testsuite name="{path}" file="{path}" tests="1" failures="0" errors="1" skipped="0">"#
        );
        let _ = writeln!(
            suites,
            r#"    <testcase name="phaselint" classname="{path}">"#
        );
        let _ = writeln!(
            suites,
            r#"      <error type="unreadable" message="{}"/>"#,
            attribute(&format!("cannot read the file: {}", file.reason))
        );
        suites.push_str("    </testcase>\n  </testsuite>\n");
    }
    let errors = report.unreadable.len();
    tests += errors;
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="phaselint" tests="{tests}" failures="{failures}" errors="{errors}">"#
    )?;
    out.write_all(suites.as_bytes())?;
    writeln!(out, "</testsuites>")
}

/// One finding as the concise format writes it, so a test report reads
/// like the CI log.
fn describe(file: &Linted, path: &str, d: &Diagnostic) -> String {
    let at = position(file, d.span.start);
    let mut text = format!(
        "{path}:{}:{}: {} [{}] {}",
        at.line,
        at.column,
        d.code,
        d.severity.as_str(),
        d.message
    );
    if let Some(help) = &d.help {
        let _ = write!(text, "\nhelp: {help}");
    }
    text
}
