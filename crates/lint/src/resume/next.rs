//! "What to do next": the steps that can change a verdict, derived from the
//! report, as data (part of the JSON) with the sentence each one reads as.
//! A step that cannot change the verdict is never proposed: in strict mode
//! a stale blocking field blocks whatever is approved, so it is refreshed
//! or recovered, not acknowledged.

use serde::Serialize;

use crate::model::{ApprovalPolicy, EnumValue, Recovery};
use crate::resume::PROVENANCE_KEY;
use crate::resume::decision::{Decision, Mode};

/// Who `phaselint approve --policy` should name for a policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Approver {
    Human,
    Orchestrator,
    HumanOrOrchestrator,
}

impl Approver {
    pub(super) fn for_policy(policy: ApprovalPolicy) -> Self {
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
pub(super) fn shell_word(text: &str) -> std::borrow::Cow<'_, str> {
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
