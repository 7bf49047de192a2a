//! SPEC §6 step 4: the entry requirements of the phase(s) the run resumes
//! into, checked against the context the way ContextCore's
//! `BoundaryValidator.validate_entry` does, plus declared types.

use serde::Serialize;
use serde_json::Value;

use crate::model::{EnumValue, Field, FieldSeverity, Phase};
use crate::resume::document::{node_to_value, type_name};

/// ContextCore's `PropagationStatus` for one field at a boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldStatus {
    /// Present, and of the declared type.
    Propagated,
    /// Warning severity: missing or mistyped; the declared default applies.
    Defaulted,
    /// Advisory severity: missing or mistyped; only noted.
    Partial,
    /// Blocking severity: missing, null or mistyped.
    Failed,
}

/// One entry field of one next phase.
#[derive(Clone, Debug, Serialize)]
pub struct FieldResult {
    pub phase: String,
    pub field: String,
    pub status: FieldStatus,
    pub severity: &'static str,
    /// The declared `type`, if any.
    pub declared_type: Option<String>,
    /// Whether the declared type is one the check knows and verified.
    pub type_checked: bool,
    pub message: String,
    /// The declared `default` (for warning fields that are missing).
    pub default: Option<Value>,
}

/// Types the check knows (case-insensitive); others are not checked.
fn type_matches(declared: &str, value: &Value) -> Option<bool> {
    Some(match declared.trim().to_ascii_lowercase().as_str() {
        "str" | "string" | "text" => value.is_string(),
        "int" | "integer" => value.is_i64() || value.is_u64(),
        "float" | "number" | "double" => value.is_number(),
        "bool" | "boolean" => value.is_boolean(),
        "list" | "array" | "sequence" => value.is_array(),
        "dict" | "object" | "mapping" | "map" => value.is_object(),
        "any" => true,
        _ => return None,
    })
}

/// Where a dotted path lands in the context: every concrete path it
/// matches (a `*` segment matches each key or item) with its value, or
/// `None` where the path is absent.
fn resolve<'v>(
    value: &'v Value,
    segments: &[&str],
    path: String,
    out: &mut Vec<(String, Option<&'v Value>)>,
) {
    let Some((first, rest)) = segments.split_first() else {
        out.push((path, Some(value)));
        return;
    };
    let join = |seg: &str| {
        if path.is_empty() {
            seg.to_string()
        } else {
            format!("{path}.{seg}")
        }
    };
    match value {
        Value::Object(map) if *first == "*" => {
            for (key, child) in map {
                resolve(child, rest, join(key), out);
            }
        }
        Value::Array(items) if *first == "*" => {
            for (i, child) in items.iter().enumerate() {
                resolve(child, rest, join(&i.to_string()), out);
            }
        }
        Value::Object(map) => match map.get(*first) {
            Some(child) => resolve(child, rest, join(first), out),
            None => out.push((join(first), None)),
        },
        _ => out.push((join(first), None)),
    }
}

pub(crate) fn check_field(phase: &Phase, field: &Field, context: &Value) -> FieldResult {
    let name = field.name.value.as_str().to_string();
    let segments: Vec<&str> = name.split('.').collect();
    let mut found = Vec::new();
    resolve(context, &segments, String::new(), &mut found);
    let declared = field.field_type.as_ref().map(|t| t.value.clone());
    let mut type_checked = false;
    let mut problem = None;
    for (path, value) in &found {
        match value {
            None => {
                problem = Some(if path == &name {
                    format!("`{name}` is missing from the context")
                } else {
                    format!("`{name}` is missing from the context (no `{path}`)")
                });
                break;
            }
            Some(Value::Null) => {
                problem = Some(format!("`{path}` is null"));
                break;
            }
            Some(v) => {
                if let Some(declared) = &declared
                    && let Some(ok) = type_matches(declared, v)
                {
                    type_checked = true;
                    if !ok {
                        problem = Some(format!(
                            "`{path}` is {}, but its declared type is `{declared}`",
                            type_name(v)
                        ));
                        break;
                    }
                }
            }
        }
    }
    let severity = field.severity();
    let default = field
        .default
        .as_ref()
        .and_then(|node| node_to_value(node).ok())
        .filter(|v| !v.is_null());
    let (status, message) = match problem {
        None => {
            let mut message = "present".to_string();
            if let Some(declared) = &declared {
                message = if type_checked {
                    format!("present, of type `{declared}`")
                } else if found.is_empty() {
                    "present (no elements to check)".into()
                } else {
                    format!("present; type `{declared}` is not one phaselint checks")
                };
            }
            (FieldStatus::Propagated, message)
        }
        Some(problem) => match severity {
            FieldSeverity::Blocking => (FieldStatus::Failed, format!("{problem} (blocking)")),
            FieldSeverity::Warning => (
                FieldStatus::Defaulted,
                match &default {
                    Some(d) => format!("{problem}; the declared default {d} applies"),
                    None => format!("{problem}; no default is declared"),
                },
            ),
            FieldSeverity::Advisory => (FieldStatus::Partial, format!("{problem} (advisory)")),
        },
    };
    FieldResult {
        phase: phase.name.clone(),
        field: name,
        status,
        severity: severity.as_str(),
        declared_type: declared,
        type_checked,
        message,
        default: if status == FieldStatus::Defaulted {
            default
        } else {
            None
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(context: &str, field: &str) -> Vec<(String, bool)> {
        let value: Value = serde_json::from_str(context).unwrap();
        let segments: Vec<&str> = field.split('.').collect();
        let mut out = Vec::new();
        resolve(&value, &segments, String::new(), &mut out);
        out.into_iter().map(|(p, v)| (p, v.is_some())).collect()
    }

    #[test]
    fn dotted_and_wildcard_paths() {
        assert_eq!(
            paths(r#"{"a": {"b": 1}}"#, "a.b"),
            [("a.b".to_string(), true)]
        );
        assert_eq!(paths(r#"{"a": 1}"#, "a.b"), [("a.b".to_string(), false)]);
        assert_eq!(
            paths(r#"{"t": [{"id": 1}, {}]}"#, "t.*.id"),
            [("t.0.id".to_string(), true), ("t.1.id".to_string(), false)]
        );
    }

    #[test]
    fn known_types() {
        let v = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert_eq!(type_matches("INT", &v("3")), Some(true));
        assert_eq!(type_matches("int", &v("3.5")), Some(false));
        assert_eq!(type_matches("float", &v("3")), Some(true));
        assert_eq!(type_matches("dict", &v("{}")), Some(true));
        assert_eq!(type_matches("Path", &v("\"x\"")), None);
    }
}
