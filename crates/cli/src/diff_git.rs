//! What `phaselint diff` compares: `OLD NEW`, NEW against every older
//! version (`--against DIR_OR_FILE`), or each file against its version at
//! a git revision (`--git REV [FILE...]`). This file reads the contracts
//! (through `phaselint_lint::input`, bounded; git's blobs through the
//! `git.rs` runner, bounded) and asks `phaselint_lint::diff` for each
//! pair; `diff.rs` prints. A side that cannot be read, or a contract with
//! E-codes on either side, is no verdict (exit 3), as in `resume-check`.

use std::path::{Path, PathBuf};

use phaselint_lint::diff::DiffMode;
use phaselint_lint::input::{self, Bound};
use phaselint_render::Linted;
use phaselint_render::terminal::inline;

mod configs;
mod pairs;
mod revision;

pub use configs::RevisionConfigs;
pub use revision::GitSide;

use pairs::{
    MAX_COMPARED, analyze, diff_pair, identity, is_contract_name, linted, read_named, shown,
};
use revision::git;

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
