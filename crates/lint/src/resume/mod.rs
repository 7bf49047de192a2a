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

pub(crate) use approval::{APPROVALS_TOTAL_BYTES, MAX_APPROVAL_RECORDS};
pub use approval::{
    ApprovalQuestion, ApprovalRecord, ApprovalSource, ApproverKind, Operator, Origin, parse_records,
};
pub use check::{check, required_policy};
pub use context_binding::ContextBinding;
pub(crate) use document::parse_document_within;
pub use document::{
    DocumentError, DocumentFormat, MEMORY_PER_INPUT_BYTE, canonical_json, parse_document,
};
pub use entry::FieldStatus;
pub(crate) use entry::TypeKind;
pub(crate) use error::ResumeError;
pub use error::first_findings;
pub(crate) use facts::ResumeFacts;
pub use handoff::{
    HandoffInput, HandoffReport, Problem as HandoffProblem, check_handoff, row_cells,
    tina_phase_of, unfinished_signal_for,
};
pub use harness::{DiskSentinels, EntryKind, SentinelFile, SentinelFiles, harness_sources};
pub use harness_check::{
    GrantFile, HarnessInput, HarnessReport, HarnessStatus, SentinelState, check_harness,
    find_checkpoint, harness_status,
};
pub use harness_write::{
    FireRefusal, FireReport, HookRun, SentinelStore, consume, fire, recover_consume,
};
pub(crate) use inputs::check_entry_field_count;
pub(crate) use inputs::require_mapping;
pub use inputs::{Recoverer, RecoveryOutcome, RecoveryRequest, ResumeRequest};
pub use jiff::Timestamp;
pub use manifest::{
    ManifestInput, ManifestReport, NoManifestVerdict, Question, check_manifest, read_manifest,
};
pub use manifest_files::{
    DiskFiles, Hashed, MAX_SCOPE_FILES, ScopeError, ScopeFiles, manifest_hash, scoped,
};
pub(crate) use next::NextStep;
pub use nothing_to_check::NOTHING_TO_CHECK;
pub(crate) use nothing_to_check::declares_no_checkpoints;
pub use queue::{ApprovalState, Queue, QueueItem, QueueRequest, approval_question, queue};
pub use report::{
    AttemptOutcome, Decision, Event, FieldState, Mode, NO_VERDICT_EXIT, ResumeReport,
    TriggerCategory,
};
pub use restore::{read_copy_restore, read_stash_restore};
pub use scope::{Entry, FileId, Links, MAX_LINKS, MAX_STEPS, Refusal, Resolved, Tree, resolve};
pub(crate) use staleness::PROVENANCE_KEY;
pub use staleness::parse_timestamp;
pub use stash::{GitCommit, GitRepository, NoRepository, Revision, TreeEntry};
pub use state::{parse_state_within, state_hash};
pub(crate) use target::irreversible_phases;
pub use target::{Target, contract_errors, target_digest, target_digests};
