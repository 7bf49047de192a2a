//! `textDocument/diagnostic` and `workspace/diagnostic`: the findings a
//! client pulls, from the workspace index (open documents' are pushed).

use std::collections::HashMap;

use tower_lsp_server::ls_types::{
    Diagnostic, DocumentDiagnosticReport, DocumentDiagnosticReportResult,
    FullDocumentDiagnosticReport, PreviousResultId, RelatedFullDocumentDiagnosticReport,
    RelatedUnchangedDocumentDiagnosticReport, UnchangedDocumentDiagnosticReport, Uri,
    WorkspaceDiagnosticReport, WorkspaceDiagnosticReportResult, WorkspaceDocumentDiagnosticReport,
    WorkspaceFullDocumentDiagnosticReport, WorkspaceUnchangedDocumentDiagnosticReport,
};

use crate::state::State;

/// `textDocument/diagnostic`: an open document's findings are pushed with
/// its version (so a client that also pulls would see them twice), so its
/// pulled report is empty; a contract on disk's is what its index holds.
pub fn document_report(
    state: &State,
    uri: &Uri,
    previous: Option<&str>,
) -> DocumentDiagnosticReportResult {
    let (result_id, items) = report_of(state, uri);
    let report = if previous == Some(result_id.as_str()) {
        DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
            related_documents: None,
            unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport { result_id },
        })
    } else {
        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: Some(result_id),
                items,
            },
        })
    };
    DocumentDiagnosticReportResult::Report(report)
}

/// The result id and pulled findings of one document (see `document_report`).
fn report_of(state: &State, uri: &Uri) -> (String, Vec<Diagnostic>) {
    if state.documents.contains_key(uri) {
        return (OPEN_RESULT.into(), Vec::new());
    }
    let indexed = uri
        .to_file_path()
        .and_then(|path| state.workspace.files.get(path.as_ref()));
    match indexed {
        Some(file) => (
            file.result_id.clone(),
            file.diagnostics.clone().unwrap_or_default(),
        ),
        None => (NOT_INDEXED_RESULT.into(), Vec::new()),
    }
}

/// The result id of an open document's (empty) pulled report.
const OPEN_RESULT: &str = "open";
/// The result id of a document outside the index.
const NOT_INDEXED_RESULT: &str = "none";

/// `workspace/diagnostic`: a report for every indexed contract (findings
/// of the file on disk; empty for open documents, whose findings are
/// pushed), `unchanged` where the client already has the same result.
pub fn workspace_report(
    state: &State,
    previous: &[PreviousResultId],
) -> WorkspaceDiagnosticReportResult {
    let known: HashMap<&str, &str> = previous
        .iter()
        .map(|p| (p.uri.as_str(), p.value.as_str()))
        .collect();
    let items = state
        .workspace
        .files
        .keys()
        .filter_map(Uri::from_file_path)
        .map(|uri| {
            let (result_id, items) = report_of(state, &uri);
            if known.get(uri.as_str()) == Some(&result_id.as_str()) {
                WorkspaceDocumentDiagnosticReport::Unchanged(
                    WorkspaceUnchangedDocumentDiagnosticReport {
                        uri,
                        version: None,
                        unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                            result_id,
                        },
                    },
                )
            } else {
                WorkspaceDocumentDiagnosticReport::Full(WorkspaceFullDocumentDiagnosticReport {
                    uri,
                    version: None,
                    full_document_diagnostic_report: FullDocumentDiagnosticReport {
                        result_id: Some(result_id),
                        items,
                    },
                })
            }
        })
        .collect();
    WorkspaceDiagnosticReportResult::Report(WorkspaceDiagnosticReport { items })
}
