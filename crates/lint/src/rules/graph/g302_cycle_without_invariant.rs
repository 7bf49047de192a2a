use crate::diagnostic::{Diagnostic, Severity};
use crate::graph::EdgeOrigin;
use crate::rules::{Family, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "G302",
    name: "cycle-without-invariant",
    family: Family::Graph,
    default_severity: Severity::Warning,
    summary: "A cycle with no cycle_invariants entry",
    doc: include_str!("../../../../../rules/G302.md"),
    check: Some(check),
};

fn check(ctx: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    // A schema error in graph_topology changed the edges: stay silent.
    if !ctx.contract.topology_complete() {
        return;
    }
    let contract = ctx.contract;
    let invariants = contract
        .topology
        .as_ref()
        .map_or(&[][..], |t| t.cycle_invariants.as_slice());
    for cycle in ctx.graph.cycles() {
        let names: Vec<&str> = cycle
            .iter()
            .map(|&p| contract.phases[p].name.as_str())
            .collect();
        let declared = invariants
            .iter()
            .any(|inv| inv.nodes.iter().any(|n| names.contains(&n.value.as_str())));
        if declared {
            continue;
        }
        // Point at the edge that closes the loop: the first edge inside the
        // cycle that goes back to an earlier-declared phase.
        let closing = ctx
            .graph
            .edges()
            .filter(|(from, to, _)| {
                cycle.binary_search(from).is_ok() && cycle.binary_search(to).is_ok()
            })
            .find(|(from, to, _)| to <= from);
        let span = match closing {
            Some((_, _, EdgeOrigin::Topology(i))) => contract
                .topology
                .as_ref()
                .and_then(|t| t.edges.get(i))
                .and_then(|e| e.to.as_ref().map(|t| t.span)),
            _ => None,
        }
        .unwrap_or(contract.phases[cycle[0]].name_span);
        let mut diagnostic = RULE
            .diagnostic(
                span,
                format!(
                    "cycle through {} has no cycle_invariants entry: nothing bounds its iterations or says which fields must survive them",
                    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                ),
            )
            .with_help("add a graph_topology.cycle_invariants entry listing these nodes, max_iterations and invariant_fields");
        for &p in cycle {
            diagnostic = diagnostic.with_related(contract.phases[p].name_span, "in the cycle");
        }
        out.push(diagnostic);
    }
}
