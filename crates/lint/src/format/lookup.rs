//! The lookups by path: which mapping, and which value type, a place in a
//! document is.

use super::{Mapping, ROOT, ValueType};

/// Where the cursor is, as keys from the root (`-` for a list item):
/// the mapping there, if it is one of the format's. `["phases", "plan",
/// "exit", "required", "-"]` is a field.
pub(crate) fn mapping_at(path: &[&str]) -> Option<&'static Mapping> {
    let mut mapping: &'static Mapping = &ROOT;
    let mut rest = path;
    while let [key, tail @ ..] = rest {
        let mut value = &mapping.key(key)?.value;
        rest = tail;
        // Step through lists (`-`) and author-named keys to the mapping.
        loop {
            match (value, rest) {
                (ValueType::Mapping(next), _) => {
                    mapping = next;
                    break;
                }
                (ValueType::List(item), ["-", tail @ ..])
                | (ValueType::MapOf { value: item, .. }, [_, tail @ ..]) => {
                    value = item;
                    rest = tail;
                }
                _ => return None,
            }
        }
    }
    Some(mapping)
}

/// The key at the end of `path` (the last element names it) and its spec:
/// what a value under the cursor is. For a value of an author-named key
/// (`merge_policy: { answer: ... }`), the type of those values.
pub(crate) fn value_type_at(path: &[&str], key: &str) -> Option<&'static ValueType> {
    if let Some(mapping) = mapping_at(path) {
        return mapping.key(key).map(|k| &k.value);
    }
    let (last, parent) = path.split_last()?;
    match &mapping_at(parent)?.key(last)?.value {
        ValueType::MapOf { value, .. } => Some(value),
        _ => None,
    }
}
