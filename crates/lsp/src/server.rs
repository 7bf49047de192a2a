//! The LSP methods: document sync and publishing here, answers in `handlers`.
//!
//! Ordering: the transport processes one message at a time
//! (`concurrency_level(1)`), so `didOpen`/`didChange`/`didClose` are applied
//! strictly in arrival order (tower-lsp's concurrent handlers could
//! otherwise reorder them, its issue #284). Handlers never wait for
//! analysis of other documents: diagnostics are computed in a background
//! task after a short debounce and published under a lock that keeps them
//! in version order.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::handlers;
use crate::state::{Analyzed, Document, Encoding, Positions, State, apply_changes};
use phaselint_lint::line_index::ColumnUnit;

/// How long to wait after an edit before analyzing, so a burst of
/// keystrokes is analyzed once: half as long as the document's last
/// analysis took, within these bounds. A contract that analyzes in a
/// millisecond is not worth holding back; a large one is.
const DEBOUNCE_MIN: Duration = Duration::from_millis(1);
const DEBOUNCE_MAX: Duration = Duration::from_millis(8);

pub struct Server {
    client: Client,
    /// Set by `shutdown`: an `exit` without it ends the process with 1.
    shut_down: Arc<std::sync::atomic::AtomicBool>,
    state: Arc<Mutex<State>>,
    /// Held while publishing, so diagnostics leave in version order.
    publishing: Arc<tokio::sync::Mutex<()>>,
}

impl Server {
    pub fn new(
        client: Client,
        shut_down: Arc<std::sync::atomic::AtomicBool>,
        release_memory: fn(),
    ) -> Self {
        let mut state = State::default();
        state.analyzer = crate::state::Analyzer::start(release_memory).ok();
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

    /// Analyzes and publishes `uri` once `version` has been quiet for the debounce.
    fn schedule(&self, uri: Uri, version: i32) {
        let client = self.client.clone();
        let state = self.state.clone();
        let publishing = self.publishing.clone();
        let debounce = lock(&self.state)
            .documents
            .get(&uri)
            .and_then(|d| d.analysis_time)
            .map_or(DEBOUNCE_MAX, |t| (t / 2).clamp(DEBOUNCE_MIN, DEBOUNCE_MAX));
        tokio::spawn(async move {
            tokio::time::sleep(debounce).await;
            let Some(analyzed) = analyzed(&state, &uri, Some(version)).await else {
                return;
            };
            let _order = publishing.lock().await;
            let diagnostics = {
                let mut guard = lock(&state);
                let generation = guard.generation;
                let unit = guard.unit.unit();
                let Some(document) = guard.documents.get_mut(&uri) else {
                    return;
                };
                let stamp = (analyzed.version, analyzed.generation);
                if !document.is_current(&analyzed, generation)
                    || document.published.is_some_and(|p| p >= stamp)
                {
                    return;
                }
                document.published = Some(stamp);
                let path = document.path.clone();
                if !guard.wants_diagnostics(path.as_deref(), &analyzed) {
                    Vec::new()
                } else {
                    let positions = Positions {
                        text: &analyzed.analysis.source,
                        index: &analyzed.analysis.line_index,
                        unit,
                    };
                    handlers::diagnostics::to_lsp(&analyzed, &positions, &uri)
                }
            };
            client
                .publish_diagnostics(uri, diagnostics, Some(analyzed.version))
                .await;
        });
    }

    /// The current analysis of a document (computing it if an edit made it
    /// stale) and the negotiated column unit, which requests need together.
    async fn current(&self, uri: &Uri) -> Option<(Arc<Analyzed>, ColumnUnit)> {
        let analyzed = analyzed(&self.state, uri, None).await?;
        Some((analyzed, self.state().unit.unit()))
    }

    async fn report_config_error(&self, error: Option<String>) {
        let Some(error) = error else { return };
        let first_time = {
            let mut state = self.state();
            if state.reported_config_errors.contains(&error) {
                false
            } else {
                state.reported_config_errors.push(error.clone());
                true
            }
        };
        if first_time {
            self.client
                .show_message(
                    MessageType::ERROR,
                    format!("phaselint: {error} (using default settings)"),
                )
                .await;
        }
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panic while holding the lock leaves consistent data behind (every
    // update is a single assignment), so keep serving.
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The analysis of the document's current version (or of `only`, which
/// must still be current), computed off the async threads when missing.
async fn analyzed(
    state: &Arc<Mutex<State>>,
    uri: &Uri,
    only: Option<i32>,
) -> Option<Arc<Analyzed>> {
    let (text, version, generation, settings) = {
        let mut guard = lock(state);
        let generation = guard.generation;
        let path = guard.documents.get(uri)?.path.clone();
        let document = guard.documents.get(uri)?;
        if only.is_some_and(|v| v != document.version) {
            return None;
        }
        if let Some(analyzed) = &document.analyzed
            && document.is_current(analyzed, generation)
        {
            return Some(analyzed.clone());
        }
        let (text, version) = (document.text.clone(), document.version);
        let (settings, _error) = guard.settings_for(path.as_deref());
        (text, version, generation, settings)
    };
    let analyzer = lock(state).analyzer.clone()?;
    let started = std::time::Instant::now();
    let analyzed = analyzer
        .analyze(version, generation, text, settings)
        .await?;
    let took = started.elapsed();
    let replaced = {
        let mut guard = lock(state);
        match guard.documents.get_mut(uri) {
            Some(document) if document.version == version => {
                document.analysis_time = Some(took);
                let last_contract = match &analyzed.analysis.contract {
                    Some(contract) => document.last_contract.replace(contract.clone()),
                    None => None,
                };
                (document.analyzed.replace(analyzed.clone()), last_contract)
            }
            _ => (None, None),
        }
    };
    // Dropped outside the lock; a large document's analysis is worth giving
    // back to the system once nothing else holds it.
    let large = analyzed.analysis.source.len() > RELEASE_AFTER_BYTES;
    drop(replaced);
    if large {
        analyzer.release_freed_memory();
    }
    Some(analyzed)
}

/// Documents above this size return their previous analysis's memory to
/// the system when a new one replaces it; below it, trimming is not worth
/// a call per keystroke.
const RELEASE_AFTER_BYTES: usize = 1 << 20;

fn file_path(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|p| p.into_owned())
}

impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let offers_utf8 = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .is_some_and(|encodings| encodings.contains(&PositionEncodingKind::UTF8));
        let encoding = if offers_utf8 {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        {
            let mut state = self.state();
            state.unit = encoding;
            // Registration is a request the client must answer; send it
            // only to clients that say they take it.
            state.watch_config_files = params
                .capabilities
                .workspace
                .as_ref()
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false);
            state.config_override = params
                .initialization_options
                .as_ref()
                .and_then(|o| o.get("configPath"))
                .and_then(|p| p.as_str())
                .filter(|p| !p.is_empty())
                .map(PathBuf::from);
        }
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(match encoding {
                    Encoding::Utf8 => PositionEncodingKind::UTF8,
                    Encoding::Utf16 => PositionEncodingKind::UTF16,
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        ..TextDocumentSyncOptions::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                rename_provider: Some(OneOf::Right(RenameOptions {
                    prepare_provider: Some(true),
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                })),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![":".into(), " ".into(), "-".into()]),
                    ..CompletionOptions::default()
                }),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                        ..CodeActionOptions::default()
                    },
                )),
                document_symbol_provider: Some(OneOf::Left(true)),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "phaselint".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        if !self.state().watch_config_files {
            return;
        }
        let watchers = ["**/phaselint.toml", "**/pyproject.toml"]
            .into_iter()
            .map(|glob| FileSystemWatcher {
                glob_pattern: GlobPattern::String(glob.into()),
                kind: None,
            })
            .collect();
        let registration = Registration {
            id: "phaselint-config-watch".into(),
            method: "workspace/didChangeWatchedFiles".into(),
            register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions {
                watchers,
            })
            .ok(),
        };
        // Not awaited here: messages are handled one at a time, and a client
        // slow to answer must not hold up everything behind this one.
        let client = self.client.clone();
        tokio::spawn(async move {
            let _ = client.register_capability(vec![registration]).await;
        });
    }

    async fn shutdown(&self) -> Result<()> {
        self.shut_down
            .store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let document = params.text_document;
        let path = file_path(&document.uri);
        let error = {
            let mut state = self.state();
            let (_, error) = state.settings_for(path.as_deref());
            state.documents.insert(
                document.uri.clone(),
                Document {
                    text: document.text,
                    version: document.version,
                    path,
                    analyzed: None,
                    last_contract: None,
                    published: None,
                    analysis_time: None,
                },
            );
            error
        };
        self.schedule(document.uri, document.version);
        self.report_config_error(error).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        let applied = {
            let mut state = self.state();
            let unit = state.unit.unit();
            match state.documents.get_mut(&uri) {
                Some(document) => {
                    apply_changes(&mut document.text, params.content_changes, unit);
                    document.version = version;
                    // Requests wait for the new version's analysis, so the
                    // stale one only costs memory while that one is built
                    // (completion keeps `last_contract`).
                    document.analyzed = None;
                    true
                }
                None => false,
            }
        };
        if !applied {
            self.client
                .log_message(
                    MessageType::WARNING,
                    format!("ignoring a change to {} which is not open", uri.as_str()),
                )
                .await;
            return;
        }
        self.schedule(uri, version);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        let removed = self.state().documents.remove(&uri).is_some();
        if removed {
            let _order = self.publishing.lock().await;
            self.client.publish_diagnostics(uri, Vec::new(), None).await;
        }
    }

    async fn did_change_watched_files(&self, _: DidChangeWatchedFilesParams) {
        let (open, errors) = {
            let mut state = self.state();
            state.reload_configs();
            let open: Vec<(Uri, i32, Option<PathBuf>)> = state
                .documents
                .iter()
                .map(|(uri, d)| (uri.clone(), d.version, d.path.clone()))
                .collect();
            // A configuration broken by this change is said now, not when
            // some other document is next opened.
            let errors: Vec<String> = open
                .iter()
                .filter_map(|(_, _, path)| state.settings_for(path.as_deref()).1)
                .collect();
            (open, errors)
        };
        for error in errors {
            self.report_config_error(Some(error)).await;
        }
        for (uri, version, _) in open {
            self.schedule(uri, version);
        }
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let uri = params.text_document_position_params.text_document.uri;
        let Some((analyzed, unit)) = self.current(&uri).await else {
            return Ok(None);
        };
        let positions = positions(&analyzed, unit);
        let offset = positions.offset(params.text_document_position_params.position);
        Ok(handlers::hover::hover(&analyzed, &positions, offset))
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let uri = params.text_document_position_params.text_document.uri;
        let Some((analyzed, unit)) = self.current(&uri).await else {
            return Ok(None);
        };
        let positions = positions(&analyzed, unit);
        let offset = positions.offset(params.text_document_position_params.position);
        let locations = handlers::navigation::definition(&analyzed, &positions, &uri, offset);
        Ok((!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations)))
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let uri = params.text_document_position.text_document.uri;
        let Some((analyzed, unit)) = self.current(&uri).await else {
            return Ok(None);
        };
        let positions = positions(&analyzed, unit);
        let offset = positions.offset(params.text_document_position.position);
        let include = params.context.include_declaration;
        Ok(Some(handlers::navigation::references(
            &analyzed, &positions, &uri, offset, include,
        )))
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        let Some((analyzed, unit)) = self.current(&params.text_document.uri).await else {
            return Ok(None);
        };
        let positions = positions(&analyzed, unit);
        let offset = positions.offset(params.position);
        Ok(handlers::rename::prepare(&analyzed, &positions, offset))
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let uri = params.text_document_position.text_document.uri;
        let Some((analyzed, unit)) = self.current(&uri).await else {
            return Ok(None);
        };
        let positions = positions(&analyzed, unit);
        let offset = positions.offset(params.text_document_position.position);
        handlers::rename::rename(&analyzed, &positions, &uri, offset, &params.new_name)
            .map_err(Error::invalid_params)
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let uri = params.text_document_position.text_document.uri;
        let Some((analyzed, unit)) = self.current(&uri).await else {
            return Ok(None);
        };
        let last_contract = self
            .state()
            .documents
            .get(&uri)
            .and_then(|d| d.last_contract.clone());
        let positions = positions(&analyzed, unit);
        let offset = positions.offset(params.text_document_position.position);
        let contract = analyzed
            .analysis
            .contract
            .as_deref()
            .or(last_contract.as_deref());
        let items = handlers::completion::completion(&analyzed.analysis.source, offset, contract);
        Ok(Some(CompletionResponse::Array(items)))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri;
        let Some((analyzed, unit)) = self.current(&uri).await else {
            return Ok(None);
        };
        // Every action here is a quick fix: a client asking only for other
        // kinds (`source.fixAll` on save) gets none, never an unsafe fix.
        let wants_quick_fixes = params.context.only.as_ref().is_none_or(|only| {
            only.iter()
                .any(|kind| kind.as_str().is_empty() || *kind == CodeActionKind::QUICKFIX)
        });
        if !wants_quick_fixes {
            return Ok(Some(Vec::new()));
        }
        let positions = positions(&analyzed, unit);
        Ok(Some(handlers::code_action::code_actions(
            &analyzed,
            &positions,
            &uri,
            params.range,
        )))
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let Some((analyzed, unit)) = self.current(&params.text_document.uri).await else {
            return Ok(None);
        };
        let positions = positions(&analyzed, unit);
        Ok(Some(DocumentSymbolResponse::Nested(
            handlers::symbols::document_symbols(&analyzed, &positions),
        )))
    }
}

fn positions(analyzed: &Analyzed, unit: ColumnUnit) -> Positions<'_> {
    Positions {
        text: &analyzed.analysis.source,
        index: &analyzed.analysis.line_index,
        unit,
    }
}
