//! The one walk over a directory for the files phaselint reads: what
//! `phaselint lint DIR` lints and what the language server indexes across
//! its workspace folders, so the two never disagree on which files are
//! contracts.

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::{Analysis, DocumentKind};

/// Every regular file under `root`, sorted by path, honouring `.gitignore`
/// (with or without a git repository), `.ignore` and the global git
/// excludes, and skipping hidden files and folders except `.harness`.
/// Whether each is a contract is `selects`' answer.
pub fn files(root: &Path) -> impl Iterator<Item = Result<PathBuf, ignore::Error>> {
    ignore::WalkBuilder::new(root)
        .require_git(false)
        .hidden(false)
        .filter_entry(walks_into)
        .sort_by_file_path(|a, b| a.cmp(b))
        .build()
        .filter_map(|entry| match entry {
            Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                Some(Ok(entry.into_path()))
            }
            Ok(_) => None,
            Err(error) => Some(Err(error)),
        })
}

/// Where a walk goes: not into hidden files or folders, except the one
/// hidden folder that holds a harness config (`.harness/config.json`).
fn walks_into(entry: &ignore::DirEntry) -> bool {
    let name = entry.file_name().to_string_lossy();
    entry.depth() == 0 || !name.starts_with('.') || name == ".harness"
}

/// Whether a walked file is read: a harness config always, anything else
/// when `config` (the configuration that governs it) includes it.
pub fn selects(config: &Config, file: &Path) -> bool {
    DocumentKind::of_path(file) == DocumentKind::Harness || config.includes(&absolute(file))
}

/// Whether a walked file, once analyzed, is left out: it is named like a
/// contract but its root is not a context contract's (another tool's
/// contract sharing the suffix), and it could be read. A file named on the
/// command line is linted regardless.
pub fn is_other_kind(analysis: &Analysis) -> bool {
    analysis.kind == DocumentKind::Contract
        && !analysis.is_context_contract()
        && !analysis.is_unreadable()
}

/// `file` made absolute against the working directory (as is, if that
/// cannot be read), as configuration globs are matched.
pub fn absolute(path: &Path) -> PathBuf {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
