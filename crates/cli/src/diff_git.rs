//! What `phaselint diff` compares: `OLD NEW`, NEW against every older
//! version (`--against DIR_OR_FILE`), or each file against its version at
//! a git revision (`--git REV [FILE...]`). This file reads the contracts
//! (through `phaselint_lint::input`, bounded; git's blobs through the
//! `git.rs` runner, bounded) and asks `phaselint_lint::diff` for each
//! pair; `diff.rs` prints. A side that cannot be read, or a contract with
//! E-codes on either side, is no verdict (exit 3), as in `resume-check`.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use phaselint_lint::config::{Config, ConfigError, Settings, read_from_disk};
use phaselint_lint::diagnostic::Diagnostic;
use phaselint_lint::diff::{DiffError, DiffMode};
use phaselint_lint::input::{self, Bound};
use phaselint_lint::{Analysis, analyze_contract_for_resume};
use phaselint_render::Linted;
use phaselint_render::terminal::inline;

use crate::git::GitCli;
use phaselint_lint::resume::{GitRepository, TreeEntry};

/// At most this many OLD versions (`--against`) or files (`--git`) in
/// one run: each is read whole (up to the contract bound) and NEW's
/// findings are kept until all are printed.
pub const MAX_COMPARED: usize = 256;
/// At most this many contracts at REV searched for a new file's
/// pipeline_id (each read whole, up to the contract bound).
const MAX_SEARCHED: usize = 4096;
/// At most this many paths git may list as differing from REV before
/// `--git` with no FILE gives up (and asks for the files).
const MAX_DIFFERING_PATHS: usize = 100_000;

/// `--mode`, as the command line spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// Every change that matters to a run paused under OLD and resumed
    /// under NEW.
    Resume,
    /// Only what voids approvals recorded under OLD (D601, D611, D613,
    /// D614).
    Approvals,
}

impl From<ModeArg> for DiffMode {
    fn from(mode: ModeArg) -> DiffMode {
        match mode {
            ModeArg::Resume => DiffMode::Resume,
            ModeArg::Approvals => DiffMode::Approvals,
        }
    }
}

/// What is compared, decided from the command line.
pub enum Plan<'a> {
    /// `OLD NEW`.
    Pair { old: &'a Path, new: &'a Path },
    /// `--against DIR_OR_FILE... NEW`.
    Against { olds: &'a [PathBuf], new: &'a Path },
    /// `--git REV [FILE...]`.
    Git {
        revision: &'a str,
        files: &'a [PathBuf],
    },
}

impl<'a> Plan<'a> {
    pub fn of(
        paths: &'a [PathBuf],
        against: &'a [PathBuf],
        git: Option<&'a str>,
    ) -> Result<Plan<'a>, String> {
        match (git, against.is_empty(), paths) {
            (Some(revision), true, files) => {
                if files.iter().any(|f| f == Path::new("-")) {
                    return Err("with --git, each FILE is read from the work tree: `-` (standard input) cannot be one".into());
                }
                Ok(Plan::Git { revision, files })
            }
            (Some(_), false, _) => Err("--git and --against cannot be combined: --git compares each file with its own version at REV".into()),
            (None, false, [new]) => {
                if new == Path::new("-") && against.iter().any(|p| p == Path::new("-")) {
                    return Err("only one of an OLD and NEW can be `-` (standard input)".into());
                }
                Ok(Plan::Against { olds: against, new })
            }
            (None, false, _) => Err(
                "with --against, give NEW alone: `phaselint diff --against DIR_OR_FILE NEW`".into(),
            ),
            (None, true, [old, new]) => {
                if old == Path::new("-") && new == Path::new("-") {
                    return Err("only one of OLD and NEW can be `-` (standard input)".into());
                }
                Ok(Plan::Pair { old, new })
            }
            (None, true, _) => Err(format!(
                "expected OLD and NEW, got {} path{}: `phaselint diff OLD NEW`, `phaselint diff --against DIR_OR_FILE NEW` or `phaselint diff --git REV [FILE...]`",
                paths.len(),
                if paths.len() == 1 { "" } else { "s" }
            )),
        }
    }
}

/// What was compared: one entry per NEW file, its findings in its
/// analysis; or why there is no verdict (the message for exit 3).
pub fn compare(
    plan: &Plan<'_>,
    mode: DiffMode,
    quiet: bool,
) -> Result<(Vec<Linted>, Option<GitSide>), String> {
    let note = |message: String| {
        if !quiet {
            eprintln!("phaselint: note: {}", inline(&message));
        }
    };
    match *plan {
        Plan::Pair { old, new } => {
            let old_analysis = analyze(&read_named(old)?);
            let new_analysis = analyze(&read_named(new)?);
            let findings = diff_pair(
                (&old_analysis, old),
                &new_analysis,
                mode,
                &shown(old),
                &shown(new),
            )?;
            Ok((vec![linted(new, new_analysis, findings)], None))
        }
        Plan::Against { olds, new } => Ok((against(olds, new, mode, &note)?, None)),
        Plan::Git { revision, files } => {
            git(revision, files, mode, &note).map(|(linted, side)| (linted, Some(side)))
        }
    }
}

/// NEW against each OLD in turn; the findings of all, in the order of the
/// OLDs, each message naming the OLD it comes from.
fn against(
    olds: &[PathBuf],
    new: &Path,
    mode: DiffMode,
    note: &dyn Fn(String),
) -> Result<Vec<Linted>, String> {
    let new_analysis = analyze(&read_named(new)?);
    let new_identity = identity(new);
    let mut versions = Vec::new();
    for old in olds {
        if std::fs::metadata(old).is_ok_and(|m| m.is_dir()) {
            for found in contracts_in(old)? {
                // A link is refused even when it points at NEW: a versions
                // folder holds versions, never a stand-in for another file.
                if std::fs::symlink_metadata(&found).is_ok_and(|m| m.file_type().is_symlink()) {
                    return Err(format!(
                        "{} is a symbolic link: a versions folder is read without following links; put the version itself there",
                        shown(&found)
                    ));
                }
                if new_identity.is_some() && identity(&found) == new_identity {
                    note(format!(
                        "{} is NEW itself: not compared with itself",
                        shown(&found)
                    ));
                    continue;
                }
                versions.push((found, true));
            }
        } else {
            versions.push((old.clone(), false));
        }
        if versions.len() > MAX_COMPARED {
            return Err(format!(
                "more than {MAX_COMPARED} older versions to compare NEW with; keep only the versions runs may still be paused under"
            ));
        }
    }
    if versions.is_empty() {
        return Err(format!(
            "no older version to compare NEW with: no `*.contract.yaml` or `*.contract.yml` file in {}",
            olds.iter().map(|p| shown(p)).collect::<Vec<_>>().join(", ")
        ));
    }
    let mut findings = Vec::new();
    for (old, from_folder) in &versions {
        // A folder's entries are read without following links, so a link
        // in it cannot bring in a file from elsewhere; a file named on the
        // command line is read as named.
        let bytes = if *from_folder {
            match input::read_file_no_follow(old, Bound::Contract) {
                Ok(Some((bytes, _))) => bytes,
                Ok(None) => return Err(format!("cannot read {}: it is gone", shown(old))),
                Err(e) => return Err(e.to_string()),
            }
        } else {
            read_named(old)?
        };
        let old_analysis = analyze(&bytes);
        let label = shown(old);
        let mut found = diff_pair(
            (&old_analysis, old),
            &new_analysis,
            mode,
            &label,
            &shown(new),
        )?;
        for finding in &mut found {
            finding.message = format!("{} (against OLD {label})", finding.message);
        }
        findings.extend(found);
    }
    Ok(vec![linted(new, new_analysis, findings)])
}

/// The contracts directly in `folder` (`*.contract.yaml`, `*.contract.yml`,
/// lint's default names), sorted by name. Sub-folders are not walked.
fn contracts_in(folder: &Path) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(folder).map_err(|e| format!("cannot list {}: {e}", shown(folder)))?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list {}: {e}", shown(folder)))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            // Skipped, it could be a version runs are paused under.
            return Err(format!(
                "`{}` in {} has a name that is not UTF-8: no version is left out unread; rename it",
                name.as_encoded_bytes().escape_ascii(),
                shown(folder)
            ));
        };
        if !is_contract_name(name) {
            continue;
        }
        found.push(entry.path());
        if found.len() > MAX_COMPARED {
            return Err(format!(
                "more than {MAX_COMPARED} contracts in {}; keep only the versions runs may still be paused under",
                shown(folder)
            ));
        }
    }
    found.sort();
    Ok(found)
}

fn is_contract_name(name: &str) -> bool {
    name.ends_with(".contract.yaml") || name.ends_with(".contract.yml")
}

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
fn git(
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

/// `diff` of one pair in `mode`; a refused side is the message for exit 3
/// naming it.
fn diff_pair(
    (old, old_path): (&Analysis, &Path),
    new: &Analysis,
    mode: DiffMode,
    old_label: &str,
    new_label: &str,
) -> Result<Vec<Diagnostic>, String> {
    phaselint_lint::diff::diff_in_mode(old, old_path, new, mode)
        .map_err(|error| refused(&error, old_label, new_label))
}

fn refused(error: &DiffError, old_label: &str, new_label: &str) -> String {
    let side = match error {
        DiffError::ContractHasErrors { side, .. } | DiffError::NotAContract { side } => *side,
    };
    let label = if side == "OLD" { old_label } else { new_label };
    format!("{side} ({label}): {error}")
}

/// The findings as the analysis of the file they are located in.
fn linted(path: &Path, mut analysis: Analysis, findings: Vec<Diagnostic>) -> Linted {
    analysis.diagnostics = findings;
    analysis.hidden_errors.clear();
    analysis.keep_only_findings();
    Linted {
        path: path.to_path_buf(),
        analysis,
    }
}

/// Read as the resume check reads a contract: default settings, so no
/// configured level hides an E-code from the verdict.
fn analyze(bytes: &[u8]) -> Analysis {
    analyze_contract_for_resume(bytes, &Settings::default())
}

/// The bytes of `path`, or of standard input for `-`, within the contract
/// bound (following a link: the file was named).
fn read_named(path: &Path) -> Result<Vec<u8>, String> {
    let read = if path == Path::new("-") {
        input::read_stream(std::io::stdin().lock(), path, Bound::Contract)
    } else {
        input::read_file(path, Bound::Contract)
    };
    read.map_err(|e| e.to_string())
}

/// `` `path` `` as messages show a path, or `standard input`.
fn shown(path: &Path) -> String {
    if path == Path::new("-") {
        "standard input".into()
    } else {
        format!("`{}`", inline(&path.display().to_string()))
    }
}

/// What tells two paths to one file apart from two files (`None` for
/// standard input or a path that cannot be resolved).
fn identity(path: &Path) -> Option<PathBuf> {
    if path == Path::new("-") {
        return None;
    }
    path.canonicalize().ok()
}

/// The configuration of each folder as it is at REV (`--git`), found as
/// `Config::discover` finds it on disk but reading each candidate from
/// REV's tree (above the repository's root: from the disk, which the
/// change does not touch).
#[derive(Default)]
pub struct RevisionConfigs {
    by_folder: HashMap<String, Arc<Config>>,
    noted: std::collections::BTreeSet<String>,
}

impl RevisionConfigs {
    /// The configuration for `path` (from the root) at REV; a note when the
    /// work tree's differs.
    pub fn for_file(
        &mut self,
        side: &GitSide,
        path: &str,
        quiet: bool,
    ) -> Result<Arc<Config>, String> {
        let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
        if let Some(config) = self.by_folder.get(folder) {
            return Ok(config.clone());
        }
        let absolute_folder = if folder.is_empty() {
            side.top.clone()
        } else {
            side.top.join(folder)
        };
        let at_rev = format!("`{}`", inline(&side.revision));
        let mut read_at_rev: HashMap<PathBuf, Vec<u8>> = HashMap::new();
        let mut reader = |candidate: &Path| -> Result<Option<Vec<u8>>, ConfigError> {
            let Ok(relative) = candidate.strip_prefix(&side.top) else {
                return read_from_disk(candidate);
            };
            let Some(relative) = relative
                .components()
                .map(|c| c.as_os_str().to_str())
                .collect::<Option<Vec<_>>>()
                .map(|parts| parts.join("/"))
            else {
                return Ok(None);
            };
            let invalid = |message: String| ConfigError::Invalid {
                path: candidate.to_path_buf(),
                message,
            };
            let mut entries = side
                .repository
                .tree_entries(&side.commit, std::slice::from_ref(&relative))
                .map_err(&invalid)?;
            match entries.remove(&relative) {
                Some(TreeEntry::File { blob, size }) => {
                    if size > Bound::Config.bytes() {
                        return Err(invalid(format!(
                            "is {size} bytes at {at_rev}, larger than the limit of {}",
                            input::describe(Bound::Config.bytes())
                        )));
                    }
                    let bytes = side
                        .repository
                        .blob(&blob, Bound::Config.bytes())
                        .map_err(&invalid)?;
                    read_at_rev.insert(candidate.to_path_buf(), bytes.clone());
                    Ok(Some(bytes))
                }
                Some(TreeEntry::SymbolicLink) => Err(invalid(format!(
                    "is a symbolic link at {at_rev}: the configuration is read from REV's tree, never through a link"
                ))),
                _ => Ok(None),
            }
        };
        let config = Config::discover_with(&absolute_folder, &mut reader)
            .map_err(|e| format!("the configuration at {at_rev}: {e}"))?;
        // The work tree's, to say when it differs: the change may not
        // loosen its own gate, and the author should know why theirs is
        // not used.
        let on_disk = Config::discover(&absolute_folder);
        let differs = match &on_disk {
            Err(_) => true,
            Ok(disk) => {
                // Every file of the chain: an extended file may be what changed.
                disk.sources() != config.sources()
                    || config
                        .sources()
                        .iter()
                        .any(|p| read_at_rev.get(p) != read_from_disk(p).ok().flatten().as_ref())
            }
        };
        if differs && !quiet {
            let changed = on_disk
                .as_ref()
                .ok()
                .and_then(|d| d.path.clone())
                .or_else(|| config.path.clone())
                .map(|p| {
                    p.strip_prefix(&side.top)
                        .unwrap_or(&p)
                        .display()
                        .to_string()
                })
                .unwrap_or_default();
            if self.noted.insert(changed.clone()) {
                eprintln!(
                    "phaselint: note: {}",
                    inline(&format!(
                        "`{changed}` changed since `{}`: diff judges with its version at `{}`",
                        side.revision, side.revision
                    ))
                );
            }
        }
        let config = Arc::new(config);
        self.by_folder.insert(folder.to_string(), config.clone());
        Ok(config)
    }
}
