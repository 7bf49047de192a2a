//! Approval records (docs/resume-check.md): where they come from, and
//! whether one is valid for the checkpoint as it stands.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{ApprovalPolicy, RiskClass, SideEffects};
use crate::resume::context_binding::ContextBinding;
use crate::resume::document::type_name;
use crate::resume::staleness::parse_timestamp;

/// The context key approvals are looked up under (REQ-10-006).
pub(crate) const APPROVALS_KEY: &str = "_cc_checkpoint_approvals";

/// The most bytes all `--approvals` files of one resume check may hold
/// together (each is bounded by `input::Bound::Approvals`).
pub(crate) const APPROVALS_TOTAL_BYTES: u64 = 4 * 1024 * 1024;

/// The most approval records one resume check reads, from every source
/// together: each is judged and reported, so they are bounded in number.
pub(crate) const MAX_APPROVAL_RECORDS: usize = 1000;

/// Who granted an approval. An `ApprovalRecord`'s `policy` names the kind
/// of approver; `approved_by` names the approver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApproverKind {
    Human,
    Orchestrator,
}

impl ApproverKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ApproverKind::Human => "human",
            ApproverKind::Orchestrator => "orchestrator",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "human" => Some(ApproverKind::Human),
            "orchestrator" => Some(ApproverKind::Orchestrator),
            _ => None,
        }
    }

    /// Whether an approval by this kind of approver satisfies `policy`.
    pub fn satisfies(self, policy: ApprovalPolicy) -> bool {
        match policy {
            ApprovalPolicy::Human => self == ApproverKind::Human,
            ApprovalPolicy::Orchestrator => self == ApproverKind::Orchestrator,
            ApprovalPolicy::HumanOrOrchestrator | ApprovalPolicy::AutoIfFresh => true,
        }
    }
}

/// One approval of one checkpoint resume (ContextCore's `ApprovalRecord`
/// plus `target_digest`). Unknown keys are refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalRecord {
    pub approved_by: String,
    /// ISO 8601 / RFC 3339 with `Z` or an offset.
    pub(crate) approved_at: String,
    /// `human` or `orchestrator`: the kind of approver.
    pub(crate) policy: String,
    pub checkpoint_id: String,
    #[serde(default)]
    pub(crate) stale_fields_acknowledged: Vec<String>,
    #[serde(default)]
    pub(crate) notes: Option<String>,
    /// Hex SHA-256 of the checkpoint's canonical target (see `target_digest`).
    #[serde(default)]
    pub target_digest: Option<String>,
    /// Hex SHA-256 of the values of the entry fields of the phases resumed
    /// into, in the context the approver saw (`approve --context`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_digest: Option<String>,
    /// Each of those fields' own digest, so a refusal can name what changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) context_field_digests: Option<BTreeMap<String, String>>,
}

/// Reads an approvals document: one record (a mapping) or a list of them.
pub fn parse_records(value: &Value) -> Result<Vec<ApprovalRecord>, String> {
    let one = |v: &Value| {
        if !v.is_object() {
            return Err(format!(
                "an ApprovalRecord is a mapping, found {}",
                type_name(v)
            ));
        }
        ApprovalRecord::deserialize(v).map_err(|e| e.to_string())
    };
    match value {
        Value::Object(_) => Ok(vec![one(value)?]),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| one(v).map_err(|e| format!("record {}: {e}", i + 1)))
            .collect(),
        other => Err(format!(
            "expected one ApprovalRecord (a mapping) or a list of them, found {}",
            type_name(other)
        )),
    }
}

/// Approvals found outside the context, by the caller.
#[derive(Clone, Debug, PartialEq)]
pub enum ApprovalSource {
    /// An approvals file (`--approvals FILE`) and its records.
    File {
        location: String,
        records: Vec<ApprovalRecord>,
    },
    /// A harness sentinel `checkpoint-<id>.md.granted`: empty, it is one
    /// human approval of the checkpoint as it stands; otherwise the record
    /// it holds, validated like any other.
    HarnessGrant {
        location: String,
        record: Option<ApprovalRecord>,
    },
    /// A harness request `checkpoint-<id>.md` without its `.granted`
    /// sentinel: the approval is pending, so the resume is denied.
    HarnessPending { location: String },
    /// A grant that answers no current request (no `.md` beside it, or one
    /// written after it): reported, never counted.
    HarnessIgnored { location: String, reason: String },
}

/// Where a candidate approval came from, in reports. Where it came from is
/// part of whether it counts: the context is written by the paused run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// `_cc_checkpoint_approvals` in the context the run wrote.
    Context,
    /// `--approvals FILE`.
    File,
    /// A harness grant in `--harness-dir`.
    Harness,
    /// The operator, asked on the terminal (`--interactive`).
    Interactive,
}

impl Origin {
    /// How reports name the source.
    pub fn describe(self) -> &'static str {
        match self {
            Origin::Context => "the context, written by the run",
            Origin::File => "an approvals file",
            Origin::Harness => "the harness directory",
            Origin::Interactive => "the operator, on the terminal",
        }
    }
}

/// One approval presented for the checkpoint, and what is wrong with it.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub source: Origin,
    pub location: String,
    pub record: Option<ApprovalRecord>,
    pub valid: bool,
    pub problems: Vec<String>,
}

impl Candidate {
    /// A harness sentinel that approves nothing (a grant that answers no
    /// request, a request with no grant), with why.
    pub(crate) fn unanswering_harness_sentinel(location: &str, problem: String) -> Candidate {
        Candidate {
            source: Origin::Harness,
            location: location.to_string(),
            record: None,
            valid: false,
            problems: vec![problem],
        }
    }

    /// A harness request still waiting for its grant.
    pub(crate) fn pending_harness_request(location: &str) -> Candidate {
        Candidate::unanswering_harness_sentinel(
            location,
            format!(
                "the harness request `{location}` is pending: no `.granted` sentinel was written after it"
            ),
        )
    }
}

/// What the approval is checked against.
pub(crate) struct Expectation<'a> {
    pub(crate) checkpoint_id: &'a str,
    /// What the resume needs: the spec's policy, or `human` when the run
    /// resumes into an irreversible phase.
    pub(crate) policy: ApprovalPolicy,
    pub(crate) now: Timestamp,
    pub(crate) stale_fields: &'a [String],
    pub(crate) digest: &'a str,
    /// The version-1 digest an earlier phaselint bound approvals to.
    pub(crate) legacy_digest: &'a str,
    /// The entry fields of the phases resumed into, as the context has them
    /// now; `None` when no context is given (`phaselint checkpoints`
    /// without `--context`): a record's context digest is then not judged.
    pub(crate) context: Option<&'a ContextBinding>,
    /// The irreversible phases the run resumes into, which make `policy`
    /// `human` whatever the spec says, and need a context-bound record.
    pub(crate) irreversible_next: &'a [String],
    /// `--trust-context-approvals`: only the orchestrator writes the context
    /// store, so a record read from it may satisfy a `human` policy.
    pub(crate) trust_context: bool,
}

/// The problems that make `record`, found at `source`, no approval of the
/// resume; empty when it is one.
pub(crate) fn validate(
    record: &ApprovalRecord,
    source: Origin,
    expected: &Expectation<'_>,
) -> Vec<String> {
    let mut problems = Vec::new();
    if record.approved_by.trim().is_empty() {
        problems.push("approved_by is empty".to_string());
    }
    if record.checkpoint_id != expected.checkpoint_id {
        problems.push(format!(
            "it approves checkpoint `{}`, not `{}`",
            record.checkpoint_id, expected.checkpoint_id
        ));
    }
    if let Some(problem) = source_problem(source, expected) {
        problems.push(problem);
    }
    match ApproverKind::parse(&record.policy) {
        None => problems.push(format!(
            "policy `{}` is not a kind of approver (human or orchestrator)",
            record.policy
        )),
        Some(kind) if !kind.satisfies(expected.policy) => {
            let article = if kind == ApproverKind::Orchestrator {
                "an"
            } else {
                "a"
            };
            problems.push(match expected.irreversible_next {
                [] => format!(
                    "{article} {} approval does not satisfy approval_policy `{}`",
                    kind.as_str(),
                    crate::model::EnumValue::as_str(expected.policy)
                ),
                phases => format!(
                    "{article} {} approval cannot approve resuming into irreversible phase {}: a person must",
                    kind.as_str(),
                    crate::diagnostic::code_list(phases.iter())
                ),
            })
        }
        Some(_) => {}
    }
    match parse_timestamp(&record.approved_at) {
        Err(error) => problems.push(format!(
            "approved_at `{}` is not an RFC 3339 timestamp ({error})",
            record.approved_at
        )),
        Ok(at) if at > expected.now => problems.push(format!(
            "approved_at {} is after the resume time {}",
            record.approved_at, expected.now
        )),
        Ok(_) => {}
    }
    let unacknowledged: Vec<&str> = expected
        .stale_fields
        .iter()
        .filter(|f| !record.stale_fields_acknowledged.contains(f))
        .map(String::as_str)
        .collect();
    if !unacknowledged.is_empty() {
        problems.push(format!(
            "it does not acknowledge stale field{} {}",
            if unacknowledged.len() == 1 { "" } else { "s" },
            crate::diagnostic::code_list(unacknowledged.iter())
        ));
    }
    match &record.target_digest {
        None => problems.push(
            "it has no target_digest, so it is not bound to this checkpoint; approve again with `phaselint approve`".to_string(),
        ),
        Some(digest) if digest == expected.legacy_digest => problems.push(format!(
            "target_digest {digest} was bound by an earlier phaselint to the checkpoint and its phase only, not to the phases the run resumes into; approve again with `phaselint approve` (current target digest {})",
            expected.digest
        )),
        Some(digest) if digest != expected.digest => problems.push(format!(
            "target_digest {digest} is not the checkpoint's current digest {}: it approves a different or edited checkpoint, or a resume into different phases; approve again with `phaselint approve`",
            expected.digest
        )),
        Some(_) => {}
    }
    // Bound to other phases, the record was bound to their fields too:
    // only a record of this target says anything about this context.
    let same_target = record.target_digest.as_deref() == Some(expected.digest);
    match (&record.context_digest, expected.context) {
        (Some(digest), Some(context)) if same_target && *digest != context.digest => {
            let changed = context.changed_since(record.context_field_digests.as_ref());
            problems.push(format!(
                "the context changed since the approval: {} no longer {} what was approved (context_digest {digest}, now {}); approve again with `phaselint approve --context`",
                if changed.is_empty() {
                    "the entry fields of the phases resumed into".to_string()
                } else {
                    crate::diagnostic::code_list(changed.iter())
                },
                if changed.len() == 1 { "holds" } else { "hold" },
                context.digest
            ));
        }
        (None, _) if !expected.irreversible_next.is_empty() => problems.push(format!(
            "it has no context_digest: a resume into irreversible phase {} needs an approval of the context it resumes with; approve with `phaselint approve --context FILE`",
            crate::diagnostic::code_list(expected.irreversible_next.iter())
        )),
        _ => {}
    }
    problems
}

/// Why an approval from `source` cannot count here, if it cannot: the
/// context is written by the paused run itself, so what it says about its
/// own approval counts only where an orchestrator may approve.
fn source_problem(source: Origin, expected: &Expectation<'_>) -> Option<String> {
    if source != Origin::Context {
        return None;
    }
    if !expected.irreversible_next.is_empty() {
        return Some(format!(
            "it was read from the context, which the paused run writes: no approval from there counts for a resume into irreversible phase {}; give a person's approval with --approvals, a harness grant or --interactive",
            crate::diagnostic::code_list(expected.irreversible_next.iter())
        ));
    }
    if expected.policy == ApprovalPolicy::Human && !expected.trust_context {
        return Some(
            "it was read from the context, which the paused run writes, so it cannot satisfy approval_policy `human`: give the approval with --approvals, a harness grant or --interactive (or pass --trust-context-approvals if only the orchestrator writes the context store)".to_string(),
        );
    }
    None
}

/// What an operator is asked, and shown before anything is recorded
/// (Syndicate's INV-OI-001): `resume-check --interactive`, and each step
/// of `approve --interactive`'s walk of the queue.
#[derive(Clone, Debug)]
pub struct ApprovalQuestion {
    pub checkpoint_id: String,
    pub phase: String,
    pub pipeline_id: String,
    pub policy: ApprovalPolicy,
    pub target_digest: String,
    pub stale_fields: Vec<String>,
    /// The irreversible phases the run resumes into: ask a second time.
    pub irreversible_next: Vec<String>,
    pub authorization_statement: String,
    /// Why the resume waits for approval.
    pub trigger: TriggerCategory,
    /// The one-line canonical request (the denial's
    /// `canonical_request_summary`).
    pub canonical_request_summary: String,
    /// The authorization scope: the phases the run resumes into, with
    /// their side effects and risk.
    pub resumes_into: Vec<ResumedPhase>,
    /// The reversibility class: the strongest side effect among them.
    pub reversibility: SideEffects,
    /// The context digest the approval will carry; `None` when it is not
    /// bound to a context.
    pub context_digest: Option<String>,
    /// The canonical JSON `target_digest` is the SHA-256 of.
    pub canonical_form: String,
}

/// One phase a resume runs next, as an operator is shown it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResumedPhase {
    pub name: String,
    pub side_effects: SideEffects,
    pub risk_class: RiskClass,
}

impl ResumedPhase {
    pub(crate) fn of(phase: &crate::model::Phase) -> Self {
        ResumedPhase {
            name: phase.name.clone(),
            side_effects: phase.side_effect_class(),
            risk_class: phase.risk(),
        }
    }
}

/// A person who can approve a resume on the spot.
pub trait Operator {
    /// Asks for approval; `Ok(Some(name))` when the operator approves,
    /// `Ok(None)` when they decline, `Err` when they cannot be asked.
    fn ask(&mut self, question: &ApprovalQuestion) -> Result<Option<String>, String>;
}

/// Why a checkpoint's resume waits for approval: Syndicate's checkpoint
/// trigger categories (its §7.1), read from the contract. When several
/// apply, the first in this order is named: it is the one that sets the
/// strongest requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerCategory {
    /// A phase the run resumes into has `side_effects: irreversible`: a
    /// person must approve whatever the spec says (P401, §10.4).
    IrreversibleNextPhase,
    /// A phase the run resumes into has `risk_class` `high` or `critical`.
    HighRiskOperation,
    /// A phase the run resumes into has a higher `risk_class` than the
    /// checkpoint's phase (G306's escalation edge).
    RiskClassTransition,
    /// Only the checkpoint's own `approval_required` / `approval_policy`.
    ApprovalPolicy,
}

impl TriggerCategory {
    pub fn as_str(self) -> &'static str {
        match self {
            TriggerCategory::IrreversibleNextPhase => "irreversible_next_phase",
            TriggerCategory::HighRiskOperation => "high_risk_operation",
            TriggerCategory::RiskClassTransition => "risk_class_transition",
            TriggerCategory::ApprovalPolicy => "approval_policy",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> ApprovalRecord {
        ApprovalRecord {
            approved_by: "ana".into(),
            approved_at: "2026-03-01T11:00:00Z".into(),
            policy: "human".into(),
            checkpoint_id: "k".into(),
            stale_fields_acknowledged: vec!["draft".into()],
            notes: None,
            target_digest: Some("d".into()),
            context_digest: None,
            context_field_digests: None,
        }
    }

    fn binding() -> ContextBinding {
        ContextBinding {
            fields: Vec::new(),
            digest: "c".into(),
            field_digests: BTreeMap::new(),
        }
    }

    fn problems_from(
        record: &ApprovalRecord,
        source: Origin,
        policy: ApprovalPolicy,
        irreversible_next: &[String],
        trust_context: bool,
    ) -> Vec<String> {
        let stale = ["draft".to_string()];
        validate(
            record,
            source,
            &Expectation {
                checkpoint_id: "k",
                policy,
                now: "2026-03-01T12:00:00Z".parse().unwrap(),
                stale_fields: &stale,
                digest: "d",
                legacy_digest: "v1",
                context: Some(&binding()),
                irreversible_next,
                trust_context,
            },
        )
    }

    fn problems(record: &ApprovalRecord, policy: ApprovalPolicy) -> Vec<String> {
        problems_from(record, Origin::File, policy, &[], false)
    }

    #[test]
    fn a_record_bound_to_this_checkpoint_acknowledging_what_is_stale_is_valid() {
        assert!(problems(&record(), ApprovalPolicy::Human).is_empty());
        assert!(problems(&record(), ApprovalPolicy::HumanOrOrchestrator).is_empty());
    }

    #[test]
    fn each_way_a_record_can_fail_is_named() {
        let mut wrong = record();
        wrong.approved_by = " ".into();
        wrong.checkpoint_id = "other".into();
        wrong.approved_at = "2026-03-01T13:00:00Z".into();
        wrong.stale_fields_acknowledged.clear();
        wrong.target_digest = Some("e".into());
        let found = problems(&wrong, ApprovalPolicy::Human);
        assert_eq!(found.len(), 5, "{found:#?}");
        assert!(found[0].contains("approved_by is empty"));
        assert!(found[1].contains("approves checkpoint `other`, not `k`"));
        assert!(found[2].contains("is after the resume time"));
        assert!(found[3].contains("does not acknowledge stale field `draft`"));
        assert!(found[4].contains("target"), "{}", found[4]);
    }

    #[test]
    fn the_kind_of_approver_must_satisfy_the_policy() {
        let mut by_orchestrator = record();
        by_orchestrator.policy = "orchestrator".into();
        let found = problems(&by_orchestrator, ApprovalPolicy::Human);
        assert_eq!(
            found,
            ["an orchestrator approval does not satisfy approval_policy `human`"]
        );
        assert!(problems(&by_orchestrator, ApprovalPolicy::Orchestrator).is_empty());
        let mut unknown = record();
        unknown.policy = "robot".into();
        assert!(problems(&unknown, ApprovalPolicy::Human)[0].contains("not a kind of approver"));
        let mut unbound = record();
        unbound.target_digest = None;
        assert!(problems(&unbound, ApprovalPolicy::Human)[0].contains("no target_digest"));
    }

    #[test]
    fn the_run_cannot_approve_itself_through_its_context() {
        let human = ApprovalPolicy::Human;
        let from_context = problems_from(&record(), Origin::Context, human, &[], false);
        assert_eq!(from_context.len(), 1, "{from_context:?}");
        assert!(
            from_context[0].contains("read from the context"),
            "{from_context:?}"
        );
        // Where an orchestrator may approve, the context may say so.
        for policy in [
            ApprovalPolicy::Orchestrator,
            ApprovalPolicy::HumanOrOrchestrator,
            ApprovalPolicy::AutoIfFresh,
        ] {
            let mut by_orchestrator = record();
            by_orchestrator.policy = "orchestrator".into();
            assert!(
                problems_from(&by_orchestrator, Origin::Context, policy, &[], false).is_empty(),
                "{policy:?}"
            );
        }
        // Trusted, a context record may satisfy `human`...
        assert!(problems_from(&record(), Origin::Context, human, &[], true).is_empty());
        // ... but never approve an irreversible resume, trusted or not.
        let mut bound = record();
        bound.context_digest = Some("c".into());
        let ship = ["ship".to_string()];
        for trust in [false, true] {
            let found = problems_from(&bound, Origin::Context, human, &ship, trust);
            assert!(
                found
                    .iter()
                    .any(|p| p.contains("irreversible phase `ship`")),
                "{found:?}"
            );
            assert!(problems_from(&bound, Origin::File, human, &ship, trust).is_empty());
        }
    }

    #[test]
    fn an_irreversible_resume_needs_the_context_bound_and_unchanged() {
        let ship = ["ship".to_string()];
        let unbound = problems_from(&record(), Origin::File, ApprovalPolicy::Human, &ship, false);
        assert_eq!(unbound.len(), 1, "{unbound:?}");
        assert!(unbound[0].contains("no context_digest"), "{unbound:?}");
        let mut changed = record();
        changed.context_digest = Some("other".into());
        changed.context_field_digests = Some(BTreeMap::new());
        let found = problems(&changed, ApprovalPolicy::Human);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("the context changed since the approval"),
            "{found:?}"
        );
    }

    #[test]
    fn a_record_bound_by_an_earlier_phaselint_is_told_to_approve_again() {
        let mut old = record();
        old.target_digest = Some("v1".into());
        let found = problems(&old, ApprovalPolicy::Human);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("earlier phaselint"), "{found:?}");
        assert!(found[0].contains("approve again"), "{found:?}");
    }

    #[test]
    fn an_approvals_document_is_one_record_or_a_list_and_unknown_keys_are_refused() {
        let one = serde_json::to_value(record()).unwrap();
        assert_eq!(parse_records(&one).unwrap(), [record()]);
        let two = serde_json::Value::Array(vec![one.clone(), one.clone()]);
        assert_eq!(parse_records(&two).unwrap().len(), 2);
        let mut extra = one;
        extra["approver"] = "x".into();
        assert!(parse_records(&extra).is_err());
        assert!(parse_records(&serde_json::json!("yes")).is_err());
    }
}
