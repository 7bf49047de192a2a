//! `phaselint diff --git REV`: each FILE (or each contract that differs
//! from REV) against its version at REV, read through the `git.rs`
//! runner, with what git would restore differently (links, moved
//! pipelines) refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use phaselint_lint::Analysis;
use phaselint_lint::diff::DiffMode;
use phaselint_lint::input::{self, Bound};
use phaselint_lint::resume::{GitRepository, TreeEntry};
use phaselint_render::Linted;
use phaselint_render::terminal::inline;

use super::pairs::{
    MAX_COMPARED, analyze, diff_pair, is_contract_name, linted, read_named, refused, shown,
};
use crate::git::GitCli;

/// At most this many contracts at REV searched for a new file's
/// pipeline_id (each read whole, up to the contract bound).
const MAX_SEARCHED: usize = 4096;
/// At most this many paths git may list as differing from REV before
/// `--git` with no FILE gives up (and asks for the files).
const MAX_DIFFERING_PATHS: usize = 100_000;

/// Where `--git` read the contracts: what `diff.rs` needs to judge each
/// NEW with the configuration as it is at REV.
pub struct GitSide {
    pub repository: GitCli,
    pub top: PathBuf,
    pub commit: String,
    pub revision: String,
    /// Each compared file's path from the root, in `Linted`'s order.
    pub paths: Vec<String>,
}

/// One file `--git` compares.
struct Chosen {
    /// From the root, `/`-separated.
    path: String,
    shown: PathBuf,
    /// Found by git (no FILE given), rather than named.
    discovered: bool,
}

/// `path` (git's bytes) as text, or the message for exit 3: a name that is
/// not UTF-8 would be read as another file's.
fn utf8_path(path: &[u8], revision: &str) -> Result<String, String> {
    String::from_utf8(path.to_vec()).map_err(|_| {
        format!(
            "`{}` (differing from `{}`) has a name that is not UTF-8: diff cannot name it without confusing it with another file; rename it",
            path.escape_ascii(),
            inline(revision)
        )
    })
}

/// Each FILE (or each contract that differs from REV) against its version
/// at REV, read through git.
pub(super) fn git(
    revision: &str,
    files: &[PathBuf],
    mode: DiffMode,
    note: &dyn Fn(String),
) -> Result<(Vec<Linted>, GitSide), String> {
    let here =
        std::env::current_dir().map_err(|e| format!("cannot tell the current directory: {e}"))?;
    let top = GitCli::at(&here)
        .top_level()?
        .ok_or("--git compares with a git revision, and the current directory is not inside a git work tree")?;
    let repository = GitCli::at(&top);
    let commit = repository.commit_of(revision)?.ok_or_else(|| {
        format!(
            "`{}` names no commit in the repository at {} (a shallow clone may not have it: fetch it, or check out with the full history, e.g. actions/checkout with fetch-depth: 0)",
            inline(revision),
            shown(&top)
        )
    })?;
    let at_rev = format!("`{}`", inline(revision));
    // REV's whole tree, read once when needed: its contract-named links
    // and the contracts a new file may have been renamed or copied from.
    let mut listing: Option<Vec<crate::git::Listed>> = None;
    let mut chosen: Vec<Chosen> = Vec::new();
    if files.is_empty() {
        let prefix = pathdiff_prefix(&here, &top);
        let changes = repository.differing(&commit, MAX_DIFFERING_PATHS)?;
        let mut differing = std::collections::BTreeSet::new();
        for change in &changes {
            let lossy = String::from_utf8_lossy(&change.path);
            let contract_named = lossy.rsplit('/').next().is_some_and(is_contract_name);
            let path = match utf8_path(&change.path, revision) {
                Ok(path) => path,
                Err(message) if contract_named => return Err(message),
                Err(_) => continue,
            };
            if change.old_mode == "160000" || change.new_mode == "160000" {
                return Err(format!(
                    "submodule `{}` differs from {at_rev}: diff does not read submodules, so the contracts in it are not compared; run `phaselint diff` inside the submodule, or name the contracts to compare",
                    inline(&path)
                ));
            }
            if contract_named && (change.old_mode == "120000" || change.new_mode == "120000") {
                return Err(format!(
                    "`{}` is a symbolic link (at {at_rev} or in the work tree): diff compares contract files, never what a link points to; name the contract file itself",
                    inline(&path)
                ));
            }
            differing.insert(path.clone());
            if !contract_named {
                continue;
            }
            let shown_path = match &prefix {
                Some(prefix) => path
                    .strip_prefix(prefix.as_str())
                    .map_or_else(|| top.join(&path), PathBuf::from),
                None => top.join(&path),
            };
            chosen.push(Chosen {
                path,
                shown: shown_path,
                discovered: true,
            });
        }
        if !differing.is_empty() {
            // A contract-named link at REV whose target changed: the
            // contract it stands for changed without its name differing.
            let listed = listing.insert(repository.tree_listing(&commit, MAX_DIFFERING_PATHS)?);
            refuse_changed_links(&repository, &top, listed, &differing, revision)?;
        }
        if chosen.is_empty() {
            note(format!(
                "no contract (`*.contract.yaml`, `*.contract.yml`) differs from `{revision}`: nothing to compare"
            ));
        }
    } else {
        for file in files {
            chosen.push(Chosen {
                path: from_root(file, &top)?,
                shown: file.clone(),
                discovered: false,
            });
        }
    }
    if chosen.len() > MAX_COMPARED {
        return Err(format!(
            "more than {MAX_COMPARED} contracts to compare with `{}`; name the ones to compare",
            inline(revision)
        ));
    }
    refuse_parents(&repository, &commit, &top, &chosen, revision)?;
    let wanted: Vec<String> = chosen.iter().map(|c| c.path.clone()).collect();
    let entries: BTreeMap<String, TreeEntry> = repository
        .tree_entries(&commit, &wanted)?
        .into_iter()
        .collect();
    // Both sides of each file, read first: a deleted file is matched with
    // a new or changed one by pipeline_id before anything is reported.
    let mut sides = Vec::new();
    for file in &chosen {
        let old_label = format!("`{}:{}`", inline(revision), inline(&file.path));
        let old_bytes = match entries.get(&file.path) {
            None => None,
            Some(TreeEntry::File { blob, size }) => {
                if *size > Bound::Contract.bytes() {
                    return Err(format!(
                        "cannot read {old_label}: it is {size} bytes, larger than the limit of {}",
                        input::describe(Bound::Contract.bytes())
                    ));
                }
                Some(
                    repository
                        .blob(blob, Bound::Contract.bytes())
                        .map_err(|e| format!("cannot read {old_label}: {e}"))?,
                )
            }
            Some(other) => {
                return Err(format!(
                    "{old_label} is {}, not a file: name the contract file itself",
                    match other {
                        TreeEntry::SymbolicLink => "a symbolic link",
                        TreeEntry::Submodule => "a submodule",
                        _ => "a folder",
                    }
                ));
            }
        };
        let absolute = top.join(&file.path);
        // Discovered files are read without following links: a link added
        // to the work tree cannot bring in a file from elsewhere.
        let new_bytes = if file.discovered {
            input::read_file_no_follow(&absolute, Bound::Contract)
                .map_err(|e| e.to_string())?
                .map(|(bytes, _)| bytes)
        } else if std::fs::symlink_metadata(&absolute).is_err() {
            None
        } else {
            Some(read_named(&absolute)?)
        };
        if old_bytes.is_none() && new_bytes.is_none() {
            return Err(format!(
                "{} is neither in the work tree nor at `{}`",
                shown(&file.shown),
                inline(revision)
            ));
        }
        let old = old_bytes.as_deref().map(analyze);
        let new = new_bytes.as_deref().map(analyze);
        sides.push((old_label, old, new, old_bytes, new_bytes));
    }
    let pipeline = |analysis: &Analysis| {
        analysis
            .contract()
            .and_then(|c| c.pipeline_id.as_ref())
            .map(|p| p.value.clone())
    };
    // Each file's reports, in git's order whatever pass makes them.
    let mut reports: Vec<Vec<(Linted, String)>> = chosen.iter().map(|_| Vec::new()).collect();
    // (deleted path at REV, the file it was compared with in the work tree)
    let mut moved: Vec<(String, String)> = Vec::new();
    for (index, file) in chosen.iter().enumerate() {
        let (old_label, old, new, _, new_bytes) = &sides[index];
        let fresh_new = || analyze(new_bytes.as_deref().unwrap_or_default());
        match (old, new) {
            (None, None) => {}
            (None, Some(new_analysis)) => {
                // A contract's identity is its pipeline_id (approvals bind
                // it): a new path with one REV knows is that contract moved
                // or copied, and the runs paused under it meet this file.
                let found = match pipeline(new_analysis) {
                    Some(id) => {
                        let listed = match listing.take() {
                            Some(listed) => listing.insert(listed),
                            None => listing
                                .insert(repository.tree_listing(&commit, MAX_DIFFERING_PATHS)?),
                        };
                        same_pipeline_at(&repository, listed, &id, &file.path, revision)?
                            .map(|(path, analysis)| (id, path, analysis))
                    }
                    None => None,
                };
                let Some((id, old_path, old_analysis)) = found else {
                    note(format!(
                        "{} is new since `{revision}` and no contract there has its pipeline_id: no run can be paused under an older version of it, nothing to compare",
                        shown(&file.shown)
                    ));
                    continue;
                };
                note(format!(
                    "{} is new since `{revision}`: compared with `{old_path}` at `{revision}` (same pipeline_id `{id}`)",
                    shown(&file.shown)
                ));
                let old_label = format!("`{}:{}`", inline(revision), inline(&old_path));
                let findings = diff_pair(
                    (
                        &old_analysis,
                        &PathBuf::from(format!("{revision}:{old_path}")),
                    ),
                    new_analysis,
                    mode,
                    &old_label,
                    &shown(&file.shown),
                )?;
                moved.push((old_path, file.path.clone()));
                reports[index].push((
                    linted(&file.shown, fresh_new(), findings),
                    file.path.clone(),
                ));
            }
            (Some(old_analysis), Some(new_analysis)) => {
                let old_path = PathBuf::from(format!("{revision}:{}", file.path));
                let findings = diff_pair(
                    (old_analysis, &old_path),
                    new_analysis,
                    mode,
                    old_label,
                    &shown(&file.shown),
                )?;
                reports[index].push((
                    linted(&file.shown, fresh_new(), findings),
                    file.path.clone(),
                ));
            }
            (Some(_), None) => {}
        }
    }
    // Deleted files last: one whose contract lives on under another path
    // (same pipeline_id) is compared with that file, not reported deleted.
    for (index, file) in chosen.iter().enumerate() {
        let (old_label, old, new, old_bytes, _) = &sides[index];
        let (Some(old_analysis), None) = (old, new) else {
            continue;
        };
        let successor = pipeline(old_analysis).and_then(|id| {
            chosen
                .iter()
                .zip(&sides)
                .find_map(|(other, (_, _, other_new, _, other_bytes))| {
                    other_new
                        .as_ref()
                        .filter(|a| pipeline(a).as_deref() == Some(id.as_str()))
                        .map(|a| (other, a, other_bytes))
                })
        });
        if let Some((other, other_new, other_bytes)) = successor {
            if moved
                .iter()
                .any(|(from, to)| *from == file.path && *to == other.path)
            {
                continue;
            }
            note(format!(
                "{} is deleted in the work tree: compared with {} (same pipeline_id)",
                shown(&file.shown),
                shown(&other.shown)
            ));
            let findings = diff_pair(
                (
                    old_analysis,
                    &PathBuf::from(format!("{revision}:{}", file.path)),
                ),
                other_new,
                mode,
                old_label,
                &shown(&other.shown),
            )?;
            reports[index].push((
                linted(
                    &other.shown,
                    analyze(other_bytes.as_deref().unwrap_or_default()),
                    findings,
                ),
                other.path.clone(),
            ));
            continue;
        }
        let findings = phaselint_lint::diff::contract_deleted(
            old_analysis,
            &format!("the file is deleted in the work tree; shown as it was at `{revision}`"),
        )
        .map_err(|e| refused(&e, old_label, &shown(&file.shown)))?;
        let findings = findings
            .into_iter()
            .filter(|d| mode.reports(d.code.as_str()))
            .collect();
        reports[index].push((
            linted(
                &file.shown,
                analyze(old_bytes.as_deref().unwrap_or_default()),
                findings,
            ),
            file.path.clone(),
        ));
    }
    let (out, paths) = reports.into_iter().flatten().unzip();
    Ok((
        out,
        GitSide {
            repository,
            top,
            commit,
            revision: revision.to_string(),
            paths,
        },
    ))
}

/// Refuses a file whose folder at REV is a submodule or a link, or (found
/// by git) whose folder in the work tree is a link: diff would read
/// another file than the one git names, or none.
fn refuse_parents(
    repository: &GitCli,
    commit: &str,
    top: &Path,
    chosen: &[Chosen],
    revision: &str,
) -> Result<(), String> {
    let mut prefixes = std::collections::BTreeSet::new();
    for file in chosen {
        let mut at = 0;
        while let Some(slash) = file.path[at..].find('/') {
            prefixes.insert(file.path[..at + slash].to_string());
            at += slash + 1;
        }
        if file.discovered {
            let mut folder = top.to_path_buf();
            let parts: Vec<&str> = file.path.split('/').collect();
            for part in &parts[..parts.len().saturating_sub(1)] {
                folder.push(part);
                if std::fs::symlink_metadata(&folder).is_ok_and(|m| m.file_type().is_symlink()) {
                    return Err(format!(
                        "{} is read through `{}`, a symbolic link in the work tree: diff compares contract files, never what a link points to",
                        shown(&file.shown),
                        inline(
                            &folder
                                .strip_prefix(top)
                                .unwrap_or(&folder)
                                .display()
                                .to_string()
                        )
                    ));
                }
            }
        }
    }
    let prefixes: Vec<String> = prefixes.into_iter().collect();
    let entries = repository.tree_entries(commit, &prefixes)?;
    for prefix in &prefixes {
        let Some(file) = chosen
            .iter()
            .find(|c| c.path.starts_with(&format!("{prefix}/")))
        else {
            continue;
        };
        match entries.get(prefix) {
            Some(TreeEntry::Submodule) => {
                return Err(format!(
                    "{} is inside submodule `{}` at `{}`: diff does not read submodules; run it inside the submodule",
                    shown(&file.shown),
                    inline(prefix),
                    inline(revision)
                ));
            }
            Some(TreeEntry::SymbolicLink) => {
                return Err(format!(
                    "{} is under `{}`, a symbolic link at `{}`: diff compares contract files, never what a link points to",
                    shown(&file.shown),
                    inline(prefix),
                    inline(revision)
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Refuses a contract-named link at REV that points to a path that
/// differs from REV (or out of the repository): the contract behind it
/// changed though its own name does not differ.
fn refuse_changed_links(
    repository: &GitCli,
    top: &Path,
    listed: &[crate::git::Listed],
    differing: &std::collections::BTreeSet<String>,
    revision: &str,
) -> Result<(), String> {
    let links: Vec<(&crate::git::Listed, String)> = listed
        .iter()
        .filter(|l| l.mode == "120000")
        .filter_map(|l| {
            let path = String::from_utf8_lossy(&l.path).into_owned();
            path.rsplit('/')
                .next()
                .is_some_and(is_contract_name)
                .then_some((l, path))
        })
        .collect();
    if links.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = links.iter().map(|(l, _)| l.id.clone()).collect();
    let mut refused = None;
    repository.each_blob(&ids, 64 * 1024, &mut |index, target| {
        let (_, link) = &links[index];
        let folder = link.rsplit_once('/').map_or("", |(folder, _)| folder);
        let resolved = resolve_link(folder, &String::from_utf8_lossy(&target));
        let changed = match &resolved {
            None => true,
            Some(target) => differing
                .iter()
                .any(|d| d == target || d.starts_with(&format!("{target}/"))),
        };
        // git lists a file whose stat changed without its content: the
        // same bytes at REV and in the work tree are no change.
        let changed = changed
            && !resolved
                .as_deref()
                .is_some_and(|target| same_file_content(repository, listed, top, target));
        if changed && refused.is_none() {
            refused = Some(format!(
                "`{}` is a symbolic link at `{}` to `{}`, which differs (or lies outside the repository): diff compares contract files, never what a link points to; name the contract file itself",
                inline(link),
                inline(revision),
                String::from_utf8_lossy(&target).escape_debug()
            ));
        }
        Ok(())
    })?;
    refused.map_or(Ok(()), Err)
}

/// Whether the file `path` (from the root) holds the same bytes in the
/// work tree (not through a link) as at REV.
fn same_file_content(
    repository: &GitCli,
    listed: &[crate::git::Listed],
    top: &Path,
    path: &str,
) -> bool {
    let Some(entry) = listed
        .iter()
        .find(|l| l.path == path.as_bytes() && matches!(l.mode.as_str(), "100644" | "100755"))
    else {
        return false;
    };
    let Ok(Some((now, _))) = input::read_file_no_follow(&top.join(path), Bound::Contract) else {
        return false;
    };
    repository
        .blob(&entry.id, Bound::Contract.bytes())
        .is_ok_and(|then| then == now)
}

/// A link's target from the root, resolved by name from its folder;
/// `None` when it is absolute or leaves the repository.
fn resolve_link(folder: &str, target: &str) -> Option<String> {
    if target.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// The contract at REV with pipeline_id `id` other than `path` itself: in
/// `path`'s folder first, else the first in git's order. Only files whose
/// bytes hold the id are analyzed; a contract-named file at REV whose name
/// is not UTF-8 is no verdict (it could be the one).
fn same_pipeline_at(
    repository: &GitCli,
    listed: &[crate::git::Listed],
    id: &str,
    path: &str,
    revision: &str,
) -> Result<Option<(String, Analysis)>, String> {
    let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
    let mut candidates: Vec<(String, String)> = Vec::new();
    for entry in listed {
        if !matches!(entry.mode.as_str(), "100644" | "100755") {
            continue;
        }
        let lossy = String::from_utf8_lossy(&entry.path);
        if !lossy.rsplit('/').next().is_some_and(is_contract_name) {
            continue;
        }
        let name = utf8_path(&entry.path, revision)?;
        if name == path {
            continue;
        }
        if entry
            .size
            .is_some_and(|size| size > Bound::Contract.bytes())
        {
            continue;
        }
        candidates.push((entry.id.clone(), name));
    }
    if candidates.len() > MAX_SEARCHED {
        return Err(format!(
            "more than {MAX_SEARCHED} contracts at `{}` to search for pipeline_id `{}`; name the contracts to compare",
            inline(revision),
            inline(id)
        ));
    }
    let same_folder = |name: &str| name.rsplit_once('/').map_or("", |(f, _)| f) == folder;
    candidates.sort_by_key(|(_, name)| !same_folder(name));
    let ids: Vec<String> = candidates.iter().map(|(blob, _)| blob.clone()).collect();
    let mut found: Option<(String, Analysis)> = None;
    repository.each_blob(&ids, Bound::Contract.bytes(), &mut |index, bytes| {
        let holds_id = id.is_empty() || bytes.windows(id.len()).any(|w| w == id.as_bytes());
        if found.is_some() || !holds_id {
            return Ok(());
        }
        let analysis = analyze(&bytes);
        let matches = analysis
            .contract()
            .and_then(|c| c.pipeline_id.as_ref())
            .is_some_and(|p| p.value == id);
        if matches {
            found = Some((candidates[index].1.clone(), analysis));
        }
        Ok(())
    })?;
    Ok(found)
}

/// `prefix` of `here` inside `top` (`pipelines/`), or `None` outside it.
fn pathdiff_prefix(here: &Path, top: &Path) -> Option<String> {
    let here = here.canonicalize().ok()?;
    let top = top.canonicalize().ok()?;
    let relative = here.strip_prefix(&top).ok()?;
    let mut prefix = String::new();
    for part in relative.components() {
        prefix.push_str(part.as_os_str().to_str()?);
        prefix.push('/');
    }
    Some(prefix)
}

/// `file`'s path from the repository root, `/`-separated, as git names
/// it in a tree. The folder it is in must exist (the file itself may be
/// deleted) and be inside the work tree.
fn from_root(file: &Path, top: &Path) -> Result<String, String> {
    let outside = || {
        format!(
            "{} is not inside the git work tree at {}",
            shown(file),
            shown(top)
        )
    };
    let name = file
        .file_name()
        .ok_or_else(|| format!("{} names no file", shown(file)))?;
    let folder = match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let folder = folder
        .canonicalize()
        .map_err(|e| format!("cannot find the folder of {}: {e}", shown(file)))?;
    let top = top.canonicalize().map_err(|_| outside())?;
    let relative = folder.strip_prefix(&top).map_err(|_| outside())?;
    let mut path = String::new();
    for part in relative.components().map(|c| c.as_os_str()).chain([name]) {
        let part = part
            .to_str()
            .ok_or_else(|| format!("{} is not valid UTF-8", shown(file)))?;
        if part.contains(['\n', '\r']) {
            return Err(format!("{} has a line break in its name", shown(file)));
        }
        if !path.is_empty() {
            path.push('/');
        }
        path.push_str(part);
    }
    Ok(path)
}
