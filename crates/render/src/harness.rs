//! The harness commands' reports for a person: the start-up check
//! (`resume-check --harness-dir` without a contract), `harness status`'s
//! table and what `harness fire` did. Every value may come from the
//! harness directory the checked run writes, so each is shown through
//! `terminal::inline`, as the other resume reports do.

use std::io::{self, Write};

use phaselint_lint::resume::{FireReport, GrantFile, HarnessReport, HarnessStatus};
use serde_json::Value;

use crate::resume::verdict;
use crate::terminal::inline as shown;

/// How many lines of a request the report quotes.
const REQUEST_LINES: usize = 20;

/// The start-up check's report: the checkpoint, its files, the verdict.
pub fn harness_human(report: &HarnessReport, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "Harness check: checkpoint `{}` in {}",
        shown(&report.checkpoint_id),
        shown(&report.harness_dir)
    )?;
    writeln!(
        out,
        "trigger: {}   mode: {}   now: {}",
        shown(report.trigger_on.as_deref().unwrap_or("on request")),
        report.mode.as_str(),
        shown(&report.now)
    )?;
    if let Some(description) = &report.description {
        writeln!(out, "description: {}", shown(description))?;
    }
    writeln!(out)?;
    match &report.request {
        None => writeln!(out, "Request: none")?,
        Some(request) => {
            writeln!(
                out,
                "Request: {} (written {})",
                shown(&request.path),
                shown(&request.modified)
            )?;
            let lines: Vec<&str> = request.text.lines().collect();
            for line in lines.iter().take(REQUEST_LINES) {
                writeln!(out, "  | {}", shown(line))?;
            }
            if lines.len() > REQUEST_LINES {
                writeln!(out, "  | … ({} more lines)", lines.len() - REQUEST_LINES)?;
            }
        }
    }
    match &report.grant {
        None => writeln!(out, "Grant: none")?,
        Some(grant) => writeln!(
            out,
            "Grant: {} (written {}): {}",
            shown(&grant.path),
            shown(&grant.modified),
            grant_summary(grant)
        )?,
    }
    match &report.fired {
        None => writeln!(out, "Fired: not this mission")?,
        Some(fired) => writeln!(
            out,
            "Fired: {} (written {}): {}",
            shown(&fired.path),
            shown(&fired.modified),
            fired.note
        )?,
    }
    if let Some(recovered) = &report.recovered {
        writeln!(out, "Recovered: {}", shown(recovered))?;
    }
    if report.consumed {
        writeln!(
            out,
            "Consumed: the request and its grant are removed (--consume)"
        )?;
    }
    verdict(
        out,
        report.decision,
        report.mode,
        &report.problems,
        &report.warnings,
        &report.next_steps,
    )
}

/// One line on what a grant holds and whether it counts.
fn grant_summary(grant: &GrantFile) -> String {
    if grant.content_kind.is_none() {
        return "ignored: it does not answer the request (see the warnings)".to_string();
    }
    let held = match (&grant.content, grant.records.as_slice()) {
        (_, [_, ..]) => grant
            .records
            .iter()
            .map(|r| {
                if r.valid {
                    format!("a valid record by `{}`", shown(&r.record.approved_by))
                } else {
                    format!(
                        "a record by `{}` that does not count ({})",
                        shown(&r.record.approved_by),
                        shown(&r.problems.join("; "))
                    )
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
        (Value::Null, _) => "empty".to_string(),
        (Value::String(text), _) => format!("\"{}\"", shown(text)),
        (document, _) => shown(&document.to_string()).into_owned(),
    };
    if grant.counts {
        format!("{held}: one person's approval")
    } else {
        held
    }
}

/// `harness status`: one row per declared checkpoint.
pub fn harness_status_human(status: &HarnessStatus, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "Harness: {}   checkpoints.enabled: {}",
        shown(&status.harness_dir),
        if status.checkpoints_enabled {
            "true"
        } else {
            "false (the harness neither writes nor waits for these files)"
        }
    )?;
    writeln!(out)?;
    if status.checkpoints.is_empty() {
        writeln!(out, "The config declares no checkpoint types.")?;
        return Ok(());
    }
    let dash = |v: &Option<String>| {
        v.as_deref()
            .map_or("-".to_string(), |s| shown(s).into_owned())
    };
    let rows: Vec<[String; 7]> = status
        .checkpoints
        .iter()
        .map(|c| {
            let note = match (&c.error, c.grant_ignored) {
                (Some(error), _) => shown(error).into_owned(),
                (None, true) => "a grant is there but does not count (see resume-check)".into(),
                (None, false) => String::new(),
            };
            [
                shown(&c.name).into_owned(),
                dash(&c.trigger_on),
                c.state.to_string(),
                dash(&c.requested_at),
                dash(&c.granted_at),
                dash(&c.fired_at),
                note,
            ]
        })
        .collect();
    let header = [
        "NAME",
        "TRIGGER",
        "STATE",
        "REQUESTED",
        "GRANTED",
        "FIRED",
        "NOTE",
    ];
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &[&str]| {
        let mut text = String::new();
        for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.push_str(&" ".repeat(width - cell.chars().count() + 2));
            }
        }
        text.trim_end().to_string()
    };
    writeln!(out, "{}", line(&header))?;
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        writeln!(out, "{}", line(&cells))?;
    }
    Ok(())
}

/// What `harness fire` wrote and how its hook ran.
pub fn harness_fire_human(report: &FireReport, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "Fired checkpoint `{}` (trigger {}) at {}",
        shown(&report.checkpoint_id),
        shown(&report.trigger),
        shown(&report.fired_at)
    )?;
    writeln!(out, "  wrote {}", shown(&report.request))?;
    writeln!(out, "  wrote {}", shown(&report.fired))?;
    match &report.hook {
        None => writeln!(out, "  no hook ran (no hooks/on-checkpoint-fired.sh)")?,
        Some(hook) => writeln!(out, "  hook {}: {}", shown(&hook.path), shown(&hook.detail))?,
    }
    writeln!(
        out,
        "The harness pauses at start-up until `{}` is granted.",
        shown(&report.request)
    )
}
