use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::suggest::closest;
use crate::syntax::Span;

pub(crate) static RULE: Rule = Rule {
    code: "E006",
    name: "invalid-enum-value",
    family: Family::Schema,
    default_severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Unsafe,
    needs: &[],
    levels: &[],
    points_at: "the value",
    always_on: false,
    suppressible: true,
    summary: "A value that is not one of the allowed values",
    doc: include_str!("../../../../../rules/E006.md"),
    check: None,
};

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
