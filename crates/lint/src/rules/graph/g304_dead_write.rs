use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "G304",
    name: "dead-write",
    family: Family::Graph,
    default_severity: Severity::Info,
    summary: "An exit field of a non-terminal phase that nothing later reads, chains or watches",
    doc: include_str!("../../../../../rules/G304.md"),
    check: Some(check),
};

fn check(ctx: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    let contract = ctx.contract;
    let graph = ctx.graph;
    let chained = || {
        contract
            .chains
            .iter()
            .flat_map(|c| c.stops())
            .filter_map(|s| s.field.as_ref())
    };
    let watched = || {
        contract
            .checkpoints
            .iter()
            .flat_map(|c| &c.on_resume.staleness_checks)
            .filter_map(|s| s.field.as_ref())
    };
    for (i, phase) in contract.phases.iter().enumerate() {
        // A terminal phase's exits are the pipeline's outputs.
        if graph.successors(i).next().is_none() {
            continue;
        }
        for field in phase.exit_fields() {
            let name = &field.name.value;
            if graph.read_later(i, name)
                || chained().any(|f| f.value.overlaps(name))
                || watched().any(|f| f.value.overlaps(name))
            {
                continue;
            }
            out.push(
                RULE.diagnostic(
                    field.name.span,
                    format!("`{name}` is produced by `{}` but no later phase reads it", phase.name),
                )
                .with_help("read it in a later phase's entry, name it in a propagation chain, or remove it from exit"),
            );
        }
    }
}
