use std::collections::HashMap;

use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::graph::EdgeOrigin;
use crate::rules::{Check, Family, Need, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "G302",
    "cycle-without-invariant",
    Family::Graph,
    Severity::Warning,
    "A cycle with no cycle_invariants entry",
)
.needs(&[Need::CompleteTopology])
.points_at("the `to` value of the edge that closes the cycle")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let contract = ctx.contract;
    let invariants = contract
        .topology
        .as_ref()
        .map_or(&[][..], |t| t.cycle_invariants.as_slice());
    // Per cyclic component, the edge that closes its loop: the first edge
    // inside it that goes back to an earlier-declared phase (one pass over
    // the edges for all cycles).
    let graph = ctx.graph;
    let mut closing: HashMap<usize, EdgeOrigin> = HashMap::new();
    for (from, to, origin) in graph.edges() {
        let component = graph.component_of(from);
        if to <= from && graph.component_of(to) == component {
            closing.entry(component).or_insert(origin);
        }
    }
    for cycle in ctx.graph.cycles() {
        let in_cycle = |name: &str| {
            contract
                .phase_index(name)
                .is_some_and(|p| cycle.binary_search(&p).is_ok())
        };
        let declared = invariants
            .iter()
            .any(|inv| inv.nodes.iter().any(|n| in_cycle(&n.value)));
        if declared {
            continue;
        }
        let span = match closing.get(&graph.component_of(cycle[0])) {
            Some(&EdgeOrigin::Topology(i)) => contract
                .topology
                .as_ref()
                .and_then(|t| t.edges.get(i))
                .and_then(|e| e.to.as_ref().map(|t| t.span)),
            _ => None,
        }
        .unwrap_or(contract.phases[cycle[0]].name_span);
        // A cycle through thousands of phases is named by its first few.
        let mut names: Vec<String> = cycle
            .iter()
            .take(SHOWN)
            .map(|&p| format!("`{}`", contract.phases[p].name))
            .collect();
        if cycle.len() > SHOWN {
            names.push(format!("and {} more phases", cycle.len() - SHOWN));
        }
        let mut diagnostic = RULE
            .diagnostic(
                span,
                format!(
                    "cycle through {} has no cycle_invariants entry: nothing bounds its iterations or says which fields must survive them",
                    names.join(", ")
                ),
            )
            .with_help("add a graph_topology.cycle_invariants entry listing these nodes, max_iterations and invariant_fields");
        for &p in cycle.iter().take(SHOWN) {
            diagnostic = diagnostic.with_related(contract.phases[p].name_span, "in the cycle");
        }
        out.push(diagnostic);
    }
}

/// How many of a cycle's phases a finding names and points at.
const SHOWN: usize = 10;
