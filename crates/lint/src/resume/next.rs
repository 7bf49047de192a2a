//! "What to do next": the steps that can change a verdict, derived from the
//! report, as data (part of the JSON) with the sentence each one reads as.
//! A step that cannot change the verdict is never proposed: in strict mode
//! a stale blocking field blocks whatever is approved, so it is refreshed
//! or recovered, not acknowledged.

use serde::Serialize;

use crate::model::{ApprovalPolicy, EnumValue, Recovery};
use crate::resume::PROVENANCE_KEY;
use crate::resume::entry::FieldStatus;
use crate::resume::report::{Decision, Mode, ResumeReport};

/// Who `phaselint approve --policy` should name for a policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Approver {
    Human,
    Orchestrator,
    HumanOrOrchestrator,
}

impl Approver {
    fn for_policy(policy: ApprovalPolicy) -> Self {
        match policy {
            ApprovalPolicy::Human => Approver::Human,
            ApprovalPolicy::Orchestrator => Approver::Orchestrator,
            ApprovalPolicy::HumanOrOrchestrator | ApprovalPolicy::AutoIfFresh => {
                Approver::HumanOrOrchestrator
            }
        }
    }

    /// The `--policy` of the command to paste: one value, never a
    /// `human|orchestrator` a shell would read as a pipe.
    fn flag(self) -> &'static str {
        match self {
            Approver::Human | Approver::HumanOrOrchestrator => "human",
            Approver::Orchestrator => "orchestrator",
        }
    }

    fn alternative(self) -> &'static str {
        match self {
            Approver::HumanOrOrchestrator => " (or --policy orchestrator, for the orchestrator)",
            Approver::Human | Approver::Orchestrator => "",
        }
    }
}

/// One thing to do, in the order they are listed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum NextStep {
    /// The run may resume, into these phases.
    Resume {
        checkpoint_id: String,
        into: Vec<String>,
    },
    /// Permissive or audit mode let it resume; strict would not have.
    ResumeDespite {
        mode: Mode,
        strict_decision: Decision,
        into: Vec<String>,
    },
    /// `recovery: fail`: never resume past the stale field.
    DoNotResumePast { field: String, phase: String },
    /// Refresh a stale blocking field and stamp it again.
    Refresh {
        field: String,
        strategy: Option<Recovery>,
    },
    /// Let `resume-check --recover-with` run the recovery.
    RecoverWithHook,
    /// The context has no provenance: stamp the checked fields.
    StampProvenance,
    /// Put a valid value of an entry field into the context.
    FixEntryField { field: String, phase: String },
    /// Grant a pending harness request.
    GrantHarnessRequest { checkpoint_id: String },
    /// Get an approval bound to the checkpoint's digest; `after_refresh`
    /// when the stale blocking fields must be refreshed first.
    Approve {
        checkpoint_id: String,
        approver: Approver,
        acknowledge: Vec<String>,
        after_refresh: bool,
        /// The run resumes into an irreversible phase: `approve` asks for
        /// `--confirm-irreversible`.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        confirm_irreversible: bool,
    },
    /// Approve on the terminal with `--interactive`.
    ApproveInteractively,
    /// auto_if_fresh grants the approval once the blocking fields are fresh.
    NoApprovalOnceFresh,
}

/// `text` as one word a POSIX shell reads back as it is: unchanged when it
/// holds only characters no shell treats specially, else single-quoted.
fn shell_word(text: &str) -> std::borrow::Cow<'_, str> {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c));
    if plain {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(format!("'{}'", text.replace('\'', "'\\''")))
    }
}

impl NextStep {
    /// The step as a sentence; `contract` and `context` are the paths as
    /// the user gave them, for the command lines.
    pub fn describe(&self, contract: &str, context: &str) -> String {
        let into = |phases: &[String]| match phases {
            [] => String::new(),
            [one] => format!(" into phase `{one}`"),
            many => format!(" into {}", many.join(", ")),
        };
        match self {
            NextStep::Resume {
                checkpoint_id,
                into: phases,
            } => format!(
                "the run may resume from checkpoint `{checkpoint_id}`{}",
                into(phases)
            ),
            NextStep::ResumeDespite {
                mode,
                strict_decision,
                into: phases,
            } => format!(
                "mode {}: the run may resume{}, but strict mode would have {} it; fix the points below",
                mode.as_str(),
                into(phases),
                strict_decision.as_str()
            ),
            NextStep::DoNotResumePast { field, phase } => format!(
                "`{field}` has recovery `fail`: do not resume past it; re-run the pipeline from phase `{phase}` or earlier"
            ),
            NextStep::Refresh { field, strategy } => format!(
                "refresh `{field}`{} and stamp it again under `{PROVENANCE_KEY}` with the current time",
                strategy.map_or(String::new(), |r| format!(" ({})", r.as_str()))
            ),
            NextStep::RecoverWithHook => "or pass --recover-with CMD to run the recovery before the check (CMD gets PHASELINT_FIELD, PHASELINT_STRATEGY, PHASELINT_CHECKPOINT and PHASELINT_CONTEXT)".into(),
            NextStep::StampProvenance => format!(
                "stamp the checked fields under `{PROVENANCE_KEY}` (ContextCore's PropagationTracker does) so their age can be checked"
            ),
            NextStep::FixEntryField { field, phase } => {
                format!("put a valid `{field}` into the context before resuming phase `{phase}`")
            }
            NextStep::GrantHarnessRequest { checkpoint_id } => format!(
                "grant the harness request: create an empty `checkpoint-{checkpoint_id}.md.granted` beside `checkpoint-{checkpoint_id}.md`, after it (one older than the request answered an earlier one)"
            ),
            NextStep::Approve {
                checkpoint_id,
                approver,
                acknowledge,
                after_refresh,
                confirm_irreversible,
            } => {
                let acks: String = acknowledge
                    .iter()
                    .map(|f| format!(" --ack {}", shell_word(f)))
                    .collect();
                let (contract, checkpoint_id, context) = (
                    shell_word(contract),
                    shell_word(checkpoint_id),
                    shell_word(context),
                );
                format!(
                    "{}get an approval bound to this checkpoint and context: phaselint approve --contract {contract} --checkpoint {checkpoint_id} --context {context} --by NAME --policy {}{acks}{} --output approval.json{}, then pass --approvals approval.json",
                    if *after_refresh { "then " } else { "" },
                    approver.flag(),
                    if *confirm_irreversible { " --confirm-irreversible" } else { "" },
                    approver.alternative()
                )
            }
            NextStep::ApproveInteractively => {
                "or run the check with --interactive on a terminal to approve it now".into()
            }
            NextStep::NoApprovalOnceFresh => {
                "then no approval is needed: with the blocking fields fresh, auto_if_fresh grants it"
                    .into()
            }
        }
    }
}

/// The steps for a report. `recovery_hook`: a `--recover-with` command was
/// given; `interactive`: an operator could have been asked.
pub fn next_steps(report: &ResumeReport, recovery_hook: bool, interactive: bool) -> Vec<NextStep> {
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
