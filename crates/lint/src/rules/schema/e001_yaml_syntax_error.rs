use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = Rule {
    code: "E001",
    name: "yaml-syntax-error",
    family: Family::Schema,
    default_severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::None,
    needs: &[],
    levels: &[],
    points_at: "where the YAML stops parsing",
    always_on: true,
    suppressible: false,
    summary: "The file is not valid YAML",
    doc: include_str!("../../../../../rules/E001.md"),
    check: None,
};

pub(crate) fn diagnostic(parser_message: &str, offset: usize, language: &str) -> Diagnostic {
    RULE.diagnostic(
        Span::empty(offset),
        format!("{language} syntax error: {parser_message}"),
    )
    .with_help(format!(
        "fix the {language} at this position; nothing else in the file is checked until it parses"
    ))
}
