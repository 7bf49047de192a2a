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
mod error;
mod facts;
mod handoff;
mod harness;
mod harness_check;
mod harness_write;
mod inputs;
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
pub use error::{ResumeError, first_findings};
pub(crate) use facts::ResumeFacts;
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
pub(crate) use inputs::require_mapping;
pub use inputs::{
    MAX_ENTRY_FIELDS, Recoverer, RecoveryOutcome, RecoveryRequest, ResumeRequest,
    check_entry_field_count,
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
pub(crate) use next::NextStep;
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
pub(crate) use target::irreversible_phases;
pub use target::{
    ContractError, SUPPRESSED_ERROR_NOTE, Target, contract_errors, target_digest, target_digests,
};
