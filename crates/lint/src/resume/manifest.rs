//! Checkpoint manifests (docs/resume-check.md): the record a checkpoint skill
//! writes before it mutates, which says how to restore the state and what
//! that state hashed to. "May the mutation proceed?" is answered by checking
//! the record, then the live files (and backup copies) against its hash.
//! Files come in through `ScopeFiles`, so the checks are tested without a
//! disk; the disk implementation walks each path beneath the root without
//! following a link out of it (`scope.rs`) and hashes in blocks, never a
//! whole file, within a bound per file and in total.

mod files;
mod record;
mod types;

use serde_json::Value;

use super::document::{DocumentFormat, parse_document};
use super::manifest_files::*;
use super::report::decide;
use super::staleness::parse_timestamp;
use super::stash::GitRepository;
use super::state::state_hash;
use crate::duration::{format_age_beside, format_seconds};
use files::*;
use record::*;
use types::captures_state;
pub(crate) use types::{EMPTY_INPUT_SHA256, MAX_MANIFEST_STRUCTURE};
pub use types::{ManifestInput, ManifestReport, NoManifestVerdict, Question};

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
                    "`checkpoint.created_at` {} is {}, more than max_clock_skew {}",
                    m.created_at,
                    format_age_beside(-ahead, input.max_clock_skew),
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

#[cfg(test)]
mod tests;
