//! Team handoff documents (docs/resume-check.md): the Markdown a team
//! session writes when it checkpoints, which a new session rehydrates from.
//! Read with a CommonMark parser (tables included), so headings in code
//! blocks, escaped pipes and inline markup in cells read as Markdown means
//! them. Every problem is collected with its line; the verdict is the
//! resume check's (`decide`), so modes mean what they mean for contracts.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Serialize;

use super::report::{Decision, Mode, decide};
use super::staleness::parse_timestamp;
use crate::duration::format_seconds;
use crate::line_index::LineIndex;
use jiff::Timestamp;

/// The sections every handoff has, as the checkpoint skill writes them.
pub const REQUIRED_SECTIONS: &[&str] = &[
    "Timestamp",
    "Reason",
    "Team Composition",
    "Task States",
    "Review Tracking",
    "Resumption Notes",
];

/// Task statuses a task list uses.
pub const STATUSES: &[&str] = &["pending", "in_progress", "completed", "blocked"];

/// Markdown elements a handoff may have: its lines, its markup characters,
/// and the cells a table row may be filled up to (`markdown_elements`).
/// What parsing costs grows with them, so it is bounded before parsing.
/// It is below the cells pulldown-cmark fills in per table at most
/// (2^18 = 262,144), so that limit can never cut a table short.
pub const MAX_MARKDOWN_ELEMENTS: usize = 250_000;

/// Rows of the task table that are read.
pub const MAX_TASKS: usize = 10_000;

/// Lines reported one by one as looking like rows outside the task table.
const MAX_STRAY_ROWS: usize = 100;

/// What the check needs besides the text.
#[derive(Clone, Debug)]
pub struct HandoffInput {
    pub now: Timestamp,
    /// A handoff older than this many seconds is stale.
    pub max_age: Option<u64>,
    /// Seconds the timestamp may lie in the future.
    pub max_clock_skew: u64,
    pub mode: Mode,
    /// The checkpoint signal (`.tina/checkpoint-needed`) when it still
    /// exists beside a `.tina/phase-N/handoff.md`: the checkpoint did not
    /// complete.
    pub unfinished_signal: Option<String>,
    /// N of the `phase-N` folder the handoff is in (`.tina/phase-N/` or
    /// `.claude/tina/phase-N/`), to compare with the phase its heading names.
    pub folder_phase: Option<u64>,
}

/// The report of a handoff check, as `--format json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct HandoffReport {
    pub version: u32,
    pub kind: &'static str,
    pub decision: Decision,
    pub passed: bool,
    pub mode: Mode,
    #[serde(skip)]
    pub strict_decision: Decision,
    /// As written, when the section holds one.
    pub timestamp: Option<String>,
    pub age_seconds: Option<i64>,
    /// The task states were not captured (no table, only a note).
    pub partial: bool,
    pub tasks: Vec<Task>,
    pub problems: Vec<Problem>,
    /// Reported, never blocking: a partial handoff, an owner who is not in
    /// the team, a heading that names another phase than its folder.
    pub warnings: Vec<Problem>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Task {
    pub id: String,
    pub subject: String,
    pub status: String,
    /// `None` for `-` or an empty cell.
    pub owner: Option<String>,
    pub blocked_by: Vec<String>,
    /// Where its row is (1-based), for what is said about it.
    #[serde(skip)]
    pub line: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Problem {
    /// 1-based.
    pub line: usize,
    /// The section it is in, named as in `REQUIRED_SECTIONS`; `None` for
    /// the file.
    pub section: Option<String>,
    pub message: String,
}

/// Where tina keeps a phase's handoff: `<tina>/phase-N/handoff.md`, with
/// `<tina>` a `.tina` folder or the `.claude/tina` folder of the skill's
/// Claude Code edition. The tina folder and N, for a handoff there.
pub fn tina_phase_of(handoff: &Path) -> Option<(PathBuf, u64)> {
    let mut parts = handoff.components().rev();
    let file = parts.next()?;
    let phase = parts.next()?;
    let tina = parts.next()?;
    let is = |c: Component<'_>, name: &str| c.as_os_str() == name;
    let number = phase
        .as_os_str()
        .to_str()?
        .strip_prefix("phase-")
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))?
        .parse::<u64>()
        .ok()?;
    let tina_folder =
        is(tina, ".tina") || (is(tina, "tina") && parts.next().is_some_and(|c| is(c, ".claude")));
    if !is(file, "handoff.md") || !tina_folder {
        return None;
    }
    Some((handoff.parent()?.parent()?.to_path_buf(), number))
}

/// The checkpoint signal whose presence beside `handoff` means the
/// checkpoint did not complete: `<tina>/checkpoint-needed` for a handoff
/// at `<tina>/phase-N/handoff.md`.
pub fn unfinished_signal_for(handoff: &Path) -> Option<PathBuf> {
    tina_phase_of(handoff).map(|(tina, _)| tina.join("checkpoint-needed"))
}

/// One `## ` section and what it holds.
#[derive(Default)]
struct Section {
    /// The heading as written.
    title: String,
    line: usize,
    /// Its text outside lists and tables, paragraphs joined by newlines.
    text: String,
    /// Where that text starts.
    text_line: Option<usize>,
    /// Top-level list items: text and line.
    items: Vec<(String, usize)>,
    tables: Vec<Table>,
    /// Where what follows its heading is in the text, up to the next
    /// section's heading.
    body: std::ops::Range<usize>,
}

#[derive(Default)]
struct Table {
    line: usize,
    header: Vec<String>,
    /// The first `MAX_TASKS` rows.
    rows: Vec<Row>,
    /// Rows past those.
    more_rows: usize,
    /// Its last line (rows are one line each, one after another).
    last_line: usize,
    /// The line right after the table when a paragraph or another table
    /// starts there: the parser stopped reading the table before its rows
    /// ended.
    cut_at: Option<usize>,
}

struct Row {
    /// As the parser read them: as many as the header has.
    cells: Vec<String>,
    line: usize,
    /// As many as the row's text has (`row_cells`).
    written: usize,
}

/// Where text goes while walking the events.
enum Sink {
    Heading(String),
    Body,
}

/// The document's title (its first `# ` heading, with its line) and its
/// `## ` sections.
fn sections(text: &str, lines: &LineIndex) -> (Option<(String, usize)>, Vec<Section>) {
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
fn lines_of(text: &str) -> impl Iterator<Item = (usize, &str)> {
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
pub fn markdown_elements(text: &str) -> usize {
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

fn write_text(
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

/// Checks a handoff's text: every problem, with its line. `Err` is no
/// verdict: a text with more Markdown elements than the bound.
pub fn check_handoff(text: &str, input: &HandoffInput) -> Result<HandoffReport, String> {
    let elements = markdown_elements(text);
    if elements > MAX_MARKDOWN_ELEMENTS {
        return Err(format!(
            "it has about {elements} Markdown elements (lines, markup characters and table cells), more than the limit of {MAX_MARKDOWN_ELEMENTS}: a handoff is a summary of a session, which phaselint reads only within that bound"
        ));
    }
    let lines = LineIndex::new(text);
    let (title, sections) = sections(text, &lines);
    let mut problems: Vec<Problem> = Vec::new();
    let mut problem = |line: usize, section: Option<&str>, message: String| {
        problems.push(Problem {
            line,
            section: section.map(str::to_string),
            message,
        });
    };
    let mut warnings: Vec<Problem> = Vec::new();
    let mut warning = |line: usize, section: Option<&str>, message: String| {
        warnings.push(Problem {
            line,
            section: section.map(str::to_string),
            message,
        });
    };

    // Each required section once, found by its heading in any case.
    let mut found: HashMap<&'static str, &Section> = HashMap::new();
    for section in &sections {
        let Some(&name) = REQUIRED_SECTIONS
            .iter()
            .find(|n| n.eq_ignore_ascii_case(&section.title))
        else {
            continue;
        };
        match found.get(name) {
            Some(first) => problem(
                section.line,
                Some(name),
                format!(
                    "`## {name}` appears again (first at line {}); only the first is read",
                    first.line
                ),
            ),
            None => {
                found.insert(name, section);
            }
        }
    }
    for name in REQUIRED_SECTIONS {
        if !found.contains_key(name) {
            problem(
                1,
                Some(name),
                format!("the required section `## {name}` is missing"),
            );
        }
    }

    let mut timestamp = None;
    let mut age_seconds = None;
    if let Some(section) = found.get("Timestamp") {
        let written = section.text.trim();
        let text_line = section.text_line.unwrap_or(section.line);
        let words: Vec<&str> = written.split_whitespace().collect();
        // Two date-times side by side are two values; anything else that
        // does not read as one date-time is a date-time written wrongly.
        let several =
            words.len() > 1 && words.iter().filter(|w| parse_timestamp(w).is_ok()).count() > 1;
        let value = words.join(" ");
        if words.is_empty() {
            problem(
                section.line,
                Some("Timestamp"),
                "`## Timestamp` holds no timestamp".into(),
            );
        } else if several {
            problem(
                text_line,
                Some("Timestamp"),
                format!(
                    "`## Timestamp` holds more than one date-time (`{written}`); write the one the checkpoint was taken at"
                ),
            );
        } else {
            match parse_timestamp(&value) {
                Err(_) if value.parse::<jiff::civil::DateTime>().is_ok() => problem(
                    text_line,
                    Some("Timestamp"),
                    format!(
                        "`{value}` has no `Z` or offset, so the moment it names is unknown: write `{value}Z` if it is UTC, or add its offset such as `+02:00`"
                    ),
                ),
                Err(_) => problem(
                    text_line,
                    Some("Timestamp"),
                    format!(
                        "`{value}` cannot be read as a date-time: write it in ISO 8601 with `Z` or an offset, such as `2026-01-26T10:30:00Z`"
                    ),
                ),
                Ok(at) => {
                    let age = input.now.as_second() - at.as_second();
                    age_seconds = Some(age);
                    if -age > input.max_clock_skew as i64 {
                        problem(
                            text_line,
                            Some("Timestamp"),
                            format!(
                                "`{value}` is {} in the future, more than max_clock_skew {}: the handoff cannot have been written yet",
                                format_seconds(age.unsigned_abs()),
                                format_seconds(input.max_clock_skew)
                            ),
                        );
                    } else if let Some(limit) = input.max_age
                        && age > limit as i64
                    {
                        problem(
                            text_line,
                            Some("Timestamp"),
                            format!(
                                "the handoff is {} old, older than --max-handoff-age {}: it is stale",
                                format_seconds(age as u64),
                                format_seconds(limit)
                            ),
                        );
                    }
                }
            }
            timestamp = Some(value);
        }
    }

    if let Some(section) = found.get("Reason")
        && section.text.trim().is_empty()
        && section.items.is_empty()
    {
        problem(
            section.line,
            Some("Reason"),
            "`## Reason` is empty: say why the session checkpointed".into(),
        );
    }

    let mut members: Vec<String> = Vec::new();
    if let Some(section) = found.get("Team Composition") {
        for (item, line) in &section.items {
            match item.split_once(':') {
                Some((member, role)) if !member.trim().is_empty() && !role.trim().is_empty() => {
                    members.push(member.trim().to_string());
                }
                _ => problem(
                    *line,
                    Some("Team Composition"),
                    format!("`- {}` is not `- member: role`", item.trim()),
                ),
            }
        }
        if members.is_empty() {
            problem(
                section.line,
                Some("Team Composition"),
                "`## Team Composition` lists no `- member: role` item".into(),
            );
        }
    }

    let mut tasks = Vec::new();
    let mut partial = false;
    if let Some(section) = found.get("Task States") {
        if let Some(second) = section.tables.get(1) {
            problem(
                second.line,
                Some("Task States"),
                format!(
                    "`## Task States` holds a second table (the first is at line {}); only one task table is read: put every task in it",
                    section.tables[0].line
                ),
            );
        }
        match section.tables.first() {
            Some(table) => {
                tasks = task_table(table, &mut problem);
                if section_has_html_table(text, section) {
                    problem(
                        section.line,
                        Some("Task States"),
                        "`## Task States` also holds an HTML table, whose tasks are not read: put every task in the Markdown task table".into(),
                    );
                }
                // A line of the section that looks like a row but is not
                // one of the table's (after a blank line or an empty row,
                // in a code block, past where the parser stopped) is no
                // task: reported, however the parser read it.
                let source = text.get(section.body.clone()).unwrap_or_default();
                let mut stray = 0usize;
                for (offset, line) in lines_of(source) {
                    let at = lines.line_of(section.body.start + offset) + 1;
                    if !looks_like_row(line)
                        || (table.line..=table.last_line).contains(&at)
                        || table.cut_at == Some(at)
                    {
                        continue;
                    }
                    stray += 1;
                    if stray <= MAX_STRAY_ROWS {
                        problem(
                            at,
                            Some("Task States"),
                            "this line looks like a row of the task table but is not in it (a blank line, an empty row or other text ends a Markdown table), so it is not read as a task: put it in the table, or remove it".into(),
                        );
                    }
                }
                if stray > MAX_STRAY_ROWS {
                    problem(
                        table.line,
                        Some("Task States"),
                        format!(
                            "{} more lines of `## Task States` look like rows but are not in the task table",
                            stray - MAX_STRAY_ROWS
                        ),
                    );
                }
            }
            None if section_has_html_table(text, section) => problem(
                section.line,
                Some("Task States"),
                "`## Task States` holds an HTML table, whose tasks are not read: write the tasks as a Markdown table (`| ID | Subject | Status | Owner |`, a delimiter row, one row per task)".into(),
            ),
            None if section_has_row_like_line(text, section) => problem(
                section.line,
                Some("Task States"),
                "`## Task States` has lines that look like table rows but no table: a task table needs its header, then a delimiter row (`|----|---------|--------|-------|`), then one row per task".into(),
            ),
            None if !section.text.trim().is_empty() || !section.items.is_empty() => {
                // The skill writes this when `TaskList` fails, and still
                // signals completion: a partial handoff is better than none.
                partial = true;
                warning(
                    section.line,
                    Some("Task States"),
                    format!(
                        "partial handoff: task states missing ({}); the new session has to ask the team who was doing what",
                        note_of(section)
                    ),
                );
            }
            None => problem(
                section.line,
                Some("Task States"),
                "`## Task States` has no task table (`| ID | Subject | Status | Owner |`)".into(),
            ),
        }
    }

    if !members.is_empty() {
        for task in &tasks {
            if let Some(owner) = &task.owner
                && !members.iter().any(|m| m.eq_ignore_ascii_case(owner))
            {
                warning(
                    task.line,
                    Some("Task States"),
                    format!(
                        "task `{}` is owned by `{owner}`, who is not in `## Team Composition` ({}): no teammate of that name comes back when the team is restored, so the task has no owner",
                        task.id,
                        members.join(", ")
                    ),
                );
            }
        }
    }

    if let (Some(folder), Some((title, line))) = (input.folder_phase, &title)
        && let Some(named) = phase_named_in(title)
        && named != folder
    {
        warning(
            *line,
            None,
            format!(
                "the heading names phase {named} but the handoff is in `phase-{folder}/`: a session resuming phase {folder} would read it; check which phase it belongs to"
            ),
        );
    }

    if let Some(signal) = &input.unfinished_signal {
        problem(
            1,
            None,
            format!(
                "`{signal}` still exists: the checkpoint did not complete, so this handoff may be incomplete"
            ),
        );
    }

    problems.sort_by_key(|p| p.line);
    warnings.sort_by_key(|w| w.line);
    let (passed, strict_decision, decision) = decide(!problems.is_empty(), false, input.mode);
    Ok(HandoffReport {
        version: 1,
        kind: "handoff",
        decision,
        passed,
        mode: input.mode,
        strict_decision,
        timestamp,
        age_seconds,
        partial,
        tasks,
        problems,
        warnings,
    })
}

/// Whether a line of the section starts like a table row: a task table
/// written wrongly is not the note of a partial handoff.
fn section_has_row_like_line(text: &str, section: &Section) -> bool {
    let source = text.get(section.body.clone()).unwrap_or_default();
    lines_of(source).any(|(_, line)| looks_like_row(line))
}

/// Whether a line reads as a row of a table: it starts with `|`, or
/// Markdown would split it into cells (a row may leave out its outer
/// pipes), so a task written there is not mistaken for prose.
fn looks_like_row(line: &str) -> bool {
    let line = line.trim_start_matches([' ', '\t', '>']);
    line.starts_with('|') || row_cells(line) >= 2
}

/// Whether the section holds an HTML table: tasks there are not read.
fn section_has_html_table(text: &str, section: &Section) -> bool {
    let source = text.get(section.body.clone()).unwrap_or_default();
    source.to_ascii_lowercase().contains("<table")
}

/// An owner cell that names nobody: empty, a dash of any kind, a word
/// for none, or only invisible characters.
fn names_nobody(owner: &str) -> bool {
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
fn note_of(section: &Section) -> String {
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
fn phase_named_in(title: &str) -> Option<u64> {
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

/// The tasks of the `Task States` table, with its problems.
fn task_table(table: &Table, problem: &mut impl FnMut(usize, Option<&str>, String)) -> Vec<Task> {
    const SECTION: Option<&str> = Some("Task States");
    let column = |name: &str| {
        table
            .header
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(name))
    };
    let (Some(id), Some(subject), Some(status), Some(owner)) = (
        column("ID"),
        column("Subject"),
        column("Status"),
        column("Owner"),
    ) else {
        let missing: Vec<&str> = ["ID", "Subject", "Status", "Owner"]
            .into_iter()
            .filter(|c| column(c).is_none())
            .collect();
        problem(
            table.line,
            SECTION,
            format!(
                "the task table lacks the column{} {} (it has {})",
                if missing.len() == 1 { "" } else { "s" },
                crate::diagnostic::code_list(missing.iter()),
                crate::diagnostic::code_list(table.header.iter())
            ),
        );
        return Vec::new();
    };
    let blocked_by = column("Blocked By");
    let cell = |row: &[String], i: usize| row.get(i).map_or("", |c| c.trim()).to_string();
    let mut tasks: Vec<(Task, usize)> = Vec::new();
    // Where each ID first appears: a table of thousands of rows costs
    // one lookup per row, not a scan of the rows before it.
    let mut first_line_of: HashMap<String, usize> = HashMap::new();
    let columns = table.header.len();
    if let Some(line) = table.cut_at {
        problem(
            line,
            SECTION,
            format!(
                "the task table (line {}) goes on at this line, but the Markdown reader stopped reading it before (a table whose rows miss many cells), so its rows from here are not read: give every row one cell per column, and end the table with a blank line",
                table.line
            ),
        );
    }
    if table.more_rows > 0 {
        problem(
            table.line,
            SECTION,
            format!(
                "the task table has {} rows, more than the limit of {MAX_TASKS}; only the first {MAX_TASKS} are read",
                MAX_TASKS + table.more_rows
            ),
        );
    }
    for Row {
        cells: row,
        line,
        written,
    } in &table.rows
    {
        if *written < columns {
            problem(
                *line,
                SECTION,
                format!(
                    "the row has {written} cell{} but the header has {columns}: write one cell per column (an empty one as `| |`), as Markdown fills the missing ones in and a table of many such rows is cut short",
                    if *written == 1 { "" } else { "s" }
                ),
            );
        } else if *written > columns {
            problem(
                *line,
                SECTION,
                format!(
                    "the row has {written} cells but the header has {columns}: Markdown drops the cells past the header's, so remove them or name their columns in the header"
                ),
            );
        }
        let task = Task {
            id: cell(row, id),
            subject: cell(row, subject),
            status: cell(row, status),
            owner: Some(cell(row, owner)).filter(|o| !names_nobody(o)),
            blocked_by: blocked_by.map_or_else(Vec::new, |b| {
                cell(row, b)
                    .split(',')
                    .map(str::trim)
                    .filter(|i| !i.is_empty() && *i != "-")
                    .map(str::to_string)
                    .collect()
            }),
            line: *line,
        };
        if task.id.is_empty() {
            problem(*line, SECTION, "a task has no ID".into());
        } else if let Some(first) = first_line_of.get(task.id.as_str()) {
            problem(
                *line,
                SECTION,
                format!(
                    "task ID `{}` appears twice (first at line {first}); IDs are unique",
                    task.id
                ),
            );
        }
        if !STATUSES.contains(&task.status.as_str()) {
            // `In Progress` is `in_progress` written another way.
            let normalized = task.status.to_lowercase().replace([' ', '-'], "_");
            let suggestion = STATUSES
                .iter()
                .copied()
                .find(|s| *s == normalized)
                .or_else(|| crate::suggest::closest(&normalized, STATUSES.iter().copied()))
                .map_or(String::new(), |s| format!("; did you mean `{s}`?"));
            problem(
                *line,
                SECTION,
                format!(
                    "task `{}` has status `{}`, not one of {}{suggestion}",
                    task.id,
                    task.status,
                    crate::diagnostic::code_list(STATUSES.iter())
                ),
            );
        }
        if task.status == "in_progress" && task.owner.is_none() {
            problem(
                *line,
                SECTION,
                format!(
                    "task `{}` is in_progress but has no owner: nobody would pick it up",
                    task.id
                ),
            );
        }
        if !task.id.is_empty() {
            first_line_of.entry(task.id.clone()).or_insert(*line);
        }
        tasks.push((task, *line));
    }
    for (task, line) in &tasks {
        for dependency in &task.blocked_by {
            if dependency == &task.id {
                problem(
                    *line,
                    SECTION,
                    format!("task `{}` is blocked by itself", task.id),
                );
            } else if !first_line_of.contains_key(dependency.as_str()) {
                problem(
                    *line,
                    SECTION,
                    format!(
                        "task `{}` is blocked by `{dependency}`, which is no task of the table",
                        task.id
                    ),
                );
            }
        }
    }
    tasks.into_iter().map(|(t, _)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> HandoffInput {
        HandoffInput {
            now: "2026-01-26T12:00:00Z"
                .parse()
                .unwrap_or_else(|e| panic!("{e}")),
            max_age: None,
            max_clock_skew: 300,
            mode: Mode::Strict,
            unfinished_signal: None,
            folder_phase: None,
        }
    }

    #[test]
    fn the_signal_is_looked_for_only_beside_a_phase_handoff() {
        assert_eq!(
            unfinished_signal_for(Path::new("w/.tina/phase-2/handoff.md")),
            Some(PathBuf::from("w/.tina/checkpoint-needed"))
        );
        assert_eq!(unfinished_signal_for(Path::new("handoff.md")), None);
        assert_eq!(
            unfinished_signal_for(Path::new(".tina/phase-x/handoff.md")),
            None
        );
        assert_eq!(
            unfinished_signal_for(Path::new("tina/phase-2/handoff.md")),
            None
        );
    }

    #[test]
    fn cells_read_as_markdown_means_them() {
        let text = "## Task States\n| **ID** | Subject | Status | Owner |\n|---|---|---|---|\n| 1 | parse `a \\| b` | completed | *worker-1* |\n\n```\n## Reason\n```\n";
        let report = check_handoff(text, &input()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.tasks[0].subject, "parse a | b");
        assert_eq!(report.tasks[0].owner.as_deref(), Some("worker-1"));
        // The heading in the code block is no section.
        assert!(
            report
                .problems
                .iter()
                .any(|p| p.message.contains("`## Reason` is missing"))
        );
    }

    #[test]
    fn cells_are_counted_as_written() {
        assert_eq!(row_cells("| 1 | a | b |\n"), 3);
        assert_eq!(row_cells("1 | a | b"), 3);
        assert_eq!(row_cells("| 1 | a \\| b |"), 2);
        assert_eq!(row_cells("| 1 | `a | b` |"), 3);
        assert_eq!(row_cells("|| x |"), 2);
        assert_eq!(row_cells("| 1 |   |\r\n"), 2);
        assert_eq!(row_cells("|"), 0);
        // Indentation before the first pipe is no cell (found by fuzzing).
        assert_eq!(row_cells(" | 1 | a | b"), 3);
        assert_eq!(row_cells("  \t1 | a |"), 2);
    }

    #[test]
    fn a_row_with_other_cells_than_the_header_is_a_problem_at_its_line() {
        let text = "## Task States\n| ID | Subject | Status | Owner |\n|---|---|---|---|\n| 1 | a | completed |\n| 2 | b | pending | - | extra |\n| 3 | c | pending | - |\n";
        let report = check_handoff(text, &input()).unwrap_or_else(|e| panic!("{e}"));
        let at = |line: usize| {
            report
                .problems
                .iter()
                .filter(|p| p.line == line)
                .map(|p| p.message.as_str())
                .collect::<Vec<_>>()
        };
        assert!(
            at(4)[0].starts_with("the row has 3 cells but the header has 4"),
            "{:?}",
            report.problems
        );
        assert!(
            at(5)[0].starts_with("the row has 5 cells but the header has 4"),
            "{:?}",
            report.problems
        );
        assert!(at(6).is_empty());
    }

    #[test]
    fn a_table_the_parser_cut_short_is_a_problem_where_it_goes_on() {
        // 2^18 cells filled in, and the parser ends the table: the rows
        // after it are a paragraph.
        let extra = 1020;
        let mut text = format!(
            "## Task States\n| ID | Subject | Status | Owner |{}\n|---|---|---|---|{}\n",
            " x |".repeat(extra),
            "---|".repeat(extra)
        );
        let rows = (1 << 18) / extra + 2;
        for i in 0..rows {
            text.push_str(&format!("| {i} | s | pending | - |\n"));
        }
        text.push_str("| 1 | again | in_progress | |\n");
        assert!(markdown_elements(&text) > MAX_MARKDOWN_ELEMENTS);
        assert!(
            check_handoff(&text, &input())
                .unwrap_err()
                .contains("more than the limit of 250000")
        );
        let lines = LineIndex::new(&text);
        let (_, found) = sections(&text, &lines);
        let table = &found[0].tables[0];
        let cut = table.cut_at.unwrap_or_else(|| panic!("not cut"));
        assert!(cut < 4 + rows, "{cut}");
        let mut messages = Vec::new();
        task_table(table, &mut |line, _, message| {
            messages.push((line, message))
        });
        assert!(
            messages
                .iter()
                .any(|(line, m)| *line == cut && m.contains("goes on at this line"))
        );
    }

    #[test]
    fn a_second_task_table_and_too_many_rows_are_problems() {
        let head = "## Task States\n| ID | Subject | Status | Owner |\n|---|---|---|---|\n";
        let text = format!(
            "{head}| 1 | a | pending | - |\n\n{}| 2 | b | pending | - |\n",
            &head[15..]
        );
        let report = check_handoff(&text, &input()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            report
                .problems
                .iter()
                .any(|p| p.line == 6 && p.message.contains("second table")),
            "{:?}",
            report.problems
        );
        let mut long = head.to_string();
        for i in 0..=MAX_TASKS {
            long.push_str(&format!("| {i} | a | pending | - |\n"));
        }
        let report = check_handoff(&long, &input()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.tasks.len(), MAX_TASKS);
        assert!(
            report
                .problems
                .iter()
                .any(|p| p.message.contains("more than the limit of 10000"))
        );
    }

    #[test]
    fn elements_count_lines_markup_and_the_cells_rows_may_get() {
        assert_eq!(markdown_elements("abc"), 1);
        assert_eq!(markdown_elements("[[[\n"), 4);
        // Header (1 + 4 pipes), delimiter (1 + 4 pipes + 9 dashes), two
        // rows of 1 + their markup + 5 cells (one per pipe of the
        // delimiter, and one), a blank line, a line after the table.
        assert_eq!(
            markdown_elements("|a|b|c|\n|---|---|---|\n|1|\nx\n\nafter\n"),
            5 + 14 + (1 + 2 + 5) + (1 + 5) + 1 + 1
        );
        assert_eq!(markdown_elements("a\rb\r\nc"), 3);
    }

    #[test]
    fn a_row_after_the_table_is_no_hidden_task() {
        let text = "## Task States\n| ID | Subject | Status | Owner |\n|---|---|---|---|\n| 1 | a | pending | - |\n\n| 1 | b | in_progress | |\n| 3 | c | pending | - |\n";
        let report = check_handoff(text, &input()).unwrap_or_else(|e| panic!("{e}"));
        let lines: Vec<usize> = report
            .problems
            .iter()
            .filter(|p| p.message.starts_with("this line looks like a row"))
            .map(|p| p.line)
            .collect();
        assert_eq!(lines, [6, 7], "{:?}", report.problems);
        // An empty row ends the table; what follows, indented, is a code
        // block to the parser, and still a row to whoever reads it.
        let text = "## Task States\n| ID | Subject | Status | Owner |\n|---|---|---|---|\n| 1 | a | pending | - |\n    |\n    | 1 | b | in_progress | |\n\n## Reason\n| x |\n";
        let report = check_handoff(text, &input()).unwrap_or_else(|e| panic!("{e}"));
        let lines: Vec<usize> = report
            .problems
            .iter()
            .filter(|p| p.message.starts_with("this line looks like a row"))
            .map(|p| p.line)
            .collect();
        assert_eq!(lines, [5, 6], "{:?}", report.problems);
    }
}
