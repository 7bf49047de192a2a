//! The live scope files, the stash or backups a checkpoint stored, and
//! the steps that restore them.

use std::collections::HashMap;

use serde_json::Value;

use super::super::manifest_files::*;
use super::super::restore::{StashRestore, normalized, read_copy_restore, read_stash_restore};
use super::super::scope::{FileId, Links, Refusal};
use super::super::staleness::parse_timestamp;
use super::super::stash::{self, GitRepository, StashCheck, StashInfo, check_stash};
use super::record::*;
use super::types::*;
use jiff::Timestamp;

/// The live scope files, hashed beneath the root (links followed while
/// they stay inside it), and which file identity is which live file.
pub(super) struct LiveFiles<'a> {
    pub(super) files: Vec<ScopeFile>,
    /// `None` when some file could not be hashed.
    pub(super) hash: Option<String>,
    pub(super) ids: HashMap<FileId, &'a str>,
}

/// Hashes the live scope files. A path that is refused or cannot be read
/// goes to `record` (whatever the question, nothing can be restored
/// there safely); a missing file to `live` (it changed).
pub(super) fn live_files<'a>(
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
pub(super) fn stash_of(
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
pub(super) fn at_stash_base(
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
pub(super) fn next_steps(
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
pub(super) fn shell_word(path: &str) -> String {
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
pub(super) fn backups(
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
            None => problems.push(match candidates.as_slice() {
                [by_path, by_name] => format!(
                    "the backup of `{listed}` is missing: neither `{by_path}` nor `{by_name}` exists"
                ),
                _ => format!(
                    "the backup of `{listed}` is missing: `{folder}/{listed}` does not exist"
                ),
            }),
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
pub(super) fn restore_copies(m: &Manifest<'_>, copies: &[Option<String>]) -> Vec<String> {
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
pub(super) fn expires_at(
    expiry: &Value,
    created_at: Timestamp,
) -> Result<Option<Timestamp>, String> {
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
