//! Capabilities: the position encoding and features agreed with the client
//! at `initialize`, and the file watches registered once initialized.

use std::future::Future;
use std::path::PathBuf;

use tower_lsp_server::ls_types::*;

use super::Server;
use crate::positions::Encoding;

impl Server {
    /// The capabilities and position encoding agreed with the client.
    pub(super) fn negotiate(&self, params: InitializeParams) -> InitializeResult {
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
    pub(super) fn watch_contract_files(&self) {
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
    pub(super) fn watch_config_files(&self) {
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
    pub(super) fn watch_files(&self, id: &str, globs: &[&str]) {
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
}
