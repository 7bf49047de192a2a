//! `textDocument/codeAction`: every fix the linter offers, and "suppress
//! CODE on this line" for every finding in the requested range.

use std::collections::HashMap;

use phaselint_lint::diagnostic::Applicability;
use phaselint_lint::suppression::SuppressionEdits;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, Uri, WorkspaceEdit,
};

use crate::analyzer::Analyzed;
use crate::handlers::diagnostics;
use crate::positions::Positions;

fn overlaps(a: Range, b: Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// The most actions one request is answered with. Editors ask for the
/// actions at the cursor or a selection; a request for a whole file of
/// findings would otherwise be answered with a response of many megabytes.
const MAX_ACTIONS: usize = 500;

pub fn code_actions(
    analyzed: &Analyzed,
    positions: &Positions<'_>,
    uri: &Uri,
    range: Range,
) -> Vec<CodeActionOrCommand> {
    let analysis = &analyzed.analysis;
    let lsp_diagnostics = diagnostics::to_lsp(analyzed, positions, uri);
    let mut suppressions = SuppressionEdits::new(&analysis.source, &analysis.line_index);
    let mut actions = Vec::new();
    for (d, lsp) in analysis.diagnostics.iter().zip(lsp_diagnostics) {
        if actions.len() >= MAX_ACTIONS {
            break;
        }
        if !overlaps(lsp.range, range) {
            continue;
        }
        let edit = |edits: Vec<TextEdit>| WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), edits)])),
            ..WorkspaceEdit::default()
        };
        if let Some(fix) = &d.fix {
            let edits = fix
                .edits
                .iter()
                .map(|e| TextEdit::new(positions.range(e.span), e.replacement.clone()))
                .collect();
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: match fix.applicability {
                    Applicability::Safe => format!("{} ({})", fix.title, d.code),
                    Applicability::Unsafe => format!("{} ({}, unsafe fix)", fix.title, d.code),
                },
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![lsp.clone()]),
                edit: Some(edit(edits)),
                // A finding has one fix at most, and a did-you-mean is
                // offered only when one name is closest (no tie): it is
                // the action to take, safe or not. Unsafe ones say so in
                // the title, as the editor applies them without --diff.
                is_preferred: Some(true),
                ..CodeAction::default()
            }));
        }
        if !d.code.can_be_suppressed() || !analysis.takes_comments() {
            continue;
        }
        let suppression = suppressions.edit(d.span.start, d.code.as_str());
        let suppress = TextEdit::new(positions.range(suppression.span), suppression.replacement);
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Suppress {} on this line", d.code),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![lsp]),
            edit: Some(edit(vec![suppress])),
            ..CodeAction::default()
        }));
    }
    actions
}
