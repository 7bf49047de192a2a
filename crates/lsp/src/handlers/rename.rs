//! `textDocument/prepareRename` and `textDocument/rename`: a phase or a
//! field, every occurrence in the file. Which places a field rename edits,
//! and when it is refused, is `phaselint_lint::rename`'s decision.

use std::collections::HashMap;

use phaselint_lint::index::Symbol;
use phaselint_lint::rename as field_rename;
use phaselint_lint::syntax::{Resolved, Scalar};
use tower_lsp_server::ls_types::{PrepareRenameResponse, TextEdit, Uri, WorkspaceEdit};

use crate::analyzer::Analyzed;
use crate::positions::Positions;

/// The phase name under the cursor, or `None` (the client then says the
/// position cannot be renamed).
/// A field's range is the part of its dotted name up to the segment under
/// the cursor (the path a rename there renames); a reason comes back as an
/// error, which clients show.
pub fn prepare(
    analyzed: &Analyzed,
    positions: &Positions<'_>,
    offset: usize,
) -> Result<Option<PrepareRenameResponse>, String> {
    if let Some(occurrence) = analyzed.index.at(offset)
        && let Symbol::Phase { name, .. } = &occurrence.symbol
    {
        return Ok(analyzed.index.phase_definition(name).map(|_| {
            PrepareRenameResponse::RangeWithPlaceholder {
                range: positions.range(occurrence.span),
                placeholder: name.clone(),
            }
        }));
    }
    let Some(contract) = analyzed.analysis.contract() else {
        return Ok(None);
    };
    let source = &analyzed.analysis.source;
    Ok(
        field_rename::target(source, contract, &analyzed.index, offset)?.map(|target| {
            PrepareRenameResponse::RangeWithPlaceholder {
                range: positions.range(target.span),
                placeholder: target.path.to_string(),
            }
        }),
    )
}

pub fn rename(
    analyzed: &Analyzed,
    positions: &Positions<'_>,
    uri: &Uri,
    offset: usize,
    new_name: &str,
) -> Result<Option<WorkspaceEdit>, String> {
    let Some(Symbol::Phase { name, .. }) = analyzed.index.at(offset).map(|o| &o.symbol) else {
        let edits = field_rename::rename_field(&analyzed.analysis.source, offset, new_name)?
            .into_iter()
            .map(|edit| TextEdit::new(positions.range(edit.span), edit.replacement))
            .collect();
        return Ok(Some(WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), edits)])),
            ..WorkspaceEdit::default()
        }));
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
