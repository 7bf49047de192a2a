//! `textDocument/documentSymbol`: phases, checkpoints and chains.

use phaselint_lint::syntax::Span;
use tower_lsp_server::ls_types::{DocumentSymbol, SymbolKind};

use crate::analyzer::Analyzed;
use crate::positions::Positions;

/// The most symbols nested under phases, checkpoints and chains.
const MAX_NESTED_SYMBOLS: usize = 10_000;

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

/// Phases with their fields, checkpoints with their watched fields, chains
/// with their stops: nested as the YAML nests them, in document order.
pub fn document_symbols(analyzed: &Analyzed, positions: &Positions<'_>) -> Vec<DocumentSymbol> {
    let Some(contract) = analyzed.analysis.contract() else {
        return Vec::new();
    };
    // An outline of a generated contract with 100,000 fields is of no use
    // in an editor, and its answer would cost the server hundreds of MB:
    // past the bound, only phases, checkpoints and chains are listed.
    let children: usize = contract
        .phases
        .iter()
        .map(|p| p.all_fields().count())
        .sum::<usize>()
        + contract
            .checkpoints
            .iter()
            .map(|c| c.on_resume.staleness_checks.len())
            .sum::<usize>()
        + contract
            .chains
            .iter()
            .map(|c| c.stops().count())
            .sum::<usize>();
    let nested = children <= MAX_NESTED_SYMBOLS;
    // (start, symbol): sorted by where they are written.
    let mut symbols: Vec<(usize, DocumentSymbol)> = Vec::new();
    for phase in &contract.phases {
        let detail = phase.description().map(|d| d.value.trim().to_string());
        let lists = [
            (phase.entry_required(), "entry required"),
            (phase.entry_enrichment(), "entry enrichment"),
            (phase.exit_required(), "exit required"),
            (phase.exit_optional(), "exit optional"),
        ];
        let mut fields: Vec<(usize, DocumentSymbol)> = lists
            .into_iter()
            .flat_map(|(fields, how)| fields.iter().map(move |f| (f, how)))
            .map(|(field, how)| {
                (
                    field.span.start,
                    symbol(
                        positions,
                        field.name.value.as_str(),
                        Some(how.to_string()),
                        SymbolKind::FIELD,
                        field.span,
                        field.name.span,
                        Vec::new(),
                    ),
                )
            })
            .collect();
        fields.sort_by_key(|(start, _)| *start);
        if !nested {
            fields.clear();
        }
        symbols.push((
            phase.name_span.start,
            symbol(
                positions,
                &phase.name,
                detail,
                SymbolKind::MODULE,
                phase.span,
                phase.name_span,
                fields.into_iter().map(|(_, s)| s).collect(),
            ),
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
        let watched = spec
            .on_resume
            .staleness_checks
            .iter()
            .filter(|_| nested)
            .filter_map(|check| {
                let field = check.field.as_ref()?;
                Some(symbol(
                    positions,
                    field.value.as_str(),
                    Some("staleness check".into()),
                    SymbolKind::FIELD,
                    check.span,
                    field.span,
                    Vec::new(),
                ))
            })
            .collect();
        symbols.push((
            spec.span.start,
            symbol(
                positions,
                name,
                detail,
                SymbolKind::EVENT,
                spec.span,
                name_span,
                watched,
            ),
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
        let stops = chain
            .stops()
            .filter(|_| nested)
            .filter_map(|stop| {
                let phase = stop.phase.as_ref()?;
                let field = stop.field.as_ref().map_or("", |f| f.value.as_str());
                Some(symbol(
                    positions,
                    &format!("{}.{field}", phase.value),
                    None,
                    SymbolKind::FIELD,
                    stop.span,
                    phase.span,
                    Vec::new(),
                ))
            })
            .collect();
        symbols.push((
            chain.span.start,
            symbol(
                positions,
                name,
                detail,
                SymbolKind::INTERFACE,
                chain.span,
                name_span,
                stops,
            ),
        ));
    }
    symbols.sort_by_key(|(start, _)| *start);
    symbols.into_iter().map(|(_, s)| s).collect()
}
