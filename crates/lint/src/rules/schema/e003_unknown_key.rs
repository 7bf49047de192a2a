use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = Rule {
    code: "E003",
    name: "unknown-key",
    family: Family::Schema,
    default_severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Unsafe,
    needs: &[],
    levels: &[],
    points_at: "the unknown key",
    always_on: false,
    suppressible: true,
    summary: "A key the contract format does not define at this level",
    doc: include_str!("../../../../../rules/E003.md"),
    check: None,
};

/// `suggestion` is the valid key the unknown one most likely means (the
/// caller prefers keys the mapping lacks); `valid` lists them all.
pub(crate) fn diagnostic(
    source: &str,
    key: &str,
    span: Span,
    path: &str,
    suggestion: Option<&str>,
    valid: &[&'static str],
) -> Diagnostic {
    let diagnostic = RULE.diagnostic(span, format!("unknown key `{key}` in {path}"));
    match suggestion {
        Some(suggestion) => {
            let mut diagnostic = diagnostic.with_help(format!("did you mean `{suggestion}`?"));
            diagnostic.fix = crate::scalar_edit::fix(
                format!("Rename `{key}` to `{suggestion}`"),
                Applicability::Unsafe,
                source,
                span,
                suggestion,
            );
            diagnostic
        }
        None => diagnostic.with_help(format!("valid keys here: {}", valid.join(", "))),
    }
}

pub(crate) fn extension_in_contextcore_dialect(key: &str, span: Span, path: &str) -> Diagnostic {
    RULE.diagnostic(
        span,
        format!("`{key}` in {path} is a phaselint extension that ContextCore rejects"),
    )
    .with_help(
        "remove it, or set `dialect = \"phaselint\"` if this contract is not loaded by ContextCore",
    )
}
