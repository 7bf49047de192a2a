//! Source snippets with labels, rustc style (codespan-reporting). Colour as
//! `--color` says (by default on a terminal, unless `NO_COLOR` is set).
//!
//! codespan-reporting reads the text through `Excerpt`, which answers lines
//! and columns from the analysis's own line index (constant time each, so
//! a file with 100,000 findings on one line is not quadratic) and shows a
//! line longer than `LONG_LINE` bytes as a window around its label, so one
//! finding never prints a megabyte.

use std::io::{self, Write};
use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as Snippet, Label, Severity as Level};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, termcolor};
use phaselint_lint::Analysis;
use phaselint_lint::diagnostic::{Diagnostic, Severity};
use phaselint_lint::line_index::ColumnUnit;

use super::Report;

/// Lines longer than this are shown as a window around their labels.
const LONG_LINE: usize = 500;
/// Bytes shown on each side of a label on a long line.
const MARGIN: usize = 200;
/// A label over more lines than this is shown on its first line only.
const MAX_LABEL_LINES: usize = 20;

pub fn render(report: &Report<'_>, color: bool, out: &mut impl Write) -> io::Result<()> {
    let config = term::Config::default();
    let mut buffer = if color {
        termcolor::Buffer::ansi()
    } else {
        termcolor::Buffer::no_color()
    };
    for file in report.files {
        let name = file.path.display().to_string();
        for d in &file.analysis.diagnostics {
            let mut excerpt = Excerpt {
                name: &name,
                analysis: &file.analysis,
                windows: Vec::new(),
            };
            let snippet = excerpt.snippet(d);
            term::emit_to_write_style(&mut buffer, &config, &excerpt, &snippet)
                .map_err(|e| io::Error::other(e.to_string()))?;
            // Written per finding: the buffer never holds a whole report.
            out.write_all(buffer.as_slice())?;
            buffer.clear();
        }
    }
    Ok(())
}

/// One file as codespan-reporting sees it while rendering one finding.
struct Excerpt<'a> {
    name: &'a str,
    analysis: &'a Analysis,
    /// The part shown of each long line that carries a label.
    windows: Vec<(usize, Range<usize>)>,
}

impl Excerpt<'_> {
    /// The finding as a codespan snippet, its labels fitted to what is shown.
    fn snippet(&mut self, d: &Diagnostic) -> Snippet<()> {
        let level = match d.severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
            Severity::Info => Level::Note,
        };
        let mut labels = Vec::new();
        let mut notes = Vec::new();
        let spans = std::iter::once((d.span.start..d.span.end, None)).chain(
            d.related
                .iter()
                .map(|r| (r.span.start..r.span.end, Some(&r.message))),
        );
        for (i, (span, message)) in spans.enumerate() {
            match self.fit(span.clone()) {
                Some(range) if i == 0 => labels.push(Label::primary((), range)),
                Some(range) => labels.push(
                    Label::secondary((), range).with_message(message.cloned().unwrap_or_default()),
                ),
                None => {
                    // Off the part of a long line already shown.
                    let p = self.analysis.line_index.position(
                        &self.analysis.source,
                        span.start,
                        ColumnUnit::Chars,
                    );
                    notes.push(format!(
                        "{}:{}:{}: {}",
                        self.name,
                        p.line + 1,
                        p.column + 1,
                        message.map_or("here", String::as_str)
                    ));
                }
            }
        }
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
        Snippet::new(level)
            .with_code(d.code)
            .with_message(&d.message)
            .with_labels(labels)
            .with_notes(notes)
    }

    /// The part of `span` that can be drawn, opening windows on long lines;
    /// `None` when it falls outside a window already open on its line.
    fn fit(&mut self, span: Range<usize>) -> Option<Range<usize>> {
        let index = &self.analysis.line_index;
        let source = self.analysis.source.as_str();
        let start = floor_char_boundary(source, span.start.min(source.len()));
        let mut end = floor_char_boundary(source, span.end.clamp(start, source.len()));
        let first = index.line_of(start);
        if index.line_of(end) > first + MAX_LABEL_LINES {
            end = index.line_end(source, first).max(start);
        }
        let last = index.line_of(end);
        let start_window = self.window(first, start, if first == last { end } else { start })?;
        let start = start.max(start_window.start);
        let end = if first == last {
            end.min(start_window.end)
        } else {
            let end_window = self.window(last, end, end)?;
            end.min(end_window.end)
        };
        Some(start..end.max(start))
    }

    /// The window of `line` that shows `from..to`, opening one if the line
    /// is long and has none; `None` if an open one does not show `from`.
    fn window(&mut self, line: usize, from: usize, to: usize) -> Option<Range<usize>> {
        let full = self.full_line(line);
        if full.len() <= LONG_LINE {
            return Some(full);
        }
        if let Some((_, window)) = self.windows.iter().find(|(l, _)| *l == line) {
            return window.contains(&from).then(|| window.clone());
        }
        let source = self.analysis.source.as_str();
        let start = floor_char_boundary(source, from.saturating_sub(MARGIN).max(full.start));
        let end = ceil_char_boundary(
            source,
            to.min(from + LONG_LINE)
                .saturating_add(MARGIN)
                .min(full.end),
        );
        self.windows.push((line, start..end));
        Some(start..end)
    }

    /// The line with its line break, as codespan-reporting's own files give it.
    fn full_line(&self, line: usize) -> Range<usize> {
        let index = &self.analysis.line_index;
        index.line_start(line)..index.line_start(line + 1)
    }
}

impl<'a> Files<'a> for Excerpt<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(&self.analysis.source)
    }

    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, FilesError> {
        Ok(self.analysis.line_index.line_of(byte_index))
    }

    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, FilesError> {
        if line_index >= self.analysis.line_index.line_count() {
            return Err(FilesError::LineTooLarge {
                given: line_index,
                max: self.analysis.line_index.line_count().saturating_sub(1),
            });
        }
        if let Some((_, window)) = self.windows.iter().find(|(l, _)| *l == line_index) {
            return Ok(window.clone());
        }
        let full = self.full_line(line_index);
        if full.len() <= LONG_LINE {
            return Ok(full);
        }
        // A long line shown for context only: its beginning.
        let end = floor_char_boundary(&self.analysis.source, full.start + LONG_LINE);
        Ok(full.start..end)
    }

    fn column_number(
        &'a self,
        (): (),
        _line_index: usize,
        byte_index: usize,
    ) -> Result<usize, FilesError> {
        let analysis = self.analysis;
        let p = analysis
            .line_index
            .position(&analysis.source, byte_index, ColumnUnit::Chars);
        Ok(p.column + 1)
    }
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_char_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}
