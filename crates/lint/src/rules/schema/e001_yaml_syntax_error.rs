use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = rule!(
    "E001",
    "yaml-syntax-error",
    Family::Schema,
    Severity::Error,
    "The file is not valid YAML",
)
.points_at("where the YAML stops parsing");

pub(crate) fn diagnostic(parser_message: &str, offset: usize, language: &str) -> Diagnostic {
    RULE.diagnostic(
        Span::empty(offset),
        format!("{language} syntax error: {parser_message}"),
    )
    .with_help(format!(
        "fix the {language} at this position; nothing else in the file is checked until it parses"
    ))
}
