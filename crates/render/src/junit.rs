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
//! caller anyway.

use std::fmt::Write as _;
use std::io::{self, Write};

use phaselint_lint::diagnostic::{Diagnostic, Severity};

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

fn attribute(value: &str) -> String {
    escape(value, true)
}

fn text(content: &str) -> String {
    escape(content, false)
}

/// Escapes an attribute value or element content. Characters XML 1.0 forbids
/// outright (most C0 controls, lone surrogates cannot occur in a `str`,
/// U+FFFE/U+FFFF) become U+FFFD: a contract may hold them in a quoted
/// string, and one of them would make the whole report unreadable.
fn escape(text: &str, in_attribute: bool) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' if in_attribute => escaped.push_str("&quot;"),
            // Kept as references in attribute values, where a literal one
            // would be normalised to a space.
            '\n' | '\t' | '\r' if in_attribute => {
                let _ = write!(escaped, "&#{};", u32::from(c));
            }
            '\n' | '\t' | '\r' => escaped.push(c),
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => escaped.push('\u{fffd}'),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::{attribute, text};

    #[test]
    fn markup_and_characters_xml_cannot_carry_are_escaped() {
        assert_eq!(
            attribute("a<b & \"c\"\n\u{1}\u{ffff}"),
            "a&lt;b &amp; &quot;c&quot;&#10;\u{fffd}\u{fffd}"
        );
        assert_eq!(text("a\n'b' \"c\"\u{0}"), "a\n'b' \"c\"\u{fffd}");
    }
}
