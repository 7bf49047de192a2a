//! Renderers: each turns the same findings into one output format. Library
//! code, so each is tested without spawning the binary; the CLI picks the
//! format and the stream.

mod concise;
mod full;
mod github;
mod gitlab;
pub mod graph;
mod harness;
mod json;
mod junit;
mod queue;
mod report;
mod resume;
mod safe_json;
mod sarif;
pub mod terminal;
mod xml;

use std::collections::BTreeMap;
use std::io::{self, Write};

use phaselint_lint::DocumentKind;
use phaselint_lint::diagnostic::{Applicability, Severity};
use phaselint_lint::rules::rule;

pub use harness::{harness_fire_human, harness_human, harness_status_human};
pub use queue::{question_detail, question_help, question_human, queue_human, trigger_words};
pub use report::{
    BaselineCounts, Linted, Report, Unreadable, other_file_notes, plural, position, range,
    related_range,
};
pub use resume::{handoff_human, manifest_human, resume_human};
/// Pretty JSON whose bytes hold no control character a terminal acts on.
pub use safe_json::to_writer_pretty as write_json_pretty;

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Source snippets with labels, and the help.
    Full,
    /// One line per finding: `path:line:col: CODE message; help: ...`.
    Concise,
    /// Versioned, stable JSON.
    Json,
    /// GitHub Actions workflow commands.
    Github,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitLab Code Quality JSON.
    Gitlab,
    /// JUnit XML: a testsuite per file.
    Junit,
}

/// How a report is shown: colour, and whether the closing summary line is.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    pub summary: bool,
}

/// Writes the report (or `--statistics`) in `format` to `out`.
pub fn write(
    report: &Report<'_>,
    format: Format,
    statistics: bool,
    style: Style,
    out: impl Write,
) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    if statistics {
        write_statistics(report, format, style, &mut out)?;
    } else {
        match format {
            Format::Full => full::render(report, style.color, &mut out)?,
            Format::Concise => concise::render(report, &mut out)?,
            Format::Json => json::render(report, &mut out)?,
            Format::Github => github::render(report, &mut out)?,
            Format::Sarif => sarif::render(report, &mut out)?,
            Format::Gitlab => gitlab::render(report, &mut out)?,
            Format::Junit => junit::render(report, &mut out)?,
        }
        if style.summary && matches!(format, Format::Full | Format::Concise) {
            summary(report, &mut out)?;
            baseline_summary(report, &mut out)?;
        }
    }
    out.flush()
}

/// The closing line of the text formats: only the counts that are not
/// zero, in the words a person would use ("Found 1 error and 2 warnings in
/// 3 files.").
fn summary(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    let count = |s| {
        report
            .diagnostics()
            .filter(|(_, d)| d.severity == s)
            .count()
    };
    let counts = [
        (count(Severity::Error), "error", "errors"),
        (count(Severity::Warning), "warning", "warnings"),
        (count(Severity::Info), "info", "infos"),
    ];
    let parts: Vec<String> = counts
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|&(n, one, many)| plural(n, one, many))
        .collect();
    let files = checked_files(report);
    let unread = plural(report.unreadable.len(), "file", "files");
    match (parts.as_slice(), report.unreadable.len()) {
        ([], 0) if report.files.is_empty() => {
            writeln!(out, "{}.", nothing_checked(report).unwrap_or_default())
        }
        ([], 0) => writeln!(out, "All checks passed ({files})."),
        ([], _) => writeln!(
            out,
            "No findings in {files}, but {unread} could not be read."
        ),
        (parts, unreadable) => {
            let found = match parts {
                [one] => one.clone(),
                [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
                [] => String::new(),
            };
            let unread = if unreadable == 0 {
                String::new()
            } else {
                format!("; {unread} could not be read")
            };
            writeln!(out, "Found {found} in {files}{unread}.")?;
            fixable(report, out)
        }
    }
}

/// What the summary says of a run that checked no file, rather than
/// "All checks passed (0 files)", which would claim a check that never
/// ran; `None` when some file was checked or could not be read.
pub fn nothing_checked(report: &Report<'_>) -> Option<String> {
    if !report.files.is_empty() || !report.unreadable.is_empty() {
        return None;
    }
    Some(match report.skipped {
        0 => "No files checked".to_string(),
        skipped => format!(
            "No files checked: {} skipped (not phaselint documents); run with --verbose to see why",
            plural(skipped, "file was", "files were")
        ),
    })
}

/// The files a summary counts: `3 files` when all are contracts, else
/// by kind (`2 contracts and 1 harness config`), so a harness config
/// checked is never taken for a contract.
fn checked_files(report: &Report<'_>) -> String {
    let harness = report
        .files
        .iter()
        .filter(|f| f.analysis.kind == DocumentKind::Harness)
        .count();
    let contracts = report.files.len() - harness;
    match (contracts, harness) {
        (all, 0) => plural(all, "file", "files"),
        (0, harness) => plural(harness, "harness config", "harness configs"),
        (contracts, harness) => format!(
            "{} and {}",
            plural(contracts, "contract", "contracts"),
            plural(harness, "harness config", "harness configs")
        ),
    }
}

/// How many findings `--fix` would fix, as ruff says it: a fix nobody hears
/// of is never applied.
fn fixable(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    let count = |applicability| {
        report
            .diagnostics()
            .filter(|(_, d)| {
                d.fix
                    .as_ref()
                    .is_some_and(|f| f.applicability == applicability)
            })
            .count()
    };
    match (count(Applicability::Safe), count(Applicability::Unsafe)) {
        (0, 0) => Ok(()),
        (safe, 0) => writeln!(out, "[*] {safe} fixable with `--fix`."),
        (0, guesses) => writeln!(
            out,
            "[*] {guesses} fixable with `--fix --unsafe-fixes` (did-you-mean guesses: preview them with `--diff --unsafe-fixes`)."
        ),
        (safe, guesses) => writeln!(
            out,
            "[*] {safe} fixable with `--fix`, {guesses} more with `--fix --unsafe-fixes` (did-you-mean guesses: preview them with `--diff --unsafe-fixes`)."
        ),
    }
}

/// `--statistics`: findings per rule, most frequent first.
fn write_statistics(
    report: &Report<'_>,
    format: Format,
    style: Style,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, d) in report.diagnostics() {
        *counts.entry(d.code.as_str()).or_default() += 1;
    }
    let mut rows: Vec<(&str, usize)> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    if format == Format::Json {
        let rows: Vec<_> = rows
            .iter()
            .map(|(code, count)| {
                serde_json::json!({
                    "code": code,
                    "name": rule(code).map(|r| r.name),
                    "count": count,
                })
            })
            .collect();
        safe_json::to_writer_pretty(
            &mut *out,
            &serde_json::json!({"version": 1, "statistics": rows}),
        )?;
        writeln!(out)?;
    } else {
        for (code, count) in &rows {
            let name = rule(code).map_or("", |r| r.name);
            writeln!(out, "{count:>5}  {code}  {name}")?;
        }
        if style.summary {
            summary(report, out)?;
            baseline_summary(report, out)?;
        }
    }
    Ok(())
}

fn baseline_summary(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    for line in report.baseline.iter().flat_map(BaselineCounts::lines) {
        writeln!(out, "{}", terminal::inline(&line))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use phaselint_lint::config::Settings;

    fn linted(text: &str) -> Vec<Linted> {
        vec![Linted {
            path: "x.contract.yaml".into(),
            analysis: phaselint_lint::analyze(text, &Settings::default()),
        }]
    }

    fn render(files: &[Linted], format: Format, summary: bool) -> String {
        let mut out = Vec::new();
        let style = Style {
            color: false,
            summary,
        };
        write(&Report::new(files, &[]), format, false, style, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    const TYPO: &str = "# phaselint: disable-file=C204\nschema_version: '1'\npipeline_id: p\nphases:\n  retrieve: {}\ncheckpoint_integrity:\n  - { checkpoint_id: k, phase: retreive }\n";

    #[test]
    fn concise_carries_the_help_and_a_summary_that_counts() {
        assert_eq!(
            render(&linted(TYPO), Format::Concise, true),
            "x.contract.yaml:7:32: R101 [error] checkpoint phase `retreive` is not a declared phase; help: did you mean `retrieve`?\n\
             Found 1 error in 1 file.\n\
             [*] 1 fixable with `--fix --unsafe-fixes` (did-you-mean guesses: preview them with `--diff --unsafe-fixes`).\n"
        );
        let clean = linted("schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\n");
        assert_eq!(
            render(&clean, Format::Concise, true),
            "All checks passed (1 file).\n"
        );
        assert_eq!(render(&clean, Format::Concise, false), "");
    }

    #[test]
    fn json_is_versioned_with_one_based_character_columns_and_the_fix() {
        let value: serde_json::Value =
            serde_json::from_str(&render(&linted(TYPO), Format::Json, true)).unwrap();
        assert_eq!(value["version"], 1);
        let d = &value["diagnostics"][0];
        assert_eq!(d["code"], "R101");
        assert_eq!(d["start"], serde_json::json!({"line": 7, "column": 32}));
        assert_eq!(d["fix"]["applicability"], "unsafe");
        assert_eq!(d["fix"]["edits"][0]["replacement"], "retrieve");
    }

    #[test]
    fn full_shows_the_snippet_the_label_and_the_help() {
        let text = render(&linted(TYPO), Format::Full, false);
        assert!(
            text.starts_with("error[R101]: checkpoint phase `retreive` is not a declared phase\n"),
            "{text}"
        );
        assert!(
            text.contains("7 │   - { checkpoint_id: k, phase: retreive }"),
            "{text}"
        );
        assert!(text.contains("= help: did you mean `retrieve`?"), "{text}");
    }
}
