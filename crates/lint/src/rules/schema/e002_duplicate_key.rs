use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = rule!(
    "E002",
    "duplicate-key",
    Family::Schema,
    Severity::Error,
    "A mapping has the same key twice",
)
.points_at("the second occurrence of the key");

pub(crate) fn diagnostic(
    key: &str,
    path: &str,
    first: Span,
    second: Span,
    json: bool,
) -> Diagnostic {
    RULE.diagnostic(second, format!("duplicate key `{key}` in {path}"))
        .with_related(first, format!("`{key}` first defined here"))
        .with_help(if json {
            "JSON parsers keep only the last value (or refuse the file); remove one of the two or merge them"
        } else {
            "YAML loaders keep only the last value; remove one of the two or merge them"
        })
}
