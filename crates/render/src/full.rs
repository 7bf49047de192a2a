//! Source snippets with labels, rustc style (codespan-reporting). Colour as
//! `--color` says (by default on a terminal, unless `NO_COLOR` is set).
//!
//! codespan-reporting reads the text through `Excerpt`, which answers lines
//! and columns from the analysis's own line index (constant time each, so
//! a file with 100,000 findings on one line is not quadratic) and shows a
//! line longer than `LONG_LINE` bytes as a window around its label, so one
//! finding never prints a megabyte.
//!
//! codespan-reporting writes the source lines it shows as they are, so it
//! is never given the source itself: each finding gets the few lines it
//! shows, escaped as `terminal::inline` escapes a value (an ESC in a comment
//! is shown as `\u{1b}`, never written), and its labels are moved to where
//! their text is in those lines, so the carets still sit under it. The
//! header's `line:column` is still the source's own.

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as Snippet, Label, Severity as Level};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, termcolor};
use std::sync::Arc;

use phaselint_lint::diagnostic::{Diagnostic, OtherFile, Severity};
use phaselint_lint::line_index::ColumnUnit;
use phaselint_lint::line_index::LineIndex;

use super::Report;
use crate::terminal::{self, Newlines};

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
        let name = terminal::inline(&file.path.display().to_string()).into_owned();
        for d in &file.analysis.diagnostics {
            let mut excerpts = Excerpts {
                files: vec![Excerpt::new(
                    name.clone(),
                    &file.analysis.source,
                    &file.analysis.line_index,
                )],
                others: Vec::new(),
            };
            let snippet = excerpts.snippet(d);
            term::emit_to_write_style(&mut buffer, &config, &excerpts, &snippet)
                .map_err(|e| io::Error::other(e.to_string()))?;
            // Written per finding: the buffer never holds a whole report.
            out.write_all(buffer.as_slice())?;
            buffer.clear();
        }
    }
    Ok(())
}

/// The files one finding shows: its own (id 0), then each other file a
/// related location points into (`phaselint diff`'s OLD), as rustc shows
/// a note in another file.
struct Excerpts<'a> {
    files: Vec<Excerpt<'a>>,
    /// The other files, by their id in `files` minus one.
    others: Vec<&'a OtherFile>,
}

/// One file as codespan-reporting sees it while rendering one finding:
/// only the lines the finding shows, escaped.
struct Excerpt<'a> {
    name: String,
    source: &'a str,
    index: &'a LineIndex,
    /// The part shown of each long line that carries a label (offsets in
    /// the source).
    windows: Vec<(usize, Range<usize>)>,
    /// The shown lines, escaped, one after another, each ended by `\n`:
    /// what codespan-reporting reads as the file.
    text: String,
    /// Where each shown line is in the source and in `text`, by line.
    lines: Vec<ShownLine>,
}

/// One line of the source as the finding shows it.
struct ShownLine {
    /// 0-based, as in the source.
    line: usize,
    /// The part of the source shown, without the line break.
    source: Range<usize>,
    /// Where that part is in `Excerpt::text`, escaped (without the `\n`
    /// that follows it).
    text: Range<usize>,
}

impl<'a> Excerpts<'a> {
    /// The id of the file a related location is in, adding it when new.
    fn file_id(&mut self, file: Option<&'a Arc<OtherFile>>) -> usize {
        let Some(other) = file else {
            return 0;
        };
        if let Some(at) = self.others.iter().position(|o| std::ptr::eq(*o, &**other)) {
            return at + 1;
        }
        self.others.push(other);
        self.files.push(Excerpt::new(
            terminal::inline(&other.path.display().to_string()).into_owned(),
            &other.source,
            &other.line_index,
        ));
        self.files.len() - 1
    }

    /// The finding as a codespan snippet, its labels fitted to what is shown.
    fn snippet(&mut self, d: &'a Diagnostic) -> Snippet<usize> {
        let level = match d.severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
            Severity::Info => Level::Note,
        };
        let mut fitted = Vec::new();
        let mut notes = Vec::new();
        let spans = std::iter::once((d.span.start..d.span.end, None, None)).chain(
            d.related
                .iter()
                .map(|r| (r.span.start..r.span.end, Some(&r.message), r.file.as_ref())),
        );
        for (i, (span, message, file)) in spans.enumerate() {
            let id = self.file_id(file);
            let excerpt = &mut self.files[id];
            match excerpt.fit(span.clone()) {
                Some(range) => fitted.push((id, i == 0, range, message)),
                None => {
                    // Off the part of a long line already shown.
                    let p = excerpt
                        .index
                        .position(excerpt.source, span.start, ColumnUnit::Chars);
                    notes.push(format!(
                        "{}:{}:{}: {}",
                        excerpt.name,
                        p.line + 1,
                        p.column + 1,
                        terminal::inline(message.map_or("here", String::as_str))
                    ));
                }
            }
        }
        for (id, excerpt) in self.files.iter_mut().enumerate() {
            excerpt.show(
                fitted
                    .iter()
                    .filter(|(file, ..)| *file == id)
                    .map(|(_, _, range, _)| range.clone()),
            );
        }
        let labels = fitted
            .into_iter()
            .map(|(id, primary, range, message)| {
                let excerpt = &self.files[id];
                let range = excerpt.shown_at(range.start)..excerpt.shown_at(range.end);
                if primary {
                    Label::primary(id, range)
                } else {
                    Label::secondary(id, range)
                        .with_message(terminal::inline(message.map_or("", String::as_str)))
                }
            })
            .collect();
        if let Some(help) = &d.help {
            notes.push(format!("help: {}", terminal::inline(help)));
        }
        if let Some(fix) = &d.fix {
            let kind = match fix.applicability {
                phaselint_lint::diagnostic::Applicability::Safe => "fix",
                phaselint_lint::diagnostic::Applicability::Unsafe => "suggestion",
            };
            notes.push(format!("{kind}: {}", terminal::inline(&fix.title)));
        }
        Snippet::new(level)
            .with_code(d.code)
            .with_message(terminal::inline(&d.message))
            .with_labels(labels)
            .with_notes(notes)
    }
}

impl<'a> Excerpt<'a> {
    fn new(name: String, source: &'a str, index: &'a LineIndex) -> Self {
        Excerpt {
            name,
            source,
            index,
            windows: Vec::new(),
            text: String::new(),
            lines: Vec::new(),
        }
    }

    /// The part of `span` that can be drawn, opening windows on long lines;
    /// `None` when it falls outside a window already open on its line.
    fn fit(&mut self, span: Range<usize>) -> Option<Range<usize>> {
        let index = self.index;
        let source = self.source;
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
        let source = self.source;
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
        let index = self.index;
        index.line_start(line)..index.line_start(line + 1)
    }

    /// The part of `line` that is shown, without its line break: its
    /// window, the whole line, or the beginning of a long line shown for
    /// context only.
    fn shown_part(&self, line: usize) -> Range<usize> {
        let source = self.source;
        let index = self.index;
        let content_end = index.line_end(source, line);
        let range = if let Some((_, window)) = self.windows.iter().find(|(l, _)| *l == line) {
            window.clone()
        } else {
            let full = self.full_line(line);
            if full.len() <= LONG_LINE {
                full
            } else {
                full.start..floor_char_boundary(source, full.start + LONG_LINE)
            }
        };
        let end = range.end.min(content_end);
        range.start.min(end)..end
    }

    /// Escapes the lines codespan-reporting may show for labels over
    /// `ranges` into `text`: every line a label touches, and the one after
    /// each (codespan shows a single line between two labelled ones rather
    /// than a break).
    fn show(&mut self, ranges: impl Iterator<Item = Range<usize>>) {
        let index = self.index;
        let last_line = index.line_count().saturating_sub(1);
        let mut wanted = BTreeSet::new();
        for range in ranges {
            let (first, last) = (index.line_of(range.start), index.line_of(range.end));
            wanted.extend(first..=(last + 1).min(last_line));
        }
        self.text.clear();
        self.lines.clear();
        for line in wanted {
            let part = self.shown_part(line);
            let start = self.text.len();
            terminal::push_escaped(&mut self.text, &self.source[part.clone()], Newlines::Escape);
            self.lines.push(ShownLine {
                line,
                source: part,
                text: start..self.text.len(),
            });
            self.text.push('\n');
        }
    }

    fn shown_line(&self, line: usize) -> Option<&ShownLine> {
        self.lines
            .binary_search_by_key(&line, |l| l.line)
            .ok()
            .map(|i| &self.lines[i])
    }

    /// Where the source's `offset` is in `text`. An offset past the shown
    /// part of its line (in its line break) is the end of that part.
    fn shown_at(&self, offset: usize) -> usize {
        let line = self.index.line_of(offset);
        let Some(shown) = self.shown_line(line) else {
            return 0;
        };
        let at = offset.clamp(shown.source.start, shown.source.end);
        let before = &self.source[shown.source.start..floor_char_boundary(self.source, at)];
        shown.text.start + before.chars().map(terminal::inline_len).sum::<usize>()
    }

    /// Where `text`'s `at` came from in the source: the start of the
    /// character whose escape holds it.
    fn source_at(&self, at: usize) -> usize {
        let i = self.lines.partition_point(|l| l.text.start <= at);
        let Some(shown) = i.checked_sub(1).and_then(|i| self.lines.get(i)) else {
            return 0;
        };
        let mut text = shown.text.start;
        for (offset, c) in self.source[shown.source.clone()].char_indices() {
            let next = text + terminal::inline_len(c);
            if at < next {
                return shown.source.start + offset;
            }
            text = next;
        }
        shown.source.end
    }
}

impl<'a> Files<'a> for Excerpts<'a> {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, FilesError> {
        Ok(&self.file(id)?.name)
    }

    /// The shown lines, escaped: never the source itself.
    fn source(&'a self, id: usize) -> Result<&'a str, FilesError> {
        Ok(&self.file(id)?.text)
    }

    fn line_index(&'a self, id: usize, byte_index: usize) -> Result<usize, FilesError> {
        let excerpt = self.file(id)?;
        let i = excerpt
            .lines
            .partition_point(|l| l.text.start <= byte_index);
        Ok(i.checked_sub(1)
            .and_then(|i| excerpt.lines.get(i))
            .map_or(0, |l| l.line))
    }

    fn line_range(&'a self, id: usize, line_index: usize) -> Result<Range<usize>, FilesError> {
        // Only the lines `show` escaped exist here (codespan asks for no
        // others with the default configuration: no context lines).
        let excerpt = self.file(id)?;
        excerpt
            .shown_line(line_index)
            .map(|l| l.text.start..l.text.end + 1)
            .ok_or(FilesError::LineTooLarge {
                given: line_index,
                max: excerpt.index.line_count().saturating_sub(1),
            })
    }

    /// The column in the source, not in the escaped line: the header's
    /// `line:column` is the one an editor goes to.
    fn column_number(
        &'a self,
        id: usize,
        _line_index: usize,
        byte_index: usize,
    ) -> Result<usize, FilesError> {
        let excerpt = self.file(id)?;
        let p = excerpt.index.position(
            excerpt.source,
            excerpt.source_at(byte_index),
            ColumnUnit::Chars,
        );
        Ok(p.column + 1)
    }
}

impl Excerpts<'_> {
    fn file(&self, id: usize) -> Result<&Excerpt<'_>, FilesError> {
        self.files.get(id).ok_or(FilesError::FileMissing)
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
