//! The language server: the `Server` every LSP method runs on, and the
//! analysis of a document's current version that they all read. The methods
//! are dispatched in `dispatch.rs`, documents analyzed and published in
//! `publishing.rs`, capabilities agreed in `capabilities.rs`; answers come
//! from `handlers`.
//!
//! Ordering: the transport processes one message at a time
//! (`concurrency_level(1)`), so `didOpen`/`didChange`/`didClose` are applied
//! strictly in arrival order (tower-lsp's concurrent handlers could
//! otherwise reorder them, its issue #284). Handlers never wait for
//! analysis of other documents: diagnostics are computed in a background
//! task (after a short debounce for edits; at once on open) and published
//! under a lock that keeps them in version order.

mod capabilities;
mod dispatch;
mod publishing;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

use crate::analyzer::Analyzed;
use crate::carried::adopt;
use crate::state::State;
use phaselint_lint::DocumentKind;

pub struct Server {
    pub(crate) client: Client,
    /// Set by `shutdown`: an `exit` without it ends the process with 1.
    shut_down: Arc<std::sync::atomic::AtomicBool>,
    pub(crate) state: Arc<Mutex<State>>,
    /// Held while publishing, so diagnostics leave in version order.
    pub(crate) publishing: Arc<tokio::sync::Mutex<()>>,
}

impl Server {
    pub fn new(
        client: Client,
        shut_down: Arc<std::sync::atomic::AtomicBool>,
        release_memory: fn(),
    ) -> Self {
        let mut state = State::default();
        state.analyzer = crate::analyzer::Analyzer::start(release_memory).ok();
        Server {
            client,
            shut_down,
            state: Arc::new(Mutex::new(state)),
            publishing: Arc::new(tokio::sync::Mutex::new(())),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }
}

pub(crate) fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panic while holding the lock leaves consistent data behind (every
    // update is a single assignment), so keep serving.
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The analysis of the document's current version (or of `only`, which
/// must still be current), computed off the async threads when missing.
///
/// `Ok(None)` when the document is not open (or `only` is no longer its
/// version); `Err` with the reason when the analysis itself failed.
async fn analyzed(
    state: &Arc<Mutex<State>>,
    uri: &Uri,
    only: Option<i32>,
) -> std::result::Result<Option<Arc<Analyzed>>, String> {
    let (version, generation) = {
        let guard = lock(state);
        let generation = guard.generation;
        let Some(document) = guard.documents.get(uri) else {
            return Ok(None);
        };
        if only.is_some_and(|v| v != document.version) {
            return Ok(None);
        }
        if let Some(analyzed) = &document.analyzed
            && document.is_current(analyzed, generation)
        {
            return Ok(Some(analyzed.clone()));
        }
        (document.version, generation)
    };
    let Some(analyzer) = lock(state).analyzer.clone() else {
        return Err("the analysis thread could not be started".into());
    };
    // The text is taken when the analysis thread gets to this job, and
    // only if the version is still the document's.
    let prepare = {
        let state = state.clone();
        let uri = uri.clone();
        move || {
            let mut guard = lock(&state);
            if guard.generation != generation {
                return None;
            }
            let document = guard.documents.get(&uri)?;
            if document.version != version {
                return None;
            }
            let (text, path) = (document.text.clone(), document.path.clone());
            let kind = path
                .as_deref()
                .map_or(DocumentKind::Contract, DocumentKind::of_path);
            let (settings, _error) = guard.settings_for(path.as_deref());
            Some((text, settings, kind))
        }
    };
    let started = std::time::Instant::now();
    let Some(analyzed) = analyzer.analyze(version, generation, prepare).await? else {
        return Ok(None);
    };
    let took = started.elapsed();
    let replaced = {
        let mut guard = lock(state);
        // Findings of an older configuration are not carried.
        let current = analyzed.generation == guard.generation;
        match guard.documents.get_mut(uri) {
            Some(document) if document.version == version => {
                document.analysis_time = Some(took);
                let last_contract = match analyzed.analysis.shared_contract() {
                    Some(contract) => document.last_contract.replace(contract.clone()),
                    None => None,
                };
                if current {
                    adopt(&mut document.carried, &mut document.edits, &analyzed);
                }
                (document.analyzed.replace(analyzed.clone()), last_contract)
            }
            // Edits came in meanwhile: still the newest text that parsed,
            // perhaps, to carry through them.
            Some(document) if current => {
                adopt(&mut document.carried, &mut document.edits, &analyzed);
                (None, None)
            }
            _ => (None, None),
        }
    };
    // Dropped outside the lock, and off the way to publishing; a large
    // document's analysis is worth giving back to the system once nothing
    // else holds it.
    let large = analyzed.analysis.source.len() > RELEASE_AFTER_BYTES;
    analyzer.drop_later(replaced);
    if large {
        analyzer.release_freed_memory();
    }
    Ok(Some(analyzed))
}

/// Documents above this size return their previous analysis's memory to
/// the system when a new one replaces it; below it, trimming is not worth
/// a call per keystroke.
const RELEASE_AFTER_BYTES: usize = 1 << 20;

fn file_path(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|p| p.into_owned())
}
