//! Runtime documents (contexts, approval records) as `serde_json::Value`:
//! JSON read by serde_json, YAML read by the same spanned parser the
//! contracts use, and the canonical JSON text the target digest hashes.

use serde_json::{Map, Number, Value};

use crate::syntax::{self, Entry, Limits, Node, NodeKind, Resolved, Scalar};

/// What the text of a runtime document is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocumentFormat {
    Json,
    Yaml,
    /// JSON when the first non-blank character opens an object or a list,
    /// YAML otherwise.
    Detect,
}

impl DocumentFormat {
    /// The format a file name implies: `.json`, `.yaml`/`.yml`, else detect.
    pub(crate) fn from_file_name(name: &str) -> Self {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".json") {
            DocumentFormat::Json
        } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            DocumentFormat::Yaml
        } else {
            DocumentFormat::Detect
        }
    }
}

/// Why a document could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DocumentError {
    #[error("it is empty")]
    Empty,
    #[error("it is not valid JSON: {0}")]
    Json(String),
    #[error("it is not valid YAML: {message} (line {line})")]
    Yaml { message: String, line: usize },
    #[error("it cannot be loaded: {0}")]
    Unloadable(String),
    #[error(
        "the number `{number}` at `{path}` (line {line}) {why}: a state is hashed exactly, so it cannot hold it; quote it if it is text, or store it as a string of its digits"
    )]
    InexactNumber {
        path: String,
        number: String,
        line: usize,
        why: String,
    },
    #[error("key `{key}` appears twice in one mapping (line {line})")]
    DuplicateKey { key: String, line: usize },
    #[error(
        "its values would take more than {} in memory once read (every mapping, list and text counted); phaselint refuses documents this large rather than exhaust memory",
        crate::input::describe(*budget)
    )]
    TooLarge { budget: u64 },
}

/// How much memory the values of a runtime document may take once read,
/// per byte its input may have: a document of many tiny mappings (`[{},
/// {}, …]`) would otherwise take 50 to 100 times its size.
pub const MEMORY_PER_INPUT_BYTE: u64 = 5;

/// Parses a context or approvals document of up to 32 MiB, within
/// `5 × 32 MiB` of values.
pub fn parse_document(text: &str, format: DocumentFormat) -> Result<Value, DocumentError> {
    parse_document_within(
        text,
        format,
        MEMORY_PER_INPUT_BYTE * crate::input::Bound::Document.bytes(),
    )
}

/// Parses a runtime document whose values may take at most `budget` bytes
/// in memory (an estimate that errs high: see `Charge`).
pub(crate) fn parse_document_within(
    text: &str,
    format: DocumentFormat,
    budget: u64,
) -> Result<Value, DocumentError> {
    let trimmed = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    if trimmed.is_empty() {
        return Err(DocumentError::Empty);
    }
    let json = match format {
        DocumentFormat::Json => true,
        DocumentFormat::Yaml => false,
        DocumentFormat::Detect => trimmed.starts_with(['{', '[']),
    };
    let charge = Charge::new(budget);
    let read = if json {
        read_json(trimmed, &charge)
    } else {
        read_yaml(text, &charge)
    };
    if charge.exhausted.get() {
        return Err(DocumentError::TooLarge { budget });
    }
    read
}

/// What the values read so far cost, estimated from serde_json's layout:
/// every value a 32-byte slot, a text its bytes, a mapping its B-tree nodes
/// (about 640 bytes for up to six entries) and each key its text and slot.
struct Charge {
    left: std::cell::Cell<u64>,
    exhausted: std::cell::Cell<bool>,
}

impl Charge {
    const VALUE: u64 = 32;
    const MAP_NODE: u64 = 640;
    const ENTRIES_PER_NODE: u64 = 6;
    const KEY: u64 = 24 + 32;

    fn new(budget: u64) -> Self {
        Charge {
            left: std::cell::Cell::new(budget),
            exhausted: std::cell::Cell::new(false),
        }
    }

    /// Takes `bytes` from what is left; false (for good) once it runs out.
    fn take(&self, bytes: u64) -> bool {
        match self.left.get().checked_sub(bytes) {
            Some(left) if !self.exhausted.get() => {
                self.left.set(left);
                true
            }
            _ => {
                self.exhausted.set(true);
                false
            }
        }
    }

    fn value(&self) -> bool {
        self.take(Self::VALUE)
    }

    fn text(&self, text: &str) -> bool {
        self.take(text.len() as u64)
    }

    /// The `n`-th entry (from 0) of a mapping, with its key.
    fn entry(&self, n: usize, key: &str) -> bool {
        let node = if (n as u64).is_multiple_of(Self::ENTRIES_PER_NODE) {
            Self::MAP_NODE
        } else {
            0
        };
        self.take(node + Self::KEY + key.len() as u64)
    }
}

fn read_json(text: &str, charge: &Charge) -> Result<Value, DocumentError> {
    use serde::de::DeserializeSeed;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = StrictSeed(charge)
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value))
        .map_err(|e| DocumentError::Json(e.to_string()))?;
    Ok(value)
}

/// A JSON value read like serde_json's `Value`, except that a key twice in
/// one object is an error ("last one wins" would let a second `policy` or a
/// second provenance record silently replace the first, and the YAML reader
/// refuses that too), and that what is read is charged to a budget.
#[derive(Clone, Copy)]
struct StrictSeed<'c>(&'c Charge);

/// Why the reader stopped when the budget ran out (the error itself is
/// replaced by `DocumentError::TooLarge`).
const OVER_BUDGET: &str = "over the memory budget";

impl<'de> serde::de::DeserializeSeed<'de> for StrictSeed<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for StrictSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Value, E> {
        self.scalar(Value::Bool(b))
    }

    fn visit_i64<E: serde::de::Error>(self, i: i64) -> Result<Value, E> {
        self.scalar(Value::Number(i.into()))
    }

    fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<Value, E> {
        self.scalar(Value::Number(u.into()))
    }

    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Value, E> {
        self.scalar(Number::from_f64(f).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Value, E> {
        if !self.0.text(s) {
            return Err(E::custom(OVER_BUDGET));
        }
        self.scalar(Value::String(s.to_string()))
    }

    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Value, E> {
        if !self.0.text(&s) {
            return Err(E::custom(OVER_BUDGET));
        }
        self.scalar(Value::String(s))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        self.scalar(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        use serde::de::Error;
        if !self.0.value() {
            return Err(A::Error::custom(OVER_BUDGET));
        }
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        items.shrink_to_fit();
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut entries: A) -> Result<Value, A::Error> {
        use serde::de::Error;
        if !self.0.value() {
            return Err(A::Error::custom(OVER_BUDGET));
        }
        let mut map = Map::new();
        while let Some(key) = entries.next_key::<String>()? {
            if map.contains_key(&key) {
                return Err(A::Error::custom(format!(
                    "key `{key}` appears twice in one object"
                )));
            }
            if !self.0.entry(map.len(), &key) {
                return Err(A::Error::custom(OVER_BUDGET));
            }
            let value = entries.next_value_seed(self)?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

impl StrictSeed<'_> {
    fn scalar<E: serde::de::Error>(self, value: Value) -> Result<Value, E> {
        if self.0.value() {
            Ok(value)
        } else {
            Err(E::custom(OVER_BUDGET))
        }
    }
}

/// A collection being read, and the key waiting for its value.
enum Open {
    Mapping {
        map: Map<String, Value>,
        key: Option<String>,
        anchor: usize,
    },
    Sequence {
        items: Vec<Value>,
        anchor: usize,
    },
}

/// Reads a YAML document straight into values, with the limits of the
/// contract reader (one document, 64 levels, no NUL) and the budget
/// charged for every value, so a large file never exists twice in memory
/// (as a spanned tree and as values) and aliases cost what they copy.
fn read_yaml(text: &str, charge: &Charge) -> Result<Value, DocumentError> {
    use saphyr_parser::{Event, Parser, ScalarStyle};
    let limits = Limits::default();
    if text.len() > limits.max_bytes {
        return Err(DocumentError::Unloadable(crate::input::oversized(
            Some(text.len() as u64),
            limits.max_bytes as u64,
        )));
    }
    if let Some(offset) = text.find('\0') {
        return Err(DocumentError::Yaml {
            message: "a NUL byte (U+0000) is not allowed in YAML; is this a binary file?".into(),
            line: text[..offset].matches('\n').count() + 1,
        });
    }
    let over = || DocumentError::TooLarge { budget: 0 };
    let mut open: Vec<Open> = Vec::new();
    // Each anchor's value and what a copy of it costs.
    let mut anchors: Vec<(usize, Value, u64)> = Vec::new();
    let mut root: Option<Value> = None;
    let mut documents = 0usize;
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(|e| {
            if e.info().contains("recursion limit") {
                DocumentError::Unloadable(format!(
                    "nesting is deeper than {} levels",
                    limits.max_depth
                ))
            } else {
                DocumentError::Yaml {
                    message: e.info().to_string(),
                    line: e.marker().line(),
                }
            }
        })?;
        let line = span.start.line();
        let before = charge.left.get();
        let (value, anchor) = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => continue,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(DocumentError::Unloadable(
                        "expected one YAML document, but this one has several (separated by `---`)"
                            .into(),
                    ));
                }
                continue;
            }
            Event::Scalar(text, style, anchor, _tag) => {
                // A key is its text as written (`1: x` has the key `1`).
                if let Some(Open::Mapping {
                    map,
                    key: pending @ None,
                    ..
                }) = open.last_mut()
                {
                    if map.contains_key(text.as_ref()) {
                        return Err(DocumentError::DuplicateKey {
                            key: text.into_owned(),
                            line,
                        });
                    }
                    if !charge.entry(map.len(), &text) {
                        return Err(over());
                    }
                    *pending = Some(text.into_owned());
                    continue;
                }
                if !charge.value() || !charge.text(&text) {
                    return Err(over());
                }
                let scalar = syntax::Scalar {
                    text: text.as_ref(),
                    plain: style == ScalarStyle::Plain,
                };
                let value = match scalar.resolve() {
                    Resolved::Null => Value::Null,
                    Resolved::Bool(b) => Value::Bool(b),
                    Resolved::Int(i) => Value::Number(i.into()),
                    Resolved::Float(f) => Number::from_f64(f)
                        .map_or_else(|| Value::String(text.to_string()), Value::Number),
                    Resolved::Str(s) => Value::String(s.to_string()),
                };
                (value, anchor)
            }
            Event::Alias(id) => {
                let Some((_, value, cost)) = anchors.iter().rev().find(|(a, _, _)| *a == id) else {
                    return Err(DocumentError::Yaml {
                        message: "alias refers to an unknown anchor".into(),
                        line,
                    });
                };
                if !charge.take(*cost) {
                    return Err(over());
                }
                (value.clone(), 0)
            }
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                if let Some(Open::Mapping { key: None, .. }) = open.last() {
                    return Err(DocumentError::Unloadable(format!(
                        "a mapping key on line {line} is a collection; keys must be plain strings"
                    )));
                }
                if open.len() >= limits.max_depth {
                    return Err(DocumentError::Unloadable(format!(
                        "nesting is deeper than {} levels",
                        limits.max_depth
                    )));
                }
                if !charge.value() {
                    return Err(over());
                }
                open.push(if matches!(event, Event::MappingStart(..)) {
                    Open::Mapping {
                        map: Map::new(),
                        key: None,
                        anchor,
                    }
                } else {
                    Open::Sequence {
                        items: Vec::new(),
                        anchor,
                    }
                });
                continue;
            }
            Event::MappingEnd | Event::SequenceEnd => match open.pop() {
                Some(Open::Mapping { map, anchor, .. }) => (Value::Object(map), anchor),
                Some(Open::Sequence { mut items, anchor }) => {
                    items.shrink_to_fit();
                    (Value::Array(items), anchor)
                }
                None => continue,
            },
        };
        if anchor != 0 {
            // Roughly what reading it cost: what a copy will cost again.
            let cost = before.saturating_sub(charge.left.get()).max(Charge::VALUE);
            anchors.push((anchor, value.clone(), cost));
        }
        match open.last_mut() {
            None => root = Some(value),
            Some(Open::Sequence { items, .. }) => items.push(value),
            Some(Open::Mapping { map, key, .. }) => match key.take() {
                Some(key) => {
                    map.insert(key, value);
                }
                None => {
                    let Value::String(text) = value_as_key(value) else {
                        return Err(DocumentError::Unloadable(format!(
                            "a mapping key on line {line} is not a scalar; keys must be plain strings"
                        )));
                    };
                    if map.contains_key(&text) {
                        return Err(DocumentError::DuplicateKey { key: text, line });
                    }
                    if !charge.entry(map.len(), &text) {
                        return Err(over());
                    }
                    *key = Some(text);
                }
            },
        }
    }
    root.ok_or(DocumentError::Empty)
}

/// An alias used as a mapping key: the text of the scalar it names.
fn value_as_key(value: Value) -> Value {
    match value {
        Value::String(_) => value,
        Value::Null | Value::Bool(_) | Value::Number(_) => Value::String(value.to_string()),
        Value::Array(_) | Value::Object(_) => value,
    }
}

/// A scalar of a YAML tree as a JSON value, resolved by the core schema.
fn scalar_to_value(scalar: Scalar<'_>) -> Value {
    match scalar.resolve() {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::Number(i.into()),
        Resolved::Float(f) => match Number::from_f64(f) {
            Some(n) => Value::Number(n),
            None => Value::String(scalar.text.to_string()),
        },
        Resolved::Str(s) => Value::String(s.to_string()),
    }
}

/// A node of a YAML tree as a JSON value; a duplicate key is the error
/// (the key and its offset).
pub(crate) fn node_to_value(node: Node<'_>) -> Result<Value, (String, usize)> {
    Ok(match node.kind() {
        NodeKind::Scalar(scalar) => scalar_to_value(scalar),
        NodeKind::Sequence(items) => Value::Array(
            items
                .iter()
                .map(node_to_value)
                .collect::<Result<Vec<_>, _>>()?,
        ),
        NodeKind::Mapping(entries) => {
            let mut map = Map::new();
            for entry in entries.iter() {
                if map.contains_key(entry.key.text) {
                    return Err((entry.key.text.to_string(), entry.key.span.start));
                }
                map.insert(entry.key.text.to_string(), node_to_value(entry.value)?);
            }
            Value::Object(map)
        }
    })
}

/// Writes the canonical JSON of a node of a YAML tree into `sink`, piece
/// by piece, as `canonical_json(&node_to_value(node)?)` would write it but
/// without building either: the target digest hashes whole phase
/// definitions, which as values took 40 times their text (4 GB for a
/// 32 MiB phase). A duplicate key is the error, as in `node_to_value`.
pub(crate) fn write_canonical_node(
    node: Node<'_>,
    sink: &mut dyn FnMut(&str),
) -> Result<(), (String, usize)> {
    match node.kind() {
        NodeKind::Scalar(scalar) => sink(&scalar_to_value(scalar).to_string()),
        NodeKind::Sequence(items) => {
            sink("[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    sink(",");
                }
                write_canonical_node(item, sink)?;
            }
            sink("]");
        }
        NodeKind::Mapping(entries) => {
            let mut sorted: Vec<Entry<'_>> = entries.iter().collect();
            // The first key written again, in the order written, as
            // `node_to_value` reports it.
            if entries.len() > 1 {
                let mut seen = std::collections::HashSet::with_capacity(entries.len());
                if let Some(again) = entries.iter().find(|e| !seen.insert(e.key.text)) {
                    return Err((again.key.text.to_string(), again.key.span.start));
                }
            }
            sorted.sort_unstable_by(|a, b| a.key.text.cmp(b.key.text));
            sink("{");
            for (i, entry) in sorted.into_iter().enumerate() {
                if i > 0 {
                    sink(",");
                }
                sink(&Value::String(entry.key.text.to_string()).to_string());
                sink(":");
                write_canonical_node(entry.value, sink)?;
            }
            sink("}");
        }
    }
    Ok(())
}

/// Canonical JSON: object keys sorted by their UTF-8 bytes, no whitespace,
/// strings escaped as serde_json escapes them. Independent of whether
/// serde_json's `Map` preserves insertion order in this build.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical_without(value, "", &mut |text: &str| out.push_str(text));
    out
}

/// Writes the canonical JSON of `value` (keys sorted, no whitespace) piece
/// by piece into `sink`, leaving out every object key that starts with
/// `skip_prefix` (at any depth; an empty prefix skips nothing). Hashing
/// through the sink never builds the text of a large value.
pub(crate) fn write_canonical_without(
    value: &Value,
    skip_prefix: &str,
    sink: &mut impl FnMut(&str),
) {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            sink(&value.to_string());
        }
        Value::Array(items) => {
            sink("[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    sink(",");
                }
                write_canonical_without(item, skip_prefix, sink);
            }
            sink("]");
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map
                .keys()
                .filter(|k| skip_prefix.is_empty() || !k.starts_with(skip_prefix))
                .collect();
            keys.sort();
            sink("{");
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    sink(",");
                }
                sink(&Value::String(key.clone()).to_string());
                sink(":");
                if let Some(v) = map.get(key) {
                    write_canonical_without(v, skip_prefix, sink);
                }
            }
            sink("}");
        }
    }
}

pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a float",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

#[cfg(test)]
mod tests;
