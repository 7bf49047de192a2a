//! A manifest's record: its fields read once, every structural problem
//! at once.

use serde_json::Value;

use super::super::manifest_files::*;
use super::types::*;

/// The characters that make JSON and YAML values: each value but the
/// first follows one (`[`, `{`, `,`, `:`, `?`, a `-` list dash, a line
/// break), and a key and its value share one `:`, so a text with `n` of
/// them has at most `2n + 1` values and keys.
pub(super) fn structure_of(text: &str) -> usize {
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
pub(super) struct Manifest<'a> {
    pub(super) created: bool,
    pub(super) id: &'a str,
    pub(super) kind: &'a str,
    pub(super) created_at: &'a str,
    pub(super) files: Vec<&'a str>,
    pub(super) state_keys: Vec<&'a str>,
    pub(super) restore_command: &'a str,
    pub(super) expiry: Option<&'a Value>,
    pub(super) hash: &'a str,
    pub(super) evidence: Option<&'a Vec<Value>>,
}

/// Reads the manifest's structure; every structural problem at once (a
/// malformed manifest is no verdict).
pub(super) fn structure(manifest: &Value) -> Result<Manifest<'_>, NoManifestVerdict> {
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
pub(super) fn id_refusal(id: &str) -> Option<&'static str> {
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
pub(super) fn field<'v>(
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

pub(super) fn text(value: Option<&Value>) -> &str {
    value.and_then(Value::as_str).unwrap_or_default()
}

pub(super) fn kind_of(value: &Value) -> &'static str {
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
pub(super) fn looks_secret(path: &str) -> bool {
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
