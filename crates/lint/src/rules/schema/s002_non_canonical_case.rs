use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::rules::{Family, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = Rule {
    code: "S002",
    name: "non-canonical-case",
    family: Family::Schema,
    default_severity: Severity::Warning,
    summary: "An enum value written in non-canonical case",
    doc: include_str!("../../../../../rules/S002.md"),
    check: None,
};

/// `raw` is the value's source text, quotes included, so the fix keeps them.
pub(crate) fn diagnostic(raw: &str, canonical: &str, span: Span, what: &str) -> Diagnostic {
    RULE.diagnostic(
        span,
        format!(
            "{what} `{}` is not in canonical case; write `{canonical}`",
            raw.trim_matches(['"', '\''])
        ),
    )
    .with_help("ContextCore accepts only lower-case values")
    .with_fix(Fix::replace(
        format!("Lowercase to `{canonical}`"),
        Applicability::Safe,
        span,
        raw.to_lowercase(),
    ))
}
