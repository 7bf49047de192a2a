//! Entry revalidation: the entry requirements of the phase(s) the run
//! resumes into, checked against the context the way ContextCore's
//! `BoundaryValidator.validate_entry` does, plus declared types.

use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::Value;

use crate::model::{Field, FieldSeverity, Phase};
use crate::resume::document::type_name;

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
    pub severity: FieldSeverity,
    /// The declared `type`, if any.
    pub(crate) declared_type: Option<String>,
    /// Whether the declared type is one the check knows and verified.
    pub(crate) type_checked: bool,
    pub message: String,
    /// The declared `default` (for warning fields that are missing).
    pub(crate) default: Option<Value>,
}

/// A declared type the check knows: what values it lets through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TypeKind {
    Text,
    Integer,
    Number,
    Boolean,
    List,
    Mapping,
    Any,
}

impl TypeKind {
    /// The kind of a declared type (case-insensitive); `None` for a type
    /// the check does not know, and so does not check.
    pub(crate) fn of(declared: &str) -> Option<TypeKind> {
        Some(match declared.trim().to_ascii_lowercase().as_str() {
            "str" | "string" | "text" => TypeKind::Text,
            "int" | "integer" => TypeKind::Integer,
            "float" | "number" | "double" => TypeKind::Number,
            "bool" | "boolean" => TypeKind::Boolean,
            "list" | "array" | "sequence" => TypeKind::List,
            "dict" | "object" | "mapping" | "map" => TypeKind::Mapping,
            "any" => TypeKind::Any,
            _ => return None,
        })
    }

    fn matches(self, value: &Value) -> bool {
        match self {
            TypeKind::Text => value.is_string(),
            TypeKind::Integer => value.is_i64() || value.is_u64(),
            TypeKind::Number => value.is_number(),
            TypeKind::Boolean => value.is_boolean(),
            TypeKind::List => value.is_array(),
            TypeKind::Mapping => value.is_object(),
            TypeKind::Any => true,
        }
    }

    /// Whether every value of kind `other` is of this kind too.
    pub(crate) fn admits_every(self, other: TypeKind) -> bool {
        self == other
            || self == TypeKind::Any
            || (self == TypeKind::Number && other == TypeKind::Integer)
    }
}

/// Types the check knows (case-insensitive); others are not checked.
fn type_matches(declared: &str, value: &Value) -> Option<bool> {
    TypeKind::of(declared).map(|kind| kind.matches(value))
}

/// How many context values the entry check of one resume may visit. A
/// wildcard field (`big.*.*`) visits every value it matches; past this
/// many in all, the check stops and gives no verdict rather than run on.
pub(crate) const ENTRY_VISIT_BUDGET: u64 = 100_000_000;

/// The entry check ran out of its visit budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooMuchWork;

/// One step of a concrete path through the context.
#[derive(Clone, Copy)]
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

fn path_text(steps: &[Step<'_>]) -> String {
    let mut text = String::new();
    for step in steps {
        if !text.is_empty() {
            text.push('.');
        }
        match step {
            Step::Key(key) => text.push_str(key),
            Step::Index(i) => text.push_str(&i.to_string()),
        }
    }
    text
}

/// The first problem on the way along every concrete path a dotted field
/// name matches (a `*` segment matches each key or item), found without
/// building the paths that have none.
struct Walk<'a> {
    name: &'a str,
    declared: Option<&'a str>,
    /// Values at the end of a path.
    matched: usize,
    type_checked: bool,
    problem: Option<String>,
    budget: &'a mut u64,
}

impl Walk<'_> {
    /// Walks `segments` down from `value`; `Break` once a problem is found.
    fn walk<'v>(
        &mut self,
        value: &'v Value,
        segments: &[&str],
        steps: &mut Vec<Step<'v>>,
    ) -> Result<ControlFlow<()>, TooMuchWork> {
        *self.budget = self.budget.checked_sub(1).ok_or(TooMuchWork)?;
        let Some((first, rest)) = segments.split_first() else {
            return Ok(self.arrive(value, steps));
        };
        match value {
            Value::Object(map) if *first == "*" => {
                for (key, child) in map {
                    steps.push(Step::Key(key));
                    let flow = self.walk(child, rest, steps)?;
                    steps.pop();
                    if flow.is_break() {
                        return Ok(flow);
                    }
                }
                Ok(ControlFlow::Continue(()))
            }
            Value::Array(items) if *first == "*" => {
                for (i, child) in items.iter().enumerate() {
                    steps.push(Step::Index(i));
                    let flow = self.walk(child, rest, steps)?;
                    steps.pop();
                    if flow.is_break() {
                        return Ok(flow);
                    }
                }
                Ok(ControlFlow::Continue(()))
            }
            Value::Object(map) => match map.get_key_value(*first) {
                Some((key, child)) => {
                    steps.push(Step::Key(key));
                    let flow = self.walk(child, rest, steps)?;
                    steps.pop();
                    Ok(flow)
                }
                None => Ok(self.missing(steps, first)),
            },
            _ => Ok(self.missing(steps, first)),
        }
    }

    fn missing(&mut self, steps: &[Step<'_>], segment: &str) -> ControlFlow<()> {
        let mut path = path_text(steps);
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(segment);
        self.problem = Some(if path == self.name {
            format!("`{}` is missing from the context", self.name)
        } else {
            format!("`{}` is missing from the context (no `{path}`)", self.name)
        });
        ControlFlow::Break(())
    }

    fn arrive(&mut self, value: &Value, steps: &[Step<'_>]) -> ControlFlow<()> {
        self.matched += 1;
        if value.is_null() {
            self.problem = Some(format!("`{}` is null", path_text(steps)));
            return ControlFlow::Break(());
        }
        if let Some(declared) = self.declared
            && let Some(ok) = type_matches(declared, value)
        {
            self.type_checked = true;
            if !ok {
                self.problem = Some(format!(
                    "`{}` is {}, but its declared type is `{declared}`",
                    path_text(steps),
                    type_name(value)
                ));
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
}

/// What the context holds for one field name and declared type: the
/// first problem, whether a type was checked, whether anything matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Lookup {
    problem: Option<String>,
    type_checked: bool,
    matched: bool,
}

/// Looks `name` up in `context`, charging the values visited to `budget`.
pub(crate) fn look_up(
    context: &Value,
    name: &str,
    declared: Option<&str>,
    budget: &mut u64,
) -> Result<Lookup, TooMuchWork> {
    let segments: Vec<&str> = name.split('.').collect();
    let mut walk = Walk {
        name,
        declared,
        matched: 0,
        type_checked: false,
        problem: None,
        budget,
    };
    // Context documents nest at most 128 levels (the parsers' limits), and
    // the walk goes no deeper than the context does. What stopped it, if
    // anything, is in `walk.problem`.
    let _stopped = walk.walk(context, &segments, &mut Vec::new())?;
    Ok(Lookup {
        problem: walk.problem,
        type_checked: walk.type_checked,
        matched: walk.matched > 0,
    })
}

/// One entry field's result from what its name's lookup found; `default`
/// is the value of its `default`, when it has one.
pub(crate) fn check_field(
    phase: &Phase,
    field: &Field,
    lookup: &Lookup,
    default: Option<Value>,
) -> FieldResult {
    let name = field.name.value.as_str().to_string();
    let declared = field.field_type().map(|t| t.value.to_string());
    let type_checked = lookup.type_checked;
    let severity = field.severity();
    let (status, message) = match lookup.problem.clone() {
        None => {
            let mut message = "present".to_string();
            if let Some(declared) = &declared {
                message = if type_checked {
                    format!("present, of type `{declared}`")
                } else if !lookup.matched {
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
        severity,
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

    fn problem(context: &str, field: &str, declared: Option<&str>) -> Option<String> {
        let value: Value = serde_json::from_str(context).unwrap();
        look_up(&value, field, declared, &mut ENTRY_VISIT_BUDGET.clone())
            .unwrap()
            .problem
    }

    #[test]
    fn dotted_and_wildcard_paths() {
        assert_eq!(problem(r#"{"a": {"b": 1}}"#, "a.b", None), None);
        assert_eq!(
            problem(r#"{"a": 1}"#, "a.b", None).as_deref(),
            Some("`a.b` is missing from the context")
        );
        assert_eq!(
            problem(r#"{"t": [{"id": 1}, {}]}"#, "t.*.id", None).as_deref(),
            Some("`t.*.id` is missing from the context (no `t.1.id`)")
        );
        assert_eq!(
            problem(r#"{"t": [{"id": 1}, {"id": "x"}]}"#, "t.*.id", Some("int")).as_deref(),
            Some("`t.1.id` is a string, but its declared type is `int`")
        );
        assert_eq!(
            problem(r#"{"t": {"a": null}}"#, "t.*", None).as_deref(),
            Some("`t.a` is null")
        );
    }

    #[test]
    fn wildcards_over_a_large_context_stop_at_the_budget() {
        let items: Vec<Value> = (0..1000).map(|i| Value::from(vec![i; 100])).collect();
        let context = serde_json::json!({ "big": items });
        let mut budget = 150_000;
        let first = look_up(&context, "big.*.*", Some("int"), &mut budget).unwrap();
        assert_eq!(first.problem, None);
        assert!(first.type_checked);
        // 1 + 1 + 1,000 + 100,000 values visited; a second walk runs out.
        assert_eq!(budget, 150_000 - 101_002);
        assert_eq!(
            look_up(&context, "big.*.*", None, &mut budget),
            Err(TooMuchWork)
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
