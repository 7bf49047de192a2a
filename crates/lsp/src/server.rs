//! The LSP methods: document sync and publishing here, answers in `handlers`.
//!
//! Ordering: the transport processes one message at a time
//! (`concurrency_level(1)`), so `didOpen`/`didChange`/`didClose` are applied
//! strictly in arrival order (tower-lsp's concurrent handlers could
//! otherwise reorder them, its issue #284). Handlers never wait for
//! analysis of other documents: diagnostics are computed in a background
//! task (after a short debounce for edits; at once on open) and published
//! under a lock that keeps them in version order.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::FutureExt;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::carried::{Carried, Carry, EditLog, adopt};
use crate::handlers;
use crate::state::{Analyzed, Document, Encoding, Positions, State};
use crate::text::apply_changes;
use phaselint_lint::DocumentKind;
use phaselint_lint::line_index::ColumnUnit;
use phaselint_lint::model::Contract;

/// How long to wait after an edit before analyzing, so a burst of
/// keystrokes is analyzed once: half as long as the document's last
/// analysis took, within these bounds. A contract that analyzes in a
/// millisecond is not worth holding back; a large one is.
const DEBOUNCE_MIN: Duration = Duration::from_millis(1);
const DEBOUNCE_MAX: Duration = Duration::from_millis(8);

/// Whether an analysis waits for edits to settle.
#[derive(Clone, Copy)]
enum Wait {
    None,
    Debounce,
}

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

    /// Analyzes and publishes `uri` once `version` has been quiet for the
    /// debounce; `Wait::None` (an open, a configuration reload) analyzes
    /// at once, as no burst of keystrokes is under way.
    fn schedule(&self, uri: Uri, version: i32, wait: Wait) {
        let client = self.client.clone();
        let state = self.state.clone();
        let publishing = self.publishing.clone();
        let debounce = match wait {
            Wait::None => Duration::ZERO,
            Wait::Debounce => lock(&self.state)
                .documents
                .get(&uri)
                .and_then(|d| d.analysis_time)
                .map_or(DEBOUNCE_MAX, |t| (t / 2).clamp(DEBOUNCE_MIN, DEBOUNCE_MAX)),
        };
        tokio::spawn(async move {
            if !debounce.is_zero() {
                tokio::time::sleep(debounce).await;
            }
            let analyzed = match analyzed(&state, &uri, Some(version)).await {
                Ok(Some(analyzed)) => analyzed,
                Ok(None) => return,
                Err(failure) => {
                    client
                        .log_message(
                            MessageType::ERROR,
                            format!("phaselint: cannot analyze {}: {failure}", uri.as_str()),
                        )
                        .await;
                    return;
                }
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
                let document_carried = document.carried.clone();
                if !guard.wants_diagnostics(path.as_deref(), &analyzed) {
                    Vec::new()
                } else {
                    let positions = Positions {
                        text: &analyzed.analysis.source,
                        index: &analyzed.analysis.line_index,
                        unit,
                    };
                    let mut diagnostics =
                        handlers::diagnostics::to_lsp(&analyzed, &positions, &uri);
                    // While the text does not parse, the last findings that
                    // did, off the lines typed since.
                    if let Some(carried) = &document_carried
                        && let Some(carry) =
                            Carry::new(&carried.analyzed, &carried.map, &analyzed, unit)
                    {
                        diagnostics.extend(carry.diagnostics(&uri));
                    }
                    diagnostics
                }
            };
            client
                .publish_diagnostics(uri, diagnostics, Some(analyzed.version))
                .await;
        });
    }

    /// What a request on `uri` is answered from: the analysis of the
    /// document's current version (computed if an edit made it stale), the
    /// negotiated column unit and the last contract that parsed.
    async fn snapshot(&self, uri: &Uri) -> Result<Option<Snapshot>> {
        let analyzed = match analyzed(&self.state, uri, None).await {
            Ok(Some(analyzed)) => analyzed,
            Ok(None) => return Ok(None),
            Err(failure) => {
                let message = format!("phaselint: cannot analyze {}: {failure}", uri.as_str());
                self.client
                    .log_message(MessageType::ERROR, message.clone())
                    .await;
                return Err(Error {
                    code: ErrorCode::InternalError,
                    message: message.into(),
                    data: None,
                });
            }
        };
        let state = self.state();
        let document = state.documents.get(uri);
        let last_contract = document.and_then(|d| d.last_contract.clone());
        let carried = document
            .and_then(|d| d.carried.as_ref())
            .filter(|c| !Arc::ptr_eq(&c.analyzed, &analyzed))
            .cloned();
        Ok(Some(Snapshot {
            analyzed,
            unit: state.unit.unit(),
            last_contract,
            carried,
            markdown: state.hover_markdown,
            completion_markdown: state.completion_markdown,
        }))
    }

    /// Answers a request on a document from its snapshot; `None` when the
    /// document is not open.
    async fn on_document<T>(
        &self,
        method: &'static str,
        uri: &Uri,
        handler: impl FnOnce(&Snapshot) -> Result<Option<T>>,
    ) -> Result<Option<T>> {
        self.answer(method, async {
            match self.snapshot(uri).await? {
                Some(snapshot) => handler(&snapshot),
                None => Ok(None),
            }
        })
        .await
    }

    /// Runs one request's handler. A panic in it is logged and answered
    /// with an error, and the server goes on: every handler reads a
    /// snapshot, so a failed one leaves nothing half changed.
    async fn answer<T>(
        &self,
        method: &'static str,
        handler: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        let guarded = async {
            inject_fault(method);
            handler.await
        };
        match AssertUnwindSafe(guarded).catch_unwind().await {
            Ok(result) => result,
            Err(panic) => {
                let message = panic_message(panic.as_ref());
                self.client
                    .log_message(
                        MessageType::ERROR,
                        format!("phaselint: the {method} handler failed: {message}"),
                    )
                    .await;
                Err(Error {
                    code: ErrorCode::InternalError,
                    message: format!("phaselint: request handler panicked: {message}").into(),
                    data: None,
                })
            }
        }
    }

    /// Runs one notification's handler; a panic is logged, and the server
    /// goes on with the state as the last completed update left it.
    async fn notice(&self, method: &'static str, handler: impl Future<Output = ()>) {
        let _ = self
            .answer(method, async {
                handler.await;
                Ok(())
            })
            .await;
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

pub(crate) fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panic while holding the lock leaves consistent data behind (every
    // update is a single assignment), so keep serving.
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What a request on a document is answered from.
struct Snapshot {
    analyzed: Arc<Analyzed>,
    unit: ColumnUnit,
    last_contract: Option<Arc<Contract>>,
    /// The last analysis that parsed, when it is not `analyzed`.
    carried: Option<Carried>,
    /// The client renders Markdown in hovers.
    markdown: bool,
    /// The client renders Markdown in completion documentation.
    completion_markdown: bool,
}

impl Snapshot {
    /// What is answered from the last analysis that parsed, when the
    /// current text does not.
    fn carry(&self) -> Option<Carry<'_>> {
        let carried = self.carried.as_ref()?;
        Carry::new(&carried.analyzed, &carried.map, &self.analyzed, self.unit)
    }

    fn positions(&self) -> Positions<'_> {
        Positions {
            text: &self.analyzed.analysis.source,
            index: &self.analyzed.analysis.line_index,
            unit: self.unit,
        }
    }
}

pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Test builds panic in the handler `PHASELINT_LSP_FAULT` names, so the
/// end-to-end tests can check that a failing handler does not take the
/// server down. Release builds never read the variable.
fn inject_fault(method: &str) {
    if cfg!(debug_assertions) && std::env::var("PHASELINT_LSP_FAULT").is_ok_and(|m| m == method) {
        panic!("fault injected into {method} (PHASELINT_LSP_FAULT)");
    }
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
                let last_contract = match &analyzed.analysis.contract {
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
    // Dropped outside the lock; a large document's analysis is worth giving
    // back to the system once nothing else holds it.
    let large = analyzed.analysis.source.len() > RELEASE_AFTER_BYTES;
    drop(replaced);
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

impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        self.answer("initialize", async { Ok(self.negotiate(params)) })
            .await
    }

    async fn initialized(&self, _: InitializedParams) {
        self.notice("initialized", async {
            self.watch_config_files();
            self.watch_contract_files();
            self.index_workspace();
        })
        .await;
    }

    async fn shutdown(&self) -> Result<()> {
        self.shut_down
            .store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        self.notice("textDocument/didOpen", self.open(params)).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        self.notice("textDocument/didChange", self.change(params))
            .await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.notice("textDocument/didClose", self.close(params))
            .await;
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        self.notice("workspace/didChangeWatchedFiles", async {
            let extended = self.state().extended_configs.clone();
            let (configs, contracts) = crate::workspace::changed_files(params.changes, &extended);
            if configs {
                self.reload_configuration().await;
                self.index_workspace();
            } else {
                self.index_again(contracts);
            }
        })
        .await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        self.on_document("textDocument/hover", &at.text_document.uri, |s| {
            if let Some(carry) = s.carry()
                && let Some(offset) = carry.offset_in_old(at.position)
            {
                let hover =
                    handlers::hover::hover(carry.old, &carry.old_positions(), offset, s.markdown);
                return Ok(hover.map(|h| carry.hover(h)));
            }
            let positions = s.positions();
            let offset = positions.offset(at.position);
            Ok(handlers::hover::hover(
                &s.analyzed,
                &positions,
                offset,
                s.markdown,
            ))
        })
        .await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let at = params.text_document_position_params;
        let uri = at.text_document.uri;
        self.on_document("textDocument/definition", &uri, |s| {
            if let Some(carry) = s.carry()
                && let Some(offset) = carry.offset_in_old(at.position)
            {
                let locations = handlers::navigation::definition(
                    carry.old,
                    &carry.old_positions(),
                    &uri,
                    offset,
                );
                return Ok(carry.definition(GotoDefinitionResponse::Array(locations)));
            }
            let positions = s.positions();
            let offset = positions.offset(at.position);
            let locations = handlers::navigation::definition(&s.analyzed, &positions, &uri, offset);
            Ok((!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations)))
        })
        .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let at = params.text_document_position;
        let uri = at.text_document.uri;
        let include = params.context.include_declaration;
        self.on_document("textDocument/references", &uri, |s| {
            if let Some(carry) = s.carry()
                && let Some(offset) = carry.offset_in_old(at.position)
            {
                let locations = handlers::navigation::references(
                    carry.old,
                    &carry.old_positions(),
                    &uri,
                    offset,
                    include,
                );
                return Ok(Some(carry.locations(locations)));
            }
            let positions = s.positions();
            let offset = positions.offset(at.position);
            Ok(Some(handlers::navigation::references(
                &s.analyzed,
                &positions,
                &uri,
                offset,
                include,
            )))
        })
        .await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        self.on_document(
            "textDocument/prepareRename",
            &params.text_document.uri,
            |s| {
                let positions = s.positions();
                let offset = positions.offset(params.position);
                handlers::rename::prepare(&s.analyzed, &positions, offset)
                    .map_err(Error::invalid_params)
            },
        )
        .await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let at = params.text_document_position;
        let uri = at.text_document.uri;
        self.on_document("textDocument/rename", &uri, |s| {
            let positions = s.positions();
            let offset = positions.offset(at.position);
            handlers::rename::rename(&s.analyzed, &positions, &uri, offset, &params.new_name)
                .map_err(Error::invalid_params)
        })
        .await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let at = params.text_document_position;
        self.on_document("textDocument/completion", &at.text_document.uri, |s| {
            let positions = s.positions();
            let offset = positions.offset(at.position);
            let analysis = &s.analyzed.analysis;
            // Completion reads the contract format; a harness config has none to offer.
            if analysis.kind != DocumentKind::Contract {
                return Ok(None);
            }
            if let Some(codes) =
                handlers::completion::suppression_codes(analysis, offset, s.completion_markdown)
            {
                return Ok(Some(CompletionResponse::Array(codes)));
            }
            let contract = analysis.contract.as_deref().or(s.last_contract.as_deref());
            let items = handlers::completion::completion(
                &analysis.source,
                offset,
                contract,
                s.completion_markdown,
            );
            Ok(Some(CompletionResponse::Array(items)))
        })
        .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        // Every action here is a quick fix: a client asking only for other
        // kinds (`source.fixAll` on save) gets none, never an unsafe fix.
        let wants_quick_fixes = params.context.only.as_ref().is_none_or(|only| {
            only.iter()
                .any(|kind| kind.as_str().is_empty() || *kind == CodeActionKind::QUICKFIX)
        });
        let uri = params.text_document.uri;
        self.on_document("textDocument/codeAction", &uri, |s| {
            if !wants_quick_fixes {
                return Ok(Some(Vec::new()));
            }
            Ok(Some(handlers::code_action::code_actions(
                &s.analyzed,
                &s.positions(),
                &uri,
                params.range,
            )))
        })
        .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        self.on_document(
            "textDocument/documentSymbol",
            &params.text_document.uri,
            |s| {
                if let Some(carry) = s.carry() {
                    let symbols =
                        handlers::symbols::document_symbols(carry.old, &carry.old_positions());
                    return Ok(Some(DocumentSymbolResponse::Nested(carry.symbols(symbols))));
                }
                Ok(Some(DocumentSymbolResponse::Nested(
                    handlers::symbols::document_symbols(&s.analyzed, &s.positions()),
                )))
            },
        )
        .await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        self.answer("workspace/symbol", async {
            Ok(Some(WorkspaceSymbolResponse::Flat(
                self.workspace_symbols(&params.query),
            )))
        })
        .await
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        self.answer("textDocument/diagnostic", async {
            let state = self.state();
            Ok(crate::workspace::document_report(
                &state,
                &params.text_document.uri,
                params.previous_result_id.as_deref(),
            ))
        })
        .await
    }

    async fn workspace_diagnostic(
        &self,
        params: WorkspaceDiagnosticParams,
    ) -> Result<WorkspaceDiagnosticReportResult> {
        self.answer("workspace/diagnostic", async {
            let state = self.state();
            Ok(crate::workspace::workspace_report(
                &state,
                &params.previous_result_ids,
            ))
        })
        .await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        self.on_document(
            "textDocument/foldingRange",
            &params.text_document.uri,
            |s| Ok(Some(handlers::structure::folding_ranges(&s.positions()))),
        )
        .await
    }

    async fn selection_range(
        &self,
        params: SelectionRangeParams,
    ) -> Result<Option<Vec<SelectionRange>>> {
        self.on_document(
            "textDocument/selectionRange",
            &params.text_document.uri,
            |s| {
                Ok(Some(handlers::structure::selection_ranges(
                    &s.positions(),
                    &params.positions,
                )))
            },
        )
        .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        self.on_document("textDocument/codeLens", &params.text_document.uri, |s| {
            Ok(Some(handlers::code_lens::code_lenses(
                &s.analyzed,
                &s.positions(),
            )))
        })
        .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        self.on_document("textDocument/inlayHint", &params.text_document.uri, |s| {
            Ok(Some(handlers::code_lens::inlay_hints(
                &s.analyzed,
                &s.positions(),
                params.range,
            )))
        })
        .await
    }
}

impl Server {
    /// `phaselint/cacheSizes`, answered by test builds only: how many
    /// documents, configurations and directories the server holds, so a
    /// test can see that closing documents gives their caches back.
    pub async fn cache_sizes(&self, _: serde_json::Value) -> Result<crate::state::CacheSizes> {
        Ok(self.state().cache_sizes())
    }

    /// The capabilities and position encoding agreed with the client.
    fn negotiate(&self, params: InitializeParams) -> InitializeResult {
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
        // Markdown unless the client lists hover formats without it (eglot
        // without markdown-mode shows `**R101**` as written).
        let hover_markdown = params
            .capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.hover.as_ref())
            .and_then(|h| h.content_format.as_ref())
            .is_none_or(|formats| formats.contains(&MarkupKind::Markdown));
        let completion_markdown = params
            .capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.documentation_format.as_ref())
            .is_none_or(|formats| formats.contains(&MarkupKind::Markdown));
        let workspace = crate::workspace::negotiate(&params);
        let (pull, code_lens, inlay_hints) =
            (workspace.pull, workspace.code_lens, workspace.inlay_hints);
        {
            let mut state = self.state();
            state.workspace = workspace;
            state.unit = encoding;
            state.hover_markdown = hover_markdown;
            state.completion_markdown = completion_markdown;
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
        InitializeResult {
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
                    // `=` and `,` start a code in a suppression comment.
                    trigger_characters: Some(vec![
                        ":".into(),
                        " ".into(),
                        "-".into(),
                        "=".into(),
                        ",".into(),
                    ]),
                    ..CompletionOptions::default()
                }),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                        ..CodeActionOptions::default()
                    },
                )),
                document_symbol_provider: Some(OneOf::Left(true)),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                // Offered only to clients that pull, so no other client
                // sees findings twice (pushed and pulled).
                diagnostic_provider: pull.then(|| {
                    DiagnosticServerCapabilities::Options(DiagnosticOptions {
                        identifier: Some("phaselint".into()),
                        inter_file_dependencies: false,
                        workspace_diagnostics: true,
                        work_done_progress_options: WorkDoneProgressOptions::default(),
                    })
                }),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
                code_lens_provider: code_lens.then_some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                inlay_hint_provider: inlay_hints.then_some(OneOf::Left(true)),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "phaselint".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        }
    }

    /// Asks the client to report changes to the files a workspace walk may
    /// find (filtered by the walk itself when they come).
    fn watch_contract_files(&self) {
        let wanted = {
            let state = self.state();
            state.watch_config_files && !state.workspace.roots.is_empty()
        };
        if !wanted {
            return;
        }
        self.watch_files(
            "phaselint-contract-watch",
            &["**/*.yaml", "**/*.yml", "**/.harness/config.json"],
        );
    }

    /// Asks the client to report changes to configuration files.
    fn watch_config_files(&self) {
        if !self.state().watch_config_files {
            return;
        }
        self.watch_files(
            "phaselint-config-watch",
            // Any TOML file: a configuration may extend one of any name.
            &["**/*.toml"],
        );
    }

    /// Registers `workspace/didChangeWatchedFiles` for `globs` under `id`.
    fn watch_files(&self, id: &str, globs: &[&str]) {
        let watchers = globs
            .iter()
            .map(|glob| FileSystemWatcher {
                glob_pattern: GlobPattern::String((*glob).into()),
                kind: None,
            })
            .collect();
        let registration = Registration {
            id: id.into(),
            method: "workspace/didChangeWatchedFiles".into(),
            register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions {
                watchers,
            })
            .ok(),
        };
        let client = self.client.clone();
        let mut request = Box::pin(async move {
            let _ = client.register_capability(vec![registration]).await;
        });
        // Polled once here, so the request is queued now, ahead of anything
        // sent after `initialized` (the first diagnostics: a spawned task
        // could lose that race under load). The answer is awaited in the
        // background: messages are handled one at a time, and a client
        // slow to answer must not hold up everything behind this one.
        let mut context = std::task::Context::from_waker(std::task::Waker::noop());
        if request.as_mut().poll(&mut context).is_pending() {
            tokio::spawn(request);
        }
    }

    async fn open(&self, params: DidOpenTextDocumentParams) {
        let document = params.text_document;
        let path = file_path(&document.uri);
        let error = {
            let mut state = self.state();
            state.open_document(
                document.uri.clone(),
                Document {
                    text: document.text,
                    version: document.version,
                    path: path.clone(),
                    analyzed: None,
                    last_contract: None,
                    carried: None,
                    edits: EditLog::new(document.version),
                    published: None,
                    analysis_time: None,
                },
            );
            let (_, error) = state.settings_for(path.as_deref());
            error
        };
        self.schedule(document.uri, document.version, Wait::None);
        self.report_config_error(error).await;
    }

    async fn change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        let applied = {
            let mut state = self.state();
            let unit = state.unit.unit();
            match state.documents.get_mut(&uri) {
                Some(document) => {
                    let (carried, edits) = (&mut document.carried, &mut document.edits);
                    apply_changes(&mut document.text, params.content_changes, unit, |a| {
                        if let Some(carried) = carried {
                            carried.record(a);
                        }
                        edits.record(version, a);
                    });
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
        self.schedule(uri, version, Wait::Debounce);
    }

    async fn close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        let removed = self.state().close_document(&uri);
        if removed {
            let _order = self.publishing.lock().await;
            self.client
                .publish_diagnostics(uri.clone(), Vec::new(), None)
                .await;
        }
        // A workspace contract's findings on disk are shown again.
        if removed && let Some(path) = file_path(&uri) {
            self.index_again(vec![path]);
        }
    }

    /// A configuration file changed: forget every loaded configuration and
    /// publish every open document again.
    async fn reload_configuration(&self) {
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
            self.schedule(uri, version, Wait::None);
        }
    }
}
