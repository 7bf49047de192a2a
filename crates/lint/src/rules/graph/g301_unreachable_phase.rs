use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, Need, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "G301",
    "unreachable-phase",
    Family::Graph,
    Severity::Warning,
    "A phase unreachable from every entry phase, or isolated in a graph_topology with edges",
)
.needs(&[Need::CompleteTopology])
.points_at("the phase's name")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let graph = ctx.graph;
    // Every phase has an incoming edge: nothing can start. One finding on
    // the first phase says so, rather than one per phase.
    if graph.entries().is_empty() {
        if let Some(first) = ctx.contract.phases.first() {
            out.push(
                RULE.diagnostic(
                    first.name_span,
                    "no phase can start the pipeline: every phase has an incoming graph_topology edge, so every phase is unreachable",
                )
                .with_help(format!(
                    "remove the edge into the phase that should run first (e.g. `{}`), so it becomes the entry phase",
                    first.name
                )),
            );
        }
        return;
    }
    for (i, phase) in ctx.contract.phases.iter().enumerate() {
        if !graph.is_reachable(i) {
            out.push(
                RULE.diagnostic(
                    phase.name_span,
                    format!(
                        "phase `{}` is unreachable: no path leads to it from an entry phase",
                        phase.name
                    ),
                )
                .with_help(
                    "add a graph_topology edge into it from a phase that runs, or remove it",
                ),
            );
        } else if graph.from_topology() && !graph.has_edges(i) {
            out.push(
                RULE.diagnostic(
                    phase.name_span,
                    format!("phase `{}` has no edge in graph_topology, so it is cut off from the pipeline", phase.name),
                )
                .with_help(format!("add edges `from:`/`to: {}` to graph_topology.edges, or remove the phase", phase.name)),
            );
        }
    }
}
