//! What hover shows on a key of the format (its type, default and meaning)
//! or on an enum value, read off the format table at a text offset.

use crate::completion::{enum_value_at, key_at, may_be_enum_value, word_at};
use crate::format;
use crate::syntax::{Limits, Span, parse};

/// The documentation of the key or enum value at `offset`, with the span
/// it is about. The document is parsed again: the tree is not kept, and a
/// large one takes a while, so only for a word that is a key or could be
/// an enum value.
pub fn documentation_at(source: &str, offset: usize) -> Option<(String, Span)> {
    let span = word_at(source, offset)?;
    let word = &source[span.start..span.end];
    let may_be_key = format::MAPPINGS
        .iter()
        .any(|m| m.keys.iter().any(|k| k.name == word));
    if !may_be_key && !may_be_enum_value(source, offset) {
        return None;
    }
    let document = parse(source, Limits::default()).ok()??;
    if may_be_key && let Some((path, key)) = key_at(document.root(), offset) {
        let text = format::key_documentation(&path, key)?;
        return Some((text, span));
    }
    let found = enum_value_at(document.root(), offset)?;
    let (what, value, meaning) = (found.what, found.value, found.meaning);
    Some((format!("`{value}` ({what})\n\n{meaning}"), found.span))
}
