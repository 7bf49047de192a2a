use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::suggest::closest;
use crate::syntax::Span;

pub(crate) static RULE: Rule = rule!(
    "E006",
    "invalid-enum-value",
    Family::Schema,
    Severity::Error,
    "A value that is not one of the allowed values",
)
.fix(FixAvailability::Unsafe)
.points_at("the value");

pub(crate) fn diagnostic(
    source: &str,
    value: &str,
    span: Span,
    path: &str,
    what: &str,
    allowed: &[&'static str],
) -> Diagnostic {
    let diagnostic = RULE.diagnostic(span, format!("`{value}` is not a valid {what} for {path}"));
    match closest(value, allowed.iter().copied()) {
        Some(suggestion) => {
            let mut diagnostic = diagnostic.with_help(format!(
                "did you mean `{suggestion}`? allowed: {}",
                allowed.join(", ")
            ));
            diagnostic.fix = crate::scalar_edit::fix(
                format!("Replace with `{suggestion}`"),
                Applicability::Unsafe,
                source,
                span,
                suggestion,
            )
            .map(Box::new);
            diagnostic
        }
        None => diagnostic.with_help(format!("allowed: {}", allowed.join(", "))),
    }
}
