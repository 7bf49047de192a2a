//! SPEC §6 step 5: approval records, where they come from, and whether one
//! is valid for the checkpoint as it stands.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::ApprovalPolicy;
use crate::resume::document::type_name;
use crate::resume::staleness::parse_timestamp;

/// The context key approvals are looked up under (REQ-10-006).
pub const APPROVALS_KEY: &str = "_cc_checkpoint_approvals";

/// Who granted an approval. An `ApprovalRecord`'s `policy` names the kind
/// of approver; `approved_by` names the approver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApproverKind {
    Human,
    Orchestrator,
}

impl ApproverKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ApproverKind::Human => "human",
            ApproverKind::Orchestrator => "orchestrator",
        }
    }

    fn parse(text: &str) -> Option<Self> {
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
    pub approved_at: String,
    /// `human` or `orchestrator`: the kind of approver.
    pub policy: String,
    pub checkpoint_id: String,
    #[serde(default)]
    pub stale_fields_acknowledged: Vec<String>,
    #[serde(default)]
    pub notes: Option<String>,
    /// Hex SHA-256 of the checkpoint's canonical target (see `target_digest`).
    #[serde(default)]
    pub target_digest: Option<String>,
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
}

/// Where a candidate approval came from, in reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    Context,
    File,
    Harness,
    Interactive,
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

/// What the approval is checked against.
pub(crate) struct Expectation<'a> {
    pub checkpoint_id: &'a str,
    pub policy: ApprovalPolicy,
    pub now: Timestamp,
    pub stale_fields: &'a [String],
    pub digest: &'a str,
}

pub(crate) fn validate(record: &ApprovalRecord, expected: &Expectation<'_>) -> Vec<String> {
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
    match ApproverKind::parse(&record.policy) {
        None => problems.push(format!(
            "policy `{}` is not a kind of approver (human or orchestrator)",
            record.policy
        )),
        Some(kind) if !kind.satisfies(expected.policy) => problems.push(format!(
            "a{} {} approval does not satisfy approval_policy `{}`",
            if kind == ApproverKind::Orchestrator {
                "n"
            } else {
                ""
            },
            kind.as_str(),
            crate::model::EnumValue::as_str(expected.policy)
        )),
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
            unacknowledged
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    match &record.target_digest {
        None => problems.push(
            "it has no target_digest, so it is not bound to this checkpoint".to_string(),
        ),
        Some(digest) if digest != expected.digest => problems.push(format!(
            "target_digest {digest} is not the checkpoint's current digest {}: it approves a different or edited checkpoint",
            expected.digest
        )),
        Some(_) => {}
    }
    problems
}

/// What an interactive operator is asked (`--interactive` on a terminal).
#[derive(Clone, Debug)]
pub struct ApprovalQuestion {
    pub checkpoint_id: String,
    pub phase: String,
    pub pipeline_id: String,
    pub policy: ApprovalPolicy,
    pub target_digest: String,
    pub stale_fields: Vec<String>,
    /// The phase has `side_effects: irreversible`: ask a second time.
    pub irreversible: bool,
    pub authorization_statement: String,
}

/// A person who can approve a resume on the spot.
pub trait Operator {
    /// Asks for approval; `Ok(Some(name))` when the operator approves,
    /// `Ok(None)` when they decline, `Err` when they cannot be asked.
    fn ask(&mut self, question: &ApprovalQuestion) -> Result<Option<String>, String>;
}
