//! `textDocument/completion`, from the lint crate's cursor analysis.

use phaselint_lint::completion::{CompletionKind, complete};
use phaselint_lint::model::Contract;
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, Documentation, MarkupContent, MarkupKind,
};

/// `markdown`: the client takes Markdown documentation; otherwise it is
/// rendered to plain text. `detail` is plain text in LSP, always.
pub fn completion(
    text: &str,
    offset: usize,
    contract: Option<&Contract>,
    markdown: bool,
) -> Vec<CompletionItem> {
    complete(text, offset, contract)
        .into_iter()
        .map(|c| CompletionItem {
            kind: Some(match c.kind {
                CompletionKind::Key => CompletionItemKind::PROPERTY,
                CompletionKind::Phase => CompletionItemKind::MODULE,
                CompletionKind::Field => CompletionItemKind::FIELD,
                CompletionKind::EnumValue => CompletionItemKind::ENUM_MEMBER,
                CompletionKind::Value => CompletionItemKind::VALUE,
            }),
            detail: c.detail.map(|detail| crate::markdown::to_plain(&detail)),
            documentation: c
                .documentation
                .map(|value| Documentation::MarkupContent(documentation(&value, markdown))),
            insert_text: c.insert_text,
            label: c.label,
            ..CompletionItem::default()
        })
        .collect()
}

fn documentation(value: &str, markdown: bool) -> MarkupContent {
    if markdown {
        MarkupContent {
            kind: MarkupKind::Markdown,
            value: crate::markdown::for_markdown_client(value),
        }
    } else {
        MarkupContent {
            kind: MarkupKind::PlainText,
            value: crate::markdown::to_plain(value),
        }
    }
}
