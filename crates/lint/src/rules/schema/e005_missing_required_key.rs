use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = Rule {
    code: "E005",
    name: "missing-required-key",
    family: Family::Schema,
    default_severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::None,
    needs: &[],
    levels: &[],
    points_at: "the first line of the mapping that lacks the key",
    always_on: false,
    suppressible: true,
    summary: "A required key is absent",
    doc: include_str!("../../../../../rules/E005.md"),
    check: None,
};

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
