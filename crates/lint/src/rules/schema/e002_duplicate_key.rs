use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = Rule {
    code: "E002",
    name: "duplicate-key",
    family: Family::Schema,
    default_severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::None,
    needs: &[],
    levels: &[],
    points_at: "the second occurrence of the key",
    always_on: false,
    suppressible: true,
    summary: "A mapping has the same key twice",
    doc: include_str!("../../../../../rules/E002.md"),
    check: None,
};

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
