//! The background work on the workspace (`workspace.rs`): the walk after
//! `initialized`, a file again when a watcher reports it or its document
//! closes, and publishing from disk for clients that do not pull.
//!
//! Open documents go first: files are indexed one at a time on the
//! analysis thread, and before each the indexer waits while an open
//! document's current version has not been published yet, so a document
//! opened with a 1,000-file workspace waits for one file's analysis at
//! most, not for the workspace.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use phaselint_lint::config::Config;
use tower_lsp_server::ls_types::{MessageType, Uri};

use crate::positions::Positions;
use crate::server::{Server, lock};
use crate::workspace::{IndexedFile, SymbolEntry, contracts, index_file, symbols_of};

/// The longest the indexer waits, over a whole walk, for open documents to
/// be published before it goes on regardless (an analysis that failed is
/// never published).
const MAX_WAIT_FOR_DOCUMENTS: Duration = Duration::from_secs(2);

/// How long a walk of the whole workspace waits for the documents an
/// editor opens with it.
const GRACE_BEFORE_WALK: Duration = Duration::from_millis(20);

/// How long no event must arrive before the re-index task takes a batch:
/// a burst of events (a branch switch, a formatter over the tree, an
/// editor saving in a loop) becomes one batch, not one per event.
const QUIET_BEFORE_BATCH: Duration = Duration::from_millis(10);

/// The longest the re-index task waits for quiet: a flood that never
/// stops is taken in batches this far apart.
const MAX_WAIT_FOR_QUIET: Duration = Duration::from_millis(200);

/// Problems of one walk shown in the log; the rest are counted.
const PROBLEMS_LOGGED: usize = 5;

impl Server {
    /// Walks the workspace folders and indexes every contract, in the
    /// background.
    pub(crate) fn index_workspace(&self) {
        let (roots, config_override) = {
            let state = lock(&self.state);
            (state.workspace.roots.clone(), state.config_override.clone())
        };
        if roots.is_empty() {
            return;
        }
        let server = self.background();
        tokio::spawn(async move {
            // Editors open their documents right after `initialized`: let
            // those be analyzed and published before the walk competes for
            // the CPU and the disk.
            tokio::time::sleep(GRACE_BEFORE_WALK).await;
            server.wait_for_documents(MAX_WAIT_FOR_DOCUMENTS).await;
            let walked =
                tokio::task::spawn_blocking(move || contracts(&roots, config_override.as_deref()))
                    .await;
            let Ok((found, problems)) = walked else {
                return;
            };
            // Said once per walk of the whole workspace, not again for
            // each file that changes.
            server.log_problems(&problems).await;
            let forget = {
                let mut state = lock(&server.state);
                for (_, config) in &found {
                    state.note_extended(config);
                }
                state
                    .workspace
                    .files
                    .keys()
                    .filter(|p| found.binary_search_by(|(f, _)| f.cmp(p)).is_err())
                    .cloned()
                    .collect()
            };
            server.index_files(found, forget).await;
        });
    }

    /// Indexes `paths` again (a watcher reported them, or their document
    /// closed): each is read if the walk still finds it, and forgotten
    /// (its findings cleared) if not.
    ///
    /// Events are coalesced: the paths join a set of pending ones, and at
    /// most one re-index task is queued or running; it takes the whole set
    /// each time it starts a batch, walks once for the batch, and analyzes
    /// each file of it once. A burst of thousands of events for one file
    /// is one or two analyses, not a walk and an analysis per event.
    pub(crate) fn index_again(&self, paths: Vec<PathBuf>) {
        let start = {
            let mut state = lock(&self.state);
            let workspace = &mut state.workspace;
            // Whether a file is in the workspace takes a walk (a
            // `.gitignore` anywhere above it may leave it out); one outside
            // every folder is not, without one.
            let roots = &workspace.roots;
            let inside: Vec<PathBuf> = paths
                .into_iter()
                .filter(|p| roots.iter().any(|root| p.starts_with(root)))
                .collect();
            workspace.pending.extend(inside);
            workspace.events = workspace.events.wrapping_add(1);
            let start = !workspace.reindexing && !workspace.pending.is_empty();
            if start {
                workspace.reindexing = true;
            }
            start
        };
        if start {
            let server = self.background();
            tokio::spawn(async move { server.reindex().await });
        }
    }

    fn background(&self) -> Background {
        Background {
            client: self.client.clone(),
            state: self.state.clone(),
            publishing: self.publishing.clone(),
        }
    }
}

/// What a background task needs of the server.
pub(crate) struct Background {
    pub client: tower_lsp_server::Client,
    pub state: Arc<std::sync::Mutex<crate::state::State>>,
    pub publishing: Arc<tokio::sync::Mutex<()>>,
}

impl Background {
    /// The re-index task: batches of pending paths until none is left.
    async fn reindex(&self) {
        loop {
            self.wait_for_quiet().await;
            let (batch, roots, config_override) = {
                let mut state = lock(&self.state);
                let batch = std::mem::take(&mut state.workspace.pending);
                if batch.is_empty() {
                    // Events check `reindexing` under the same lock: one
                    // arriving after this starts a new task.
                    state.workspace.reindexing = false;
                    return;
                }
                (
                    batch,
                    state.workspace.roots.clone(),
                    state.config_override.clone(),
                )
            };
            // One walk for the whole batch decides which of its files the
            // CLI would lint.
            let walked =
                tokio::task::spawn_blocking(move || contracts(&roots, config_override.as_deref()))
                    .await;
            // A walk that panicked leaves nothing of the batch known.
            let Ok((found, _)) = walked else { continue };
            let mut index = Vec::new();
            let mut forget = Vec::new();
            for path in batch {
                match found.binary_search_by(|(f, _)| f.cmp(&path)) {
                    Ok(i) => index.push(found[i].clone()),
                    Err(_) => forget.push(path),
                }
            }
            drop(found);
            self.index_files(index, forget).await;
        }
    }

    /// Waits until no event arrived for `QUIET_BEFORE_BATCH`, at most
    /// `MAX_WAIT_FOR_QUIET`.
    async fn wait_for_quiet(&self) {
        let started = Instant::now();
        let mut seen = lock(&self.state).workspace.events;
        while started.elapsed() < MAX_WAIT_FOR_QUIET {
            tokio::time::sleep(QUIET_BEFORE_BATCH).await;
            let now = lock(&self.state).workspace.events;
            if now == seen {
                return;
            }
            seen = now;
        }
    }

    /// Forgets `forget`, then indexes `index` one file at a time, each
    /// after the open documents' current versions are published; asks a
    /// pulling client to refresh at the end.
    async fn index_files(&self, index: Vec<(PathBuf, Arc<Config>)>, forget: Vec<PathBuf>) {
        for path in forget {
            self.forget(path).await;
        }
        let mut waited = Duration::ZERO;
        for (path, config) in index {
            waited += self
                .wait_for_documents(MAX_WAIT_FOR_DOCUMENTS.saturating_sub(waited))
                .await;
            self.index_one(path, config).await;
        }
        let refresh = {
            let state = lock(&self.state);
            state.workspace.pull && state.workspace.refresh
        };
        if refresh {
            let _ = self.client.workspace_diagnostic_refresh().await;
        }
    }

    async fn log_problems(&self, problems: &[String]) {
        for problem in problems.iter().take(PROBLEMS_LOGGED) {
            self.client
                .log_message(
                    MessageType::WARNING,
                    format!("phaselint: workspace: {problem}"),
                )
                .await;
        }
        if problems.len() > PROBLEMS_LOGGED {
            self.client
                .log_message(
                    MessageType::WARNING,
                    format!(
                        "phaselint: workspace: {} more problems",
                        problems.len() - PROBLEMS_LOGGED
                    ),
                )
                .await;
        }
    }

    /// Waits, at most `budget`, while an open document's current version
    /// has not been published; how long it waited.
    async fn wait_for_documents(&self, budget: Duration) -> Duration {
        let started = Instant::now();
        loop {
            let pending = {
                let state = lock(&self.state);
                let generation = state.generation;
                state
                    .documents
                    .values()
                    .any(|d| d.published != Some((d.version, generation)))
            };
            let waited = started.elapsed();
            if !pending || waited >= budget {
                return waited;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// Reads, analyzes and records one contract; publishes its findings
    /// unless the client pulls them or the document is open.
    async fn index_one(&self, path: PathBuf, config: Arc<Config>) {
        let Some(uri) = Uri::from_file_path(&path) else {
            return;
        };
        let (analyzer, unit) = {
            let state = lock(&self.state);
            (state.analyzer.clone(), state.unit.unit())
        };
        let Some(analyzer) = analyzer else { return };
        let job = {
            let (path, uri) = (path.clone(), uri.clone());
            move || index_file(&path, &config, unit, &uri)
        };
        let indexed = match analyzer.run(job).await {
            Ok(Some(indexed)) => indexed,
            Ok(None) => {
                self.forget(path).await;
                return;
            }
            Err(failure) => {
                self.client
                    .log_message(
                        MessageType::ERROR,
                        format!("phaselint: cannot analyze {}: {failure}", uri.as_str()),
                    )
                    .await;
                return;
            }
        };
        // Checked and published under the publishing lock: a document
        // opened meanwhile publishes after this, or is seen open here.
        let _order = self.publishing.lock().await;
        let publish = {
            let mut state = lock(&self.state);
            let open = state.documents.contains_key(&uri);
            let workspace = &mut state.workspace;
            let pull = workspace.pull;
            workspace.results += 1;
            let result_id = workspace.results.to_string();
            let was_published = workspace.files.get(&path).is_some_and(|f| f.published);
            let publish = !pull && !open && (was_published || !indexed.diagnostics.is_empty());
            let diagnostics = indexed.diagnostics;
            workspace.files.insert(
                path,
                IndexedFile {
                    symbols: indexed.symbols,
                    diagnostics: pull.then(|| diagnostics.clone()),
                    result_id,
                    published: publish || (was_published && open),
                },
            );
            publish.then_some(diagnostics)
        };
        if let Some(diagnostics) = publish {
            self.client
                .publish_diagnostics(uri, diagnostics, None)
                .await;
        }
    }

    /// Forgets a contract that is gone, clearing findings published for it.
    async fn forget(&self, path: PathBuf) {
        let _order = self.publishing.lock().await;
        let clear = {
            let mut state = lock(&self.state);
            let removed = state.workspace.files.remove(&path);
            let open = Uri::from_file_path(&path).is_some_and(|u| state.documents.contains_key(&u));
            removed.is_some_and(|f| f.published) && !open
        };
        if clear && let Some(uri) = Uri::from_file_path(&path) {
            self.client.publish_diagnostics(uri, Vec::new(), None).await;
        }
    }
}

impl Server {
    /// `workspace/symbol`: open documents from their latest analysis (their
    /// text wins over the file), the other contracts from the index.
    pub(crate) fn workspace_symbols(
        &self,
        query: &str,
    ) -> Vec<tower_lsp_server::ls_types::SymbolInformation> {
        let state = lock(&self.state);
        let unit = state.unit.unit();
        let open: Vec<(Uri, Vec<SymbolEntry>)> = state
            .documents
            .iter()
            .filter_map(|(uri, document)| {
                let analyzed = document.analyzed.as_ref()?;
                let positions = Positions {
                    text: &analyzed.analysis.source,
                    index: &analyzed.analysis.line_index,
                    unit,
                };
                let path = document.path.clone().unwrap_or_default();
                Some((uri.clone(), symbols_of(analyzed, &positions, &path)))
            })
            .collect();
        // An open document between an edit and its analysis is searched
        // as the file on disk has it.
        let on_disk = state.workspace.files.iter().filter_map(|(path, file)| {
            let uri = Uri::from_file_path(path)?;
            (!open.iter().any(|(u, _)| *u == uri)).then_some((uri, file.symbols.as_slice()))
        });
        let files = open
            .iter()
            .map(|(uri, symbols)| (uri.clone(), symbols.as_slice()))
            .chain(on_disk);
        crate::handlers::workspace_symbols::workspace_symbols(query, files)
    }
}
