//! Harness configs: the named checkpoints a harness declares in
//! `.harness/config.json`.

pub(crate) mod h501_duplicate_checkpoint_name;
pub(crate) mod h502_unknown_trigger;
pub(crate) mod h503_unsafe_checkpoint_name;

use crate::syntax::Span;

/// The span inside a quoted scalar (a JSON string), so a replacement keeps
/// the quotes; a plain scalar's span as it is.
pub(crate) fn inside_quotes(source: &str, span: Span) -> Span {
    match source.get(span.start..span.end) {
        Some(text) if text.len() >= 2 && (text.starts_with('"') || text.starts_with('\'')) => {
            Span::new(span.start + 1, span.end - 1)
        }
        _ => span,
    }
}
