//! `textDocument/completion`, from the lint crate's cursor analysis.

use phaselint_lint::completion::{CompletionKind, complete};
use phaselint_lint::model::Contract;
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, Documentation, MarkupContent, MarkupKind,
};

pub fn completion(text: &str, offset: usize, contract: Option<&Contract>) -> Vec<CompletionItem> {
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
            detail: c.detail,
            documentation: c.documentation.map(|value| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value,
                })
            }),
            insert_text: c.insert_text,
            label: c.label,
            ..CompletionItem::default()
        })
        .collect()
}
