//! One completion offered: what is shown, inserted and sorted.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Key,
    Phase,
    Field,
    EnumValue,
    Value,
    /// A rule code in a suppression comment.
    RuleCode,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    pub documentation: Option<String>,
    /// What to insert, when it differs from the label (`key: `).
    pub insert_text: Option<String>,
    /// How the client orders the items, when not by label: the best first.
    pub sort_text: Option<String>,
}

impl Completion {
    pub(super) fn new(label: impl Into<String>, kind: CompletionKind) -> Self {
        Completion {
            label: label.into(),
            kind,
            detail: None,
            documentation: None,
            insert_text: None,
            sort_text: None,
        }
    }
}
