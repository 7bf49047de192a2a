//! The resume check's human report: the one renderer every kind of resume
//! check (contract checkpoints now, handoffs and manifests next) prints with.
//!
//! Every value in these reports comes from a file the checked run could
//! write itself (the contract, the context, a handoff, a manifest, an
//! approvals file, the recovery hook's output): each is shown through
//! `terminal::inline`, so none can move the cursor, rewrite a line above,
//! set the clipboard or plant a link. The reports are line-oriented: a
//! newline in a value is shown as `\u{a}` too.

use std::io::{self, Write};

use phaselint_lint::duration::{format_age, format_seconds};
use phaselint_lint::model::EnumValue;
use phaselint_lint::resume::{
    AttemptOutcome, Decision, FieldState, FieldStatus, HandoffReport, ManifestReport, Mode,
    NOTHING_TO_CHECK, Question, ResumeReport,
};

use crate::terminal::inline as shown;

/// A list of values from an input, each shown safely, joined with `sep`.
fn shown_list(values: &[String], sep: &str) -> String {
    values
        .iter()
        .map(|v| shown(v))
        .collect::<Vec<_>>()
        .join(sep)
}

/// The resume check's report for a person: what was checked, what failed,
/// and what to do next (`resume-check --format human`). `contract` is the
/// contract's path as given, for the command lines in the next steps;
/// `recovery_hook` says whether `--recover-with` ran.
pub fn resume_human(
    report: &ResumeReport,
    contract: &str,
    context: &str,
    recovery_hook: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    if report.nothing_to_check {
        return nothing_to_check(report, contract, context, out);
    }
    writeln!(
        out,
        "Resume check: checkpoint `{}` after phase `{}` of pipeline `{}`",
        shown(&report.checkpoint_id),
        shown(&report.phase),
        shown(&report.pipeline_id)
    )?;
    writeln!(
        out,
        "mode: {}   now: {}   target digest: {}",
        report.mode.as_str(),
        shown(&report.now),
        shown(&report.target_digest)
    )?;

    writeln!(out)?;
    if report.staleness_checks.is_empty() {
        writeln!(
            out,
            "Staleness: the checkpoint declares no staleness checks"
        )?;
    } else {
        writeln!(
            out,
            "Staleness ({} check{}, max clock skew {}):",
            report.staleness_checks.len(),
            if report.staleness_checks.len() == 1 {
                ""
            } else {
                "s"
            },
            format_seconds(report.max_clock_skew_seconds)
        )?;
        for c in &report.staleness_checks {
            let stale = report.stale_fields.iter().find(|s| s.field == c.field);
            let (label, reason) = match (c.state, stale) {
                (FieldState::Fresh, Some(s)) => ("recovered", s.reason.as_str()),
                (FieldState::Stale, Some(s)) if s.blocking => ("STALE", s.reason.as_str()),
                (FieldState::Stale, Some(s)) => ("stale", s.reason.as_str()),
                (FieldState::Fresh, None) => ("fresh", c.reason.as_str()),
                (FieldState::Stale, None) => ("stale", c.reason.as_str()),
                (FieldState::Unknown, _) => ("unknown", c.reason.as_str()),
            };
            let recovery = stale
                .and_then(|s| s.recovery)
                .map_or(String::new(), |r| format!(", recovery {}", r.as_str()));
            writeln!(
                out,
                "  {label:<9} {} [{}{recovery}]: {}",
                shown(&c.field),
                c.severity.as_str(),
                shown(reason)
            )?;
        }
        if !report.missing_provenance.is_empty() {
            writeln!(
                out,
                "  missing provenance: {}",
                shown_list(&report.missing_provenance, ", ")
            )?;
        }
    }

    if recovery_hook {
        if report.recovery_attempts.is_empty() {
            writeln!(out, "Recovery: nothing to recover")?;
        } else {
            writeln!(
                out,
                "Recovery (`{}`):",
                shown(&report.recovery_attempts[0].command)
            )?;
            for a in &report.recovery_attempts {
                let outcome = match a.outcome {
                    AttemptOutcome::Recovered if a.recovered => "recovered",
                    AttemptOutcome::Recovered => "hook succeeded, still stale",
                    AttemptOutcome::Failed => "failed",
                    AttemptOutcome::TimedOut => "timed out",
                    AttemptOutcome::NotStarted => "not started",
                };
                writeln!(
                    out,
                    "  {} ({}): {outcome}: {}",
                    shown(&a.field),
                    a.strategy.as_str(),
                    shown(&a.detail)
                )?;
            }
        }
    }

    let entry = &report.entry_revalidation;
    if entry.performed {
        writeln!(
            out,
            "Entry revalidation: {}: {}",
            shown(&entry.reason),
            if entry.passed { "passed" } else { "FAILED" }
        )?;
        for r in &entry.field_results {
            let label = match r.status {
                FieldStatus::Propagated => "ok",
                FieldStatus::Defaulted => "defaulted",
                FieldStatus::Partial => "noted",
                FieldStatus::Failed => "FAILED",
            };
            writeln!(
                out,
                "  {label:<9} {}:{} [{}]: {}",
                shown(&r.phase),
                shown(&r.field),
                r.severity.as_str(),
                shown(&r.message)
            )?;
        }
    } else {
        writeln!(out, "Entry revalidation: {}", shown(&entry.reason))?;
    }

    let approval = &report.approval_status;
    if !approval.required {
        writeln!(out, "Approval: not required")?;
    } else {
        writeln!(
            out,
            "Approval (policy {}): {}",
            approval.policy.map_or("?", |p| p.as_str()),
            if approval.granted {
                "granted"
            } else {
                "NOT GRANTED"
            }
        )?;
        writeln!(out, "  {}", shown(&approval.reason))?;
        if let Some(denial) = &report.denial {
            let category = denial.checkpoint_pending.checkpoint_type;
            writeln!(
                out,
                "  checkpoint_type: {} (it waits because of: {})",
                category.as_str(),
                crate::queue::trigger_words(category)
            )?;
        }
        writeln!(
            out,
            "  checked against target digest {}{}",
            approval.target_digest,
            if approval.context_fields.is_empty() {
                String::new()
            } else {
                format!(
                    " and, where a record is bound to the context, context digest {} (of {})",
                    approval.context_digest,
                    shown_list(&approval.context_fields, ", ")
                )
            }
        )?;
        if approval.trust_context_approvals {
            writeln!(
                out,
                "  approvals in the context are trusted ({}): only the orchestrator may write the context store",
                shown(
                    approval
                        .trust_context_source
                        .as_deref()
                        .unwrap_or("--trust-context-approvals")
                )
            )?;
        }
        for c in &approval.candidates {
            if c.valid {
                continue;
            }
            let who = c.record.as_ref().map_or(String::new(), |r| {
                format!(" by `{}`", shown(&r.approved_by))
            });
            writeln!(
                out,
                "  rejected {}{who} ({}): {}",
                shown(&c.location),
                c.source.describe(),
                shown_list(&c.problems, "; ")
            )?;
        }
    }

    report_verdict(report, contract, context, out)
}

/// A contract checkpoint's verdict block: its failures, warnings and next
/// steps, the steps naming the contract and context as the user gave them.
fn report_verdict(
    report: &ResumeReport,
    contract: &str,
    context: &str,
    out: &mut impl Write,
) -> io::Result<()> {
    let next: Vec<String> = report
        .next_steps
        .iter()
        .map(|step| step.describe(contract, context))
        .collect();
    verdict(
        out,
        report.decision,
        report.mode,
        &report.failures,
        &report.warnings,
        &next,
    )
}

/// The report of a contract that declares no checkpoint specs (REQ-10-011):
/// nothing was checked; only a pending harness request can stop the resume.
fn nothing_to_check(
    report: &ResumeReport,
    contract: &str,
    context: &str,
    out: &mut impl Write,
) -> io::Result<()> {
    writeln!(
        out,
        "Resume check: checkpoint `{}` of pipeline `{}`",
        shown(&report.checkpoint_id),
        shown(&report.pipeline_id)
    )?;
    writeln!(
        out,
        "mode: {}   now: {}",
        report.mode.as_str(),
        shown(&report.now)
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{NOTHING_TO_CHECK}: the contract declares no checkpoint_integrity, so no staleness, entry or approval check applies (REQ-10-011)"
    )?;
    let approval = &report.approval_status;
    if approval.harness_pending {
        writeln!(
            out,
            "Approval: NOT GRANTED: a harness request is pending, whatever the contract declares"
        )?;
    } else if !approval.candidates.is_empty() {
        writeln!(out, "Approval: none is needed; not judged:")?;
    }
    for c in &approval.candidates {
        writeln!(
            out,
            "  {} ({}): {}",
            shown(&c.location),
            c.source.describe(),
            shown_list(&c.problems, "; ")
        )?;
    }
    report_verdict(report, contract, context, out)
}

/// The end of every resume check's report, whatever it checked: the
/// decision with its exit code and mode, what failed, what only warns,
/// and what to do next.
pub(crate) fn verdict(
    out: &mut impl Write,
    decision: Decision,
    mode: Mode,
    failures: &[String],
    warnings: &[String],
    next: &[String],
) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "Decision: {} (exit {}, mode {})",
        decision.as_str().to_uppercase(),
        decision.exit_code(),
        mode.as_str()
    )?;
    if !failures.is_empty() {
        writeln!(out, "What failed:")?;
        for f in failures {
            writeln!(out, "  - {}", shown(f))?;
        }
    }
    if !warnings.is_empty() {
        writeln!(out, "Warnings:")?;
        for w in warnings {
            writeln!(out, "  - {}", shown(w))?;
        }
    }
    writeln!(out, "What to do next:")?;
    for step in next {
        writeln!(out, "  - {}", shown(step))?;
    }
    Ok(())
}

/// The next step when a lenient mode let through what strict mode would
/// not have.
fn despite(mode: Mode, strict: Decision, allowed: &str) -> String {
    format!(
        "mode {}: {allowed}, but strict mode would have {} it; fix the problems above",
        mode.as_str(),
        strict.as_str()
    )
}

/// A team handoff's report for a person (`resume-check --handoff`): its
/// timestamp and tasks, every problem at its line, and the verdict.
pub fn handoff_human(report: &HandoffReport, path: &str, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "Handoff check: {}", shown(path))?;
    let age = report
        .age_seconds
        .map_or(String::new(), |age| format!(" ({})", format_age(age)));
    writeln!(
        out,
        "mode: {}   timestamp: {}{age}",
        report.mode.as_str(),
        shown(report.timestamp.as_deref().unwrap_or("none"))
    )?;
    writeln!(out)?;
    if report.tasks.is_empty() {
        writeln!(
            out,
            "Tasks: {}",
            if report.partial {
                "not captured (partial handoff)"
            } else {
                "none read"
            }
        )?;
    } else {
        writeln!(out, "Tasks ({}):", report.tasks.len())?;
        for t in &report.tasks {
            let blocked = if t.blocked_by.is_empty() {
                String::new()
            } else {
                format!(", blocked by {}", shown_list(&t.blocked_by, ", "))
            };
            writeln!(
                out,
                "  {:<4} {:<12} {:<16} {}{blocked}",
                shown(&t.id),
                shown(&t.status),
                shown(t.owner.as_deref().unwrap_or("-")),
                shown(&t.subject)
            )?;
        }
    }
    let at_line = |p: &phaselint_lint::resume::HandoffProblem| match &p.section {
        Some(section) => format!("line {} ({section}): {}", p.line, p.message),
        None => format!("line {}: {}", p.line, p.message),
    };
    let failures: Vec<String> = report.problems.iter().map(at_line).collect();
    let warnings: Vec<String> = report.warnings.iter().map(at_line).collect();
    let next = match (report.problems.is_empty(), report.decision) {
        (true, _) if report.partial => "a new session may rehydrate from this handoff; the task states are not in it, so ask the team (or the task list) who was doing what before work restarts".to_string(),
        (true, _) => "a new session may rehydrate from this handoff".to_string(),
        (false, Decision::Resume) => {
            despite(report.mode, report.strict_decision, "a new session may rehydrate")
        }
        (false, _) => "fix each problem above in the handoff (or checkpoint again, which writes a new one), then check it again".to_string(),
    };
    verdict(
        out,
        report.decision,
        report.mode,
        &failures,
        &warnings,
        &[next],
    )
}

/// A checkpoint manifest's report for a person (`resume-check
/// --manifest`): the question, the files (or state keys) and hashes
/// compared, what changed, the stash, the problems, and the verdict.
pub fn manifest_human(report: &ManifestReport, path: &str, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "Manifest check: {}", shown(path))?;
    writeln!(
        out,
        "checkpoint: {} ({})   question: {}   mode: {}",
        shown(&report.checkpoint_id),
        shown(&report.checkpoint_type),
        match report.question {
            Question::Mutate => "may the mutation proceed? (--for mutate)",
            Question::Rollback =>
                "is the checkpoint still a valid rollback point? (--for rollback)",
        },
        report.mode.as_str()
    )?;
    writeln!(out)?;
    if let Some(stash) = &report.stash {
        writeln!(
            out,
            "stash: {} {}",
            shown(&stash.reference),
            match (&stash.commit, &stash.message) {
                (Some(commit), Some(message)) =>
                    format!("{} \"{}\"", shown(commit), shown(message)),
                _ => "(not found)".to_string(),
            }
        )?;
    }
    if report.state_keys.is_empty() {
        writeln!(out, "Scope files ({}):", report.files.len())?;
        for f in &report.files {
            let state = match (&f.sha256, f.exists) {
                (Some(sha), _) => shown(sha).into_owned(),
                (None, true) => "not hashed (see below)".to_string(),
                (None, false) => "MISSING".to_string(),
            };
            let changed = if f.changed == Some(true) {
                "  changed"
            } else {
                ""
            };
            writeln!(out, "  {:<40} {state}{changed}", shown(&f.path))?;
        }
    } else {
        writeln!(out, "State keys ({}):", report.state_keys.len())?;
        for k in &report.state_keys {
            let state = match (&k.sha256, k.present) {
                (Some(sha), _) => shown(sha).into_owned(),
                (None, true) => "not hashed (see below)".to_string(),
                (None, false) => "MISSING".to_string(),
            };
            writeln!(out, "  {:<40} {state}", shown(&k.key))?;
        }
    }
    writeln!(out, "recorded hash: {}", shown(&report.expected_hash))?;
    if let Some(stored) = &report.stored_hash {
        writeln!(out, "stored hash:   {}", shown(stored))?;
    }
    writeln!(
        out,
        "live hash:     {}",
        shown(
            report
                .actual_hash
                .as_deref()
                .unwrap_or("(not every file could be hashed)")
        )
    )?;
    if !report.changed_files.is_empty() {
        let changed: Vec<_> = report.changed_files.iter().map(|f| shown(f)).collect();
        writeln!(out, "changed since the checkpoint: {}", changed.join(", "))?;
    }
    let next = match (report.problems.is_empty(), report.decision) {
        (false, Decision::Resume) => vec![despite(
            report.mode,
            report.strict_decision,
            match report.question {
                Question::Mutate => "the mutation may proceed",
                Question::Rollback => "the rollback may proceed",
            },
        )],
        _ => report.next_steps.clone(),
    };
    verdict(
        out,
        report.decision,
        report.mode,
        &report.problems,
        &report.warnings,
        &next,
    )
}

#[cfg(test)]
mod tests {
    use phaselint_lint::config::Settings;
    use phaselint_lint::resume::{Mode, ResumeRequest, check};

    #[test]
    fn a_blocked_resume_says_what_failed_and_what_to_do() {
        let contract = "schema_version: '1'\npipeline_id: p\nphases:\n  a: { exit: { required: [{ name: x }] } }\n  b: { entry: { required: [{ name: x }] } }\ncheckpoint_integrity:\n  - checkpoint_id: k\n    phase: a\n    on_resume: { staleness_checks: [{ field: x, max_age_seconds: 60, recovery: re_retrieve }] }\n";
        let analysis = phaselint_lint::analyze(contract, &Settings::default());
        let request = ResumeRequest {
            checkpoint_id: "k".into(),
            context: serde_json::json!({"x": 1, "_cc_propagation": {"x": {"set_at": "2026-03-01T11:00:00Z"}}}),
            now: "2026-03-01T12:00:00Z".parse().unwrap(),
            mode: Mode::Strict,
            next_phase: None,
            approvals: Vec::new(),
            max_clock_skew: 300,
            trust_context_approvals: false,
        };
        let report = check(&analysis, &request, None, None).unwrap();
        let mut out = Vec::new();
        super::resume_human(&report, "c.yaml", "ctx.json", false, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("Resume check: checkpoint `k` after phase `a` of pipeline `p`\n"),
            "{text}"
        );
        assert!(
            text.contains("  STALE     x [blocking, recovery re_retrieve]: 1h 0m old, older than max_age_seconds 60"),
            "{text}"
        );
        assert!(
            text.contains("Decision: BLOCKED (exit 1, mode strict)"),
            "{text}"
        );
        assert!(
            text.contains("  - refresh `x` (re_retrieve) and stamp it again"),
            "{text}"
        );
    }

    /// What a terminal would act on, anywhere in `text`: C0 but tab and
    /// newline, DEL, C1, the bidi overrides.
    fn acted_on(text: &str) -> Vec<char> {
        text.chars()
            .filter(|&c| {
                (c.is_control() && c != '\n' && c != '\t')
                    || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
            })
            .collect()
    }

    #[test]
    fn a_handoff_cannot_write_to_the_terminal_through_its_tasks() {
        let handoff = "## Timestamp\n2026-01-26T10:30:00Z\n\n## Reason\nr\n\n## Team Composition\n- w: implementer\n\n## Task States\n| ID | Subject | Status | Owner |\n|----|---------|--------|-------|\n| 1\u{9b}2J | Implement \u{1b}]52;c;aGk=\u{7}B\u{1b}[1A\u{1b}[2K | in_progress | w\u{1b}]8;;https://evil.example\u{7}x\u{1b}]8;;\u{7} |\n| 2 | b\u{202e}c | pendng\u{7} | - |\n\n## Review Tracking\n- none\n\n## Resumption Notes\n- none\n";
        let input = phaselint_lint::resume::HandoffInput {
            now: "2026-01-26T12:00:00Z".parse().unwrap(),
            max_age: None,
            max_clock_skew: 300,
            mode: Mode::Strict,
            unfinished_signal: None,
            folder_phase: None,
        };
        let report = phaselint_lint::resume::check_handoff(handoff, &input).unwrap();
        let mut out = Vec::new();
        super::handoff_human(&report, "hand\u{1b}[2Koff.md", &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(acted_on(&text), [], "{text}");
        assert!(
            text.contains("Implement \\u{1b}]52;c;aGk=\\u{7}B\\u{1b}[1A\\u{1b}[2K"),
            "{text}"
        );
        assert!(
            text.contains("w\\u{1b}]8;;https://evil.example\\u{7}x"),
            "{text}"
        );
        assert!(
            text.contains("Handoff check: hand\\u{1b}[2Koff.md"),
            "{text}"
        );
        assert!(text.contains("b\\u{202e}c"), "{text}");
    }
}
