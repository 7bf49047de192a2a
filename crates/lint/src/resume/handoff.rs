//! Team handoff documents (docs/resume-check.md): the Markdown a team
//! session writes when it checkpoints, which a new session rehydrates from.
//! Read with a CommonMark parser (tables included), so headings in code
//! blocks, escaped pipes and inline markup in cells read as Markdown means
//! them. Every problem is collected with its line; the verdict is the
//! resume check's (`decide`), so modes mean what they mean for contracts.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use super::report::{Decision, Mode, decide};
use super::staleness::parse_timestamp;
use crate::duration::{format_age_beside, format_seconds};
use crate::line_index::LineIndex;
use jiff::Timestamp;

// The Markdown: sections, tables, rows, the element bound.
mod markdown;
// The task table read as tasks.
mod tasks;

#[cfg(test)]
use markdown::MAX_TASKS;
pub use markdown::row_cells;
pub(crate) use markdown::{MAX_MARKDOWN_ELEMENTS, markdown_elements};
use markdown::{
    Section, lines_of, looks_like_row, note_of, phase_named_in, section_has_html_table,
    section_has_row_like_line, sections,
};
pub(crate) use tasks::Task;
use tasks::task_table;

/// The sections every handoff has, as the checkpoint skill writes them.
pub(crate) const REQUIRED_SECTIONS: &[&str] = &[
    "Timestamp",
    "Reason",
    "Team Composition",
    "Task States",
    "Review Tracking",
    "Resumption Notes",
];

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
    pub(crate) version: u32,
    pub(crate) kind: &'static str,
    pub decision: Decision,
    pub(crate) passed: bool,
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
                                "`{value}` is {}, more than max_clock_skew {}: the handoff cannot have been written yet",
                                format_age_beside(age, input.max_clock_skew),
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
                                "the handoff is {}, older than --max-handoff-age {}: it is stale",
                                format_age_beside(age, limit),
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

#[cfg(test)]
mod tests;
