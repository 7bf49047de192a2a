//! What is under the cursor in a parsed document: the word, the key and
//! its path, the enum value (hover and enum completion read these).

use crate::format::{EnumKind, ValueType};
use crate::syntax::{Node, NodeKind, Span};

/// Longer than any key or enum value of the format: a longer word is
/// neither, and scanning for one stops there.
pub(crate) const LONGEST_WORD: usize = 32;

/// The word (ASCII letters, digits and `_`) around `offset`, when there is
/// one of at most `LONGEST_WORD` bytes: the cheap test before a hover or
/// an enum lookup parses the document again.
pub(crate) fn word_at(source: &str, offset: usize) -> Option<Span> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let offset = offset.min(source.len());
    if !source.is_char_boundary(offset) {
        return None;
    }
    // The word's start: after the last character before `offset` that is
    // not part of a word (a byte index plus that character's width, which
    // need not be one).
    let mut start = offset;
    for (i, c) in source[..offset].char_indices().rev() {
        if !is_word(c) {
            break;
        }
        if offset - i > LONGEST_WORD {
            return None;
        }
        start = i;
    }
    let end = source[offset..]
        .char_indices()
        .take(LONGEST_WORD + 1)
        .find(|&(_, c)| !is_word(c))
        .map_or(source.len(), |(i, _)| offset + i);
    (start < end && end - start <= LONGEST_WORD).then(|| Span::new(start, end))
}

/// Whether the word around `offset` is spelled like some enum value: the
/// cheap test before `enum_value_at`, which needs the whole YAML tree.
pub fn may_be_enum_value(source: &str, offset: usize) -> bool {
    word_at(source, offset).is_some_and(|word| {
        let word = source[word.start..word.end].to_ascii_lowercase();
        EnumKind::ALL
            .iter()
            .any(|kind| kind.values().1.iter().any(|(v, _)| *v == word))
    })
}

/// The key under `offset`: the keys from the root to its mapping (`-` for
/// list items), and the key itself.
pub fn key_at<'t>(document: Node<'t>, offset: usize) -> Option<(Vec<&'t str>, &'t str)> {
    let mut path = Vec::new();
    let mut node = document;
    loop {
        match node.kind() {
            NodeKind::Mapping(entries) => {
                if let Some(entry) = entries
                    .iter()
                    .find(|e| e.key.span.start <= offset && offset <= e.key.span.end)
                {
                    return Some((path, entry.key.text));
                }
                let entry = entries
                    .iter()
                    .find(|e| e.value.span.start <= offset && offset <= e.value.span.end)?;
                path.push(entry.key.text);
                node = entry.value;
            }
            NodeKind::Sequence(items) => {
                node = items
                    .iter()
                    .find(|n| n.span.start <= offset && offset <= n.span.end)?;
                path.push("-");
            }
            NodeKind::Scalar(_) => return None,
        }
    }
}

/// An enum value under the cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnumValueAt {
    /// What the enum is called ("recovery strategy").
    pub(crate) what: &'static str,
    /// The canonical value.
    pub(crate) value: &'static str,
    pub(crate) meaning: &'static str,
    /// Where the value is written.
    pub span: crate::syntax::Span,
}

/// The enum value under `offset`, by the format's type of the key at that
/// path.
pub fn enum_value_at(document: Node<'_>, offset: usize) -> Option<EnumValueAt> {
    /// The keys from the root to the scalar under `offset` (`-` for list
    /// items), and the scalar.
    fn walk<'a>(node: Node<'a>, path: &mut Vec<&'a str>, offset: usize) -> Option<Node<'a>> {
        match node.kind() {
            NodeKind::Mapping(entries) => {
                let entry = entries
                    .iter()
                    .find(|e| e.value.span.start <= offset && offset <= e.value.span.end)?;
                path.push(entry.key.text);
                match entry.value.kind() {
                    NodeKind::Scalar(_) => Some(entry.value),
                    _ => walk(entry.value, path, offset),
                }
            }
            NodeKind::Sequence(items) => {
                let item = items
                    .iter()
                    .find(|n| n.span.start <= offset && offset <= n.span.end)?;
                path.push("-");
                match item.kind() {
                    NodeKind::Scalar(_) => Some(item),
                    _ => walk(item, path, offset),
                }
            }
            NodeKind::Scalar(_) => None,
        }
    }
    let mut path = Vec::new();
    let scalar = walk(document, &mut path, offset)?;
    let text = scalar.as_scalar()?.text;
    // A list item's type is the list's item type.
    let (key, parent) = match path.split_last()? {
        (&"-", rest) => {
            let (key, parent) = rest.split_last()?;
            (*key, parent)
        }
        (key, parent) => (*key, parent),
    };
    let value_type = crate::format::value_type_at(parent, key)?;
    let kind = match value_type {
        ValueType::Enum(kind) | ValueType::List(ValueType::Enum(kind)) => *kind,
        _ => return None,
    };
    let (what, values) = kind.values();
    let lowered = text.to_lowercase();
    values
        .into_iter()
        .find(|(value, _)| *value == lowered)
        .map(|(value, meaning)| EnumValueAt {
            what,
            value,
            meaning,
            span: scalar.span,
        })
}
