//! Checkpoint manifests (docs/resume-check.md): the record a checkpoint skill
//! writes before it mutates, which says how to restore the state and what
//! that state hashed to. "May the mutation proceed?" is answered by checking
//! the record, then the live files (and backup copies) against its hash.
//! Files come in through `ScopeFiles`, so the checks are tested without a
//! disk; the disk implementation walks each path beneath the root without
//! following a link out of it (`scope.rs`) and hashes in blocks, never a
//! whole file, within a bound per file and in total.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::document::{DocumentFormat, parse_document};
use super::manifest_files::*;
use super::report::{Decision, Mode, decide};
use super::restore::{StashRestore, normalized, read_copy_restore, read_stash_restore};
use super::scope::{FileId, Links, Refusal};
use super::staleness::parse_timestamp;
use super::stash::{self, GitRepository, StashCheck, StashInfo, check_stash};
use super::state::{StateKey, state_hash};
use crate::duration::format_seconds;
use jiff::Timestamp;

/// The kinds of checkpoint a skill takes.
/// The kinds of checkpoint a skill takes.
pub const CHECKPOINT_TYPES: &[&str] = &[
    "git_stash",
    "file_backup",
    "state_snapshot",
    "database_savepoint",
];

/// The commas, brackets, colons, list dashes and line breaks a manifest's
/// text may have: at most twice as many values as this can come out of
/// them, so what the text costs once parsed is bounded before it is.
pub const MAX_MANIFEST_STRUCTURE: usize = 50_000;

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
    pub version: u32,
    pub kind: &'static str,
    pub checkpoint_id: String,
    pub checkpoint_type: String,
    pub question: Question,
    pub decision: Decision,
    pub passed: bool,
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
    pub stored_sha256: Option<String>,
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

/// Reads a manifest's text (JSON or YAML), once its structure is known to
/// fit the bound: `Err` says why it cannot be read.
pub fn read_manifest(text: &str, format: DocumentFormat) -> Result<Value, String> {
    let structure = structure_of(text);
    if structure > MAX_MANIFEST_STRUCTURE {
        return Err(format!(
            "it has {structure} commas, brackets, colons, list dashes and line breaks, more than the limit of {MAX_MANIFEST_STRUCTURE}: a checkpoint manifest lists at most {MAX_SCOPE_FILES} scope files and little else"
        ));
    }
    parse_document(text, format).map_err(|e| e.to_string())
}

/// The characters that make JSON and YAML values: each value but the
/// first follows one (`[`, `{`, `,`, `:`, `?`, a `-` list dash, a line
/// break), and a key and its value share one `:`, so a text with `n` of
/// them has at most `2n + 1` values and keys.
fn structure_of(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let next = bytes.get(i + 1).copied();
        count += match b {
            b',' | b'[' | b'{' | b':' | b'?' | b'\n' => 1,
            b'\r' if next != Some(b'\n') => 1,
            b'-' if matches!(next, None | Some(b' ' | b'\t' | b'\n' | b'\r')) => 1,
            _ => 0,
        };
    }
    count
}

/// The manifest's fields, once its structure is known to be right.
struct Manifest<'a> {
    created: bool,
    id: &'a str,
    kind: &'a str,
    created_at: &'a str,
    files: Vec<&'a str>,
    state_keys: Vec<&'a str>,
    restore_command: &'a str,
    expiry: Option<&'a Value>,
    hash: &'a str,
    evidence: Option<&'a Vec<Value>>,
}

/// Reads the manifest's structure; every structural problem at once (a
/// malformed manifest is no verdict).
fn structure(manifest: &Value) -> Result<Manifest<'_>, NoManifestVerdict> {
    let mut problems = Vec::new();
    let Some(root) = manifest.as_object() else {
        return Err(NoManifestVerdict::Malformed(vec![format!(
            "the manifest must be a mapping, found {}",
            kind_of(manifest)
        )]));
    };
    let created = field(
        &mut problems,
        Some(root),
        "",
        "checkpoint_created",
        "boolean",
        true,
    );
    let checkpoint = field(&mut problems, Some(root), "", "checkpoint", "mapping", true)
        .and_then(Value::as_object);
    let id = field(
        &mut problems,
        checkpoint,
        "checkpoint.",
        "id",
        "string",
        true,
    );
    let kind = field(
        &mut problems,
        checkpoint,
        "checkpoint.",
        "type",
        "string",
        true,
    );
    let created_at = field(
        &mut problems,
        checkpoint,
        "checkpoint.",
        "created_at",
        "string",
        true,
    );
    let scope = field(
        &mut problems,
        checkpoint,
        "checkpoint.",
        "scope",
        "mapping",
        true,
    )
    .and_then(Value::as_object);
    // A state checkpoint captures keys; its `files` may be left out.
    let state_type = kind.and_then(Value::as_str).is_some_and(captures_state);
    let files = field(
        &mut problems,
        scope,
        "checkpoint.scope.",
        "files",
        "list",
        !state_type,
    );
    let state_keys = field(
        &mut problems,
        scope,
        "checkpoint.scope.",
        "state_keys",
        "list",
        false,
    );
    let restore = field(
        &mut problems,
        checkpoint,
        "checkpoint.",
        "restore_command",
        "string",
        true,
    );
    let expiry = checkpoint.and_then(|c| c.get("expiry"));
    let state = field(
        &mut problems,
        Some(root),
        "",
        "pre_mutation_state",
        "mapping",
        true,
    )
    .and_then(Value::as_object);
    let hash = field(
        &mut problems,
        state,
        "pre_mutation_state.",
        "hash",
        "string",
        true,
    );
    let evidence = field(
        &mut problems,
        Some(root),
        "",
        "evidence_anchors",
        "list",
        false,
    );
    if let Some(Value::String(kind)) = kind
        && !CHECKPOINT_TYPES.contains(&kind.as_str())
    {
        let known = crate::diagnostic::code_list(CHECKPOINT_TYPES.iter());
        let guess = crate::suggest::closest(kind, CHECKPOINT_TYPES.iter().copied())
            .map_or(String::new(), |g| format!("; did you mean `{g}`?"));
        problems.push(format!(
            "`checkpoint.type` `{kind}` is not one of {known}{guess}"
        ));
    }
    if let Some(Value::String(id)) = id
        && let Some(why) = id_refusal(id)
    {
        problems.push(format!(
            "`checkpoint.id` `{}` {why}: a checkpoint id is one name (a `file_backup` keeps its copies in `.checkpoints/<id>/`), so it may hold no `/`, `\\`, `..` or NUL byte",
            id.escape_debug()
        ));
    }
    let mut listed = Vec::new();
    if let Some(Value::Array(items)) = files
        && items.len() > MAX_SCOPE_FILES
    {
        return Err(NoManifestVerdict::OverBound(format!(
            "`checkpoint.scope.files` lists {} files, more than the limit of {MAX_SCOPE_FILES}; checkpoint fewer files at a time",
            items.len()
        )));
    }
    if let Some(Value::Array(items)) = files {
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(path) => listed.push(path),
                None => problems.push(format!(
                    "`checkpoint.scope.files[{i}]` must be a string, found {}",
                    kind_of(item)
                )),
            }
        }
    }
    let mut keys = Vec::new();
    if let Some(Value::Array(items)) = state_keys {
        if items.len() > MAX_SCOPE_FILES {
            return Err(NoManifestVerdict::OverBound(format!(
                "`checkpoint.scope.state_keys` lists {} keys, more than the limit of {MAX_SCOPE_FILES}; checkpoint fewer keys at a time",
                items.len()
            )));
        }
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(key) => keys.push(key),
                None => problems.push(format!(
                    "`checkpoint.scope.state_keys[{i}]` must be a string, found {}",
                    kind_of(item)
                )),
            }
        }
    }
    if let Some(expiry) = expiry
        && !matches!(expiry, Value::Null | Value::String(_) | Value::Number(_))
    {
        problems.push(format!(
            "`checkpoint.expiry` must be null, `never`, a duration or a date-time, found {}",
            kind_of(expiry)
        ));
    }
    if !problems.is_empty() {
        return Err(NoManifestVerdict::Malformed(problems));
    }
    Ok(Manifest {
        created: created.and_then(Value::as_bool).unwrap_or(false),
        id: text(id),
        kind: text(kind),
        created_at: text(created_at),
        files: listed,
        state_keys: keys,
        restore_command: text(restore),
        expiry: expiry.filter(|e| !e.is_null()),
        hash: text(hash),
        evidence: evidence.and_then(Value::as_array),
    })
}

/// Why a checkpoint id cannot be one name of a path, if it cannot.
fn id_refusal(id: &str) -> Option<&'static str> {
    if id.contains('/') || id.contains('\\') {
        Some("holds a path separator")
    } else if id.contains("..") {
        Some("holds `..`")
    } else if id.contains('\0') {
        Some("holds a NUL byte")
    } else if id == "." {
        Some("is `.`")
    } else {
        None
    }
}

/// `key` of `parent`, checked to be a `want`; a missing required key or a
/// value of another type is a problem.
fn field<'v>(
    problems: &mut Vec<String>,
    parent: Option<&'v serde_json::Map<String, Value>>,
    path: &str,
    key: &str,
    want: &str,
    required: bool,
) -> Option<&'v Value> {
    let value = parent?.get(key);
    let ok = match (value, want) {
        (None, _) | (Some(Value::Null), _) => {
            if required {
                problems.push(format!("`{path}{key}` is missing"));
            }
            return None;
        }
        (Some(v), "string") => v.is_string(),
        (Some(v), "boolean") => v.is_boolean(),
        (Some(v), "mapping") => v.is_object(),
        (Some(v), "list") => v.is_array(),
        (Some(_), _) => true,
    };
    if !ok {
        problems.push(format!(
            "`{path}{key}` must be a {want}, found {}",
            kind_of(value?)
        ));
        return None;
    }
    value
}

fn text(value: Option<&Value>) -> &str {
    value.and_then(Value::as_str).unwrap_or_default()
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// Whether a scope file looks like it holds secrets (the skill says to
/// leave those out of a checkpoint).
fn looks_secret(path: &str) -> bool {
    let name = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_lowercase();
    name == ".env"
        || name.starts_with(".env.")
        || name.contains("credentials")
        || name.ends_with(".pem")
        || name.ends_with(".key")
        || name.starts_with("id_rsa")
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

impl Question {
    pub fn as_str(self) -> &'static str {
        match self {
            Question::Mutate => "mutate",
            Question::Rollback => "rollback",
        }
    }
}

/// The SHA-256 of empty input, which a hash of nothing is.
pub const EMPTY_INPUT_SHA256: &str =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// Whether a checkpoint type captures state keys rather than files.
fn captures_state(kind: &str) -> bool {
    matches!(kind, "state_snapshot" | "database_savepoint")
}

/// Checks a manifest against the files beneath its root, the repository
/// there (a `git_stash`) and the state given (a `state_snapshot` or
/// `database_savepoint`). `Err` is no verdict: every structural problem,
/// a bound a file is over, git that cannot be read, or a state
/// checkpoint without its state.
pub fn check_manifest(
    manifest: &Value,
    files: &dyn ScopeFiles,
    git: &dyn GitRepository,
    input: &ManifestInput,
) -> Result<ManifestReport, NoManifestVerdict> {
    let m = structure(manifest)?;
    let state_kind = captures_state(m.kind);
    match (&input.state, state_kind) {
        (None, true) => {
            return Err(NoManifestVerdict::Unchecked(format!(
                "a {} checkpoint's hash covers the values of its state keys, so it cannot be recomputed without the state: pass --state FILE (JSON or YAML holding {})",
                m.kind,
                if m.state_keys.is_empty() {
                    "the keys".to_string()
                } else {
                    crate::diagnostic::code_list(m.state_keys.iter().take(10))
                }
            )));
        }
        (Some(_), false) => {
            return Err(NoManifestVerdict::Unchecked(format!(
                "--state applies only to state_snapshot and database_savepoint checkpoints; this one is a {}, whose scope is files: leave --state out",
                m.kind
            )));
        }
        _ => {}
    }
    // Problems with the record itself, with what the checkpoint stored
    // (both: no valid rollback point), and with the live state (it is no
    // longer the checkpointed one: blocks a mutation only).
    let mut record: Vec<String> = Vec::new();
    let mut stored_problems: Vec<String> = Vec::new();
    let mut live_problems: Vec<String> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();

    if !m.created {
        record.push("`checkpoint_created` is false: the checkpoint was not taken, so there is nothing to roll back to".into());
    }
    if m.id.trim().is_empty() {
        record.push("`checkpoint.id` is empty".into());
    }
    if m.restore_command.trim().is_empty() {
        record.push("`checkpoint.restore_command` is empty: nobody could restore the state".into());
    }
    match parse_timestamp(m.created_at) {
        Err(_) => record.push(format!(
            "`checkpoint.created_at` `{}` is not an ISO 8601 date-time with `Z` or an offset",
            m.created_at
        )),
        Ok(created_at) => {
            let ahead = created_at.as_second() - input.now.as_second();
            if ahead > input.max_clock_skew as i64 {
                record.push(format!(
                    "`checkpoint.created_at` {} is {} in the future, more than max_clock_skew {}",
                    m.created_at,
                    format_seconds(ahead as u64),
                    format_seconds(input.max_clock_skew)
                ));
            }
            if let Some(expiry) = m.expiry {
                match expires_at(expiry, created_at) {
                    Err(message) => record.push(message),
                    Ok(None) => {}
                    Ok(Some(at)) if input.now.as_second() > at.as_second() => record.push(format!(
                        "the checkpoint expired at {at}: it is stale, and restoring it may lose later work"
                    )),
                    Ok(Some(_)) => {}
                }
            }
        }
    }
    let hash_shape = m
        .hash
        .strip_prefix("sha256:")
        .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()));
    if !hash_shape {
        record.push(format!(
            "`pre_mutation_state.hash` `{}` is not `sha256:` followed by 64 hex digits",
            m.hash
        ));
    }
    let captured = if state_kind {
        m.state_keys.len()
    } else {
        m.files.len()
    };
    let what = if state_kind {
        "state key"
    } else {
        "scope file"
    };
    if captured == 0 {
        record.push(if state_kind {
            format!("`checkpoint.scope.state_keys` is empty: a {} checkpoint captures state keys, and this one captures none", m.kind)
        } else {
            format!("`checkpoint.scope.files` is empty: a {} checkpoint captures files, and this one captures none", m.kind)
        });
    } else if hash_shape
        && m.hash
            .strip_prefix("sha256:")
            .is_some_and(|h| h.eq_ignore_ascii_case(EMPTY_INPUT_SHA256))
    {
        record.push(format!(
            "`pre_mutation_state.hash` is the SHA-256 of empty input ({EMPTY_INPUT_SHA256}): it hashes nothing, so it cannot be the hash of {captured} {what}{}; the hash to record is {}",
            if captured == 1 { "" } else { "s" },
            if state_kind {
                "`phaselint manifest-hash --state FILE --key KEY...`"
            } else {
                "`phaselint manifest-hash FILE...`"
            }
        ));
    }
    if state_kind && !m.files.is_empty() {
        record.push(format!(
            "a {} checkpoint captures state keys, not files, so nothing restores the {} file{} `checkpoint.scope.files` lists: checkpoint files with a git_stash or file_backup checkpoint",
            m.kind,
            m.files.len(),
            if m.files.len() == 1 { "" } else { "s" }
        ));
    }
    if !state_kind && !m.state_keys.is_empty() {
        warnings.push(format!(
            "a {} checkpoint captures files, not state keys: `checkpoint.scope.state_keys` ({}) is neither captured nor checked",
            m.kind,
            crate::diagnostic::code_list(m.state_keys.iter().take(10))
        ));
    }

    let mut scope = Vec::with_capacity(m.files.len());
    let mut state_keys = Vec::new();
    let mut stash = None;
    let mut stored_hash = None;
    let mut actual_hash = None;
    let mut reverted_by_stash_push = false;
    // Scope files the stash holds as untracked files.
    let mut untracked: Vec<String> = Vec::new();
    if let Some(state) = &input.state {
        let (keys, hashed) = state_hash(state, &m.state_keys);
        state_keys = keys;
        // The state given is the live one for a mutation (a difference is
        // a change since the checkpoint), the snapshot for a rollback (a
        // difference is a snapshot that is not the checkpoint).
        let differs = match input.question {
            Question::Mutate => &mut live_problems,
            Question::Rollback => &mut stored_problems,
        };
        match hashed {
            Err(problems) => differs.extend(problems),
            Ok(hash) => {
                if hash_shape && !hash.eq_ignore_ascii_case(m.hash) {
                    differs.push(match input.question {
                        Question::Mutate => format!(
                            "the state changed since the checkpoint: its keys hash to {hash}, the manifest recorded {}",
                            m.hash
                        ),
                        Question::Rollback => format!(
                            "the state given is not the checkpointed one: its keys hash to {hash}, the manifest recorded {}",
                            m.hash
                        ),
                    });
                }
                actual_hash = Some(hash);
            }
        }
    } else {
        let live = live_files(&m, files, &mut record, &mut live_problems, &mut warnings)?;
        scope = live.files;
        actual_hash = live.hash;
        let stored: Vec<Option<String>> = match m.kind {
            "git_stash" => {
                let (check, restore) = stash_of(&m, git, hash_shape)?;
                stored_problems.extend(check.problems);
                warnings.extend(check.warnings);
                match input.question {
                    Question::Rollback => stored_problems.extend(check.rollback_problems),
                    Question::Mutate => warnings.extend(check.rollback_problems),
                }
                untracked = m
                    .files
                    .iter()
                    .zip(&check.untracked)
                    .filter(|(_, u)| **u)
                    .map(|(f, _)| f.to_string())
                    .collect();
                if input.question == Question::Rollback && restore.is_some_and(|r| r.pop) {
                    warnings.push("the restore command is `git stash pop`, which drops the stash once it applies: the rollback skill says never to delete a checkpoint until the rollback is verified; `git stash apply` keeps it".into());
                }
                stash = check.info;
                // Whether the changed files are what the stash's base has:
                // the work tree `git stash push` leaves behind.
                if input.question == Question::Mutate
                    && stored_problems.is_empty()
                    && let Some(base) = stash.as_ref().and_then(|s| s.base.clone())
                {
                    reverted_by_stash_push =
                        at_stash_base(git, &base, &scope, &check.stored, &check.tree_paths)?;
                }
                check.stored
            }
            "file_backup" if !m.id.trim().is_empty() => {
                backups(&m, files, &live.ids, hash_shape, &mut stored_problems)?
            }
            _ => vec![None; m.files.len()],
        };
        if stored.iter().all(Option::is_some) && !stored.is_empty() {
            stored_hash =
                Some(combined_hash(m.files.iter().zip(&stored).map(
                    |(path, sha)| (*path, sha.as_deref().unwrap_or_default()),
                )));
        }
        for (file, stored) in scope.iter_mut().zip(stored) {
            file.changed = match (&file.sha256, &stored, file.exists) {
                (Some(live), Some(stored), _) => Some(!live.eq_ignore_ascii_case(stored)),
                (None, Some(_), false) => Some(true),
                _ => None,
            };
            file.stored_sha256 = stored;
        }
        if let Some(actual) = &actual_hash
            && hash_shape
            && !actual.eq_ignore_ascii_case(m.hash)
        {
            let changed: Vec<&str> = scope
                .iter()
                .filter(|f| f.changed == Some(true))
                .map(|f| f.path.as_str())
                .collect();
            live_problems.push(format!(
                "the scope files changed since the checkpoint{}: they hash to {actual}, the manifest recorded {}",
                if changed.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", crate::diagnostic::code_list(changed.iter().take(20)))
                },
                m.hash
            ));
        }
    }

    let anchored = m.evidence.is_some_and(|anchors| {
        anchors.iter().any(|a| match a {
            Value::String(s) => s.contains(m.id),
            other => other.to_string().contains(m.id),
        })
    });
    if !anchored && !m.id.trim().is_empty() {
        warnings.push(format!(
            "no `evidence_anchors` entry mentions checkpoint `{}`: the evidence is not grounded in this checkpoint",
            m.id
        ));
    }

    let changed_files: Vec<String> = scope
        .iter()
        .filter(|f| f.changed == Some(true))
        .map(|f| f.path.clone())
        .collect();
    let checkpoint_valid = record.is_empty() && stored_problems.is_empty();
    let live_as_recorded = live_problems.is_empty();
    let next_steps = next_steps(
        &m,
        input.question,
        checkpoint_valid,
        live_as_recorded,
        reverted_by_stash_push,
        stash.as_ref(),
        &changed_files,
        &untracked,
        &scope,
    );
    let mut problems = record;
    problems.extend(stored_problems);
    if input.question == Question::Mutate {
        problems.extend(live_problems);
    }
    let (passed, strict_decision, decision) = decide(!problems.is_empty(), false, input.mode);
    Ok(ManifestReport {
        version: 1,
        kind: "manifest",
        checkpoint_id: m.id.to_string(),
        checkpoint_type: m.kind.to_string(),
        question: input.question,
        decision,
        passed,
        mode: input.mode,
        strict_decision,
        expected_hash: m.hash.to_string(),
        actual_hash,
        stored_hash,
        files: scope,
        changed_files,
        state_keys,
        stash,
        problems,
        warnings,
        next_steps,
    })
}

/// The live scope files, hashed beneath the root (links followed while
/// they stay inside it), and which file identity is which live file.
struct LiveFiles<'a> {
    files: Vec<ScopeFile>,
    /// `None` when some file could not be hashed.
    hash: Option<String>,
    ids: HashMap<FileId, &'a str>,
}

/// Hashes the live scope files. A path that is refused or cannot be read
/// goes to `record` (whatever the question, nothing can be restored
/// there safely); a missing file to `live` (it changed).
fn live_files<'a>(
    m: &Manifest<'a>,
    files: &dyn ScopeFiles,
    record: &mut Vec<String>,
    live: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<LiveFiles<'a>, NoManifestVerdict> {
    let mut scope = Vec::with_capacity(m.files.len());
    let mut ids: HashMap<FileId, &str> = HashMap::new();
    let mut all_hashed = true;
    let mut budget = Budget::new();
    for listed in &m.files {
        if looks_secret(listed) {
            warnings.push(format!(
                "scope file `{listed}` looks like it holds secrets; the checkpoint skill says to leave such files out of a checkpoint"
            ));
        }
        let (exists, sha) = match scoped(listed) {
            Err(refused) => {
                record.push(format!("scope path {refused}"));
                (false, None)
            }
            Ok(()) => match budget
                .hash(
                    files,
                    listed,
                    Links::WithinRoot,
                    &format!("scope file `{listed}`"),
                )
                .map_err(NoManifestVerdict::OverBound)?
            {
                Ok(Some(hashed)) => {
                    if let Some(id) = hashed.id {
                        ids.entry(id).or_insert(listed);
                    }
                    (true, Some(hashed.sha256))
                }
                Ok(None) => {
                    live.push(format!("scope file `{listed}` no longer exists"));
                    (false, None)
                }
                Err(error @ ScopeError::Refused(Refusal::Escapes { .. })) => {
                    record.push(format!(
                        "scope file `{listed}` is refused: {}",
                        scope_reason(&error)
                    ));
                    (true, None)
                }
                Err(error) => {
                    record.push(format!(
                        "scope file `{listed}` cannot be read: {}",
                        scope_reason(&error)
                    ));
                    (true, None)
                }
            },
        };
        all_hashed &= sha.is_some();
        scope.push(ScopeFile {
            path: listed.to_string(),
            exists,
            sha256: sha,
            stored_sha256: None,
            changed: None,
        });
    }
    let hash = all_hashed.then(|| {
        combined_hash(
            scope
                .iter()
                .map(|f| (f.path.as_str(), f.sha256.as_deref().unwrap_or_default())),
        )
    });
    Ok(LiveFiles {
        files: scope,
        hash,
        ids,
    })
}

/// A `git_stash`'s restore command read and its stash checked; what the
/// command restores, when it can be read.
fn stash_of(
    m: &Manifest<'_>,
    git: &dyn GitRepository,
    hash_shape: bool,
) -> Result<(StashCheck, Option<StashRestore>), NoManifestVerdict> {
    let nothing = || StashCheck {
        stored: vec![None; m.files.len()],
        tree_paths: vec![None; m.files.len()],
        ..StashCheck::default()
    };
    match read_stash_restore(m.restore_command) {
        // An empty command is a problem of the record already.
        Err(_) if m.restore_command.trim().is_empty() => Ok((nothing(), None)),
        Err(why) => {
            let mut check = nothing();
            check.problems.push(format!(
                "`checkpoint.restore_command` `{}` cannot be read: {why}",
                m.restore_command.escape_debug()
            ));
            Ok((check, None))
        }
        Ok(restore) => {
            let check = check_stash(
                git,
                m.id,
                &m.files,
                restore.index,
                hash_shape.then_some(m.hash),
                (SCOPE_FILE_BYTES, SCOPE_TOTAL_BYTES),
            )
            .map_err(|e| {
                NoManifestVerdict::Unchecked(format!("cannot read the git repository: {e}"))
            })?;
            Ok((check, Some(restore)))
        }
    }
}

/// Whether every changed scope file is, live, what the stash's base
/// commit has: the work tree `git stash push` leaves (it saves the
/// changes and reverts to HEAD).
fn at_stash_base(
    git: &dyn GitRepository,
    base: &str,
    scope: &[ScopeFile],
    stored: &[Option<String>],
    tree_paths: &[Option<String>],
) -> Result<bool, NoManifestVerdict> {
    let mut changed = Vec::new();
    for ((file, stored), path) in scope.iter().zip(stored).zip(tree_paths) {
        match (&file.sha256, stored, path) {
            (Some(live), Some(stored), Some(path)) if !live.eq_ignore_ascii_case(stored) => {
                changed.push((path.clone(), live.clone()));
            }
            (Some(_), Some(_), Some(_)) => {}
            // A file missing or unhashed: not what a stash push leaves.
            _ => return Ok(false),
        }
    }
    if changed.is_empty() {
        return Ok(false);
    }
    let paths: Vec<String> = changed.iter().map(|(p, _)| p.clone()).collect();
    let at_base = stash::file_hashes(git, base, &paths, SCOPE_FILE_BYTES).map_err(|e| {
        NoManifestVerdict::Unchecked(format!("cannot read the git repository: {e}"))
    })?;
    Ok(changed.iter().all(|(path, live)| {
        at_base
            .get(path)
            .is_some_and(|b| b.eq_ignore_ascii_case(live))
    }))
}

/// What to do next, by question and what was found.
// Each argument is one finding of the check; a struct of them would only
// be built for this call.
#[allow(clippy::too_many_arguments)]
fn next_steps(
    m: &Manifest<'_>,
    question: Question,
    checkpoint_valid: bool,
    live_as_recorded: bool,
    reverted_by_stash_push: bool,
    stash: Option<&StashInfo>,
    changed: &[String],
    untracked: &[String],
    scope: &[ScopeFile],
) -> Vec<String> {
    let restore = m.restore_command.trim();
    let changed_list = crate::diagnostic::code_list(changed.iter().take(20));
    match (question, checkpoint_valid, live_as_recorded) {
        (Question::Mutate, true, true) => vec![format!(
            "the mutation may proceed: the checkpoint is in place ({}) and the state is as recorded",
            match (m.kind, stash) {
                ("git_stash", Some(stash)) => format!("`{}` holds it", stash.reference),
                ("file_backup", _) => format!("its copies are in `.checkpoints/{}/`", m.id),
                _ => format!("`{restore}` restores it; phaselint does not check that command"),
            }
        )],
        (Question::Mutate, true, false) if reverted_by_stash_push => vec![format!(
            "the changed files are as the commit the stash was taken on has them, which is the work tree `git stash push` leaves: `git stash apply {}` brings the checkpointed files back (the stash stays, as the checkpoint); then check again",
            stash.map_or("stash@{0}", |s| s.reference.as_str())
        )],
        (Question::Mutate, true, false) => vec![
            "do not mutate on this state: it is not the checkpointed one".into(),
            "if the mutation has started, do not checkpoint again (the checkpoint skill: never checkpoint after mutation has started): ask `resume-check --for rollback` whether this checkpoint is still a valid rollback point".into(),
        ],
        (Question::Mutate, false, _) => vec![
            "do not mutate: the checkpoint is not in place. Nothing has been mutated yet, so take the checkpoint again as the skill says (a new manifest, its hash from `phaselint manifest-hash`), then check again".into(),
        ],
        (Question::Rollback, true, _) => {
            let mut steps = vec![format!(
                "the checkpoint is a valid rollback point: `{restore}` restores it{}",
                if changed.is_empty() {
                    String::new()
                } else {
                    format!(" ({} changed since the checkpoint)", changed_list)
                }
            )];
            if m.kind == "git_stash" {
                // Tracked files changed are checked out; untracked ones
                // that exist are removed (`git stash apply` creates them,
                // and refuses to overwrite one).
                let tracked: Vec<&String> =
                    changed.iter().filter(|f| !untracked.contains(f)).collect();
                let present: Vec<&String> = untracked
                    .iter()
                    .filter(|f| scope.iter().any(|s| &s.path == *f && s.exists))
                    .collect();
                let mut commands = Vec::new();
                if !tracked.is_empty() {
                    commands.push(format!(
                        "`git checkout -- {}`",
                        tracked.iter().map(|f| shell_word(f)).collect::<Vec<_>>().join(" ")
                    ));
                }
                if !present.is_empty() {
                    commands.push(format!(
                        "`rm -- {}`",
                        present.iter().map(|f| shell_word(f)).collect::<Vec<_>>().join(" ")
                    ));
                }
                if !commands.is_empty() {
                    steps.push(format!(
                        "`git stash` merges the stash onto the work tree and will not overwrite local changes nor an existing file the stash holds as untracked: first run {} (the tracked files back to the committed version, the untracked ones removed), then `{restore}`",
                        commands.join(" and ")
                    ));
                }
            }
            steps
        }
        (Question::Rollback, false, _) => vec![format!(
            "this checkpoint is no valid rollback point: do not run `{restore}` (the rollback skill: never roll back without a valid checkpoint); restore {} another way",
            if changed.is_empty() {
                "the scope".to_string()
            } else {
                format!("the changed files ({changed_list})")
            }
        )],
    }
}

/// A path as one shell word: as it is when it holds only characters no
/// shell reads specially, else in single quotes.
fn shell_word(path: &str) -> String {
    if !path.is_empty()
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-/+@%=:,".contains(&b))
        && !path.starts_with('-')
    {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// A `file_backup`'s copies: `.checkpoints/<id>/<path>` or
/// `.checkpoints/<id>/<base name>` under the root, hashing (under the
/// listed paths) to the recorded hash, and named by the restore command.
/// No link is followed anywhere on the way (a link is no copy, and may
/// point at the live file), and a copy that is a live file itself (the
/// same device and inode: a hard link) is no backup either. The id is one
/// name (checked with the structure). Returns each file's copy's SHA-256.
fn backups(
    m: &Manifest<'_>,
    files: &dyn ScopeFiles,
    live: &HashMap<FileId, &str>,
    hash_shape: bool,
    problems: &mut Vec<String>,
) -> Result<Vec<Option<String>>, NoManifestVerdict> {
    let folder = format!(".checkpoints/{}", m.id);
    let mut budget = Budget::new();
    let mut stored = vec![None; m.files.len()];
    // Where each scope file's copy was found.
    let mut copies: Vec<Option<String>> = vec![None; m.files.len()];
    for (i, listed) in m.files.iter().enumerate() {
        // A path refused above has no backup to look for.
        if scoped(listed).is_err() {
            continue;
        }
        let base = listed
            .rsplit('/')
            .find(|name| !matches!(*name, "" | "." | ".."))
            .unwrap_or(listed);
        let mut candidates = vec![format!("{folder}/{listed}")];
        if base != *listed {
            candidates.push(format!("{folder}/{base}"));
        }
        let mut found = None;
        let mut refused = false;
        for candidate in &candidates {
            let shown = format!("the backup `{candidate}` of `{listed}`");
            match budget
                .hash(files, candidate, Links::Refused, &shown)
                .map_err(NoManifestVerdict::OverBound)?
            {
                Ok(Some(hashed)) => {
                    found = Some((candidate, hashed));
                    break;
                }
                Ok(None) => {}
                Err(ScopeError::Refused(refusal @ Refusal::Link { .. })) => {
                    problems.push(format!(
                        "the backup of `{listed}` is refused: {refusal}, and nothing under `.checkpoints/` may be a link (a backup must be a copy, not a link to a file that can change): replace it with a copy"
                    ));
                    refused = true;
                    break;
                }
                Err(error) => {
                    problems.push(format!(
                        "the backup `{candidate}` of `{listed}` cannot be read: {}",
                        scope_reason(&error)
                    ));
                    refused = true;
                    break;
                }
            }
        }
        match found {
            Some((candidate, hashed)) => {
                if let Some(live_path) = hashed.id.and_then(|id| live.get(&id)) {
                    // The live path reached it through a link (followed
                    // within the root), or is the same inode.
                    let linked = matches!(
                        files.hash(live_path, Links::Refused, 0),
                        Err(ScopeError::Refused(Refusal::Link { .. }))
                    );
                    problems.push(if linked {
                        format!(
                            "the backup `{candidate}` of `{listed}` is the live file itself: the scope file `{live_path}` is a symbolic link to it, so a mutation through `{live_path}` writes the backup and there is no copy to restore: make `{live_path}` a regular file and copy it into `{folder}/`"
                        )
                    } else {
                        format!(
                            "the backup `{candidate}` of `{listed}` is the live file `{live_path}` itself (the same device and inode: a hard link), so there is no copy to restore: copy the file into `{folder}/` instead"
                        )
                    });
                } else {
                    stored[i] = Some(hashed.sha256);
                }
                copies[i] = Some(candidate.clone());
            }
            None if refused => {}
            None => problems.push(format!(
                "the backup of `{listed}` is missing: neither `{folder}/{listed}` nor `{folder}/{base}` exists"
            )),
        }
    }
    if stored.iter().all(Option::is_some) && hash_shape {
        let backed = combined_hash(
            m.files
                .iter()
                .zip(&stored)
                .map(|(p, s)| (*p, s.as_deref().unwrap_or_default())),
        );
        if !backed.eq_ignore_ascii_case(m.hash) {
            problems.push(format!(
                "the backup copies hash to {backed}, not to the recorded {}: restoring them would not bring back the checkpointed state",
                m.hash
            ));
        }
    }
    if !m.restore_command.trim().is_empty() {
        problems.extend(restore_copies(m, &copies));
    }
    Ok(stored)
}

/// Whether a `file_backup`'s restore command copies each scope file's
/// backup (where it was found) onto the scope file: every `cp` source a
/// found copy, every destination its scope path (or the folder it is in,
/// under its own name), every scope file restored.
fn restore_copies(m: &Manifest<'_>, copies: &[Option<String>]) -> Vec<String> {
    let shown = m.restore_command.escape_debug();
    let commands = match read_copy_restore(m.restore_command) {
        Ok(commands) => commands,
        Err(why) => {
            return vec![format!(
                "`checkpoint.restore_command` `{shown}` cannot be read: {why}"
            )];
        }
    };
    // Each found copy, normalized, to its scope file's index; and where
    // each copy may be (for a copy that is missing, or found elsewhere).
    let mut by_copy: HashMap<String, usize> = HashMap::new();
    let mut by_candidate: HashMap<String, usize> = HashMap::new();
    for (i, listed) in m.files.iter().enumerate() {
        if let Some(copy) = &copies[i]
            && let Ok(path) = normalized(copy)
        {
            by_copy.insert(path, i);
        }
        if let Ok(path) = normalized(listed) {
            let base = path.rsplit('/').next().unwrap_or(&path).to_string();
            for candidate in [path.clone(), base] {
                by_candidate
                    .entry(format!(".checkpoints/{}/{candidate}", m.id))
                    .or_insert(i);
            }
        }
    }
    let mut problems = Vec::new();
    let mut restored = vec![false; m.files.len()];
    for command in &commands {
        for source in &command.sources {
            let i = match (by_copy.get(source), by_candidate.get(source)) {
                (Some(&i), _) => i,
                // Its backup is missing: a problem of its own already.
                (None, Some(&i)) if copies[i].is_none() => i,
                (None, Some(&i)) => {
                    problems.push(format!(
                        "`checkpoint.restore_command` copies `{source}`, but the backup of `{}` is `{}`",
                        m.files[i],
                        copies[i].as_deref().unwrap_or_default()
                    ));
                    continue;
                }
                (None, None) => {
                    problems.push(format!(
                        "`checkpoint.restore_command` copies `{source}`, which is not the backup of any scope file (the backups are in `.checkpoints/{}/`)",
                        m.id
                    ));
                    continue;
                }
            };
            let listed = m.files[i];
            let Ok(target) = normalized(listed) else {
                continue;
            };
            let (folder, name) = target.rsplit_once('/').unwrap_or(("", target.as_str()));
            let source_name = source.rsplit('/').next().unwrap_or(source);
            let writes_it = if command.into_folder {
                command.destination == folder && source_name == name
            } else {
                command.destination == target
                    || (command.destination == folder && !folder.is_empty() && source_name == name)
            };
            if writes_it {
                restored[i] = true;
            } else {
                problems.push(format!(
                    "`checkpoint.restore_command` copies the backup `{source}` to `{}`, not to the scope file `{listed}`",
                    if command.destination.is_empty() {
                        "."
                    } else {
                        command.destination.as_str()
                    }
                ));
            }
        }
    }
    for (i, listed) in m.files.iter().enumerate() {
        if !restored[i] && copies[i].is_some() {
            problems.push(format!(
                "`checkpoint.restore_command` `{shown}` does not restore `{listed}` (its backup is `{}`)",
                copies[i].as_deref().unwrap_or_default()
            ));
        }
    }
    problems
}

/// When a checkpoint expires: never (`never`), a duration after
/// `created_at`, or a date-time.
fn expires_at(expiry: &Value, created_at: Timestamp) -> Result<Option<Timestamp>, String> {
    let after = |seconds: u64| {
        created_at
            .checked_add(jiff::SignedDuration::from_secs(
                seconds.min(i64::MAX as u64) as i64,
            ))
            .map(Some)
            .map_err(|e| format!("`checkpoint.expiry` is out of range: {e}"))
    };
    match expiry {
        Value::String(text) if text.trim().eq_ignore_ascii_case("never") => Ok(None),
        Value::String(text) => {
            if let Some(seconds) = crate::duration::parse_seconds(text.trim()) {
                return after(seconds);
            }
            parse_timestamp(text).map(Some).map_err(|_| {
                format!("`checkpoint.expiry` `{text}` is neither `never`, a duration (`24h`, `7d`) nor an ISO 8601 date-time")
            })
        }
        Value::Number(n) => match n.as_u64() {
            Some(seconds) => after(seconds),
            None => Err(format!(
                "`checkpoint.expiry` {n} is not a whole number of seconds"
            )),
        },
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests;
