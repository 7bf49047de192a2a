//! The resume check's human report: the one renderer every kind of resume
//! check (contract checkpoints now, handoffs and manifests next) prints with.

use std::io::{self, Write};

use phaselint_lint::model::EnumValue;
use phaselint_lint::resume::{AttemptOutcome, FieldState, FieldStatus, ResumeReport};

/// The resume check's report for a person: what was checked, what failed,
/// and what to do next (`resume-check --format human`). `contract` is the
/// contract's path as given, for the command lines in the next steps;
/// `recovery_hook` says whether `--recover-with` ran.
pub fn resume_human(
    report: &ResumeReport,
    contract: &str,
    recovery_hook: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    writeln!(
        out,
        "Resume check: checkpoint `{}` after phase `{}` of pipeline `{}`",
        report.checkpoint_id, report.phase, report.pipeline_id
    )?;
    writeln!(
        out,
        "mode: {}   now: {}   target digest: {}",
        report.mode.as_str(),
        report.now,
        report.target_digest
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
            "Staleness ({} check{}, max clock skew {} s):",
            report.staleness_checks.len(),
            if report.staleness_checks.len() == 1 {
                ""
            } else {
                "s"
            },
            report.max_clock_skew_seconds
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
                "  {label:<9} {} [{}{recovery}]: {reason}",
                c.field,
                c.severity.as_str()
            )?;
        }
        if !report.missing_provenance.is_empty() {
            writeln!(
                out,
                "  missing provenance: {}",
                report.missing_provenance.join(", ")
            )?;
        }
    }

    if recovery_hook {
        if report.recovery_attempts.is_empty() {
            writeln!(out, "Recovery: nothing to recover")?;
        } else {
            writeln!(out, "Recovery (`{}`):", report.recovery_attempts[0].command)?;
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
                    a.field,
                    a.strategy.as_str(),
                    a.detail
                )?;
            }
        }
    }

    let entry = &report.entry_revalidation;
    if entry.performed {
        writeln!(
            out,
            "Entry revalidation: {}: {}",
            entry.reason,
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
                r.phase, r.field, r.severity, r.message
            )?;
        }
    } else {
        writeln!(out, "Entry revalidation: {}", entry.reason)?;
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
        writeln!(out, "  {}", approval.reason)?;
        for c in &approval.candidates {
            if c.valid {
                continue;
            }
            let who = c
                .record
                .as_ref()
                .map_or(String::new(), |r| format!(" by `{}`", r.approved_by));
            writeln!(
                out,
                "  rejected {}{who}: {}",
                c.location,
                c.problems.join("; ")
            )?;
        }
    }

    writeln!(out)?;
    let code = report.decision.exit_code();
    writeln!(
        out,
        "Decision: {} (exit {code}, mode {})",
        report.decision.as_str().to_uppercase(),
        report.mode.as_str()
    )?;
    if !report.failures.is_empty() {
        writeln!(out, "What failed:")?;
        for f in &report.failures {
            writeln!(out, "  - {f}")?;
        }
    }
    if !report.warnings.is_empty() {
        writeln!(out, "Warnings:")?;
        for w in &report.warnings {
            writeln!(out, "  - {w}")?;
        }
    }
    writeln!(out, "What to do next:")?;
    for step in &report.next_steps {
        writeln!(out, "  - {}", step.describe(contract))?;
    }
    Ok(())
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
        };
        let report = check(&analysis, &request, None, None).unwrap();
        let mut out = Vec::new();
        super::resume_human(&report, "c.yaml", false, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("Resume check: checkpoint `k` after phase `a` of pipeline `p`\n"),
            "{text}"
        );
        assert!(
            text.contains("  STALE     x [blocking, recovery re_retrieve]: 3600 s old, older than max_age_seconds 60"),
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
}
