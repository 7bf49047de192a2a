//! The runtime resume check (docs/resume-check.md, ContextCore REQ-10): may
//! a paused run resume from a checkpoint, given the context it would resume
//! with?
//!
//! It reads the same `Analysis` the linter builds — the contract model for
//! the checkpoint spec, the phase graph for the next phases, the YAML tree
//! for the target digest — and never loads the contract a second way.
//! Nothing here spawns processes or touches terminals: recovery hooks and
//! interactive approval come in through the `Recoverer` and `Operator`
//! traits, implemented by the CLI or by a Rust orchestrator.

mod approval;
mod check;
mod context_binding;
pub mod contextcore;
mod decision;
mod document;
mod entry;
mod handoff;
mod harness;
mod harness_check;
mod harness_write;
mod manifest;
mod manifest_files;
mod next;
mod next_steps;
mod nothing_to_check;
mod queue;
mod report;
pub mod request;
mod restore;
mod scope;
mod staleness;
mod stash;
mod state;
mod target;

pub use approval::{
    APPROVALS_KEY, APPROVALS_TOTAL_BYTES, ApprovalQuestion, ApprovalRecord, ApprovalSource,
    ApproverKind, Candidate, MAX_APPROVAL_RECORDS, Operator, Origin, ResumedPhase, parse_records,
};
pub use check::{check, required_policy, trigger_category};
pub use context_binding::{BOOKKEEPING_PREFIX, ContextBinding};
pub use document::{
    DocumentError, DocumentFormat, MEMORY_PER_INPUT_BYTE, canonical_json, node_to_value,
    parse_document, parse_document_within,
};
pub(crate) use entry::TypeKind;
pub use entry::{FieldResult, FieldStatus};
pub use handoff::{
    HandoffInput, HandoffReport, MAX_MARKDOWN_ELEMENTS, MAX_TASKS, Problem as HandoffProblem,
    Task as HandoffTask, check_handoff, markdown_elements, row_cells, tina_phase_of,
    unfinished_signal_for,
};
pub use harness::{
    DiskSentinels, EntryKind, GrantContent, GrantTiming, SentinelFile, SentinelFiles,
    SentinelPaths, Sentinels, grant_content, harness_sources, interrupted_consume, read_sentinels,
    unsafe_name,
};
pub use harness_check::{
    FIRED_NOTE, FiredFile, GrantFile, HarnessInput, HarnessReport, HarnessStatus, JudgedRecord,
    RequestFile, SentinelState, StatusRow, check_harness, file_time, find_checkpoint,
    harness_status,
};
pub use harness_write::{
    FireRefusal, FireReport, HookRun, JournalRecovery, SentinelStore, consume, fire,
    recover_consume, request_text, trigger_of,
};
pub use jiff::Timestamp;
pub use manifest::{
    CHECKPOINT_TYPES, EMPTY_INPUT_SHA256, MAX_MANIFEST_STRUCTURE, ManifestInput, ManifestReport,
    NoManifestVerdict, Question, ScopeFile, check_manifest, read_manifest,
};
pub use manifest_files::{
    DiskFiles, Hashed, MAX_SCOPE_FILES, SCOPE_FILE_BYTES, SCOPE_TOTAL_BYTES, ScopeError,
    ScopeFiles, combined_hash, manifest_hash, scoped,
};
pub use next::{Approver, NextStep};
pub use next_steps::next_steps;
pub use nothing_to_check::NOTHING_TO_CHECK;
pub(crate) use nothing_to_check::declares_no_checkpoints;
pub use queue::{ApprovalState, Queue, QueueItem, QueueRequest, approval_question, queue};
pub use report::{
    ApprovalStatus, AttemptOutcome, CheckedField, CheckpointPending, Decision, Denial,
    EntryRevalidation, Event, Evidence, FieldState, GateOutcome, GateResult, GateSeverity, Mode,
    NO_VERDICT_EXIT, NextPhaseSource, RecoveryAttempt, ResumeReport, ScopeDelta, StaleField,
    TriggerCategory, TrustState,
};
pub use restore::{
    Copy as RestoreCopy, StashRestore, Unreadable as UnreadableRestore, read_copy_restore,
    read_stash_restore,
};
pub use scope::{Entry, FileId, Links, MAX_LINKS, MAX_STEPS, Refusal, Resolved, Tree, resolve};
pub use staleness::{PROVENANCE_KEY, parse_timestamp};
pub use stash::{
    GitCommit, GitRepository, NoRepository, Revision, StashInfo, TreeEntry, carries_checkpoint,
};
pub use state::{StateKey, parse_state_within, state_hash, state_value};
pub(crate) use target::ResumeFacts;
pub(crate) use target::irreversible_phases;
pub use target::{
    ContractError, SUPPRESSED_ERROR_NOTE, Target, contract_errors, target_digest, target_digests,
};

use serde_json::Value;

use crate::model::Recovery;

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

/// Why no verdict could be given. Every one of these must stop a resume.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ResumeError {
    #[error("the contract has errors, so no resume verdict can be given: {}", findings.join("; "))]
    ContractHasErrors { findings: Vec<String> },
    #[error("unknown checkpoint `{id}`; {}", list("checkpoints", known))]
    UnknownCheckpoint { id: String, known: Vec<String> },
    #[error("checkpoint `{id}` cannot be checked: {problem}")]
    InvalidCheckpoint { id: String, problem: String },
    #[error(
        "next phase `{name}` is not a declared phase; {}",
        list("phases", known)
    )]
    UnknownPhase { name: String, known: Vec<String> },
    #[error(
        "`{name}` is not a phase the run can resume into from phase `{phase}`: {}",
        if successors.is_empty() {
            format!("`{phase}` has no successor, so nothing follows the checkpoint")
        } else {
            format!("its successors are {}; name one of them, or leave --next-phase out to check them all", crate::diagnostic::code_list(successors.iter()))
        }
    )]
    NotASuccessor {
        name: String,
        phase: String,
        successors: Vec<String>,
    },
    #[error("the context must be a mapping, found {found}")]
    ContextNotMapping { found: &'static str },
    #[error("malformed context: {message}")]
    MalformedContext { message: String },
    #[error("malformed approval in {location}: {message}")]
    MalformedApproval { location: String, message: String },
    #[error(
        "more than {limit} approval records were presented for one checkpoint (the context's and every --approvals file's together); a resume is approved by one valid record, so keep the ones that apply"
    )]
    TooManyApprovals { limit: usize },
    #[error("cannot re-read the context after recovery: {0}")]
    Reread(String),
    #[error("cannot ask the operator for approval: {0}")]
    Operator(String),
    #[error(
        "the entry check would visit more than {visits} values of the context (wildcard entry fields over a large context); no verdict is given rather than run on"
    )]
    TooMuchWork { visits: u64 },
    #[error(
        "the phases the run resumes into have {count} entry fields; the resume check reads at most {limit}, and gives no verdict rather than run on"
    )]
    TooManyEntryFields { count: usize, limit: usize },
}

/// How many names a message lists before "and N more".
const LISTED: usize = 50;

fn list(what: &str, items: &[String]) -> String {
    if items.is_empty() {
        return format!("the contract declares no {what}");
    }
    let listed = crate::diagnostic::code_list(items.iter().take(LISTED));
    match items.len().saturating_sub(LISTED) {
        0 => format!("{what}: {listed}"),
        more => format!("{what}: {listed} and {more} more"),
    }
}

/// Lists findings for a message: the first `LISTED`, then how many more.
pub fn first_findings(findings: impl ExactSizeIterator<Item = String>) -> Vec<String> {
    let total = findings.len();
    let mut listed: Vec<String> = findings.take(LISTED).collect();
    if total > LISTED {
        listed.push(format!("and {} more", total - LISTED));
    }
    listed
}

/// Refuses phases to resume into with more entry fields (required and
/// enrichment) than the resume check and `approve` read: each is looked
/// up, reported and bound to the approval, and a phase with a million
/// would take gigabytes.
pub fn check_entry_field_count(next: &[&crate::model::Phase]) -> Result<(), ResumeError> {
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
pub const MAX_ENTRY_FIELDS: usize = 10_000;

/// The context a resume is checked against must be a mapping.
pub(crate) fn require_mapping(context: &Value) -> Result<(), ResumeError> {
    if context.is_object() {
        Ok(())
    } else {
        Err(ResumeError::ContextNotMapping {
            found: document::type_name(context),
        })
    }
}
