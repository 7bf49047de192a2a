use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = rule!(
    "E007",
    "unloadable-document",
    Family::Schema,
    Severity::Error,
    "Not a mapping at the root, not UTF-8, or over a size, depth or alias limit",
)
.points_at("the start of the file, or where a limit is crossed");

/// `what` is what the file was read as: "a contract", "a harness config".
pub(crate) fn diagnostic(span: Span, problem: &str, what: &str) -> Diagnostic {
    RULE.diagnostic(span, format!("cannot load this file as {what}: {problem}"))
}
