//! `textDocument/codeLens` (or `textDocument/inlayHint` for clients without
//! code lenses): "read by N phases" on each exit field, the readers being
//! the consumers hover lists for the field.

use phaselint_lint::index::ExitReaders;
use tower_lsp_server::ls_types::{
    CodeLens, Command, InlayHint, InlayHintLabel, InlayHintTooltip, Range,
};

use crate::analyzer::Analyzed;
use crate::positions::Positions;

/// The most exit fields given a lens: each is matched against every
/// reader, and a generated contract has a hundred thousand of each.
const MAX_LENSES: usize = 2_000;

/// Reader names shown in a title before "and N more".
const NAMES_SHOWN: usize = 5;

/// `read by 2 phases: summarize, publish`.
fn title(analyzed: &Analyzed, exit: &ExitReaders<'_>) -> String {
    let names: Vec<&str> = exit
        .readers
        .iter()
        .filter_map(|&i| analyzed.analysis.contract()?.phases.get(i))
        .map(|p| p.name.as_str())
        .collect();
    let count = names.len();
    let noun = if count == 1 { "phase" } else { "phases" };
    if count == 0 {
        return "read by no phase".into();
    }
    let mut shown = names
        .iter()
        .take(NAMES_SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if count > NAMES_SHOWN {
        shown.push_str(&format!(" and {} more", count - NAMES_SHOWN));
    }
    format!("read by {count} {noun}: {shown}")
}

/// A lens without a command on each exit field: editors show its title
/// (VS Code as unclickable text, Neovim as virtual text); a command would
/// need a client-specific name.
pub fn code_lenses(analyzed: &Analyzed, positions: &Positions<'_>) -> Vec<CodeLens> {
    analyzed
        .index
        .exit_readers(MAX_LENSES)
        .iter()
        .map(|exit| CodeLens {
            range: positions.range(exit.span),
            command: Some(Command {
                title: title(analyzed, exit),
                command: String::new(),
                arguments: None,
            }),
            data: None,
        })
        .collect()
}

/// The same text as an inlay hint after each exit field within `range`.
pub fn inlay_hints(analyzed: &Analyzed, positions: &Positions<'_>, range: Range) -> Vec<InlayHint> {
    analyzed
        .index
        .exit_readers(MAX_LENSES)
        .iter()
        .filter_map(|exit| {
            let at = positions.range(exit.span);
            if at.end.line < range.start.line || at.start.line > range.end.line {
                return None;
            }
            let title = title(analyzed, exit);
            Some(InlayHint {
                position: at.end,
                label: InlayHintLabel::String(format!("← {title}")),
                kind: None,
                text_edits: None,
                tooltip: Some(InlayHintTooltip::String(format!(
                    "`{}` is {title}",
                    exit.name
                ))),
                padding_left: Some(true),
                padding_right: None,
                data: None,
            })
        })
        .collect()
}
