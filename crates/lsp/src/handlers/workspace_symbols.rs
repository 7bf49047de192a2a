//! `workspace/symbol`: phases, checkpoints and chains of every contract
//! under the workspace folders, best matches first.

use tower_lsp_server::ls_types::{Location, SymbolInformation, Uri};

use crate::workspace::{SymbolEntry, match_rank};

/// The most symbols answered: a query of one letter matches most of a
/// large workspace, and a picker shows a screenful.
pub const MAX_RESULTS: usize = 256;

/// The symbols of `files` that match `query`: exact names first, then
/// prefixes, substrings and subsequences; by name within each.
#[allow(deprecated)] // `SymbolInformation::deprecated` must still be written.
pub fn workspace_symbols<'a>(
    query: &str,
    files: impl Iterator<Item = (Uri, &'a [SymbolEntry])>,
) -> Vec<SymbolInformation> {
    let mut matches: Vec<(u8, &SymbolEntry, Uri)> = Vec::new();
    for (uri, symbols) in files {
        for symbol in symbols {
            if let Some(rank) = match_rank(query, &symbol.name) {
                matches.push((rank, symbol, uri.clone()));
            }
        }
    }
    matches.sort_by(|a, b| {
        (a.0, &a.1.name, a.2.as_str(), a.1.range.start.line).cmp(&(
            b.0,
            &b.1.name,
            b.2.as_str(),
            b.1.range.start.line,
        ))
    });
    matches
        .into_iter()
        .take(MAX_RESULTS)
        .map(|(_, symbol, uri)| SymbolInformation {
            name: symbol.name.clone(),
            kind: symbol.kind,
            tags: None,
            deprecated: None,
            location: Location::new(uri, symbol.range),
            container_name: Some(symbol.container.clone()),
        })
        .collect()
}
