use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = rule!(
    "S002",
    "non-canonical-case",
    Family::Schema,
    Severity::Warning,
    "An enum value written in non-canonical case",
)
.fix(FixAvailability::Safe)
.points_at("the value");

/// `value` is the scalar as it reads (escapes decoded); the fix writes
/// `canonical` into the scalar in its own style, so a double-quoted
/// `"\U00000042LOCKING"` becomes `"blocking"`, not a lower-cased escape.
pub(crate) fn diagnostic(
    source: &str,
    value: &str,
    canonical: &str,
    span: Span,
    what: &str,
) -> Diagnostic {
    let mut diagnostic = RULE
        .diagnostic(
            span,
            format!("{what} `{value}` is not in canonical case; write `{canonical}`"),
        )
        .with_help("ContextCore accepts only lower-case values");
    diagnostic.fix = crate::scalar_edit::fix(
        format!("Lowercase to `{canonical}`"),
        Applicability::Safe,
        source,
        span,
        canonical,
    )
    .map(Box::new);
    diagnostic
}

/// Under `dialect = "contextcore"` the file would not load: an error.
pub(crate) fn as_contextcore_error(diagnostic: &mut Diagnostic) {
    diagnostic.severity = Severity::Error;
    diagnostic.help = Some(
        "ContextCore rejects values that are not lower case, so this file would fail to load; apply the fix (`phaselint lint --fix`)"
            .into(),
    );
}
