//! The resume verdict as data: `ResumeReport` serializes to the JSON report
//! of docs/resume-check.md (`--format json`), and the human renderer reads
//! the same values.

use serde::Serialize;
use serde_json::Value;

use crate::model::{ApprovalPolicy, FieldSeverity, Recovery, RiskClass, SideEffects};
use crate::resume::approval::{ApprovalRecord, Candidate};
use crate::resume::entry::FieldResult;

pub use crate::resume::approval::TriggerCategory;
pub(crate) use crate::resume::decision::decide;
pub use crate::resume::decision::{Decision, Mode, NO_VERDICT_EXIT};

/// The whole verdict of one resume check.
#[derive(Clone, Debug, Serialize)]
pub struct ResumeReport {
    /// The version of this JSON shape.
    pub(crate) version: u32,
    pub checkpoint_id: String,
    /// The phase the checkpoint follows.
    pub phase: String,
    pub pipeline_id: String,
    /// The contract declares no checkpoint specs, so nothing was checked
    /// (REQ-10-011); in the JSON only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nothing_to_check: bool,
    /// False when a blocking field is stale, a blocking entry field failed,
    /// or a required approval was not granted — whatever the mode.
    pub passed: bool,
    /// What the mode makes of it.
    pub decision: Decision,
    pub mode: Mode,
    /// What strict mode would have decided (differs in permissive and audit).
    pub(crate) strict_decision: Decision,
    /// The resume time the check used.
    pub now: String,
    pub max_clock_skew_seconds: u64,
    pub target_digest: String,
    /// Every staleness check as finally evaluated (after any recovery), in
    /// declaration order: what was checked.
    pub staleness_checks: Vec<CheckedField>,
    /// Every field found stale, before or after recovery: `elapsed_seconds`
    /// and `set_at` are those of the finding (before recovery), `is_stale`
    /// is the final state, and `reason` says what recovery changed.
    pub stale_fields: Vec<StaleField>,
    pub(crate) fresh_fields: Vec<String>,
    pub missing_provenance: Vec<String>,
    /// Whether the context carries `_cc_propagation` at all.
    pub(crate) provenance_present: bool,
    pub recovery_attempts: Vec<RecoveryAttempt>,
    pub entry_revalidation: EntryRevalidation,
    pub approval_status: ApprovalStatus,
    /// Present when the approval gate denied (in any mode).
    pub denial: Option<Denial>,
    /// What failed, one sentence each.
    pub failures: Vec<String>,
    /// What is reported without failing.
    pub warnings: Vec<String>,
    pub(crate) gate_result: GateResult,
    pub events: Vec<Event>,
    /// What to do next: only steps that can change the verdict.
    pub next_steps: Vec<crate::resume::NextStep>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CheckedField {
    pub field: String,
    pub state: FieldState,
    pub(crate) elapsed_seconds: Option<i64>,
    pub(crate) max_age_seconds: i64,
    pub severity: FieldSeverity,
    pub reason: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct StaleField {
    pub field: String,
    /// When found stale; `null` when unknown (no stamp, or an unparseable
    /// timestamp).
    pub(crate) elapsed_seconds: Option<i64>,
    pub(crate) max_age_seconds: i64,
    pub(crate) is_stale: bool,
    /// The check's `on_stale`.
    pub(crate) severity: FieldSeverity,
    pub recovery: Option<Recovery>,
    /// Whether it blocks the resume while stale (`on_stale: blocking` or
    /// `recovery: fail`).
    pub blocking: bool,
    pub reason: String,
    pub(crate) recovery_attempted: bool,
    pub(crate) recovery_succeeded: bool,
    pub(crate) set_at: Option<String>,
    pub(crate) description: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptOutcome {
    /// The hook exited 0.
    Recovered,
    /// The hook exited non-zero or was killed by a signal.
    Failed,
    /// The hook ran past its time limit and was killed.
    TimedOut,
    /// The hook could not be started.
    NotStarted,
}

#[derive(Clone, Debug, Serialize)]
pub struct RecoveryAttempt {
    pub field: String,
    pub strategy: Recovery,
    pub command: String,
    pub outcome: AttemptOutcome,
    pub(crate) exit_code: Option<i32>,
    pub detail: String,
    /// The hook succeeded and the field is fresh after re-reading the context.
    pub recovered: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct EntryRevalidation {
    /// False when the checkpoint sets `revalidate_entry: false`.
    pub performed: bool,
    /// The next phase when there is exactly one; `null` otherwise.
    pub(crate) phase: Option<String>,
    /// Every phase revalidated (graph successors, or `--next-phase`).
    pub(crate) phases: Vec<String>,
    pub(crate) next_phase_source: NextPhaseSource,
    pub passed: bool,
    pub field_results: Vec<FieldResult>,
    pub reason: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct ApprovalStatus {
    pub required: bool,
    /// The policy the approval is judged by: the checkpoint's
    /// `approval_policy`, or `human` when the run resumes into an
    /// irreversible phase.
    pub policy: Option<ApprovalPolicy>,
    pub granted: bool,
    /// `auto_if_fresh` granted it because nothing blocking is stale.
    pub(crate) auto_granted: bool,
    /// The record that granted it.
    pub(crate) approval: Option<ApprovalRecord>,
    /// A harness request `checkpoint-<id>.md` waits for its `.granted`.
    pub harness_pending: bool,
    /// The irreversible phases the run resumes into: they make a person's
    /// approval required whatever the checkpoint spec's policy.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub irreversible_next: Vec<String>,
    /// What every approval was checked against: the checkpoint's target
    /// digest (it, its phase and the phases resumed into) ...
    pub target_digest: String,
    /// ... and the digest of the values of the entry fields of the phases
    /// resumed into, in this context, for records that carry one.
    pub context_digest: String,
    /// The fields `context_digest` covers.
    pub context_fields: Vec<String>,
    /// `--trust-context-approvals`: a record read from the context may
    /// satisfy a `human` policy (never an irreversible resume).
    pub trust_context_approvals: bool,
    /// Who said so: `--trust-context-approvals`, or the configuration file
    /// that sets `trust_context_approvals = true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust_context_source: Option<String>,
    /// Every approval presented, valid or not, with where it came from.
    pub candidates: Vec<Candidate>,
    pub reason: String,
}

/// What an operator console needs to render a denial without deriving
/// anything itself.
#[derive(Clone, Debug, Serialize)]
pub struct Denial {
    pub(crate) reason: String,
    pub(crate) checkpoint_id: String,
    pub(crate) phase: String,
    /// The checkpoint's `approval_policy` (`human` when it names none).
    pub(crate) required_policy: ApprovalPolicy,
    pub(crate) target_digest: String,
    pub(crate) stale_fields: Vec<String>,
    pub checkpoint_pending: CheckpointPending,
}

#[derive(Clone, Debug, Serialize)]
pub struct CheckpointPending {
    /// Which of Syndicate's checkpoint trigger categories (its §7.1) makes
    /// this resume wait for approval.
    pub checkpoint_type: TriggerCategory,
    pub(crate) trigger_description: String,
    pub(crate) canonical_request_summary: String,
    pub(crate) scope_delta: ScopeDelta,
    pub(crate) risk_classification: RiskClass,
    pub(crate) side_effect_class: SideEffects,
    pub(crate) policy_basis: ApprovalPolicy,
    pub(crate) authorization_statement: String,
    pub(crate) trust_state: TrustState,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct ScopeDelta {
    pub(crate) stale_fields: Vec<String>,
    pub(crate) failed_entry_fields: Vec<String>,
}

/// ContextCore's GateResult shape.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct GateResult {
    pub(crate) gate_id: String,
    pub(crate) phase: String,
    pub(crate) result: GateOutcome,
    pub(crate) severity: GateSeverity,
    pub(crate) reason: String,
    pub(crate) blocking: bool,
    pub(crate) evidence: Vec<Evidence>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Evidence {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    #[serde(rename = "ref")]
    pub(crate) reference: String,
    pub(crate) description: String,
}

/// A span event with REQ-10-009's name and attributes.
#[derive(Clone, Debug, Serialize)]
pub struct Event {
    pub(crate) name: &'static str,
    pub(crate) timestamp: String,
    /// Sorted by name.
    pub attributes: std::collections::BTreeMap<String, Value>,
}

/// A staleness check's state after any recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldState {
    Fresh,
    Stale,
    /// No `_cc_propagation` at all: neither stale nor fresh.
    Unknown,
}

/// Where the phases the run resumes into came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NextPhaseSource {
    /// The graph successors of the checkpoint's phase.
    Graph,
    /// `--next-phase`.
    NextPhase,
    /// The checkpoint's phase has no successor.
    None,
}

/// Where the approval gate stands (the state of the approval, not a level
/// of trust in anyone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TrustState {
    /// The checkpoint requires no approval.
    NotRequired,
    /// A valid approval granted it.
    Approved,
    /// auto_if_fresh granted it: nothing blocking is stale.
    AutoApproved,
    /// Nothing was presented.
    Unapproved,
    /// Every approval presented is invalid.
    Rejected,
    /// A harness request waits for its grant.
    Pending,
    /// The operator said no.
    Declined,
}

/// ContextCore's GateResult `result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum GateOutcome {
    Pass,
    Fail,
}

/// ContextCore's GateResult `severity`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum GateSeverity {
    Error,
    Warning,
    Info,
}
