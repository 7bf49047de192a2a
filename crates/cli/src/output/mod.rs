//! Renderers: each turns the same findings into one output format.

mod concise;
mod full;
mod github;
mod json;

use std::collections::BTreeMap;
use std::io::{self, Write};

use phaselint_lint::diagnostic::{Diagnostic, Severity};
use phaselint_lint::line_index::{ColumnUnit, LineCol};
use phaselint_lint::rules::rule;
use phaselint_lint::syntax::Span;

use crate::Format;
use crate::lint::Linted;

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

pub fn render(report: &Report<'_>, format: Format) -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match format {
        Format::Full => full::render(report, &mut out)?,
        Format::Concise => concise::render(report, &mut out)?,
        Format::Json => json::render(report, &mut out)?,
        Format::Github => github::render(report, &mut out)?,
    }
    out.flush()
}

/// The closing line of the text formats.
fn summary(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    let count = |s| {
        report
            .diagnostics()
            .filter(|(_, d)| d.severity == s)
            .count()
    };
    let (errors, warnings, infos) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    let files = report.files.len();
    let noun = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let unread = if report.unreadable == 0 {
        String::new()
    } else {
        format!(
            "; {} could not be read",
            noun(report.unreadable, "file", "files")
        )
    };
    if errors + warnings + infos == 0 && report.unreadable == 0 {
        writeln!(out, "All checks passed ({}).", noun(files, "file", "files"))
    } else {
        writeln!(
            out,
            "Found {}, {}, {} in {}{unread}.",
            noun(errors, "error", "errors"),
            noun(warnings, "warning", "warnings"),
            noun(infos, "info", "infos"),
            noun(files, "file", "files")
        )
    }
}

/// `--statistics`: findings per rule, most frequent first.
pub fn statistics(report: &Report<'_>, format: Format) -> io::Result<()> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, d) in report.diagnostics() {
        *counts.entry(d.code).or_default() += 1;
    }
    let mut rows: Vec<(&str, usize)> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
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
            &mut out,
            &serde_json::json!({"version": 1, "statistics": rows}),
        )?;
        writeln!(out)?;
    } else {
        for (code, count) in &rows {
            let name = rule(code).map_or("", |r| r.name);
            writeln!(out, "{count:>5}  {code}  {name}")?;
        }
        summary(report, &mut out)?;
    }
    out.flush()
}
