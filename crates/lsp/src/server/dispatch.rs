//! Dispatch: each LSP method to its handler, over a snapshot of the
//! document's analysis; a handler that panics is answered with an error and
//! the server goes on.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use tower_lsp_server::LanguageServer;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;

use super::{Server, analyzed};
use crate::analyzer::{Analyzed, panic_message};
use crate::carried::{Carried, Carry};
use crate::handlers;
use crate::positions::Positions;
use phaselint_lint::DocumentKind;
use phaselint_lint::line_index::ColumnUnit;
use phaselint_lint::model::Contract;

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

/// Test builds panic in the handler `PHASELINT_LSP_FAULT` names, so the
/// end-to-end tests can check that a failing handler does not take the
/// server down. Release builds never read the variable.
fn inject_fault(method: &str) {
    if cfg!(debug_assertions) && std::env::var("PHASELINT_LSP_FAULT").is_ok_and(|m| m == method) {
        panic!("fault injected into {method} (PHASELINT_LSP_FAULT)");
    }
}

impl Server {
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

    /// `phaselint/cacheSizes`, answered by test builds only: how many
    /// documents, configurations and directories the server holds, so a
    /// test can see that closing documents gives their caches back.
    pub async fn cache_sizes(&self, _: serde_json::Value) -> Result<crate::state::CacheSizes> {
        Ok(self.state().cache_sizes())
    }
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
            let contract = analysis.contract().or(s.last_contract.as_deref());
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
            Ok(handlers::pulled_diagnostics::document_report(
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
            Ok(handlers::pulled_diagnostics::workspace_report(
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
