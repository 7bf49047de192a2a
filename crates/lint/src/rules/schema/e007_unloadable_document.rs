use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = Rule {
    code: "E007",
    name: "unloadable-document",
    family: Family::Schema,
    default_severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::None,
    needs: &[],
    levels: &[],
    points_at: "the start of the file, or where a limit is crossed",
    always_on: true,
    suppressible: false,
    summary: "Not a mapping at the root, not UTF-8, or over a size, depth or alias limit",
    doc: include_str!("../../../../../rules/E007.md"),
    check: None,
};

/// `what` is what the file was read as: "a contract", "a harness config".
pub(crate) fn diagnostic(span: Span, problem: &str, what: &str) -> Diagnostic {
    RULE.diagnostic(span, format!("cannot load this file as {what}: {problem}"))
}
