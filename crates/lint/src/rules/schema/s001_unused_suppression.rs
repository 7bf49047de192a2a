use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = Rule {
    code: "S001",
    name: "unused-suppression",
    family: Family::Schema,
    default_severity: Severity::Info,
    default_enabled: true,
    fix: FixAvailability::Safe,
    needs: &[],
    levels: &[],
    points_at: "the code inside the comment",
    always_on: false,
    suppressible: false,
    summary: "A suppression comment that silenced nothing",
    doc: include_str!("../../../../../rules/S001.md"),
    check: None,
};

/// `code_span` covers the code in the comment; `removal` is what deleting it takes.
pub(crate) fn diagnostic(
    code: &str,
    code_span: Span,
    removal: Span,
    file_level: bool,
) -> Diagnostic {
    let scope = if file_level {
        "in this file"
    } else {
        "on this line or the next"
    };
    RULE.diagnostic(
        code_span,
        format!("unused suppression: no {code} finding {scope}"),
    )
    .with_help("remove the code from the comment; stale suppressions hide future findings")
    .with_fix(Fix {
        title: format!("Remove unused suppression of {code}"),
        applicability: Applicability::Safe,
        edits: vec![crate::diagnostic::Edit {
            span: removal,
            replacement: String::new(),
        }],
    })
}
