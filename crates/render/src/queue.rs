//! The operator's queue for a person: `phaselint checkpoints`' table, and
//! what `approve --interactive` and `resume-check --interactive` show
//! before they ask (Syndicate's INV-OI-001: the canonical request, the
//! authorization scope and the reversibility class, before any approval is
//! recorded). Every name comes from the contract or the context, which the
//! paused run may have written: each is shown through `terminal::inline`.

use std::io::{self, Write};

use phaselint_lint::model::{EnumValue, SideEffects};
use phaselint_lint::resume::{ApprovalQuestion, ApprovalState, Queue, QueueItem, TriggerCategory};

use crate::terminal::inline as shown;

/// How a person reads a trigger category.
pub fn trigger_words(trigger: TriggerCategory) -> &'static str {
    match trigger {
        TriggerCategory::IrreversibleNextPhase => "irreversible next phase",
        TriggerCategory::HighRiskOperation => "high-risk operation",
        TriggerCategory::RiskClassTransition => "risk-class transition",
        TriggerCategory::ApprovalPolicy => "approval policy",
    }
}

fn blocks_words(item: &QueueItem) -> String {
    match (item.blocks_now, item.decision) {
        (None, _) => "unknown without a context".into(),
        (Some(false), _) => "no".into(),
        (Some(true), Some(decision)) => format!("yes ({})", decision.as_str()),
        (Some(true), None) => "yes (no verdict)".into(),
    }
}

fn into_words(item: &QueueItem) -> String {
    if item.resumes_into.is_empty() {
        return "(nothing)".into();
    }
    item.resumes_into
        .iter()
        .map(|p| shown(&p.name).into_owned())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `phaselint checkpoints`: every checkpoint in graph order, then why each
/// one that waits or blocks does so. `contract` and `context` are the
/// paths as given.
pub fn queue_human(
    queue: &Queue,
    contract: &str,
    context: Option<&str>,
    out: &mut impl Write,
) -> io::Result<()> {
    writeln!(
        out,
        "Checkpoint queue of pipeline `{}` ({}), in graph order",
        shown(&queue.pipeline_id),
        shown(contract)
    )?;
    match context {
        Some(context) => writeln!(
            out,
            "now: {}   context: {}",
            shown(&queue.now),
            shown(context)
        )?,
        None => writeln!(
            out,
            "now: {}   no context: approvals are judged on what the context does not decide, and whether a resume blocks is unknown (pass --context)",
            shown(&queue.now)
        )?,
    }
    writeln!(out)?;
    if queue.checkpoints.is_empty() {
        writeln!(out, "The contract declares no checkpoints.")?;
        return Ok(());
    }
    let header = [
        "#",
        "checkpoint",
        "after",
        "into",
        "trigger",
        "policy",
        "approval",
        "blocks now",
    ];
    let rows: Vec<[String; 8]> = queue
        .checkpoints
        .iter()
        .enumerate()
        .map(|(i, item)| {
            [
                (i + 1).to_string(),
                shown(&item.checkpoint_id).into_owned(),
                shown(&item.phase).into_owned(),
                into_words(item),
                item.trigger.map_or("-", trigger_words).to_string(),
                item.required_policy.map_or("-", |p| p.as_str()).to_string(),
                item.approval_state.as_str().to_string(),
                blocks_words(item),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &[&str]| {
        let mut text = String::from(" ");
        for (cell, width) in cells.iter().zip(widths) {
            text.push(' ');
            text.push_str(cell);
            text.extend(std::iter::repeat_n(
                ' ',
                width.saturating_sub(cell.chars().count()) + 1,
            ));
        }
        text.trim_end().to_string()
    };
    writeln!(out, "{}", line(&header))?;
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        writeln!(out, "{}", line(&cells))?;
    }
    let explained: Vec<(usize, &QueueItem)> = queue
        .checkpoints
        .iter()
        .enumerate()
        .filter(|(_, item)| {
            item.pending || item.blocks_now == Some(true) || explained_anyway(item.approval_state)
        })
        .collect();
    if !explained.is_empty() {
        writeln!(out)?;
        for (i, item) in explained {
            let id = shown(&item.checkpoint_id);
            if let Some(problem) = &item.no_verdict {
                writeln!(out, "  {}. `{id}`: no verdict: {}", i + 1, shown(problem))?;
                continue;
            }
            writeln!(out, "  {}. `{id}`: {}", i + 1, shown(&item.approval_reason))?;
            for failure in &item.failures {
                if failure != &item.approval_reason {
                    writeln!(out, "     {}", shown(failure))?;
                }
            }
        }
    }
    writeln!(out)?;
    let total = queue.checkpoints.len();
    if queue.no_verdict > 0 {
        writeln!(
            out,
            "{} of {} cannot be checked (resume-check gives no verdict there, so the run does not resume from {}): see above.",
            queue.no_verdict,
            crate::plural(total, "checkpoint", "checkpoints"),
            if queue.no_verdict == 1 { "it" } else { "them" },
        )?;
    }
    if queue.pending == 0 && queue.no_verdict > 0 {
        writeln!(out, "No other checkpoint waits for an operator.")?;
    } else if queue.pending == 0 {
        writeln!(
            out,
            "No checkpoint waits for an operator ({}).",
            crate::plural(total, "checkpoint", "checkpoints")
        )?;
    } else {
        writeln!(
            out,
            "{} of {} {} for an operator: `phaselint approve --interactive --contract {}{} --by WHO` walks {} in this order",
            queue.pending,
            crate::plural(total, "checkpoint", "checkpoints"),
            if queue.pending == 1 { "waits" } else { "wait" },
            shown(contract),
            context.map_or(String::new(), |c| format!(" --context {}", shown(c))),
            if queue.pending == 1 { "it" } else { "them" },
        )?;
    }
    Ok(())
}

/// What is shown before asking: the canonical request summary, the
/// authorization scope and the reversibility class.
pub fn question_human(q: &ApprovalQuestion, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "Checkpoint `{}` of pipeline `{}` (after phase `{}`) waits for approval: {}, policy `{}`.",
        shown(&q.checkpoint_id),
        shown(&q.pipeline_id),
        shown(&q.phase),
        trigger_words(q.trigger),
        q.policy.as_str()
    )?;
    writeln!(
        out,
        "  request:       {}",
        shown(&q.canonical_request_summary)
    )?;
    writeln!(out, "  scope:         the run resumes into")?;
    if q.resumes_into.is_empty() {
        writeln!(
            out,
            "                   nothing (the phase has no successor)"
        )?;
    }
    for phase in &q.resumes_into {
        writeln!(
            out,
            "                   `{}`: side effects {}, risk {}",
            shown(&phase.name),
            phase.side_effects.as_str(),
            phase.risk_class.as_str()
        )?;
    }
    writeln!(
        out,
        "  reversibility: {}",
        match q.reversibility {
            SideEffects::Irreversible => "IRREVERSIBLE: what runs next cannot be undone",
            SideEffects::Reversible => "reversible: what runs next can be undone",
            SideEffects::None => "no side effects ahead",
        }
    )?;
    if !q.stale_fields.is_empty() {
        writeln!(
            out,
            "  acknowledges:  stale {}",
            q.stale_fields
                .iter()
                .map(|f| format!("`{}`", shown(f)))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    writeln!(out, "  target digest: {}", shown(&q.target_digest))?;
    writeln!(
        out,
        "  context:       {}",
        q.context_digest.as_deref().map_or_else(
            || "not bound (no --context)".to_string(),
            |d| format!("bound, context digest {}", shown(d))
        )
    )?;
    writeln!(out, "  {}", shown(&q.authorization_statement))
}

/// `d`: the full canonical form the target digest is the SHA-256 of.
pub fn question_detail(q: &ApprovalQuestion, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "Canonical form (target_digest {} is the SHA-256 of exactly this text; control characters are shown escaped):",
        shown(&q.target_digest)
    )?;
    writeln!(out, "{}", shown(&q.canonical_form))?;
    if let Some(digest) = &q.context_digest {
        writeln!(
            out,
            "The approval is also bound to context digest {}: the values of the entry fields of the phases resumed into, as read now.",
            shown(digest)
        )?;
    }
    Ok(())
}

/// `?`: what each answer does.
pub fn question_help(out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "  y  approve: record an approval bound to the digests shown"
    )?;
    writeln!(out, "  n  deny: record nothing for this checkpoint")?;
    writeln!(
        out,
        "  d  detail: show the full canonical form the target digest binds"
    )?;
    writeln!(out, "  ?  this help")?;
    writeln!(out, "  q  stop: ask nothing more (end of input stops too)")?;
    writeln!(
        out,
        "A resume into an irreversible phase asks a second confirmation: type `yes` in full."
    )
}

/// States the table explains though they do not wait for an operator:
/// the context decides, or nothing can.
fn explained_anyway(state: ApprovalState) -> bool {
    matches!(state, ApprovalState::Unknown | ApprovalState::NoVerdict)
}
