//! A `git_stash` checkpoint's stash: that the entry its restore command
//! names exists in the repository at the root, is a stash (a commit whose
//! first parent is the commit it was taken on and whose second is the
//! index), carries `checkpoint:<id>` in its message, and holds the scope
//! files, as regular files, hashing to the recorded hash.
//!
//! Git is read through `GitRepository`, implemented by the CLI with the
//! `git` command's plumbing (`crates/cli/src/git.rs`), so this file decides
//! and never runs a process; its tests use a repository in memory.

use std::collections::HashMap;

use serde::Serialize;

use super::manifest_files::Hashed;

/// A commit, as far as a stash check needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitCommit {
    /// Hex object id.
    pub id: String,
    pub parents: Vec<String>,
    /// The whole message (for a stash: `On <branch>: <message>`).
    pub message: String,
}

/// What a revision names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Revision {
    Missing,
    Commit(GitCommit),
    /// Another kind of object (`blob`, `tree`, `tag`).
    Other {
        id: String,
        kind: String,
    },
}

/// What a path is in a commit's tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeEntry {
    /// A regular file (mode 100644 or 100755): its blob and size.
    File {
        blob: String,
        size: u64,
    },
    SymbolicLink,
    /// A gitlink (mode 160000): another repository's commit.
    Submodule,
    Folder,
}

/// A git repository, read without changing it.
pub trait GitRepository {
    /// Where the root is in its repository's work tree: `Ok(Some(prefix))`
    /// with the root's path from the top (`""`, or `sub/dir/`), `Ok(None)`
    /// when the root is in no work tree. `Err`: git cannot be run or the
    /// repository cannot be read.
    fn work_tree_prefix(&self) -> Result<Option<String>, String>;
    /// The commits of the stash list, newest first (`stash@{0}`,
    /// `stash@{1}`, …), at most `max`; none when there is no stash.
    fn stash_entries(&self, max: u32) -> Result<Vec<String>, String>;
    /// What each revision (an object id, `stash@{0}`, `HEAD`) names, in
    /// order.
    fn revisions(&self, revisions: &[String]) -> Result<Vec<Revision>, String>;
    /// The entries at `paths` (from the top of the work tree) in the tree
    /// of `commit`; a path with nothing there is left out.
    fn tree_entries(
        &self,
        commit: &str,
        paths: &[String],
    ) -> Result<HashMap<String, TreeEntry>, String>;
    /// The SHA-256 of each blob's bytes, in order; `Err` when one is over
    /// `max_bytes` or cannot be read.
    fn hash_blobs(&self, blobs: &[String], max_bytes: u64) -> Result<Vec<Hashed>, String>;
    /// The paths (from the top of the work tree) whose entries differ
    /// between the trees of `from` and `to`, or every path in `to`'s tree
    /// when `from` is `None`; at most `max + 1` of them (more is cut off).
    fn changed_paths(
        &self,
        from: Option<&str>,
        to: &str,
        max: usize,
    ) -> Result<Vec<String>, String>;
    /// The configuration entries whose name matches `pattern` (an extended
    /// regular expression), from every file git reads (system, global,
    /// repository, worktree) but not from phaselint's own `-c` options,
    /// as `(name, value)` in the order git reads them.
    fn config_entries(&self, pattern: &str) -> Result<Vec<(String, String)>, String>;
    /// The attributes that are set, unset or given a value for each path
    /// (`git check-attr -a`: the work tree's `.gitattributes`,
    /// `.git/info/attributes`, `core.attributesFile`), as
    /// `(path, attribute, value)`.
    fn path_attributes(&self, paths: &[String]) -> Result<Vec<(String, String, String)>, String>;
    /// Which of the hooks `names` exist as files where git looks for hooks
    /// (`core.hooksPath`, or the repository's `hooks/`).
    fn hooks_present(&self, names: &[&str]) -> Result<Vec<String>, String>;
}

/// No repository: a check with no git available, or a checkpoint of
/// another type.
pub struct NoRepository;

impl GitRepository for NoRepository {
    fn work_tree_prefix(&self) -> Result<Option<String>, String> {
        Ok(None)
    }
    fn stash_entries(&self, _: u32) -> Result<Vec<String>, String> {
        Ok(Vec::new())
    }
    fn revisions(&self, revisions: &[String]) -> Result<Vec<Revision>, String> {
        Ok(vec![Revision::Missing; revisions.len()])
    }
    fn tree_entries(&self, _: &str, _: &[String]) -> Result<HashMap<String, TreeEntry>, String> {
        Ok(HashMap::new())
    }
    fn hash_blobs(&self, _: &[String], _: u64) -> Result<Vec<Hashed>, String> {
        Err("no repository".into())
    }
    fn changed_paths(&self, _: Option<&str>, _: &str, _: usize) -> Result<Vec<String>, String> {
        Err("no repository".into())
    }
    fn config_entries(&self, _: &str) -> Result<Vec<(String, String)>, String> {
        Err("no repository".into())
    }
    fn path_attributes(&self, _: &[String]) -> Result<Vec<(String, String, String)>, String> {
        Err("no repository".into())
    }
    fn hooks_present(&self, _: &[&str]) -> Result<Vec<String>, String> {
        Err("no repository".into())
    }
}

/// The stash a report names: `ref` as the restore command names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StashInfo {
    #[serde(rename = "ref")]
    pub reference: String,
    /// `None` when there is no such entry.
    pub commit: Option<String>,
    /// Its message's first line (bounded).
    pub message: Option<String>,
    /// The commit the stash was taken on (its first parent).
    pub(crate) base: Option<String>,
    /// Paths (from the top of the work tree) `git stash apply` also
    /// writes that are not scope files: changed between the base and the
    /// stash, or in its untracked files.
    pub(crate) paths_outside_scope: Vec<String>,
}

/// Whether a stash message carries `checkpoint:<id>` as a whole token:
/// followed by the end, `:` (the skill's `checkpoint:<id>:<reason>`) or a
/// blank, so `checkpoint:c1` is not found in `checkpoint:c10`.
pub(crate) fn carries_checkpoint(message: &str, id: &str) -> bool {
    let marker = format!("checkpoint:{id}");
    message.match_indices(&marker).any(|(at, _)| {
        message[at + marker.len()..]
            .chars()
            .next()
            .is_none_or(|c| c == ':' || c.is_whitespace())
    })
}

/// The first line of a message, at most 200 characters.
pub(crate) fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    let mut shown: String = line.chars().take(200).collect();
    if line.chars().count() > 200 {
        shown.push('…');
    }
    shown
}

/// Where a scope path is in the repository's tree: the root's prefix and
/// the path with `.` names and repeated `/` removed. `None` for a path
/// that climbs (`..`), or holds a line break (git's text formats cannot
/// carry it): such a path cannot be looked up in a tree.
pub(crate) fn tree_path(prefix: &str, listed: &str) -> Option<String> {
    if listed.contains(['\n', '\r']) || listed.starts_with('/') {
        return None;
    }
    let mut names = Vec::new();
    for name in listed.split('/') {
        match name {
            "" | "." => {}
            ".." => return None,
            name => names.push(name),
        }
    }
    if names.is_empty() {
        return None;
    }
    Some(format!("{prefix}{}", names.join("/")))
}

/// Stash entries looked through for the checkpoint's marker when the one
/// the restore command names does not carry it.
pub(crate) const STASH_ENTRIES_SEARCHED: u32 = 50;

/// What the stash check found.
#[derive(Debug, Default)]
pub(super) struct StashCheck {
    pub(crate) info: Option<StashInfo>,
    /// The SHA-256 of each scope file as the stash holds it, in listed
    /// order (`None`: not found or not hashed).
    pub(crate) stored: Vec<Option<String>>,
    /// Each scope file's path in the repository's tree.
    pub(crate) tree_paths: Vec<Option<String>>,
    /// Whether each scope file is in the stash as an untracked file (in
    /// its third parent, not its tree): `git stash apply` creates it, and
    /// fails when it exists.
    pub(crate) untracked: Vec<bool>,
    /// Problems with the stash: it is no valid rollback point.
    pub(crate) problems: Vec<String>,
    /// What makes `git stash apply` restore something else than the
    /// checkpoint (files outside the scope, scope files HEAD changed):
    /// problems for a rollback, warnings before a mutation.
    pub(crate) rollback_problems: Vec<String>,
    pub(crate) warnings: Vec<String>,
}

/// Checks the stash entry `index` for checkpoint `id` holding `files` as
/// recorded by `hash`. `Err` is no verdict: git cannot be read, or a file
/// in the stash is over a bound.
pub(super) fn check_stash(
    git: &dyn GitRepository,
    id: &str,
    files: &[&str],
    index: u32,
    hash: Option<&str>,
    bounds: (u64, u64),
) -> Result<StashCheck, String> {
    let (max_file, max_total) = bounds;
    let reference = format!("stash@{{{index}}}");
    let mut check = StashCheck {
        stored: vec![None; files.len()],
        tree_paths: vec![None; files.len()],
        untracked: vec![false; files.len()],
        info: Some(StashInfo {
            reference: reference.clone(),
            commit: None,
            message: None,
            base: None,
            paths_outside_scope: Vec::new(),
        }),
        ..StashCheck::default()
    };
    let Some(prefix) = git.work_tree_prefix()? else {
        check.problems.push(format!(
            "the root is in no git work tree, so there is no `{reference}` to restore: a git_stash checkpoint is checked in the repository it was taken in (--root)"
        ));
        return Ok(check);
    };
    let entries = git.stash_entries(STASH_ENTRIES_SEARCHED.max(index + 1))?;
    let Some(entry) = entries.get(index as usize) else {
        check.problems.push(format!(
            "there is no `{reference}` in the repository: the stash was dropped (`git stash drop`, or `git stash pop` applied it) or never made (`git stash push` saves nothing when there are no local changes){}",
            elsewhere(git, &entries, id, index)?
        ));
        return Ok(check);
    };
    let asked = [entry.clone(), reference.clone(), "HEAD".to_string()];
    let [entry, as_git_reads_it, head] = <[Revision; 3]>::try_from(git.revisions(&asked)?)
        .map_err(|got| format!("git answered {} revisions for 3", got.len()))?;
    let commit = match entry {
        Revision::Missing => {
            return Err(format!(
                "the stash list names {}, which git cannot read",
                asked[0]
            ));
        }
        Revision::Other { id: object, kind } => {
            check.problems.push(format!(
                "`{reference}` is a {kind} ({object}), not a stash commit"
            ));
            return Ok(check);
        }
        Revision::Commit(commit) => commit,
    };
    if let Some(info) = &mut check.info {
        info.commit = Some(commit.id.clone());
        info.message = Some(first_line(&commit.message));
        info.base = commit.parents.first().cloned();
    }
    let read_by_git = match &as_git_reads_it {
        Revision::Commit(c) => Some(c.id.as_str()),
        Revision::Other { id, .. } => Some(id.as_str()),
        Revision::Missing => None,
    };
    if read_by_git != Some(commit.id.as_str()) {
        check.problems.push(format!(
            "`{reference}`, as `git stash` reads it, names {}, not entry {index} of the stash list ({}): another ref named `stash` shadows the stash list",
            read_by_git.unwrap_or("nothing"),
            commit.id
        ));
        return Ok(check);
    }
    if !(2..=3).contains(&commit.parents.len()) {
        check.problems.push(format!(
            "`{reference}` ({}) is not a stash: a stash commit has the commit it was taken on and the index as parents (and the untracked files as a third), this one has {} parent{}",
            commit.id,
            commit.parents.len(),
            if commit.parents.len() == 1 { "" } else { "s" }
        ));
        return Ok(check);
    }
    if !carries_checkpoint(&commit.message, id) {
        check.problems.push(format!(
            "`{reference}` is not this checkpoint's stash: its message `{}` does not carry `checkpoint:{id}` (the skill stashes with `git stash push -m \"checkpoint:<id>:<reason>\"`){}",
            first_line(&commit.message),
            elsewhere(git, &entries, id, index)?
        ));
        return Ok(check);
    }
    let base = commit
        .parents
        .first()
        .map(String::as_str)
        .unwrap_or_default();
    match &head {
        Revision::Commit(head) if head.id == base => {}
        other => {
            let now = match other {
                Revision::Commit(c) => c.id.clone(),
                Revision::Other { id, .. } => id.clone(),
                Revision::Missing => "nothing".into(),
            };
            check.warnings.push(format!(
                "HEAD is now {now}, not the commit `{reference}` was taken on ({base}): `git stash apply` merges the stash onto HEAD, so what it restores may differ from the checkpoint"
            ));
        }
    }

    // The scope files in the stash's tree (its work tree as stashed), and
    // those missing there in its untracked files' commit, if it has one.
    let mut wanted = Vec::new();
    for (i, listed) in files.iter().enumerate() {
        // A path refused as a scope path is reported as one already.
        if super::manifest_files::scoped(listed).is_err() {
            continue;
        }
        match tree_path(&prefix, listed) {
            Some(path) => {
                check.tree_paths[i] = Some(path.clone());
                wanted.push(path);
            }
            None => check.problems.push(format!(
                "scope file `{}` cannot be looked up in `{reference}`: a path in a git tree has no `..` and no line break",
                listed.escape_debug()
            )),
        }
    }
    let mut entries = git.tree_entries(&commit.id, &wanted)?;
    if let Some(untracked) = commit.parents.get(2) {
        let missing: Vec<String> = wanted
            .iter()
            .filter(|p| !entries.contains_key(*p))
            .cloned()
            .collect();
        if !missing.is_empty() {
            for (path, entry) in git.tree_entries(untracked, &missing)? {
                if let Some(i) = check
                    .tree_paths
                    .iter()
                    .position(|p| p.as_ref() == Some(&path))
                {
                    check.untracked[i] = true;
                }
                entries.entry(path).or_insert(entry);
            }
        }
    }
    let mut blobs = Vec::new();
    let mut total = 0u64;
    for (i, listed) in files.iter().enumerate() {
        let Some(path) = &check.tree_paths[i] else {
            continue;
        };
        match entries.get(path) {
            Some(TreeEntry::File { blob, size }) => {
                if *size > max_file {
                    return Err(format!(
                        "scope file `{listed}` is {size} bytes in `{reference}`, larger than the limit of {} for one file: phaselint hashes no file that large",
                        crate::input::describe(max_file)
                    ));
                }
                total = total.saturating_add(*size);
                if total > max_total {
                    return Err(format!(
                        "the scope files in `{reference}` are over the limit of {} for all of them together",
                        crate::input::describe(max_total)
                    ));
                }
                blobs.push((i, blob.clone()));
            }
            Some(TreeEntry::SymbolicLink) => check.problems.push(format!(
                "scope file `{listed}` is a symbolic link in `{reference}`: restoring it writes a link, not the checkpointed file"
            )),
            Some(TreeEntry::Submodule) => check.problems.push(format!(
                "scope file `{listed}` is a submodule in `{reference}`, not a file: the stash holds only the commit it points at"
            )),
            Some(TreeEntry::Folder) => check.problems.push(format!(
                "scope file `{listed}` is a folder in `{reference}`, not a file"
            )),
            None => check.problems.push(format!(
                "scope file `{listed}` is not in `{reference}`, so restoring the stash does not bring it back (an untracked file is stashed only with `git stash push --include-untracked`)"
            )),
        }
    }
    let ids: Vec<String> = blobs.iter().map(|(_, blob)| blob.clone()).collect();
    let hashed = if ids.is_empty() {
        Vec::new()
    } else {
        git.hash_blobs(&ids, max_file)?
    };
    if hashed.len() != ids.len() {
        return Err(format!(
            "git hashed {} of {} blobs of `{reference}`",
            hashed.len(),
            ids.len()
        ));
    }
    for ((i, _), blob) in blobs.iter().zip(hashed) {
        check.stored[*i] = Some(blob.sha256);
    }
    if let Some(hash) = hash
        && check.stored.iter().all(Option::is_some)
    {
        let stored = super::manifest_files::combined_hash(
            files
                .iter()
                .zip(&check.stored)
                .map(|(path, sha)| (*path, sha.as_deref().unwrap_or_default())),
        );
        if !stored.eq_ignore_ascii_case(hash) {
            check.problems.push(format!(
                "the scope files as stored in `{reference}` hash to {stored}, not to the recorded {hash}: the stash does not hold the checkpointed state, so restoring it would not bring that state back"
            ));
        }
    }
    let head = match head {
        Revision::Commit(head) => Some(head.id),
        _ => None,
    };
    what_apply_writes(git, &commit, head.as_deref(), &reference, &mut check)?;
    Ok(check)
}

/// Paths of a stash listed at most (beyond: no verdict is needed, the
/// list is cut off and says so).
pub(crate) const STASH_PATHS_LISTED: usize = 1000;

/// Hooks `git stash apply` runs (seen with git 2.47: it updates the index
/// and refs), and those a checkout or merge runs, which it may come to.
const HOOKS_OF_APPLY: [&str; 4] = [
    "post-index-change",
    "reference-transaction",
    "post-checkout",
    "post-merge",
];

/// What `git stash apply`, run in this repository, writes besides the
/// scope files, what it leaves as HEAD has it, and what in the
/// repository's configuration, attributes or hooks acts when it writes.
fn what_apply_writes(
    git: &dyn GitRepository,
    commit: &GitCommit,
    head: Option<&str>,
    reference: &str,
    check: &mut StashCheck,
) -> Result<(), String> {
    let base = commit
        .parents
        .first()
        .map(String::as_str)
        .unwrap_or_default();
    let mut written = git.changed_paths(Some(base), &commit.id, STASH_PATHS_LISTED)?;
    if let Some(untracked) = commit.parents.get(2) {
        for path in git.changed_paths(None, untracked, STASH_PATHS_LISTED)? {
            if !written.contains(&path) {
                written.push(path);
            }
        }
    }
    let cut_off = written.len() > STASH_PATHS_LISTED;
    written.truncate(STASH_PATHS_LISTED);
    let scope: Vec<&String> = check.tree_paths.iter().flatten().collect();
    let outside: Vec<String> = written
        .iter()
        .filter(|p| !scope.contains(p))
        .cloned()
        .collect();
    if !outside.is_empty() {
        check.rollback_problems.push(format!(
            "applying `{reference}` also writes {}{} outside the checkpoint's scope: {}{}: a rollback with it restores those too (drop them from the stash, or restore only the scope files: `git checkout {} -- FILE...`)",
            outside.len(),
            if cut_off { " or more paths" } else if outside.len() == 1 { " path" } else { " paths" },
            crate::diagnostic::code_list(outside.iter().take(20)),
            if outside.len() > 20 { ", …" } else { "" },
            commit.id
        ));
    }
    if let Some(info) = &mut check.info {
        info.paths_outside_scope = outside;
    }

    // A scope file the stash does not change is left by the apply as HEAD
    // has it: not as checkpointed when HEAD changed it since the base.
    if let Some(head) = head.filter(|h| *h != base) {
        let untouched: Vec<String> = scope
            .iter()
            .filter(|p| !written.contains(p))
            .map(|p| (*p).clone())
            .collect();
        if !untouched.is_empty() {
            let at_base = git.tree_entries(base, &untouched)?;
            let at_head = git.tree_entries(head, &untouched)?;
            for path in &untouched {
                if at_base.get(path) != at_head.get(path) {
                    check.rollback_problems.push(format!(
                        "scope file `{path}` changed in HEAD ({head}) since the commit `{reference}` was taken on ({base}), and the stash holds no change to it, so `git stash apply` leaves it as HEAD has it, not as checkpointed: restore it with `git checkout {base} -- {path}` (or reset to {base}) before applying"
                    ));
                }
            }
        }
    }

    // What acts when git writes these paths in the work tree.
    let mut acting = Vec::new();
    for (name, value) in git.config_entries(r"^(core\.fsmonitor|core\.autocrlf|core\.eol)$")? {
        // A filter driver acts only on the paths whose `filter` attribute
        // names it (read below), so one configured for other files (git
        // lfs, set up globally) is no reason to block.
        let lower = name.to_ascii_lowercase();
        let off = matches!(
            value.to_ascii_lowercase().as_str(),
            "false" | "no" | "off" | "0" | ""
        );
        if lower == "core.eol" && value.eq_ignore_ascii_case("crlf") {
            acting.push(
                "`core.eol` is `crlf`: git converts line endings to CRLF as it writes text files (git config --unset core.eol)".to_string(),
            );
        } else if lower == "core.fsmonitor" && !off {
            acting.push(format!(
                "`core.fsmonitor` is `{}`: git runs it when it refreshes the index (git config core.fsmonitor false)",
                first_line(&value)
            ));
        } else if lower == "core.autocrlf" && !off && !value.eq_ignore_ascii_case("input") {
            acting.push(format!(
                "`core.autocrlf` is `{value}`: git converts line endings on checkout (git config core.autocrlf false)"
            ));
        }
    }
    let mut paths: Vec<String> = scope.iter().map(|p| (*p).clone()).collect();
    paths.extend(written.iter().filter(|p| !scope.contains(p)).cloned());
    let mut by_attribute: Vec<(String, Vec<String>)> = Vec::new();
    if !paths.is_empty() {
        for (path, attribute, value) in git.path_attributes(&paths)? {
            // Only what changes the bytes written on checkout: a filter, the
            // `$Id$` expansion, a re-encoding, and conversion to CRLF. `text`
            // or `eol=lf` alone write a blob's bytes as they are (line
            // endings are converted to LF when a file is added, not when it
            // is checked out), so `* text=auto` does not block.
            let converts = match attribute.as_str() {
                "filter" | "ident" | "working-tree-encoding" => {
                    value != "unset" && value != "unspecified"
                }
                "eol" => value.eq_ignore_ascii_case("crlf"),
                // A merge driver of the configuration runs a command.
                "merge" => !matches!(
                    value.as_str(),
                    "set" | "unset" | "unspecified" | "text" | "binary" | "union"
                ),
                _ => false,
            };
            if converts {
                let shown = if value == "set" {
                    attribute.clone()
                } else {
                    format!("{attribute}={value}")
                };
                match by_attribute.iter_mut().find(|(a, _)| *a == shown) {
                    Some((_, on)) => on.push(path),
                    None => by_attribute.push((shown, vec![path])),
                }
            }
        }
    }
    for (attribute, on) in &by_attribute {
        acting.push(format!(
            "the attribute `{attribute}` is set for {}{} (in `.gitattributes`, `.git/info/attributes` or `core.attributesFile`): git converts or filters these files as it writes them",
            crate::diagnostic::code_list(on.iter().take(10)),
            if on.len() > 10 { ", …" } else { "" }
        ));
    }
    let hooks = git.hooks_present(&HOOKS_OF_APPLY)?;
    if !hooks.is_empty() {
        acting.push(format!(
            "the hook{} {} {} installed: `git stash apply` runs them",
            if hooks.len() == 1 { "" } else { "s" },
            crate::diagnostic::code_list(hooks.iter()),
            if hooks.len() == 1 { "is" } else { "are" }
        ));
    }
    if !acting.is_empty() {
        check.problems.push(format!(
            "`git stash apply` in this repository would not just write the bytes `{reference}` holds: {}. Remove what acts (the configuration, the attribute, the hook) before restoring, or restore in a clean clone of the repository",
            acting.join("; ")
        ));
    }
    Ok(())
}

/// Where else in the stash list the checkpoint's stash is, as a clause
/// for a problem's message (empty when it is nowhere among the last
/// `STASH_ENTRIES_SEARCHED`).
fn elsewhere(
    git: &dyn GitRepository,
    entries: &[String],
    id: &str,
    named: u32,
) -> Result<String, String> {
    let asked: Vec<String> = entries
        .iter()
        .take(STASH_ENTRIES_SEARCHED as usize)
        .cloned()
        .collect();
    if asked.is_empty() {
        return Ok(String::new());
    }
    let found = git
        .revisions(&asked)?
        .into_iter()
        .enumerate()
        .find_map(|(n, revision)| match revision {
            Revision::Commit(c) if n as u32 != named && carries_checkpoint(&c.message, id) => {
                Some(n)
            }
            _ => None,
        });
    Ok(found.map_or(String::new(), |n| {
        format!(
            "; `stash@{{{n}}}` carries `checkpoint:{id}`: stashes pushed or dropped since moved it, and `restore_command` would restore another one"
        )
    }))
}

/// The SHA-256 of each path (from the top of the work tree) in `commit`,
/// where it is a regular file within `max_bytes`: what a file was before
/// the stash was taken, when `commit` is its base.
pub(super) fn file_hashes(
    git: &dyn GitRepository,
    commit: &str,
    paths: &[String],
    max_bytes: u64,
) -> Result<HashMap<String, String>, String> {
    let entries = git.tree_entries(commit, paths)?;
    let files: Vec<(String, String)> = paths
        .iter()
        .filter_map(|p| match entries.get(p) {
            Some(TreeEntry::File { blob, size }) if *size <= max_bytes => {
                Some((p.clone(), blob.clone()))
            }
            _ => None,
        })
        .collect();
    if files.is_empty() {
        return Ok(HashMap::new());
    }
    let blobs: Vec<String> = files.iter().map(|(_, b)| b.clone()).collect();
    let hashed = git.hash_blobs(&blobs, max_bytes)?;
    Ok(files
        .into_iter()
        .zip(hashed)
        .map(|((path, _), h)| (path, h.sha256))
        .collect())
}

#[cfg(test)]
mod tests;
