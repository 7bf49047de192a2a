//! The types a manifest check takes and gives, shared by its files.

use serde::Serialize;
use serde_json::Value;

use super::super::report::{Decision, Mode};
use super::super::stash::StashInfo;
use super::super::state::StateKey;
use jiff::Timestamp;

/// The kinds of checkpoint a skill takes.
/// The kinds of checkpoint a skill takes.
pub(crate) const CHECKPOINT_TYPES: &[&str] = &[
    "git_stash",
    "file_backup",
    "state_snapshot",
    "database_savepoint",
];

/// The commas, brackets, colons, list dashes and line breaks a manifest's
/// text may have: at most twice as many values as this can come out of
/// them, so what the text costs once parsed is bounded before it is.
pub(crate) const MAX_MANIFEST_STRUCTURE: usize = 50_000;

/// What the check needs besides the manifest and its files (whose root
/// the `ScopeFiles` holds).
#[derive(Clone, Debug)]
pub struct ManifestInput {
    pub now: Timestamp,
    pub max_clock_skew: u64,
    pub mode: Mode,
    pub question: Question,
    /// The state a `state_snapshot` or `database_savepoint` is checked
    /// against (`--state FILE`): the live state for `mutate`, the
    /// snapshot a rollback would restore for `rollback`.
    pub state: Option<Value>,
}

/// The report of a manifest check, as `--format json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct ManifestReport {
    pub(crate) version: u32,
    pub(crate) kind: &'static str,
    pub checkpoint_id: String,
    pub checkpoint_type: String,
    pub question: Question,
    pub decision: Decision,
    pub(crate) passed: bool,
    pub mode: Mode,
    #[serde(skip)]
    pub strict_decision: Decision,
    pub expected_hash: String,
    /// The live files' (or the given state's) hash; `None` when some file
    /// or key could not be hashed.
    pub actual_hash: Option<String>,
    /// The hash of the scope files as the checkpoint stored them (the
    /// stash, the backup copies); `None` when not every one was found.
    pub stored_hash: Option<String>,
    pub files: Vec<ScopeFile>,
    /// The scope files whose live content differs from the stored one (or
    /// that are gone).
    pub changed_files: Vec<String>,
    pub state_keys: Vec<StateKey>,
    /// A `git_stash`'s stash, as its restore command names it.
    pub stash: Option<StashInfo>,
    pub problems: Vec<String>,
    pub warnings: Vec<String>,
    pub next_steps: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScopeFile {
    pub path: String,
    pub exists: bool,
    /// Its SHA-256 now.
    pub sha256: Option<String>,
    /// Its SHA-256 as the checkpoint stored it (in the stash, the backup).
    pub(crate) stored_sha256: Option<String>,
    /// Whether it differs from what was stored; `None` when unknown.
    pub changed: Option<bool>,
}

/// Why a manifest check gives no verdict (exit 3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoManifestVerdict {
    /// Every structural problem of the manifest.
    Malformed(Vec<String>),
    /// The manifest or its files are over a bound: which, and by what.
    OverBound(String),
    /// What the check needs cannot be read (the git repository) or was not
    /// given (the state of a state checkpoint): why.
    Unchecked(String),
}

/// Which question a manifest check answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Question {
    /// May the mutation proceed? The checkpoint is in place and the live
    /// state is still the checkpointed one.
    Mutate,
    /// Is the checkpoint still a valid rollback point? The stash or the
    /// backups are intact and match the hash, whatever the live files
    /// are now.
    Rollback,
}

/// The SHA-256 of empty input, which a hash of nothing is.
pub(crate) const EMPTY_INPUT_SHA256: &str =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// Whether a checkpoint type captures state keys rather than files.
pub(super) fn captures_state(kind: &str) -> bool {
    matches!(kind, "state_snapshot" | "database_savepoint")
}
