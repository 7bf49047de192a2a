//! "What to do next" for a report: the typed steps the human and JSON
//! reports list, derived from the verdict.

use crate::model::{ApprovalPolicy, Recovery};
use crate::resume::entry::FieldStatus;
use crate::resume::next::{Approver, NextStep};
use crate::resume::report::{Decision, Mode, ResumeReport};

/// The steps for a report. `recovery_hook`: a `--recover-with` command was
/// given; `interactive`: an operator could have been asked.
pub(crate) fn next_steps(
    report: &ResumeReport,
    recovery_hook: bool,
    interactive: bool,
) -> Vec<NextStep> {
    let mut steps = Vec::new();
    if report.decision == Decision::Resume {
        let into = report.entry_revalidation.phases.clone();
        steps.push(if report.strict_decision == Decision::Resume {
            NextStep::Resume {
                checkpoint_id: report.checkpoint_id.clone(),
                into,
            }
        } else {
            NextStep::ResumeDespite {
                mode: report.mode,
                strict_decision: report.strict_decision,
                into,
            }
        });
    }
    let stale_blocking = || {
        report
            .stale_fields
            .iter()
            .filter(|s| s.is_stale && s.blocking)
    };
    let mut recoverable = false;
    for s in stale_blocking() {
        match s.recovery {
            Some(Recovery::Fail) => steps.push(NextStep::DoNotResumePast {
                field: s.field.clone(),
                phase: report.phase.clone(),
            }),
            strategy => {
                recoverable |=
                    matches!(strategy, Some(Recovery::ReRetrieve | Recovery::ReGenerate));
                steps.push(NextStep::Refresh {
                    field: s.field.clone(),
                    strategy,
                });
            }
        }
    }
    if recoverable && !recovery_hook {
        steps.push(NextStep::RecoverWithHook);
    }
    if !report.provenance_present && !report.missing_provenance.is_empty() {
        steps.push(NextStep::StampProvenance);
    }
    for r in report
        .entry_revalidation
        .field_results
        .iter()
        .filter(|r| r.status == FieldStatus::Failed)
    {
        steps.push(NextStep::FixEntryField {
            field: r.field.clone(),
            phase: r.phase.clone(),
        });
    }
    let Some(denial) = &report.denial else {
        return steps;
    };
    if report.approval_status.harness_pending {
        steps.push(NextStep::GrantHarnessRequest {
            checkpoint_id: denial.checkpoint_id.clone(),
        });
        return steps;
    }
    let blocked_by_staleness = report.mode == Mode::Strict && stale_blocking().next().is_some();
    if blocked_by_staleness && denial.required_policy == ApprovalPolicy::AutoIfFresh {
        steps.push(NextStep::NoApprovalOnceFresh);
        return steps;
    }
    // Once refreshed, a stale blocking field needs no acknowledgement.
    let acknowledge = denial
        .stale_fields
        .iter()
        .filter(|f| !blocked_by_staleness || !stale_blocking().any(|s| s.field == **f))
        .cloned()
        .collect();
    steps.push(NextStep::Approve {
        checkpoint_id: denial.checkpoint_id.clone(),
        approver: Approver::for_policy(denial.required_policy),
        acknowledge,
        after_refresh: blocked_by_staleness,
        confirm_irreversible: !report.approval_status.irreversible_next.is_empty(),
    });
    if !interactive
        && !blocked_by_staleness
        && denial.required_policy != ApprovalPolicy::Orchestrator
    {
        steps.push(NextStep::ApproveInteractively);
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;
    use crate::resume::next::shell_word;
    use crate::resume::{ResumeRequest, check};

    const CONTRACT: &str = "\
schema_version: '1'
pipeline_id: p
phases:
  draft: { exit: { required: [{ name: text }] } }
  review: { entry: { required: [{ name: text }] } }
checkpoint_integrity:
  - checkpoint_id: by_human
    phase: draft
    on_resume:
      staleness_checks: [{ field: text, max_age_seconds: 60, recovery: re_generate }]
      approval_required: true
      approval_policy: human
  - checkpoint_id: auto
    phase: draft
    on_resume:
      staleness_checks: [{ field: text, max_age_seconds: 60, recovery: re_generate }]
      approval_required: true
      approval_policy: auto_if_fresh
";

    /// The steps for `checkpoint` with `text` an hour old.
    fn steps(checkpoint: &str, mode: Mode) -> Vec<NextStep> {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        let request = ResumeRequest {
            checkpoint_id: checkpoint.into(),
            context: serde_json::json!({
                "text": "t",
                "_cc_propagation": {"text": {"set_at": "2026-03-01T11:00:00Z"}}
            }),
            now: "2026-03-01T12:00:00Z".parse().unwrap(),
            mode,
            next_phase: None,
            approvals: Vec::new(),
            max_clock_skew: 300,
            trust_context_approvals: false,
        };
        check(&analysis, &request, None, None).unwrap().next_steps
    }

    fn refresh() -> NextStep {
        NextStep::Refresh {
            field: "text".into(),
            strategy: Some(Recovery::ReGenerate),
        }
    }

    #[test]
    fn strict_stale_blocking_field_is_refreshed_then_approved_without_acknowledging_it() {
        assert_eq!(
            steps("by_human", Mode::Strict),
            [
                refresh(),
                NextStep::RecoverWithHook,
                NextStep::Approve {
                    checkpoint_id: "by_human".into(),
                    approver: Approver::Human,
                    acknowledge: Vec::new(),
                    after_refresh: true,
                    confirm_irreversible: false,
                },
            ]
        );
    }

    #[test]
    fn permissive_mode_acknowledges_the_field_it_lets_through() {
        let steps = steps("by_human", Mode::Permissive);
        assert!(steps.contains(&NextStep::Approve {
            checkpoint_id: "by_human".into(),
            approver: Approver::Human,
            acknowledge: vec!["text".into()],
            after_refresh: false,
            confirm_irreversible: false,
        }));
        assert!(steps.contains(&NextStep::ApproveInteractively));
    }

    #[test]
    fn auto_if_fresh_needs_only_the_refresh() {
        assert_eq!(
            steps("auto", Mode::Strict),
            [
                refresh(),
                NextStep::RecoverWithHook,
                NextStep::NoApprovalOnceFresh
            ]
        );
    }

    #[test]
    fn command_lines_quote_what_a_shell_would_split() {
        assert_eq!(shell_word("after_generate"), "after_generate");
        assert_eq!(shell_word("../c.contract.yaml"), "../c.contract.yaml");
        assert_eq!(shell_word("my contract.yaml"), "'my contract.yaml'");
        assert_eq!(shell_word("it's;rm -rf"), "'it'\\''s;rm -rf'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$(id)"), "'$(id)'");
    }

    #[test]
    fn every_step_reads_as_a_sentence() {
        let approve = NextStep::Approve {
            checkpoint_id: "k".into(),
            approver: Approver::HumanOrOrchestrator,
            acknowledge: vec!["a".into(), "b".into()],
            after_refresh: true,
            confirm_irreversible: false,
        };
        assert_eq!(
            approve.describe("c.yaml", "ctx.json"),
            "then get an approval bound to this checkpoint and context: phaselint approve --contract c.yaml --checkpoint k --context ctx.json --by NAME --policy human --ack a --ack b --output approval.json (or --policy orchestrator, for the orchestrator), then pass --approvals approval.json"
        );
        let into_irreversible = NextStep::Approve {
            checkpoint_id: "k".into(),
            approver: Approver::Human,
            acknowledge: Vec::new(),
            after_refresh: false,
            confirm_irreversible: true,
        };
        assert_eq!(
            into_irreversible.describe("c.yaml", "ctx.json"),
            "get an approval bound to this checkpoint and context: phaselint approve --contract c.yaml --checkpoint k --context ctx.json --by NAME --policy human --confirm-irreversible --output approval.json, then pass --approvals approval.json"
        );
    }
}
