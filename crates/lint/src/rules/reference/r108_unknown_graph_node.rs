use std::collections::HashSet;

use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::model::Spanned;
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};
use crate::suggest::Suggester;

pub(crate) static RULE: Rule = rule!(
    "R108",
    "unknown-graph-node",
    Family::Reference,
    Severity::Error,
    "graph_topology names an unknown node, or a node without a phase",
)
.fix(FixAvailability::Unsafe)
.points_at("the unknown name")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let contract = ctx.contract;
    let Some(topology) = &contract.topology else {
        return;
    };
    if !contract.phases_known {
        return;
    }
    let mut suggester = Suggester::new();
    for node in &topology.nodes {
        if contract.phase(&node.id.value).is_none() {
            out.push(super::unknown_phase(
                &RULE,
                ctx,
                &node.id,
                "graph node",
                &mut suggester,
            ));
        }
    }
    // A reference to a declared node that lacks a phase was reported at the
    // node; reporting each reference again would only repeat it.
    let nodes: HashSet<&str> = topology.nodes.iter().map(|n| n.id.value.as_str()).collect();
    let mut reference = |name: &Spanned<String>, what: &str| {
        if contract.phase(&name.value).is_none() && !nodes.contains(name.value.as_str()) {
            out.push(super::unknown_phase(&RULE, ctx, name, what, &mut suggester));
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
