//! `textDocument/documentSymbol`: phases, checkpoints and chains.

use phaselint_lint::syntax::Span;
use tower_lsp_server::ls_types::{DocumentSymbol, SymbolKind};

use crate::state::{Analyzed, Positions};

#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be written.
fn symbol(
    positions: &Positions<'_>,
    name: &str,
    detail: Option<String>,
    kind: SymbolKind,
    span: Span,
    name_span: Span,
    children: Vec<DocumentSymbol>,
) -> DocumentSymbol {
    let range = positions.range(Span::new(
        span.start.min(name_span.start),
        span.end.max(name_span.end),
    ));
    DocumentSymbol {
        name: if name.is_empty() {
            "(unnamed)".into()
        } else {
            name.to_string()
        },
        detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: positions.range(name_span),
        children: (!children.is_empty()).then_some(children),
    }
}

pub fn document_symbols(analyzed: &Analyzed, positions: &Positions<'_>) -> Vec<DocumentSymbol> {
    let Some(contract) = analyzed.analysis.contract.as_deref() else {
        return Vec::new();
    };
    let mut symbols = Vec::new();
    for phase in &contract.phases {
        let detail = phase
            .description
            .as_ref()
            .map(|d| d.value.trim().to_string());
        symbols.push(symbol(
            positions,
            &phase.name,
            detail,
            SymbolKind::MODULE,
            phase.span,
            phase.name_span,
            Vec::new(),
        ));
    }
    for spec in &contract.checkpoints {
        let (name, name_span) = match &spec.checkpoint_id {
            Some(id) => (id.value.as_str(), id.span),
            None => ("", Span::empty(spec.span.start)),
        };
        let detail = spec
            .phase
            .as_ref()
            .map(|p| format!("checkpoint after `{}`", p.value));
        symbols.push(symbol(
            positions,
            name,
            detail,
            SymbolKind::EVENT,
            spec.span,
            name_span,
            Vec::new(),
        ));
    }
    for chain in &contract.chains {
        let (name, name_span) = match &chain.chain_id {
            Some(id) => (id.value.as_str(), id.span),
            None => ("", Span::empty(chain.span.start)),
        };
        let route: Vec<&str> = chain
            .stops()
            .filter_map(|s| s.phase.as_ref())
            .map(|p| p.value.as_str())
            .collect();
        let detail = Some(format!("chain {}", route.join(" → ")));
        symbols.push(symbol(
            positions,
            name,
            detail,
            SymbolKind::INTERFACE,
            chain.span,
            name_span,
            Vec::new(),
        ));
    }
    symbols
}
