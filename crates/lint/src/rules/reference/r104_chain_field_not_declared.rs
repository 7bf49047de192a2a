use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "R104",
    name: "chain-field-not-declared",
    family: Family::Reference,
    default_severity: Severity::Warning,
    summary: "A chain's field is not declared at its endpoint (source: exit; destination: entry)",
    doc: include_str!("../../../../../rules/R104.md"),
    check: Some(check),
};

fn check(ctx: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    for chain in &ctx.contract.chains {
        let id = chain
            .chain_id
            .as_ref()
            .map_or("(unnamed)", |c| c.value.as_str());
        if let Some(source) = &chain.source
            && let (Some(phase), Some(field)) = (
                source
                    .phase
                    .as_ref()
                    .and_then(|p| ctx.contract.phase(&p.value)),
                &source.field,
            )
            && !phase.produces(&field.value)
        {
            out.push(
                RULE.diagnostic(
                    field.span,
                    format!(
                        "chain `{id}` starts with `{}`, which phase `{}` does not produce",
                        field.value, phase.name
                    ),
                )
                .with_help(format!(
                    "add `{}` to `phases.{}.exit`",
                    field.value, phase.name
                )),
            );
        }
        if let Some(destination) = &chain.destination
            && let (Some(phase), Some(field)) = (
                destination
                    .phase
                    .as_ref()
                    .and_then(|p| ctx.contract.phase(&p.value)),
                &destination.field,
            )
            && !phase.reads(&field.value)
        {
            out.push(
                RULE.diagnostic(
                    field.span,
                    format!(
                        "chain `{id}` ends with `{}`, which phase `{}` does not declare on entry",
                        field.value, phase.name
                    ),
                )
                .with_help(format!(
                    "add `{}` to `phases.{}.entry.required` or `entry.enrichment`",
                    field.value, phase.name
                )),
            );
        }
    }
}
