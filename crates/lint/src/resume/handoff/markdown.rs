//! Reading a handoff's Markdown: its sections, its tables and rows, the
//! bound on its elements before parsing, and the lines that look like rows.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::line_index::LineIndex;

/// Markdown elements a handoff may have: its lines, its markup characters,
/// and the cells a table row may be filled up to (`markdown_elements`).
/// What parsing costs grows with them, so it is bounded before parsing.
/// It is below the cells pulldown-cmark fills in per table at most
/// (2^18 = 262,144), so that limit can never cut a table short.
pub(crate) const MAX_MARKDOWN_ELEMENTS: usize = 250_000;

/// Rows of the task table that are read.
pub(crate) const MAX_TASKS: usize = 10_000;

/// One `## ` section and what it holds.
#[derive(Default)]
pub(super) struct Section {
    /// The heading as written.
    pub(super) title: String,
    pub(super) line: usize,
    /// Its text outside lists and tables, paragraphs joined by newlines.
    pub(super) text: String,
    /// Where that text starts.
    pub(super) text_line: Option<usize>,
    /// Top-level list items: text and line.
    pub(super) items: Vec<(String, usize)>,
    pub(super) tables: Vec<Table>,
    /// Where what follows its heading is in the text, up to the next
    /// section's heading.
    pub(super) body: std::ops::Range<usize>,
}

#[derive(Default)]
pub(super) struct Table {
    pub(super) line: usize,
    pub(super) header: Vec<String>,
    /// The first `MAX_TASKS` rows.
    pub(super) rows: Vec<Row>,
    /// Rows past those.
    pub(super) more_rows: usize,
    /// Its last line (rows are one line each, one after another).
    pub(super) last_line: usize,
    /// The line right after the table when a paragraph or another table
    /// starts there: the parser stopped reading the table before its rows
    /// ended.
    pub(super) cut_at: Option<usize>,
}

pub(super) struct Row {
    /// As the parser read them: as many as the header has.
    pub(super) cells: Vec<String>,
    pub(super) line: usize,
    /// As many as the row's text has (`row_cells`).
    pub(super) written: usize,
}

/// Where text goes while walking the events.
pub(super) enum Sink {
    Heading(String),
    Body,
}

/// The document's title (its first `# ` heading, with its line) and its
/// `## ` sections.
pub(super) fn sections(text: &str, lines: &LineIndex) -> (Option<(String, usize)>, Vec<Section>) {
    let line_of = |offset: usize| lines.line_of(offset) + 1;
    let mut title: Option<(String, usize)> = None;
    let mut sections: Vec<Section> = Vec::new();
    let mut sink = Sink::Body;
    let mut list_depth = 0usize;
    let mut in_cell = false;
    let mut in_head = false;
    let mut cell = String::new();
    let mut row: Vec<String> = Vec::new();
    let mut row_line = 0;
    let mut row_written = 0;
    // Whether the events are inside a table, and where the last table
    // ended until the next block starts: a table the parser stopped
    // reading before its rows ended (past the cells it fills in) holds, or
    // is followed on the next line by, a paragraph of the rest.
    let mut in_table = false;
    let mut after_table: Option<usize> = None;
    let events = Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter();
    for (event, range) in events {
        if let Event::Start(tag) = &event {
            let next_line = after_table
                .take()
                .is_some_and(|end| line_of(range.start) == line_of(end));
            if matches!(tag, Tag::Paragraph | Tag::Table(_))
                && (in_table || next_line)
                && let Some(table) = sections.last_mut().and_then(|s| s.tables.last_mut())
            {
                table.cut_at.get_or_insert(line_of(range.start));
            }
        }
        match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H1,
                ..
            }) if title.is_none() => {
                sink = Sink::Heading(String::new());
                title = Some((String::new(), line_of(range.start)));
            }
            Event::End(TagEnd::Heading(HeadingLevel::H1)) => {
                if let (Sink::Heading(text), Some((written, _))) =
                    (std::mem::replace(&mut sink, Sink::Body), title.as_mut())
                    && written.is_empty()
                {
                    *written = text.trim().to_string();
                }
            }
            Event::Start(Tag::Heading {
                level: HeadingLevel::H2,
                ..
            }) => {
                sink = Sink::Heading(String::new());
                if let Some(section) = sections.last_mut() {
                    section.body.end = range.start;
                }
            }
            Event::End(TagEnd::Heading(HeadingLevel::H2)) => {
                if let Sink::Heading(title) = std::mem::replace(&mut sink, Sink::Body) {
                    sections.push(Section {
                        title: title.trim().to_string(),
                        line: line_of(range.start),
                        body: range.end..text.len(),
                        ..Section::default()
                    });
                }
            }
            Event::Start(Tag::List(_)) => list_depth += 1,
            Event::End(TagEnd::List(_)) => list_depth = list_depth.saturating_sub(1),
            Event::Start(Tag::Item) if list_depth == 1 => {
                if let Some(section) = sections.last_mut() {
                    section.items.push((String::new(), line_of(range.start)));
                }
            }
            Event::Start(Tag::Table(_)) => {
                in_table = true;
                if let Some(section) = sections.last_mut() {
                    section.tables.push(Table {
                        line: line_of(range.start),
                        ..Table::default()
                    });
                }
            }
            Event::End(TagEnd::Table) => {
                in_table = false;
                after_table = Some(range.end);
            }
            Event::Start(Tag::TableHead) => {
                in_head = true;
                row.clear();
            }
            Event::End(TagEnd::TableHead) => {
                in_head = false;
                if let Some(table) = sections.last_mut().and_then(|s| s.tables.last_mut()) {
                    table.header = std::mem::take(&mut row);
                    // The delimiter row.
                    table.last_line = line_of(range.start) + 1;
                }
            }
            Event::Start(Tag::TableRow) => {
                row.clear();
                row_line = line_of(range.start);
                row_written = row_cells(text.get(range.clone()).unwrap_or_default());
            }
            Event::End(TagEnd::TableRow) if !in_head => {
                if let Some(table) = sections.last_mut().and_then(|s| s.tables.last_mut()) {
                    table.last_line = row_line;
                    if table.rows.len() < MAX_TASKS {
                        table.rows.push(Row {
                            cells: std::mem::take(&mut row),
                            line: row_line,
                            written: row_written,
                        });
                    } else {
                        table.more_rows += 1;
                    }
                }
                row.clear();
            }
            Event::Start(Tag::TableCell) => {
                in_cell = true;
                cell.clear();
            }
            Event::End(TagEnd::TableCell) => {
                in_cell = false;
                row.push(cell.trim().to_string());
            }
            Event::Text(t) | Event::Code(t) | Event::InlineHtml(t) | Event::Html(t) => {
                if let (Sink::Body, false, 0, Some(section)) =
                    (&sink, in_cell, list_depth, sections.last_mut())
                {
                    section.text_line.get_or_insert(line_of(range.start));
                }
                write_text(&mut sink, &mut sections, in_cell, &mut cell, list_depth, &t);
            }
            Event::SoftBreak | Event::HardBreak => {
                write_text(
                    &mut sink,
                    &mut sections,
                    in_cell,
                    &mut cell,
                    list_depth,
                    " ",
                );
            }
            Event::End(TagEnd::Paragraph | TagEnd::CodeBlock) if list_depth == 0 && !in_cell => {
                if let (Sink::Body, Some(section)) = (&sink, sections.last_mut()) {
                    section.text.push('\n');
                }
            }
            _ => {}
        }
    }
    (title, sections)
}

/// The cells a table row's text has, as GitHub Flavored Markdown splits
/// it: at each `|` not escaped with `\` (inside code spans too), a leading
/// and a trailing `|` opening and closing the row. The parser fills in or
/// drops cells to match the header; this counts what was written.
pub fn row_cells(row: &str) -> usize {
    let bytes = row.as_bytes();
    let mut i = 0;
    let mut cells = 0;
    // A row may be indented (up to three spaces in a table): that is no cell.
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    loop {
        if bytes.get(i) == Some(&b'|') {
            i += 1;
        }
        while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\x0b' | b'\x0c')) {
            i += 1;
        }
        if matches!(bytes.get(i), None | Some(b'\n' | b'\r')) {
            return cells;
        }
        cells += 1;
        while let Some(&b) = bytes.get(i) {
            if b == b'\n'
                || b == b'\r'
                || (b == b'|' && bytes.get(i.wrapping_sub(1)) != Some(&b'\\'))
            {
                break;
            }
            i += 1;
        }
    }
}

/// The lines of a text and where each starts, each line break (`\n`,
/// `\r\n` or a lone `\r`, as CommonMark has them) left out.
pub(super) fn lines_of(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = Some(0);
    std::iter::from_fn(move || {
        let from = start?;
        let rest = &text[from..];
        match rest.find(['\n', '\r']) {
            None => {
                start = None;
                Some((from, rest))
            }
            Some(end) => {
                let after = if rest[end..].starts_with("\r\n") {
                    end + 2
                } else {
                    end + 1
                };
                start = Some(from + after).filter(|&next| next < text.len());
                Some((from, &rest[..end]))
            }
        }
    })
}

/// The Markdown elements of a text, counted from above without parsing:
/// one per line, one per markup character (each can start an inline
/// element, a list item, a quote level), and for each line that may be a
/// row of a table, the cells of the widest delimiter row (`|---|`) above it
/// since the last blank line (the cells a parser fills a short row up to).
pub(crate) fn markdown_elements(text: &str) -> usize {
    const MARKUP: &[u8] = b"*_&\\[]<>!`|-+.)";
    let mut count = 0usize;
    let mut columns = 0usize;
    for (_, line) in lines_of(text) {
        count += 1 + line.bytes().filter(|b| MARKUP.contains(b)).count();
        let content = line.trim_start_matches([' ', '\t', '>']);
        if content.bytes().all(|b| b == b' ' || b == b'\t') {
            columns = 0;
            continue;
        }
        count += columns;
        let delimiter = content.contains('-')
            && content
                .bytes()
                .all(|b| matches!(b, b'|' | b'-' | b':' | b' ' | b'\t'));
        if delimiter {
            columns = columns.max(content.matches('|').count() + 1);
        }
    }
    count
}

pub(super) fn write_text(
    sink: &mut Sink,
    sections: &mut [Section],
    in_cell: bool,
    cell: &mut String,
    list_depth: usize,
    text: &str,
) {
    if let Sink::Heading(title) = sink {
        title.push_str(text);
        return;
    }
    if in_cell {
        cell.push_str(text);
        return;
    }
    let Some(section) = sections.last_mut() else {
        return;
    };
    match section.items.last_mut() {
        Some((item, _)) if list_depth > 0 => item.push_str(text),
        _ => section.text.push_str(text),
    }
}

/// Whether a line of the section starts like a table row: a task table
/// written wrongly is not the note of a partial handoff.
pub(super) fn section_has_row_like_line(text: &str, section: &Section) -> bool {
    let source = text.get(section.body.clone()).unwrap_or_default();
    lines_of(source).any(|(_, line)| looks_like_row(line))
}

/// Whether a line reads as a row of a table: it starts with `|`, or
/// Markdown would split it into cells (a row may leave out its outer
/// pipes), so a task written there is not mistaken for prose.
pub(super) fn looks_like_row(line: &str) -> bool {
    let line = line.trim_start_matches([' ', '\t', '>']);
    line.starts_with('|') || row_cells(line) >= 2
}

/// Whether the section holds an HTML table: tasks there are not read.
pub(super) fn section_has_html_table(text: &str, section: &Section) -> bool {
    let source = text.get(section.body.clone()).unwrap_or_default();
    source.to_ascii_lowercase().contains("<table")
}

/// An owner cell that names nobody: empty, a dash of any kind, a word
/// for none, or only invisible characters.
pub(super) fn names_nobody(owner: &str) -> bool {
    let visible: String = owner
        .chars()
        .filter(|c| {
            !c.is_whitespace()
                && !matches!(
                    c,
                    '\u{200b}'..='\u{200f}' | '\u{2060}' | '\u{feff}' | '\u{00ad}'
                )
        })
        .collect();
    visible.is_empty()
        || visible
            .chars()
            .all(|c| matches!(c, '-' | '\u{2010}'..='\u{2015}' | '\u{2212}'))
        || [
            "none",
            "n/a",
            "na",
            "nobody",
            "unassigned",
            "tbd",
            "null",
            "nil",
        ]
        .iter()
        .any(|word| visible.eq_ignore_ascii_case(word))
}

/// What a section says in place of a table, on one line and cut short.
pub(super) fn note_of(section: &Section) -> String {
    const SHOWN: usize = 200;
    let mut words: Vec<&str> = section.text.split_whitespace().collect();
    for (item, _) in &section.items {
        words.extend(item.split_whitespace());
    }
    let note = words.join(" ");
    match note.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &note[..cut]),
        None => note,
    }
}

/// The phase number a title names: the number after the word "phase"
/// (`# Phase 3 Checkpoint Handoff`); `None` for the skill's template
/// (`# Phase N …`) or a title without one.
pub(super) fn phase_named_in(title: &str) -> Option<u64> {
    let words: Vec<&str> = title.split_whitespace().collect();
    words.windows(2).find_map(|pair| {
        let number = pair[1].trim_end_matches([':', ',', '.']);
        (pair[0].eq_ignore_ascii_case("phase")
            && !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit()))
        .then(|| number.parse().ok())
        .flatten()
    })
}
