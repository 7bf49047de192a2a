//! `textDocument/codeAction`: every fix the linter offers, and "suppress
//! CODE on this line" for every finding in the requested range.

use std::collections::HashMap;

use phaselint_lint::diagnostic::Applicability;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, Uri, WorkspaceEdit,
};

use crate::handlers::diagnostics;
use crate::state::{Analyzed, Positions};

fn overlaps(a: Range, b: Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

pub fn code_actions(
    analyzed: &Analyzed,
    positions: &Positions<'_>,
    uri: &Uri,
    range: Range,
) -> Vec<CodeActionOrCommand> {
    let analysis = &analyzed.analysis;
    let lsp_diagnostics = diagnostics::to_lsp(analyzed, positions, uri);
    let mut actions = Vec::new();
    for (d, lsp) in analysis.diagnostics.iter().zip(lsp_diagnostics) {
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
                title: format!("{} ({})", fix.title, d.code),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![lsp.clone()]),
                edit: Some(edit(edits)),
                is_preferred: Some(fix.applicability == Applicability::Safe),
                ..CodeAction::default()
            }));
        }
        // E001/E007 cannot be suppressed; an unused suppression (S001) is
        // fixed by removing it, not by another suppression.
        if matches!(d.code, "E001" | "E007" | "S001") {
            continue;
        }
        let source = &analysis.source;
        let line = analysis.line_index.line_of(d.span.start);
        let line_end = analysis.line_index.line_end(source, line);
        let line_text = &source[analysis.line_index.line_start(line)..line_end];
        let suppress = match line_text.find("# phaselint: disable=") {
            Some(at) => {
                let list_start =
                    analysis.line_index.line_start(line) + at + "# phaselint: disable=".len();
                let list_end = source[list_start..line_end]
                    .find(char::is_whitespace)
                    .map_or(line_end, |i| list_start + i);
                let insert = positions.position(list_end);
                TextEdit::new(Range::new(insert, insert), format!(",{}", d.code))
            }
            None => {
                let insert = positions.position(line_end);
                TextEdit::new(
                    Range::new(insert, insert),
                    format!("  # phaselint: disable={}", d.code),
                )
            }
        };
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
