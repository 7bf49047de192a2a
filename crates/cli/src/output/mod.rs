//! Renderers: each turns the same findings into one output format.

mod concise;
mod full;
mod github;
mod json;

use std::collections::BTreeMap;
use std::io::{self, Write};

use phaselint_lint::diagnostic::{Applicability, Diagnostic, Severity};
use phaselint_lint::line_index::{ColumnUnit, LineCol};
use phaselint_lint::rules::rule;
use phaselint_lint::syntax::Span;

use crate::Format;
use crate::lint::{Linted, plural};

pub struct Report<'a> {
    pub files: &'a [Linted],
    /// Files named or found that could not be read: the summary must not
    /// say that all checks passed when some were never made.
    pub unreadable: usize,
}

impl<'a> Report<'a> {
    pub fn new(files: &'a [Linted], unreadable: usize) -> Self {
        Report { files, unreadable }
    }

    pub fn diagnostics(&self) -> impl Iterator<Item = (&'a Linted, &'a Diagnostic)> {
        self.files
            .iter()
            .flat_map(|f| f.analysis.diagnostics.iter().map(move |d| (f, d)))
    }
}

/// A 1-based line and character column, as every text format shows them.
pub fn position(file: &Linted, offset: usize) -> LineCol {
    let analysis = &file.analysis;
    let p = analysis
        .line_index
        .position(&analysis.source, offset, ColumnUnit::Chars);
    LineCol {
        line: p.line + 1,
        column: p.column + 1,
    }
}

pub fn range(file: &Linted, span: Span) -> (LineCol, LineCol) {
    (position(file, span.start), position(file, span.end))
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
        }
        if style.summary && matches!(format, Format::Full | Format::Concise) {
            summary(report, &mut out)?;
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
    let files = plural(report.files.len(), "file", "files");
    let unread = plural(report.unreadable, "file", "files");
    match (parts.as_slice(), report.unreadable) {
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
        *counts.entry(d.code).or_default() += 1;
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
        serde_json::to_writer_pretty(
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
        }
    }
    Ok(())
}
