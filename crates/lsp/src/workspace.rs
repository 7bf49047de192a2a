//! The contracts under the workspace folders, open or not: what workspace
//! symbols search, and whose findings are pulled (`workspace/diagnostic`)
//! or, for clients that do not pull, published from disk.
//!
//! Found by `phaselint_lint::walk`, the walk `phaselint lint DIR` makes, so
//! the server indexes exactly the files the CLI lints. Each file is read
//! and analyzed on the analysis thread, one at a time and only while no
//! open document waits for its analysis (`Server::index_files`); what is
//! kept of it is its symbols (names and ranges) and, for clients that
//! pull, its findings in LSP shape. The analysis itself is dropped at once.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use phaselint_lint::config::Config;
use phaselint_lint::index::SymbolIndex;
use phaselint_lint::line_index::ColumnUnit;
use phaselint_lint::{DocumentKind, analyze_file};
use tower_lsp_server::ls_types::{Diagnostic, FileEvent, InitializeParams, Range, SymbolKind, Uri};

use crate::analyzer::Analyzed;
use crate::handlers;
use crate::positions::Positions;

/// The most contract files indexed across the workspace folders; past it,
/// the rest are neither searched nor reported (and the user is told).
pub const MAX_FILES: usize = 20_000;

/// The most symbols kept of one file (a generated contract has 100,000
/// phases; nobody searches those by name in an editor).
const MAX_SYMBOLS_PER_FILE: usize = 2_000;

/// What the server knows of the workspace.
#[derive(Default)]
pub struct Workspace {
    /// The folders to walk: `workspaceFolders`, else `rootUri`.
    pub roots: Vec<PathBuf>,
    /// The client pulls diagnostics (`textDocument.diagnostic`): findings
    /// are kept for `workspace/diagnostic` instead of published.
    pub pull: bool,
    /// The client takes `workspace/diagnostic/refresh`.
    pub refresh: bool,
    /// Code lenses are answered when the client has `textDocument.codeLens`
    /// (or says nothing of either); inlay hints otherwise.
    pub code_lens: bool,
    pub inlay_hints: bool,
    /// The indexed contracts, by path.
    pub files: BTreeMap<PathBuf, IndexedFile>,
    /// Counts indexed analyses: each one's result id.
    pub results: u64,
    /// Files reported changed (or closed) that the re-index task has not
    /// taken yet: a burst of events for one file is one entry.
    pub pending: BTreeSet<PathBuf>,
    /// The re-index task is queued or running: events only join `pending`.
    pub reindexing: bool,
    /// Counts watcher events and closes (what the re-index task waits
    /// to see stop before it takes a batch).
    pub events: u64,
}

/// What is kept of one contract on disk.
pub struct IndexedFile {
    pub symbols: Vec<SymbolEntry>,
    /// Its findings, kept only for clients that pull them.
    pub diagnostics: Option<Vec<Diagnostic>>,
    /// Which analysis `diagnostics` are (for `previousResultIds`).
    pub result_id: String,
    /// Findings were published for it (so a deletion clears them).
    pub published: bool,
}

/// A phase, checkpoint or chain, as workspace symbols list it.
#[derive(Clone, Debug)]
pub struct SymbolEntry {
    pub name: String,
    pub kind: SymbolKind,
    /// The contract's `pipeline_id`, or its file name.
    pub container: String,
    pub range: Range,
}

/// One file's index entry and findings, built on the analysis thread.
pub struct Indexed {
    pub symbols: Vec<SymbolEntry>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The contracts under `roots` the CLI would lint, each with the
/// configuration that governs it, sorted and at most `MAX_FILES`; and
/// what could not be walked or loaded, to tell the user.
pub fn contracts(
    roots: &[PathBuf],
    config_override: Option<&Path>,
) -> (Vec<(PathBuf, Arc<Config>)>, Vec<String>) {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let mut configs: HashMap<PathBuf, Option<Arc<Config>>> = HashMap::new();
    'roots: for root in roots {
        for file in phaselint_lint::walk::files(root) {
            let file = match file {
                Ok(file) => file,
                Err(error) => {
                    problems.push(error.to_string());
                    continue;
                }
            };
            let dir = file.parent().unwrap_or(root).to_path_buf();
            let config = configs.entry(dir.clone()).or_insert_with(|| {
                let loaded = match config_override {
                    Some(path) => Config::load(path),
                    None => Config::discover(&dir),
                };
                match loaded {
                    Ok(config) => Some(Arc::new(config)),
                    Err(error) => {
                        problems.push(error.to_string());
                        None
                    }
                }
            });
            // A file whose configuration is broken is not reported: the
            // broken configuration is, once.
            let Some(config) = config else { continue };
            if phaselint_lint::walk::selects(config, &file) {
                if found.len() == MAX_FILES {
                    problems.push(format!(
                        "more than {MAX_FILES} contracts under the workspace folders; only the first {MAX_FILES} are indexed"
                    ));
                    break 'roots;
                }
                found.push((file, config.clone()));
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found.dedup_by(|a, b| a.0 == b.0);
    (found, problems)
}

/// Reads and analyzes one contract on disk: its symbols and findings, or
/// `None` when it cannot be read (gone, not a regular file) or is another
/// tool's file that the CLI's walk leaves out too.
pub fn index_file(path: &Path, config: &Config, unit: ColumnUnit, uri: &Uri) -> Option<Indexed> {
    let kind = DocumentKind::of_path(path);
    let analysis = analyze_file(path, kind, &config.settings_for(path)).ok()?;
    // What `phaselint lint DIR` skips is neither reported nor searched.
    if phaselint_lint::walk::is_other_kind(&analysis) {
        return None;
    }
    let analyzed = Analyzed {
        version: 0,
        generation: 0,
        analysis,
        index: SymbolIndex::default(),
    };
    let positions = Positions {
        text: &analyzed.analysis.source,
        index: &analyzed.analysis.line_index,
        unit,
    };
    let diagnostics = handlers::diagnostics::to_lsp(&analyzed, &positions, uri);
    let symbols = symbols_of(&analyzed, &positions, path);
    Some(Indexed {
        symbols,
        diagnostics,
    })
}

/// A document's phases, checkpoints and chains, at most
/// `MAX_SYMBOLS_PER_FILE`.
pub fn symbols_of(analyzed: &Analyzed, positions: &Positions<'_>, path: &Path) -> Vec<SymbolEntry> {
    let Some(contract) = analyzed.analysis.contract() else {
        return Vec::new();
    };
    let container = contract
        .pipeline_id
        .as_ref()
        .map(|id| id.value.clone())
        .unwrap_or_else(|| {
            path.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        });
    let phases = contract
        .phases
        .iter()
        .map(|p| (p.name.clone(), p.name_span, SymbolKind::MODULE));
    let checkpoints = contract.checkpoints.iter().filter_map(|c| {
        let id = c.checkpoint_id.as_ref()?;
        Some((id.value.clone(), id.span, SymbolKind::EVENT))
    });
    let chains = contract.chains.iter().filter_map(|c| {
        let id = c.chain_id.as_ref()?;
        Some((id.value.clone(), id.span, SymbolKind::INTERFACE))
    });
    phases
        .chain(checkpoints)
        .chain(chains)
        .filter(|(name, _, _)| !name.is_empty())
        .take(MAX_SYMBOLS_PER_FILE)
        .map(|(name, span, kind)| SymbolEntry {
            name,
            kind,
            container: container.clone(),
            range: positions.range(span),
        })
        .collect()
}

/// How well `name` matches a workspace-symbol `query`, as rust-analyzer
/// matches: case-insensitively, as a substring (better, and better still
/// at the start) or as a subsequence of its characters. `None`: no match.
pub fn match_rank(query: &str, name: &str) -> Option<u8> {
    if query.is_empty() {
        return Some(3);
    }
    let query = query.to_lowercase();
    let name = name.to_lowercase();
    if name == query {
        return Some(0);
    }
    if name.starts_with(&query) {
        return Some(1);
    }
    if name.contains(&query) {
        return Some(2);
    }
    let mut rest = name.chars();
    query
        .chars()
        .all(|wanted| rest.any(|c| c == wanted))
        .then_some(3)
}

/// What watched-file events report: whether a configuration changed
/// (then everything is indexed again), and the other files that did. A
/// configuration is a `phaselint.toml`, a `pyproject.toml`, or a file that
/// a loaded one extends (`extended`).
pub fn changed_files(
    changes: Vec<FileEvent>,
    extended: &std::collections::HashSet<PathBuf>,
) -> (bool, Vec<PathBuf>) {
    let mut configs = false;
    let mut files = Vec::new();
    for change in changes {
        let Some(path) = change.uri.to_file_path() else {
            continue;
        };
        if matches!(
            path.file_name().and_then(|n| n.to_str()),
            Some("phaselint.toml" | "pyproject.toml")
        ) || extended.contains(path.as_ref())
        {
            configs = true;
        } else {
            files.push(path.into_owned());
        }
    }
    files.sort();
    files.dedup();
    (configs, files)
}

/// What the client says of the workspace and of the features it takes:
/// the folders to walk, and whether it pulls diagnostics, refreshes them,
/// and shows code lenses or inlay hints.
pub fn negotiate(params: &InitializeParams) -> Workspace {
    let folders: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|folder| folder.uri.to_file_path().map(|p| p.into_owned()))
        .collect();
    #[allow(deprecated)] // `rootUri` is what clients before workspace folders send.
    let roots = if folders.is_empty() {
        params
            .root_uri
            .iter()
            .filter_map(|uri| uri.to_file_path().map(|p| p.into_owned()))
            .collect()
    } else {
        folders
    };
    let text_document = params.capabilities.text_document.as_ref();
    let pull = text_document.is_some_and(|t| t.diagnostic.is_some());
    let refresh = params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.diagnostics.as_ref())
        .and_then(|d| d.refresh_support)
        .unwrap_or(false);
    let lens = text_document.is_some_and(|t| t.code_lens.is_some());
    let inlay = text_document.is_some_and(|t| t.inlay_hint.is_some());
    Workspace {
        roots,
        pull,
        refresh,
        // A client that declares neither is offered code lenses.
        code_lens: lens || !inlay,
        inlay_hints: inlay && !lens,
        ..Workspace::default()
    }
}

#[cfg(test)]
mod tests {
    use super::match_rank;

    #[test]
    fn queries_match_as_rust_analyzer_matches() {
        assert_eq!(match_rank("summ", "summarize"), Some(1));
        assert_eq!(match_rank("SUMM", "summarize"), Some(1));
        assert_eq!(match_rank("mar", "summarize"), Some(2));
        assert_eq!(match_rank("smz", "summarize"), Some(3));
        assert_eq!(match_rank("zs", "summarize"), None);
        assert_eq!(match_rank("summarize", "summarize"), Some(0));
    }
}
