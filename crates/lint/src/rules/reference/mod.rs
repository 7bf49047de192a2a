//! Names that must refer to something declared elsewhere in the contract.

pub(crate) mod r101_unknown_checkpoint_phase;
pub(crate) mod r102_staleness_field_not_produced;
pub(crate) mod r103_unknown_chain_phase;
pub(crate) mod r104_chain_field_not_declared;
pub(crate) mod r105_duplicate_checkpoint_id;
pub(crate) mod r106_duplicate_chain_id;
pub(crate) mod r107_unknown_source_phase;
pub(crate) mod r108_unknown_graph_node;
pub(crate) mod r109_duplicate_staleness_field;
pub(crate) mod r110_source_phase_does_not_produce;

use crate::diagnostic::{Applicability, Diagnostic};
use crate::findings::Findings;
use crate::model::Spanned;
use crate::rules::{Rule, RuleContext};
use crate::suggest::Suggester;

/// How many declared phases a help line lists when none is close.
const PHASES_LISTED: usize = 10;

/// "`x` is not a declared phase", with a did-you-mean fix when one is close.
fn unknown_phase(
    rule: &Rule,
    ctx: &RuleContext<'_>,
    name: &Spanned<String>,
    what: &str,
    suggester: &mut Suggester,
) -> Diagnostic {
    let contract = ctx.contract;
    let diagnostic = rule.diagnostic(
        name.span,
        format!("{what} `{}` is not a declared phase", name.value),
    );
    match suggester.closest(&name.value, contract.phase_names()) {
        Some(suggestion) => {
            let mut diagnostic = diagnostic.with_help(format!("did you mean `{suggestion}`?"));
            diagnostic.fix = crate::scalar_edit::fix(
                format!("Replace with `{suggestion}`"),
                Applicability::Unsafe,
                ctx.source,
                name.span,
                suggestion,
            )
            .map(Box::new);
            diagnostic
        }
        None => {
            let mut listed: Vec<&str> = contract.phase_names().take(PHASES_LISTED).collect();
            let more = contract.phases.len().saturating_sub(PHASES_LISTED);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            if listed.is_empty() {
                listed.push("(none)");
            }
            diagnostic.with_help(format!(
                "name a declared phase ({}{more}), or declare `{}` under `phases`",
                listed.join(", "),
                name.value
            ))
        }
    }
}

/// Reports every later occurrence of a repeated id, pointing back at the first.
fn report_duplicates<'a>(
    rule: &Rule,
    ids: impl Iterator<Item = &'a Spanned<String>>,
    what: &str,
    out: &mut Findings,
) {
    let mut first: std::collections::HashMap<&str, &Spanned<String>> =
        std::collections::HashMap::new();
    for id in ids {
        match first.get(id.value.as_str()) {
            Some(original) => out.push(
                rule.diagnostic(id.span, format!("duplicate {what} `{}`", id.value))
                    .with_related(original.span, "first used here")
                    .with_help(format!("each {what} must be unique; rename one of them")),
            ),
            None => {
                first.insert(&id.value, id);
            }
        }
    }
}
