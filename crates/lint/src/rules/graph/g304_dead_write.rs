use crate::diagnostic::{Diagnostic, Severity};
use crate::field_path::FieldIndex;
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
    // A schema error removed fields or edges: what looks unavailable or
    // unread may only be what the error explains.
    if !ctx.contract.fields_complete() || !ctx.contract.topology_complete() {
        return;
    }
    let contract = ctx.contract;
    let graph = ctx.graph;
    // Fields that chains name or staleness checks watch count as read.
    let named = FieldIndex::new(
        contract
            .chains
            .iter()
            .flat_map(|c| c.stops())
            .filter_map(|s| s.field.as_ref())
            .chain(
                contract
                    .checkpoints
                    .iter()
                    .flat_map(|c| &c.on_resume.staleness_checks)
                    .filter_map(|s| s.field.as_ref()),
            )
            .map(|f| &f.value),
    );
    for (i, phase) in contract.phases.iter().enumerate() {
        // A terminal phase's exits are the pipeline's outputs.
        if graph.successors(i).next().is_none() {
            continue;
        }
        for (field, &read_later) in phase.exit_fields().zip(graph.exit_read_later(i)) {
            let name = &field.name.value;
            if read_later || named.any_overlapping(name) {
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
