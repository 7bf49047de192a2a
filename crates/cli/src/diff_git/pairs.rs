//! One pair of `phaselint diff`: each side read and analysed as the resume
//! check reads it, diffed, and its findings handed back located in NEW.
//! Shared by `OLD NEW`, `--against` and `--git`.

use std::path::{Path, PathBuf};

use phaselint_lint::config::Settings;
use phaselint_lint::diagnostic::Diagnostic;
use phaselint_lint::diff::{DiffError, DiffMode};
use phaselint_lint::input::{self, Bound};
use phaselint_lint::{Analysis, analyze_contract_for_resume};
use phaselint_render::Linted;
use phaselint_render::terminal::inline;

/// At most this many OLD versions (`--against`) or files (`--git`) in
/// one run: each is read whole (up to the contract bound) and NEW's
/// findings are kept until all are printed.
pub const MAX_COMPARED: usize = 256;

pub(super) fn is_contract_name(name: &str) -> bool {
    name.ends_with(".contract.yaml") || name.ends_with(".contract.yml")
}

/// `diff` of one pair in `mode`; a refused side is the message for exit 3
/// naming it.
pub(super) fn diff_pair(
    (old, old_path): (&Analysis, &Path),
    new: &Analysis,
    mode: DiffMode,
    old_label: &str,
    new_label: &str,
) -> Result<Vec<Diagnostic>, String> {
    phaselint_lint::diff::diff_in_mode(old, old_path, new, mode)
        .map_err(|error| refused(&error, old_label, new_label))
}

pub(super) fn refused(error: &DiffError, old_label: &str, new_label: &str) -> String {
    let side = match error {
        DiffError::ContractHasErrors { side, .. } | DiffError::NotAContract { side } => *side,
    };
    let label = if side == "OLD" { old_label } else { new_label };
    format!("{side} ({label}): {error}")
}

/// The findings as the analysis of the file they are located in.
pub(super) fn linted(path: &Path, mut analysis: Analysis, findings: Vec<Diagnostic>) -> Linted {
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
pub(super) fn analyze(bytes: &[u8]) -> Analysis {
    analyze_contract_for_resume(bytes, &Settings::default())
}

/// The bytes of `path`, or of standard input for `-`, within the contract
/// bound (following a link: the file was named).
pub(super) fn read_named(path: &Path) -> Result<Vec<u8>, String> {
    let read = if path == Path::new("-") {
        input::read_stream(std::io::stdin().lock(), path, Bound::Contract)
    } else {
        input::read_file(path, Bound::Contract)
    };
    read.map_err(|e| e.to_string())
}

/// `` `path` `` as messages show a path, or `standard input`.
pub(super) fn shown(path: &Path) -> String {
    if path == Path::new("-") {
        "standard input".into()
    } else {
        format!("`{}`", inline(&path.display().to_string()))
    }
}

/// What tells two paths to one file apart from two files (`None` for
/// standard input or a path that cannot be resolved).
pub(super) fn identity(path: &Path) -> Option<PathBuf> {
    if path == Path::new("-") {
        return None;
    }
    path.canonicalize().ok()
}
