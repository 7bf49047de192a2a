//! What `phaselint diff` compares: `OLD NEW`, NEW against every older
//! version (`--against DIR_OR_FILE`), or each file against its version at
//! a git revision (`--git REV [FILE...]`). This file reads the contracts
//! (through `phaselint_lint::input`, bounded; git's blobs through the
//! `git.rs` runner, bounded) and asks `phaselint_lint::diff` for each
//! pair; `diff.rs` prints. A side that cannot be read, or a contract with
//! E-codes on either side, is no verdict (exit 3), as in `resume-check`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use phaselint_lint::config::Settings;
use phaselint_lint::diagnostic::Diagnostic;
use phaselint_lint::diff::{DiffError, DiffMode};
use phaselint_lint::input::{self, Bound};
use phaselint_lint::{Analysis, analyze_contract_for_resume};
use phaselint_render::Linted;
use phaselint_render::terminal::inline;

use crate::git::GitCli;

/// At most this many OLD versions (`--against`) or files (`--git`) in
/// one run: each is read whole (up to the contract bound) and NEW's
/// findings are kept until all are printed.
pub const MAX_COMPARED: usize = 256;
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
pub fn compare(plan: &Plan<'_>, mode: DiffMode, quiet: bool) -> Result<Vec<Linted>, String> {
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
            Ok(vec![linted(new, new_analysis, findings)])
        }
        Plan::Against { olds, new } => against(olds, new, mode, &note),
        Plan::Git { revision, files } => git(revision, files, mode, &note),
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
            continue;
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

/// Each FILE (or each contract that differs from REV) against its version
/// at REV, read through git.
fn git(
    revision: &str,
    files: &[PathBuf],
    mode: DiffMode,
    note: &dyn Fn(String),
) -> Result<Vec<Linted>, String> {
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
    // Each file as (path from the root, path shown, discovered by git).
    let mut chosen: Vec<(String, PathBuf, bool)> = Vec::new();
    if files.is_empty() {
        let prefix = pathdiff_prefix(&here, &top);
        for path in repository.differing_paths(&commit, MAX_DIFFERING_PATHS)? {
            if !path.rsplit('/').next().is_some_and(is_contract_name) {
                continue;
            }
            let shown_path = match &prefix {
                Some(prefix) => path
                    .strip_prefix(prefix.as_str())
                    .map_or_else(|| top.join(&path), PathBuf::from),
                None => top.join(&path),
            };
            chosen.push((path, shown_path, true));
        }
        if chosen.is_empty() {
            note(format!(
                "no contract (`*.contract.yaml`, `*.contract.yml`) differs from `{revision}`: nothing to compare"
            ));
        }
    } else {
        for file in files {
            chosen.push((from_root(file, &top)?, file.clone(), false));
        }
    }
    if chosen.len() > MAX_COMPARED {
        return Err(format!(
            "more than {MAX_COMPARED} contracts to compare with `{}`; name the ones to compare",
            inline(revision)
        ));
    }
    let entries = repository.tree_entries_at(&commit, &chosen)?;
    let mut out = Vec::new();
    for (path, shown_path, discovered) in &chosen {
        let old_label = format!("`{}:{}`", inline(revision), inline(path));
        let old_bytes = match entries.get(path) {
            None => None,
            Some(phaselint_lint::resume::TreeEntry::File { blob, size }) => {
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
                        phaselint_lint::resume::TreeEntry::SymbolicLink => "a symbolic link",
                        phaselint_lint::resume::TreeEntry::Submodule => "a submodule",
                        _ => "a folder",
                    }
                ));
            }
        };
        let absolute = top.join(path);
        // Discovered files are read without following links: a link added
        // to the work tree cannot bring in a file from elsewhere.
        let new_bytes = if *discovered {
            input::read_file_no_follow(&absolute, Bound::Contract)
                .map_err(|e| e.to_string())?
                .map(|(bytes, _)| bytes)
        } else if std::fs::symlink_metadata(&absolute).is_err() {
            None
        } else {
            Some(read_named(&absolute)?)
        };
        match (old_bytes, new_bytes) {
            (None, None) => {
                return Err(format!(
                    "{} is neither in the work tree nor at `{}`",
                    shown(shown_path),
                    inline(revision)
                ));
            }
            (None, Some(_)) => note(format!(
                "{} is new since `{revision}`: no run can be paused under an older version of it, nothing to compare",
                shown(shown_path)
            )),
            (Some(old_bytes), None) => {
                let old_analysis = analyze(&old_bytes);
                let findings = phaselint_lint::diff::contract_deleted(
                    &old_analysis,
                    &format!(
                        "the file is deleted in the work tree; shown as it was at `{revision}`"
                    ),
                )
                .map_err(|e| refused(&e, &old_label, &shown(shown_path)))?;
                let findings = findings
                    .into_iter()
                    .filter(|d| mode.reports(d.code))
                    .collect();
                out.push(linted(shown_path, old_analysis, findings));
            }
            (Some(old_bytes), Some(new_bytes)) => {
                let old_analysis = analyze(&old_bytes);
                let new_analysis = analyze(&new_bytes);
                let old_path = PathBuf::from(format!("{revision}:{path}"));
                let findings = diff_pair(
                    (&old_analysis, &old_path),
                    &new_analysis,
                    mode,
                    &old_label,
                    &shown(shown_path),
                )?;
                out.push(linted(shown_path, new_analysis, findings));
            }
        }
    }
    Ok(out)
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

impl GitCli {
    /// The tree entries of the chosen paths at `commit`, by path.
    fn tree_entries_at(
        &self,
        commit: &str,
        chosen: &[(String, PathBuf, bool)],
    ) -> Result<BTreeMap<String, phaselint_lint::resume::TreeEntry>, String> {
        use phaselint_lint::resume::GitRepository;
        let paths: Vec<String> = chosen.iter().map(|(p, _, _)| p.clone()).collect();
        Ok(self.tree_entries(commit, &paths)?.into_iter().collect())
    }
}
