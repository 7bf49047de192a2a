//! Publishing: documents opened, changed and closed, analyzed after a
//! debounce and their diagnostics published in version order; a
//! configuration change publishes every open document again.

use std::path::PathBuf;
use std::time::Duration;

use tower_lsp_server::ls_types::*;

use super::{Server, analyzed, file_path, lock};
use crate::carried::{Carry, EditLog};
use crate::handlers;
use crate::positions::Positions;
use crate::state::Document;
use crate::text::apply_changes;

/// How long to wait after an edit before analyzing, so a burst of
/// keystrokes is analyzed once: half as long as the document's last
/// analysis took, within these bounds. A contract that analyzes in a
/// millisecond is not worth holding back; a large one is.
const DEBOUNCE_MIN: Duration = Duration::from_millis(1);
const DEBOUNCE_MAX: Duration = Duration::from_millis(8);

/// Whether an analysis waits for edits to settle.
#[derive(Clone, Copy)]
pub(super) enum Wait {
    None,
    Debounce,
}

impl Server {
    /// Analyzes and publishes `uri` once `version` has been quiet for the
    /// debounce; `Wait::None` (an open, a configuration reload) analyzes
    /// at once, as no burst of keystrokes is under way.
    pub(super) fn schedule(&self, uri: Uri, version: i32, wait: Wait) {
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

    pub(super) async fn report_config_error(&self, error: Option<String>) {
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

    pub(super) async fn open(&self, params: DidOpenTextDocumentParams) {
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

    pub(super) async fn change(&self, params: DidChangeTextDocumentParams) {
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

    pub(super) async fn close(&self, params: DidCloseTextDocumentParams) {
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
    pub(super) async fn reload_configuration(&self) {
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
