//! `phaselint schema`: a JSON Schema (draft 2020-12) of a document kind,
//! generated from the same tables (`format/`) the linter validates with,
//! for yaml-language-server and other editors. Keys carry their
//! descriptions and defaults; enums accept any case, as the linter reads
//! them (it reports a non-canonical case as S002, a warning); mappings the
//! linter closes (E003) have `additionalProperties: false`.

use serde_json::{Map, Value, json};

use crate::DocumentKind;
use crate::format::{
    DefaultValue, HARNESS_MAPPINGS, HARNESS_ROOT, MAPPINGS, Mapping, ROOT, ValueType,
};

/// The schema of `kind`, as a JSON value.
pub fn json_schema(kind: DocumentKind) -> Value {
    let (root, mappings, title): (&Mapping, &[&Mapping], &str) = match kind {
        DocumentKind::Contract => (&ROOT, MAPPINGS, "phaselint context contract"),
        DocumentKind::Harness => (&HARNESS_ROOT, HARNESS_MAPPINGS, "phaselint harness config"),
    };
    let mut defs = Map::new();
    for mapping in mappings {
        if !std::ptr::eq(*mapping, root) {
            defs.insert(def_name(mapping), object(mapping));
        }
    }
    let mut schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("{}/schema/{}.json", env!("CARGO_PKG_REPOSITORY").trim_end_matches('/'), kind.as_str()),
        "title": title,
    });
    if let (Value::Object(schema), Value::Object(body)) = (&mut schema, object(root)) {
        schema.extend(body);
        schema.insert("$defs".into(), Value::Object(defs));
    }
    schema
}

/// A mapping's name as a `$defs` key: `Staleness check` → `StalenessCheck`.
fn def_name(mapping: &Mapping) -> String {
    mapping
        .name
        .split(' ')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or(String::new(), |c| {
                c.to_uppercase().collect::<String>() + chars.as_str()
            })
        })
        .collect()
}

fn object(mapping: &Mapping) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for key in mapping.keys {
        let mut schema = value(&key.value);
        if let Value::Object(fields) = &mut schema {
            let mut description = key.description.to_string();
            if key.extension {
                description.push_str(" (a phaselint extension)");
            }
            fields.insert("description".into(), json!(description));
            if let Some(default) = key.default {
                fields.insert("default".into(), default_value(default));
            }
            if let Some((count, _)) = key.min_items {
                fields.insert("minItems".into(), json!(count));
            }
        }
        if key.required {
            required.push(json!(key.name));
        } else {
            // An optional key may be written as null (pydantic's Optional).
            schema = json!({"anyOf": [schema, {"type": "null"}]});
        }
        properties.insert(key.name.to_string(), schema);
    }
    let mut object = json!({
        "type": "object",
        "description": mapping.description,
        "properties": properties,
    });
    if let Value::Object(fields) = &mut object {
        if !required.is_empty() {
            fields.insert("required".into(), Value::Array(required));
        }
        if !mapping.open {
            fields.insert("additionalProperties".into(), json!(false));
        }
    }
    object
}

/// A default as JSON: `true`, or a string.
fn default_value(default: DefaultValue) -> Value {
    match default {
        DefaultValue::Bool(value) => json!(value),
        DefaultValue::Text(text) => json!(text),
        // An enum's value, as written in YAML.
        _ => json!(default.to_string()),
    }
}

/// `[bB][lL]...`: a value in any case, since JSON Schema's patterns have
/// no case-insensitive flag.
fn any_case(text: &str) -> String {
    text.chars()
        .map(|c| {
            let (lower, upper) = (c.to_ascii_lowercase(), c.to_ascii_uppercase());
            if lower == upper {
                regex_escape(c)
            } else {
                format!("[{lower}{upper}]")
            }
        })
        .collect()
}

fn regex_escape(c: char) -> String {
    if "\\^$.|?*+()[]{}-".contains(c) {
        format!("\\{c}")
    } else {
        c.to_string()
    }
}

fn value(value_type: &ValueType) -> Value {
    match value_type {
        ValueType::String | ValueType::TypeName => json!({"type": "string"}),
        ValueType::NonEmptyString | ValueType::FieldPath(_) | ValueType::PhaseName(_) => {
            json!({"type": "string", "minLength": 1})
        }
        ValueType::Bool => json!({"type": "boolean"}),
        ValueType::Int => json!({"type": "integer"}),
        ValueType::Number => json!({"type": "number"}),
        ValueType::Duration => json!({"anyOf": [
            {"type": "integer", "minimum": 0},
            {"type": "string", "pattern": "^\\s*[0-9]+\\s*[smhd]?\\s*$"}
        ]}),
        ValueType::Enum(kind) => {
            let (_, values) = kind.values();
            let names: Vec<&str> = values.iter().map(|(v, _)| *v).collect();
            json!({
                "type": "string",
                "pattern": format!(
                    "^(?:{})$",
                    names.iter().map(|n| any_case(n)).collect::<Vec<_>>().join("|")
                ),
                "examples": names,
            })
        }
        ValueType::List(item) => json!({"type": "array", "items": value(item)}),
        ValueType::Mapping(mapping) => json!({"$ref": format!("#/$defs/{}", def_name(mapping))}),
        ValueType::MapOf { value: item, .. } => {
            json!({"type": "object", "additionalProperties": value(item)})
        }
        ValueType::Any => json!({}),
        ValueType::AnyMapping => json!({"type": "object"}),
    }
}
