use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = Rule {
    code: "S002",
    name: "non-canonical-case",
    family: Family::Schema,
    default_severity: Severity::Warning,
    default_enabled: true,
    fix: FixAvailability::Safe,
    needs: &[],
    levels: &[],
    points_at: "the value",
    always_on: false,
    suppressible: true,
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

/// Under `dialect = "contextcore"` the file would not load: an error.
pub(crate) fn as_contextcore_error(diagnostic: &mut Diagnostic) {
    diagnostic.severity = Severity::Error;
    diagnostic.help = Some(
        "ContextCore rejects values that are not lower case, so this file would fail to load; apply the fix (`phaselint lint --fix`)"
            .into(),
    );
}
