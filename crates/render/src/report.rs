//! What every format renders: the linted files, the unreadable ones, the
//! report around them, and the positions and notes the formats share.

use std::path::Path;

use phaselint_lint::Analysis;
use phaselint_lint::diagnostic::{Diagnostic, Related};
use phaselint_lint::line_index::{ColumnUnit, LineCol};
use phaselint_lint::syntax::Span;

use crate::terminal;

/// A linted file: the path it is shown under, and its analysis.
pub struct Linted {
    pub path: std::path::PathBuf,
    pub analysis: Analysis,
}

/// `1 file`, `2 files`.
pub fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// A file that could not be read at all, and why.
pub struct Unreadable {
    pub path: std::path::PathBuf,
    pub reason: String,
}

pub struct Report<'a> {
    pub files: &'a [Linted],
    /// Files named or found that could not be read: the summary must not
    /// say that all checks passed when some were never made, nor a SARIF
    /// or JUnit report look clean.
    pub unreadable: &'a [Unreadable],
    /// The codes of the rules the run enabled (SARIF lists them); `None`
    /// for every rule.
    pub ran: Option<Vec<&'static str>>,
    /// What relative paths are relative to (SARIF's `%SRCROOT%`).
    pub working_dir: Option<std::path::PathBuf>,
    /// `--max-warnings`: JUnit fails the warnings past it.
    pub max_warnings: Option<usize>,
    /// What a baseline hid, for the summary; `None` without one.
    pub baseline: Option<BaselineCounts>,
    /// Walked files left out as other documents that share the suffix:
    /// when nothing else was checked, the summary says so rather than
    /// that all checks passed.
    pub skipped: usize,
}

/// What a baseline did to a report (`lint --baseline`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BaselineCounts {
    /// Findings it recorded, and so left out of the report.
    pub hidden: usize,
    /// Findings it records that no longer occur.
    pub fixed: usize,
    /// The baseline file as the hint to rewrite it names it.
    pub file: String,
}

impl BaselineCounts {
    /// The lines the summary ends with: what was hidden, and how the
    /// baseline can shrink when findings it records are gone.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.hidden > 0 {
            lines.push(format!(
                "{} hidden by the baseline.",
                plural(self.hidden, "finding", "findings")
            ));
        }
        if self.fixed > 0 {
            lines.push(format!(
                "{} in the baseline no longer {}: run `phaselint lint --write-baseline {}` to shrink it.",
                plural(self.fixed, "finding", "findings"),
                if self.fixed == 1 { "occurs" } else { "occur" },
                self.file
            ));
        }
        lines
    }
}

impl<'a> Report<'a> {
    pub fn new(files: &'a [Linted], unreadable: &'a [Unreadable]) -> Self {
        Report {
            files,
            unreadable,
            ran: None,
            working_dir: None,
            max_warnings: None,
            baseline: None,
            skipped: 0,
        }
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

/// Where a related location is: its file's path (the finding's own, or
/// the other file it names) and its 1-based start and end.
pub fn related_range<'a>(file: &'a Linted, related: &'a Related) -> (&'a Path, LineCol, LineCol) {
    match &related.file {
        None => {
            let (start, end) = range(file, related.span);
            (file.path.as_path(), start, end)
        }
        Some(other) => {
            let at = |offset| {
                let p = other
                    .line_index
                    .position(&other.source, offset, ColumnUnit::Chars);
                LineCol {
                    line: p.line + 1,
                    column: p.column + 1,
                }
            };
            (
                other.path.as_path(),
                at(related.span.start),
                at(related.span.end),
            )
        }
    }
}

/// The related locations in other files, as the one-line formats
/// (concise, github, gitlab, junit) add them to a finding's text:
/// `note: PATH:LINE:COL: message`, shown through `terminal::inline`. A
/// related location in the finding's own file is not shown there, as
/// before: it is the one-line formats' own file.
pub fn other_file_notes(file: &Linted, d: &Diagnostic) -> Vec<String> {
    d.related
        .iter()
        .filter(|r| r.file.is_some())
        .map(|r| {
            let (path, start, _) = related_range(file, r);
            format!(
                "note: {}:{}:{}: {}",
                terminal::inline(&path.display().to_string()),
                start.line,
                start.column,
                terminal::inline(&r.message)
            )
        })
        .collect()
}
