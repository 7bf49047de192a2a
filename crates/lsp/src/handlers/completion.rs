//! `textDocument/completion`, from the lint crate's cursor analysis.

use phaselint_lint::Analysis;
use phaselint_lint::completion::{Completion, CompletionKind, complete, complete_suppression_code};
use phaselint_lint::model::Contract;
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, CompletionItemLabelDetails, Documentation, MarkupContent,
    MarkupKind,
};

pub fn completion(text: &str, offset: usize, contract: Option<&Contract>) -> Vec<CompletionItem> {
    items(complete(text, offset, contract))
}

/// Rule codes, when `offset` is where a suppression comment's code goes;
/// `None` elsewhere.
pub fn suppression_codes(analysis: &Analysis, offset: usize) -> Option<Vec<CompletionItem>> {
    complete_suppression_code(analysis, offset).map(items)
}

fn items(completions: Vec<Completion>) -> Vec<CompletionItem> {
    completions
        .into_iter()
        .map(|c| CompletionItem {
            kind: Some(match c.kind {
                CompletionKind::Key => CompletionItemKind::PROPERTY,
                CompletionKind::Phase => CompletionItemKind::MODULE,
                CompletionKind::Field => CompletionItemKind::FIELD,
                CompletionKind::EnumValue => CompletionItemKind::ENUM_MEMBER,
                CompletionKind::Value => CompletionItemKind::VALUE,
                CompletionKind::RuleCode => CompletionItemKind::CONSTANT,
            }),
            // A rule code's name beside it, where the client shows that.
            label_details: (c.kind == CompletionKind::RuleCode).then(|| {
                CompletionItemLabelDetails {
                    detail: None,
                    description: c.detail.clone(),
                }
            }),
            sort_text: c.sort_text,
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
