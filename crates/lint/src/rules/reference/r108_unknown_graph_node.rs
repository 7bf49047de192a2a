use crate::diagnostic::{Diagnostic, Severity};
use crate::model::Spanned;
use crate::rules::{Family, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "R108",
    name: "unknown-graph-node",
    family: Family::Reference,
    default_severity: Severity::Error,
    summary: "graph_topology names an unknown node, or a node without a phase",
    doc: include_str!("../../../../../rules/R108.md"),
    check: Some(check),
};

fn check(ctx: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    let contract = ctx.contract;
    let Some(topology) = &contract.topology else {
        return;
    };
    if !contract.phases_known {
        return;
    }
    for node in &topology.nodes {
        if contract.phase(&node.id.value).is_none() {
            out.push(super::unknown_phase(
                &RULE,
                contract,
                &node.id,
                "graph node",
            ));
        }
    }
    // A reference to a declared node that lacks a phase was reported at the
    // node; reporting each reference again would only repeat it.
    let is_node = |name: &str| topology.nodes.iter().any(|n| n.id.value == name);
    let mut reference = |name: &Spanned<String>, what: &str| {
        if contract.phase(&name.value).is_none() && !is_node(&name.value) {
            out.push(super::unknown_phase(&RULE, contract, name, what));
        }
    };
    for edge in &topology.edges {
        for end in [&edge.from, &edge.to].into_iter().flatten() {
            reference(end, "edge endpoint");
        }
    }
    for merge in &topology.merge_points {
        if let Some(node) = &merge.node {
            reference(node, "merge point node");
        }
        for source in &merge.sources {
            reference(source, "merge source");
        }
    }
    for cycle in &topology.cycle_invariants {
        for node in &cycle.nodes {
            reference(node, "cycle invariant node");
        }
    }
}
