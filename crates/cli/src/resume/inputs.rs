//! The resume check's inputs read for the CLI (each through
//! `phaselint_lint::resume::request`, bounded), failures as `NoVerdict`.

use std::path::{Path, PathBuf};

use phaselint_lint::Analysis;
use phaselint_lint::config::Settings;
use phaselint_lint::input::Bound;
use phaselint_lint::resume::{self, ApprovalSource, Timestamp, request};

/// A failure that leaves no verdict (exit 3), with what to tell the user.
pub struct NoVerdict(pub String);

impl From<String> for NoVerdict {
    fn from(message: String) -> Self {
        NoVerdict(message)
    }
}

/// Reads every `--approvals` file (`resume::request::read_approvals`).
pub(crate) fn read_approvals(paths: &[PathBuf]) -> Result<Vec<ApprovalSource>, NoVerdict> {
    Ok(request::read_approvals(paths)?)
}

pub(crate) fn parse_now(now: Option<&str>) -> Result<Timestamp, NoVerdict> {
    Ok(request::parse_now(now)?)
}

/// Reads and analyzes the contract (`resume::request::load_contract`):
/// any E-code finding, and any config problem, is a no-verdict error.
pub(crate) fn load_contract(
    path: &Path,
    config: Option<&Path>,
    no_config: bool,
) -> Result<(Analysis, Settings), NoVerdict> {
    let loaded = request::load_contract(path, config, no_config)?;
    Ok((loaded.analysis, loaded.settings))
}

/// Reads a JSON or YAML document from a file or, for `-`, standard input.
pub(crate) fn read_document(
    path: &Path,
    what: &str,
    bound: Bound,
) -> Result<serde_json::Value, NoVerdict> {
    Ok(request::read_document(path, what, bound)?)
}

/// Reads a state (`--state FILE`): a document whose numbers must be exact.
pub(super) fn read_state(path: &Path) -> Result<serde_json::Value, NoVerdict> {
    let document = request::read_text(path, "state", Bound::Document)?;
    let budget = resume::MEMORY_PER_INPUT_BYTE * Bound::Document.bytes();
    resume::parse_state_within(&document.text, document.format, budget)
        .map_err(|e| NoVerdict(format!("cannot read the state {}: {e}", document.shown)))
}
