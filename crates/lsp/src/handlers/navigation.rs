//! `textDocument/definition` and `textDocument/references` for phase and
//! field names, wherever `phaselint_lint::index` finds one.

use phaselint_lint::index::{FieldRole, PhaseRole, Symbol};
use phaselint_lint::syntax::Span;
use tower_lsp_server::ls_types::{Location, Uri};

use crate::analyzer::Analyzed;
use crate::positions::Positions;

/// A phase name goes to the phase's key; a field name to the exit fields
/// that produce it.
pub fn definition(
    analyzed: &Analyzed,
    positions: &Positions<'_>,
    uri: &Uri,
    offset: usize,
) -> Vec<Location> {
    let Some(occurrence) = analyzed.index.at(offset) else {
        return Vec::new();
    };
    let spans: Vec<Span> = match &occurrence.symbol {
        Symbol::Phase { name, .. } => analyzed.index.phase_definition(name).into_iter().collect(),
        Symbol::Field { name, .. } => analyzed
            .index
            .producers(name)
            .map(|(_, span)| span)
            .collect(),
    };
    spans
        .into_iter()
        .map(|span| Location::new(uri.clone(), positions.range(span)))
        .collect()
}

pub fn references(
    analyzed: &Analyzed,
    positions: &Positions<'_>,
    uri: &Uri,
    offset: usize,
    include_declaration: bool,
) -> Vec<Location> {
    let Some(occurrence) = analyzed.index.at(offset) else {
        return Vec::new();
    };
    let spans: Vec<Span> = match &occurrence.symbol {
        Symbol::Phase { name, .. } => analyzed
            .index
            .phase_occurrences(name)
            .filter(|o| {
                include_declaration
                    || !matches!(
                        o.symbol,
                        Symbol::Phase {
                            role: PhaseRole::Definition,
                            ..
                        }
                    )
            })
            .map(|o| o.span)
            .collect(),
        Symbol::Field { name, .. } => analyzed
            .index
            .field_occurrences(name)
            .filter(|o| {
                include_declaration
                    || !matches!(
                        o.symbol,
                        Symbol::Field {
                            role: FieldRole::Produced { .. },
                            ..
                        }
                    )
            })
            .map(|o| o.span)
            .collect(),
    };
    spans
        .into_iter()
        .map(|span| Location::new(uri.clone(), positions.range(span)))
        .collect()
}
