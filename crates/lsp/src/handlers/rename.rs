//! `textDocument/prepareRename` and `textDocument/rename`: phases only,
//! every occurrence in the file.

use std::collections::HashMap;

use phaselint_lint::index::Symbol;
use phaselint_lint::syntax::{Resolved, Scalar};
use tower_lsp_server::ls_types::{PrepareRenameResponse, TextEdit, Uri, WorkspaceEdit};

use crate::state::{Analyzed, Positions};

/// The phase name under the cursor, or `None` (the client then says the
/// position cannot be renamed).
pub fn prepare(
    analyzed: &Analyzed,
    positions: &Positions<'_>,
    offset: usize,
) -> Option<PrepareRenameResponse> {
    let occurrence = analyzed.index.at(offset)?;
    match &occurrence.symbol {
        Symbol::Phase { name, .. } if analyzed.index.phase_definition(name).is_some() => {
            Some(PrepareRenameResponse::RangeWithPlaceholder {
                range: positions.range(occurrence.span),
                placeholder: name.clone(),
            })
        }
        _ => None,
    }
}

pub fn rename(
    analyzed: &Analyzed,
    positions: &Positions<'_>,
    uri: &Uri,
    offset: usize,
    new_name: &str,
) -> Result<Option<WorkspaceEdit>, String> {
    let Some(occurrence) = analyzed.index.at(offset) else {
        return Ok(None);
    };
    let Symbol::Phase { name, .. } = &occurrence.symbol else {
        return Err("only phase names can be renamed".into());
    };
    if new_name.is_empty()
        || !new_name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!(
            "`{new_name}` is not a valid phase name (use letters, digits, `_` and `-`)"
        ));
    }
    // Unquoted uses of the name would be read as a number, a boolean or
    // null (`123`, `true`, `null`), and the contract would stop naming it.
    let as_plain = Scalar {
        text: new_name,
        plain: true,
    };
    if !matches!(as_plain.resolve(), Resolved::Str(_)) {
        return Err(format!(
            "`{new_name}` is not a valid phase name: YAML reads it unquoted as a number, a boolean or null"
        ));
    }
    if new_name != name && analyzed.index.phase_definition(new_name).is_some() {
        return Err(format!("a phase named `{new_name}` already exists"));
    }
    let source = &analyzed.analysis.source;
    let edits = analyzed
        .index
        .phase_occurrences(name)
        .map(|o| {
            // Keep the quoting style of each occurrence.
            let original = &source[o.span.start..o.span.end];
            let quote = original.chars().next().filter(|c| *c == '"' || *c == '\'');
            let replacement = match quote {
                Some(q) => format!("{q}{new_name}{q}"),
                None => new_name.to_string(),
            };
            TextEdit::new(positions.range(o.span), replacement)
        })
        .collect();
    Ok(Some(WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..WorkspaceEdit::default()
    }))
}
