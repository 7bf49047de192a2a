//! What one resume check is given besides the contract (the request, and
//! whoever can run recovery), and the checks of it made before any other.

use jiff::Timestamp;
use serde_json::Value;

use crate::model::Recovery;
use crate::resume::approval::ApprovalSource;
use crate::resume::error::ResumeError;
use crate::resume::report::Mode;

/// Everything one resume check needs besides the contract.
#[derive(Clone, Debug)]
pub struct ResumeRequest {
    pub checkpoint_id: String,
    /// The context the run would resume with (must be a mapping).
    pub context: Value,
    pub now: Timestamp,
    pub mode: Mode,
    /// The phase the run resumes into; `None` means the graph successors
    /// of the checkpoint's phase.
    pub next_phase: Option<String>,
    /// Approvals from outside the context (files, harness sentinels).
    pub approvals: Vec<ApprovalSource>,
    /// Seconds a `set_at` may lie in the future and still count as fresh.
    pub max_clock_skew: u64,
    /// Only the orchestrator writes the context store, so an approval read
    /// from it may satisfy a `human` policy (never an irreversible resume).
    pub trust_context_approvals: bool,
}

/// "Recover field F with strategy S", asked of whoever can.
#[derive(Clone, Debug)]
pub struct RecoveryRequest<'a> {
    pub checkpoint_id: &'a str,
    pub phase: &'a str,
    pub field: &'a str,
    pub strategy: Recovery,
}

/// How one recovery attempt ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecoveryOutcome {
    Recovered {
        detail: String,
    },
    Failed {
        exit_code: Option<i32>,
        detail: String,
    },
    TimedOut {
        detail: String,
    },
    NotStarted {
        detail: String,
    },
}

/// Runs recovery (`--recover-with`) and re-reads the context afterwards.
pub trait Recoverer {
    /// What runs, for the attempt record (e.g. the hook command).
    fn describe(&self) -> String;
    fn recover(&mut self, request: &RecoveryRequest<'_>) -> RecoveryOutcome;
    /// The context as it is now, after recovery changed it.
    fn reread_context(&mut self) -> Result<Value, String>;
}

/// Refuses phases to resume into with more entry fields (required and
/// enrichment) than the resume check and `approve` read: each is looked
/// up, reported and bound to the approval, and a phase with a million
/// would take gigabytes.
pub(crate) fn check_entry_field_count(next: &[&crate::model::Phase]) -> Result<(), ResumeError> {
    let count: usize = next.iter().map(|p| p.entry_fields().count()).sum();
    if count > MAX_ENTRY_FIELDS {
        return Err(ResumeError::TooManyEntryFields {
            count,
            limit: MAX_ENTRY_FIELDS,
        });
    }
    Ok(())
}

/// The most entry fields the phases a run resumes into may have for the
/// resume check and `approve` (real phases have a few dozen at most).
pub(crate) const MAX_ENTRY_FIELDS: usize = 10_000;

/// The context a resume is checked against must be a mapping.
pub(crate) fn require_mapping(context: &Value) -> Result<(), ResumeError> {
    if context.is_object() {
        Ok(())
    } else {
        Err(ResumeError::ContextNotMapping {
            found: crate::resume::document::type_name(context),
        })
    }
}
