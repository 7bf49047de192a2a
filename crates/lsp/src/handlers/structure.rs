//! `textDocument/foldingRange` and `textDocument/selectionRange`: the YAML
//! structure `phaselint_lint::structure` finds, in client positions.

use phaselint_lint::structure;
use tower_lsp_server::ls_types::{FoldingRange, FoldingRangeKind, Position, SelectionRange};

use crate::positions::Positions;

pub fn folding_ranges(positions: &Positions<'_>) -> Vec<FoldingRange> {
    structure::folding_ranges(positions.text)
        .into_iter()
        .filter_map(|fold| {
            let range = positions.range(fold.span);
            (range.end.line > range.start.line).then(|| FoldingRange {
                start_line: range.start.line,
                start_character: None,
                end_line: range.end.line,
                end_character: None,
                kind: fold.comment.then_some(FoldingRangeKind::Comment),
                collapsed_text: None,
            })
        })
        .collect()
}

/// One nested selection range per position asked for, as the protocol
/// requires.
pub fn selection_ranges(positions: &Positions<'_>, at: &[Position]) -> Vec<SelectionRange> {
    at.iter()
        .map(|position| {
            let offset = positions.offset(*position);
            // Outermost first, each the parent of the next.
            let mut chain = structure::selection_ranges(positions.text, offset);
            chain.reverse();
            let mut current: Option<SelectionRange> = None;
            for span in chain {
                current = Some(SelectionRange {
                    range: positions.range(span),
                    parent: current.map(Box::new),
                });
            }
            current.unwrap_or_else(|| SelectionRange {
                range: tower_lsp_server::ls_types::Range::new(*position, *position),
                parent: None,
            })
        })
        .collect()
}
