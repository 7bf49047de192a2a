use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = rule!(
    "E003",
    "unknown-key",
    Family::Schema,
    Severity::Error,
    "A key the contract format does not define at this level",
)
.fix(FixAvailability::Unsafe)
.points_at("the unknown key");

/// The help of an unknown key without a suggestion: the valid keys of the
/// mapping. One text per mapping and key list for the whole process (a
/// file with a million unknown keys had a million copies of it).
pub(crate) fn valid_keys_help(mapping: &'static str, valid: &[&'static str]) -> &'static str {
    type Helps = Vec<(&'static str, Vec<&'static str>, &'static str)>;
    static HELPS: std::sync::Mutex<Helps> = std::sync::Mutex::new(Vec::new());
    let mut helps = HELPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, _, help)) = helps
        .iter()
        .find(|(name, keys, _)| *name == mapping && keys.as_slice() == valid)
    {
        return help;
    }
    // At most one per mapping of the format and dialect: a few dozen texts.
    let help: &'static str =
        Box::leak(format!("valid keys here: {}", valid.join(", ")).into_boxed_str());
    helps.push((mapping, valid.to_vec(), help));
    help
}

/// `suggestion` is the valid key the unknown one most likely means (the
/// caller prefers keys the mapping lacks); `help` lists the valid keys
/// (`valid_keys_help`).
pub(crate) fn diagnostic(
    source: &str,
    key: &str,
    span: Span,
    path: &str,
    suggestion: Option<&str>,
    help: &'static str,
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
            )
            .map(Box::new);
            diagnostic
        }
        None => diagnostic.with_help(help),
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
