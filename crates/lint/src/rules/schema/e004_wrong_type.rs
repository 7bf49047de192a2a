use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = Rule {
    code: "E004",
    name: "wrong-type",
    family: Family::Schema,
    default_severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::None,
    summary: "A value has the wrong type",
    doc: include_str!("../../../../../rules/E004.md"),
    check: None,
};

pub(crate) fn diagnostic(span: Span, path: &str, expected: &str, found: &str) -> Diagnostic {
    RULE.diagnostic(span, format!("{path} must be {expected}, found {found}"))
}

pub(crate) fn invalid(span: Span, path: &str, problem: &str) -> Diagnostic {
    RULE.diagnostic(span, format!("{path} {problem}"))
}
