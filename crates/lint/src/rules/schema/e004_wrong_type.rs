use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = rule!(
    "E004",
    "wrong-type",
    Family::Schema,
    Severity::Error,
    "A value has the wrong type",
)
.points_at("the value");

pub(crate) fn diagnostic(
    span: Span,
    path: &str,
    expected: &str,
    found: &str,
    json: bool,
) -> Diagnostic {
    let diagnostic = RULE.diagnostic(span, format!("{path} must be {expected}, found {found}"));
    let help = if json {
        how_to_write_json(expected, found)
    } else {
        how_to_write(path, expected, found)
    };
    match help {
        Some(help) => diagnostic.with_help(help),
        None => diagnostic,
    }
}

/// How to write a value of the expected type, in YAML a person types.
fn how_to_write(path: &str, expected: &str, found: &str) -> Option<&'static str> {
    let field_entry = [".required[", ".optional[", ".enrichment["]
        .iter()
        .any(|list| path.contains(list));
    Some(match (expected, found) {
        ("a string", "an integer" | "a number" | "a boolean") => {
            "quote the value (`'0.2'`): unquoted, YAML reads it as a number or boolean"
        }
        ("a string", "null") => "write the value after the colon",
        (_, "null") if expected.starts_with("a mapping") => {
            "write `{}` for an empty mapping, or its keys indented under it"
        }
        (_, "a string") if field_entry && expected.starts_with("a mapping") => {
            "write the field as a mapping: `- name: answer`, not `- answer`"
        }
        (_, _) if expected.starts_with("a mapping") => {
            "write `key: value` lines indented under it, or `{ key: value }`"
        }
        ("a list", _) => "write `- item` lines, or `[a, b]`",
        ("an integer", _) => "write a whole number, without quotes",
        ("a number", _) => "write a number, without quotes",
        ("true or false", _) => "write `true` or `false`, without quotes",
        _ => return None,
    })
}

/// How to write a value of the expected type in JSON (a harness config).
fn how_to_write_json(expected: &str, found: &str) -> Option<&'static str> {
    Some(match (expected, found) {
        ("a string", "null") => "write a string in double quotes instead of `null`",
        ("a string", _) => "write it as a string, in double quotes: `\"7\"`",
        (_, _) if expected.starts_with("a mapping") => "write an object: `{\"key\": \"value\"}`",
        ("a list", _) => "write an array: `[{\"name\": \"...\"}]`",
        _ => return None,
    })
}

pub(crate) fn invalid(span: Span, path: &str, problem: &str) -> Diagnostic {
    RULE.diagnostic(span, format!("{path} {problem}"))
}
