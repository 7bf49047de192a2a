//! One line's shape, read from its text alone: the text being typed is
//! rarely valid YAML.

/// One line's shape: where its content starts, whether it is a list item
/// (`- `), and the key it defines, if any.
#[derive(Debug)]
pub(super) struct LineShape<'a> {
    pub(super) first: usize,
    pub(super) item: bool,
    pub(super) key_col: usize,
    pub(super) key: Option<&'a str>,
    /// Text after `key:`, trimmed; `None` when the line has no key.
    pub(super) value: Option<&'a str>,
}

pub(super) fn shape(line: &str) -> LineShape<'_> {
    let first = line.len() - line.trim_start_matches(' ').len();
    let mut rest = &line[first..];
    let mut key_col = first;
    let item = rest == "-" || rest.starts_with("- ");
    if item {
        let after = rest[1..].trim_start_matches(' ');
        key_col = line.len() - after.len();
        rest = after;
    }
    let (key, value) = match split_key(rest) {
        Some((k, v)) => (Some(k), Some(v)),
        None => (None, None),
    };
    LineShape {
        first,
        item,
        key_col,
        key,
        value,
    }
}

/// `key: value` -> (`key`, `value`); quotes around the key are removed.
fn split_key(text: &str) -> Option<(&str, &str)> {
    if text.starts_with('#') || text.starts_with('{') || text.starts_with('[') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (None, b'"' | b'\'') if i == 0 => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b':') if bytes.get(i + 1).is_none_or(|n| *n == b' ' || *n == b'\t') => {
                let key = text[..i].trim().trim_matches(['"', '\'']);
                let value = text[i + 1..].trim();
                let value = value.split(" #").next().unwrap_or("").trim();
                return Some((key, value));
            }
            (None, b'#') if i > 0 && bytes[i - 1] == b' ' => return None,
            _ => {}
        }
    }
    None
}
