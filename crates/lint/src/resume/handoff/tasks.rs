//! The task table: each row read as a task, its status, owner and
//! blockers checked.

use std::collections::HashMap;

use serde::Serialize;

use super::markdown::{MAX_TASKS, Row, Table, names_nobody};

/// Task statuses a task list uses.
pub(crate) const STATUSES: &[&str] = &["pending", "in_progress", "completed", "blocked"];

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
    pub(crate) line: usize,
}

/// The tasks of the `Task States` table, with its problems.
pub(super) fn task_table(
    table: &Table,
    problem: &mut impl FnMut(usize, Option<&str>, String),
) -> Vec<Task> {
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
