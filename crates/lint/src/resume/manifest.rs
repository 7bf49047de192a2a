//! Checkpoint manifests (docs/resume-check.md): the record a checkpoint skill
//! writes before it mutates, which says how to restore the state and what
//! that state hashed to. "May the mutation proceed?" is answered by checking
//! the record, then the live files (and backup copies) against its hash.
//! Files come in through `ScopeFiles`, so the checks are tested without a
//! disk; the disk implementation hashes in blocks, never a whole file.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use sha2::Digest;

use super::report::{Decision, Mode, decide};
use super::staleness::parse_timestamp;
use crate::duration::format_seconds;
use crate::input;
use jiff::Timestamp;

/// The kinds of checkpoint a skill takes.
pub const CHECKPOINT_TYPES: &[&str] = &[
    "git_stash",
    "file_backup",
    "state_snapshot",
    "database_savepoint",
];

/// Reads the files a manifest's scope names.
pub trait ScopeFiles {
    /// The lower-case hex SHA-256 of the file at `path`; `Ok(None)` when
    /// nothing is there; `Err` when something is there that cannot be
    /// read as a file (a directory, a link loop, no permission).
    fn sha256(&self, path: &Path) -> Result<Option<String>, String>;
}

/// The real file system.
pub struct DiskFiles;

impl ScopeFiles for DiskFiles {
    fn sha256(&self, path: &Path) -> Result<Option<String>, String> {
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot look at `{}`: {e}", path.display())),
            Ok(_) => {}
        }
        input::sha256_file(path).map(Some).map_err(|e| e.reason())
    }
}

/// What the check needs besides the manifest.
#[derive(Clone, Debug)]
pub struct ManifestInput {
    pub now: Timestamp,
    pub max_clock_skew: u64,
    pub mode: Mode,
    /// Scope paths are relative to it.
    pub root: PathBuf,
}

/// The report of a manifest check, as `--format json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct ManifestReport {
    pub version: u32,
    pub kind: &'static str,
    pub checkpoint_id: String,
    pub decision: Decision,
    pub passed: bool,
    pub mode: Mode,
    #[serde(skip)]
    pub strict_decision: Decision,
    pub expected_hash: String,
    /// `None` when some scope file could not be hashed.
    pub actual_hash: Option<String>,
    pub files: Vec<ScopeFile>,
    pub problems: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScopeFile {
    pub path: String,
    pub exists: bool,
    pub sha256: Option<String>,
}

/// The combined hash of scope files: `sha256:` and the hex SHA-256 of, for
/// each file in listed order, its path as listed, a NUL, the hex SHA-256 of
/// its bytes, and a newline.
pub fn combined_hash<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut hasher = sha2::Sha256::new();
    for (path, sha) in files {
        hasher.update(path.as_bytes());
        hasher.update([0]);
        hasher.update(sha.as_bytes());
        hasher.update(b"\n");
    }
    format!("sha256:{}", input::hex(&hasher.finalize()))
}

/// Where a listed scope path is under `root`, or why it is refused: an
/// absolute path, or one that leaves the root through `..`.
pub fn scoped(root: &Path, listed: &str) -> Result<PathBuf, String> {
    let path = Path::new(listed);
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => {
                return Err(format!(
                    "`{listed}` is absolute; scope paths are relative to the root"
                ));
            }
            Component::ParentDir if depth == 0 => {
                return Err(format!("`{listed}` leaves the root through `..`"));
            }
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
        }
    }
    if depth == 0 {
        return Err(format!("`{listed}` names the root itself, not a file"));
    }
    Ok(root.join(path))
}

/// `phaselint manifest-hash`: the combined hash of `listed` under `root`.
/// Every file must be there and readable.
pub fn manifest_hash(
    files: &dyn ScopeFiles,
    root: &Path,
    listed: &[String],
) -> Result<String, String> {
    let mut hashed = Vec::with_capacity(listed.len());
    for path in listed {
        let full = scoped(root, path)?;
        match files.sha256(&full)? {
            Some(sha) => hashed.push((path.as_str(), sha)),
            None => {
                return Err(format!(
                    "`{path}` does not exist under `{}`",
                    root.display()
                ));
            }
        }
    }
    Ok(combined_hash(hashed.iter().map(|(p, s)| (*p, s.as_str()))))
}

/// The manifest's fields, once its structure is known to be right.
struct Manifest<'a> {
    created: bool,
    id: &'a str,
    kind: &'a str,
    created_at: &'a str,
    files: Vec<&'a str>,
    restore_command: &'a str,
    expiry: Option<&'a Value>,
    hash: &'a str,
    evidence: Option<&'a Vec<Value>>,
}

/// Reads the manifest's structure; every structural problem at once (a
/// malformed manifest is no verdict).
fn structure(manifest: &Value) -> Result<Manifest<'_>, Vec<String>> {
    let mut problems = Vec::new();
    let Some(root) = manifest.as_object() else {
        return Err(vec![format!(
            "the manifest must be a mapping, found {}",
            kind_of(manifest)
        )]);
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
    let files = field(
        &mut problems,
        scope,
        "checkpoint.scope.",
        "files",
        "list",
        true,
    );
    let _state_keys = field(
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
    let mut listed = Vec::new();
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
    if let Some(expiry) = expiry
        && !matches!(expiry, Value::Null | Value::String(_) | Value::Number(_))
    {
        problems.push(format!(
            "`checkpoint.expiry` must be null, `never`, a duration or a date-time, found {}",
            kind_of(expiry)
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Manifest {
        created: created.and_then(Value::as_bool).unwrap_or(false),
        id: text(id),
        kind: text(kind),
        created_at: text(created_at),
        files: listed,
        restore_command: text(restore),
        expiry: expiry.filter(|e| !e.is_null()),
        hash: text(hash),
        evidence: evidence.and_then(Value::as_array),
    })
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

/// Checks a manifest. `Err` lists every structural problem: no verdict.
pub fn check_manifest(
    manifest: &Value,
    files: &dyn ScopeFiles,
    input: &ManifestInput,
) -> Result<ManifestReport, Vec<String>> {
    let m = structure(manifest)?;
    let mut problems: Vec<String> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();

    if !m.created {
        problems.push("`checkpoint_created` is false: the checkpoint was not taken, so the mutation has nothing to roll back to".into());
    }
    if m.id.trim().is_empty() {
        problems.push("`checkpoint.id` is empty".into());
    }
    if m.restore_command.trim().is_empty() {
        problems
            .push("`checkpoint.restore_command` is empty: nobody could restore the state".into());
    }
    match parse_timestamp(m.created_at) {
        Err(_) => problems.push(format!(
            "`checkpoint.created_at` `{}` is not an ISO 8601 date-time with `Z` or an offset",
            m.created_at
        )),
        Ok(created_at) => {
            let ahead = created_at.as_second() - input.now.as_second();
            if ahead > input.max_clock_skew as i64 {
                problems.push(format!(
                    "`checkpoint.created_at` {} is {} in the future, more than max_clock_skew {}",
                    m.created_at,
                    format_seconds(ahead as u64),
                    format_seconds(input.max_clock_skew)
                ));
            }
            if let Some(expiry) = m.expiry {
                match expires_at(expiry, created_at) {
                    Err(message) => problems.push(message),
                    Ok(None) => {}
                    Ok(Some(at)) if input.now.as_second() > at.as_second() => problems.push(format!(
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
        problems.push(format!(
            "`pre_mutation_state.hash` `{}` is not `sha256:` followed by 64 hex digits",
            m.hash
        ));
    }

    // The live scope files.
    let mut scope = Vec::with_capacity(m.files.len());
    let mut all_hashed = true;
    for listed in &m.files {
        if looks_secret(listed) {
            warnings.push(format!(
                "scope file `{listed}` looks like it holds secrets; the checkpoint skill says to leave such files out of a checkpoint"
            ));
        }
        let (exists, sha) = match scoped(&input.root, listed) {
            Err(refused) => {
                problems.push(format!("scope path {refused}"));
                (false, None)
            }
            Ok(full) => match files.sha256(&full) {
                Ok(Some(sha)) => (true, Some(sha)),
                Ok(None) => {
                    problems.push(format!("scope file `{listed}` no longer exists"));
                    (false, None)
                }
                Err(reason) => {
                    problems.push(format!("scope file `{listed}` cannot be read: {reason}"));
                    (true, None)
                }
            },
        };
        all_hashed &= sha.is_some();
        scope.push(ScopeFile {
            path: listed.to_string(),
            exists,
            sha256: sha,
        });
    }
    let actual_hash = all_hashed.then(|| {
        combined_hash(
            scope
                .iter()
                .map(|f| (f.path.as_str(), f.sha256.as_deref().unwrap_or_default())),
        )
    });
    if let Some(actual) = &actual_hash
        && hash_shape
        && !actual.eq_ignore_ascii_case(m.hash)
    {
        problems.push(format!(
            "the scope files changed since the checkpoint: they hash to {actual}, the manifest recorded {}",
            m.hash
        ));
    }

    if m.kind == "file_backup" && !m.id.trim().is_empty() {
        backups(&m, files, input, hash_shape, &mut problems);
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

    let (passed, strict_decision, decision) = decide(!problems.is_empty(), false, input.mode);
    Ok(ManifestReport {
        version: 1,
        kind: "manifest",
        checkpoint_id: m.id.to_string(),
        decision,
        passed,
        mode: input.mode,
        strict_decision,
        expected_hash: m.hash.to_string(),
        actual_hash,
        files: scope,
        problems,
        warnings,
    })
}

/// A `file_backup`'s copies: `.checkpoints/<id>/<path>` or
/// `.checkpoints/<id>/<base name>` under the root, hashing (under the
/// listed paths) to the recorded hash.
fn backups(
    m: &Manifest<'_>,
    files: &dyn ScopeFiles,
    input: &ManifestInput,
    hash_shape: bool,
    problems: &mut Vec<String>,
) {
    let Ok(store) = scoped(&input.root, &format!(".checkpoints/{}", m.id)) else {
        problems.push(format!(
            "checkpoint id `{}` cannot name a backup folder",
            m.id
        ));
        return;
    };
    let mut copies = Vec::with_capacity(m.files.len());
    for listed in &m.files {
        let base = Path::new(listed)
            .file_name()
            .map(|b| b.to_string_lossy().into_owned())
            .unwrap_or_default();
        let candidates = [store.join(listed), store.join(&base)];
        let mut found = None;
        for candidate in &candidates {
            match files.sha256(candidate) {
                Ok(Some(sha)) => {
                    found = Some(sha);
                    break;
                }
                Ok(None) => {}
                Err(reason) => {
                    problems.push(format!("the backup of `{listed}` cannot be read: {reason}"));
                    return;
                }
            }
        }
        match found {
            Some(sha) => copies.push((listed.to_string(), sha)),
            None => problems.push(format!(
                "the backup of `{listed}` is missing: neither `.checkpoints/{id}/{listed}` nor `.checkpoints/{id}/{base}` exists",
                id = m.id
            )),
        }
    }
    if copies.len() == m.files.len() && hash_shape {
        let backed = combined_hash(copies.iter().map(|(p, s)| (p.as_str(), s.as_str())));
        if !backed.eq_ignore_ascii_case(m.hash) {
            problems.push(format!(
                "the backup copies hash to {backed}, not to the recorded {}: restoring them would not bring back the checkpointed state",
                m.hash
            ));
        }
    }
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
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Files in memory: path → content hash, or an error.
    struct Memory(HashMap<PathBuf, Result<String, String>>);

    impl ScopeFiles for Memory {
        fn sha256(&self, path: &Path) -> Result<Option<String>, String> {
            self.0.get(path).cloned().transpose()
        }
    }

    fn sha(text: &str) -> String {
        input::hex(&sha2::Sha256::digest(text.as_bytes()))
    }

    #[test]
    fn the_combined_hash_is_the_documented_one() {
        // sha256("a.txt\0<sha of 'x'>\n")
        let one = combined_hash([("a.txt", sha("x").as_str())]);
        let expected = format!(
            "sha256:{}",
            input::hex(&sha2::Sha256::digest(
                format!("a.txt\0{}\n", sha("x")).as_bytes()
            ))
        );
        assert_eq!(one, expected);
        // Order matters.
        let ab = combined_hash([("a", "1"), ("b", "2")]);
        let ba = combined_hash([("b", "2"), ("a", "1")]);
        assert_ne!(ab, ba);
    }

    #[test]
    fn scope_paths_stay_under_the_root() {
        let root = Path::new("/r");
        assert_eq!(scoped(root, "a/b.txt"), Ok(PathBuf::from("/r/a/b.txt")));
        assert!(scoped(root, "a/../b.txt").is_ok());
        assert!(
            scoped(root, "../x")
                .unwrap_err()
                .contains("leaves the root")
        );
        assert!(
            scoped(root, "a/../../x")
                .unwrap_err()
                .contains("leaves the root")
        );
        assert!(
            scoped(root, "/etc/passwd")
                .unwrap_err()
                .contains("absolute")
        );
        assert!(scoped(root, ".").is_err());
    }

    #[test]
    fn a_file_that_cannot_be_read_fails_closed() {
        let files = Memory(HashMap::from([(
            PathBuf::from("/r/loop"),
            Err("too many levels of symbolic links".to_string()),
        )]));
        let manifest = serde_json::json!({
            "checkpoint_created": true,
            "checkpoint": {"id": "c1", "type": "git_stash", "created_at": "2026-03-01T11:00:00Z",
                           "scope": {"files": ["loop"]}, "restore_command": "git stash pop"},
            "pre_mutation_state": {"hash": format!("sha256:{}", "0".repeat(64))},
            "evidence_anchors": ["c1"]
        });
        let input = ManifestInput {
            now: "2026-03-01T12:00:00Z"
                .parse()
                .unwrap_or_else(|e| panic!("{e}")),
            max_clock_skew: 300,
            mode: Mode::Strict,
            root: PathBuf::from("/r"),
        };
        let report = check_manifest(&manifest, &files, &input).unwrap_or_else(|p| panic!("{p:?}"));
        assert_eq!(report.decision, Decision::Blocked);
        assert_eq!(report.actual_hash, None);
        assert!(
            report.problems[0].contains("too many levels"),
            "{:?}",
            report.problems
        );
    }
}
