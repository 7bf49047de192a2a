use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = rule!(
    "E005",
    "missing-required-key",
    Family::Schema,
    Severity::Error,
    "A required key is absent",
)
.points_at("the first line of the mapping that lacks the key");

/// `first_line` is the first line of the mapping that lacks the key.
pub(crate) fn diagnostic(first_line: Span, path: &str, key: &str, json: bool) -> Diagnostic {
    RULE.diagnostic(
        first_line,
        format!("{path} is missing the required key `{key}`"),
    )
    .with_help(if json {
        format!("add `\"{key}\": ...` to this object")
    } else {
        format!("add `{key}:` to this mapping")
    })
}
