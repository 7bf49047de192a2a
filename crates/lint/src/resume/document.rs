//! Runtime documents (contexts, approval records) as `serde_json::Value`:
//! JSON read by serde_json, YAML read by the same spanned parser the
//! contracts use, and the canonical JSON text the target digest hashes.

use serde_json::{Map, Number, Value};

use crate::syntax::{self, Limits, Node, NodeKind, Resolved};

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
    pub fn from_file_name(name: &str) -> Self {
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
    #[error("key `{key}` appears twice in one mapping (line {line})")]
    DuplicateKey { key: String, line: usize },
}

/// Parses a context or approvals document.
pub fn parse_document(text: &str, format: DocumentFormat) -> Result<Value, DocumentError> {
    let trimmed = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    if trimmed.is_empty() {
        return Err(DocumentError::Empty);
    }
    let json = match format {
        DocumentFormat::Json => true,
        DocumentFormat::Yaml => false,
        DocumentFormat::Detect => trimmed.starts_with(['{', '[']),
    };
    if json {
        return serde_json::from_str::<NoDuplicateKeys>(trimmed)
            .map(|NoDuplicateKeys(value)| value)
            .map_err(|e| DocumentError::Json(e.to_string()));
    }
    let line_of = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
    match syntax::parse(text, Limits::default()) {
        Ok(Some(node)) => {
            node_to_value(&node).map_err(|(key, offset)| DocumentError::DuplicateKey {
                key,
                line: line_of(offset),
            })
        }
        Ok(None) => Err(DocumentError::Empty),
        Err(syntax::SyntaxError::Yaml { message, offset }) => Err(DocumentError::Yaml {
            message,
            line: line_of(offset),
        }),
        Err(syntax::SyntaxError::Unloadable { message, .. }) => {
            Err(DocumentError::Unloadable(message))
        }
    }
}

/// A JSON value read like serde_json's `Value`, except that a key twice in
/// one object is an error: "last one wins" would let a second `policy` or a
/// second provenance record silently replace the first, and the YAML
/// reader already refuses that.
struct NoDuplicateKeys(Value);

impl<'de> serde::Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(StrictVisitor)
            .map(NoDuplicateKeys)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Number(i.into()))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(Value::Number(u.into()))
    }

    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Number::from_f64(f).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(NoDuplicateKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut entries: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = entries.next_key::<String>()? {
            if map.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "key `{key}` appears twice in one object"
                )));
            }
            let NoDuplicateKeys(value) = entries.next_value()?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

/// Converts a spanned YAML tree to JSON, resolving plain scalars by the
/// YAML 1.2 core schema. A duplicate key is an error (key, byte offset):
/// a runtime document is read fail-closed, never "last one wins".
/// Non-finite floats (`.inf`, `.nan`), which JSON cannot hold, become
/// their YAML text.
pub fn node_to_value(node: &Node) -> Result<Value, (String, usize)> {
    Ok(match &node.kind {
        NodeKind::Scalar(scalar) => match scalar.resolve() {
            Resolved::Null => Value::Null,
            Resolved::Bool(b) => Value::Bool(b),
            Resolved::Int(i) => Value::Number(i.into()),
            Resolved::Float(f) => match Number::from_f64(f) {
                Some(n) => Value::Number(n),
                None => Value::String(scalar.text.to_string()),
            },
            Resolved::Str(s) => Value::String(s.to_string()),
        },
        NodeKind::Sequence(items) => Value::Array(
            items
                .iter()
                .map(node_to_value)
                .collect::<Result<Vec<_>, _>>()?,
        ),
        NodeKind::Mapping(entries) => {
            let mut map = Map::new();
            for entry in entries.iter() {
                if map.contains_key(entry.key.text.as_str()) {
                    return Err((entry.key.text.to_string(), entry.key.span.start));
                }
                map.insert(entry.key.text.to_string(), node_to_value(&entry.value)?);
            }
            Value::Object(map)
        }
    })
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

pub fn type_name(value: &Value) -> &'static str {
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
mod tests {
    use super::*;

    #[test]
    fn yaml_scalars_resolve_by_the_core_schema() {
        let v = parse_document(
            "a: 1\nb: '1'\nc: ~\nd: true\ne: 1.5\nf: [x, 2]\n",
            DocumentFormat::Yaml,
        )
        .unwrap();
        assert_eq!(
            canonical_json(&v),
            r#"{"a":1,"b":"1","c":null,"d":true,"e":1.5,"f":["x",2]}"#
        );
    }

    #[test]
    fn duplicate_yaml_keys_are_refused() {
        let err = parse_document("a: 1\nb: 2\na: 3\n", DocumentFormat::Yaml).unwrap_err();
        assert_eq!(
            err,
            DocumentError::DuplicateKey {
                key: "a".into(),
                line: 3
            }
        );
    }

    #[test]
    fn duplicate_json_keys_are_refused_at_any_depth() {
        let err = parse_document(
            r#"{"_cc_propagation": {"f": {"set_at": "a"}, "f": {"set_at": "b"}}}"#,
            DocumentFormat::Json,
        )
        .unwrap_err();
        assert_eq!(
            err,
            DocumentError::Json("key `f` appears twice in one object at line 1 column 46".into())
        );
        // Values and nesting are read as serde_json reads them.
        let v = parse_document(
            r#"{"a": [1, -2, 1.5, "x", null, true, {"b": {}}]}"#,
            DocumentFormat::Json,
        )
        .unwrap();
        assert_eq!(
            canonical_json(&v),
            r#"{"a":[1,-2,1.5,"x",null,true,{"b":{}}]}"#
        );
    }

    #[test]
    fn detection_and_truncated_json() {
        assert!(matches!(
            parse_document("{\"a\": 1", DocumentFormat::Detect),
            Err(DocumentError::Json(_))
        ));
        assert!(parse_document("  a: 1", DocumentFormat::Detect).is_ok());
        assert_eq!(
            parse_document(" \n ", DocumentFormat::Detect),
            Err(DocumentError::Empty)
        );
    }

    #[test]
    fn canonical_json_sorts_nested_keys_and_escapes() {
        let v: Value =
            serde_json::from_str(r#"{"b": {"z": 1, "a": "x\"y"}, "a": [ {"d":1,"c":2} ]}"#)
                .unwrap();
        assert_eq!(
            canonical_json(&v),
            r#"{"a":[{"c":2,"d":1}],"b":{"a":"x\"y","z":1}}"#
        );
    }
}
