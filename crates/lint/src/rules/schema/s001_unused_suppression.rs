use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::rules::{Family, FixAvailability, Rule};
use crate::syntax::Span;

pub(crate) static RULE: Rule = rule!(
    "S001",
    "unused-suppression",
    Family::Schema,
    Severity::Info,
    "A suppression comment that silenced nothing",
)
.fix(FixAvailability::Safe)
.points_at("the code inside the comment")
.not_suppressible();

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
