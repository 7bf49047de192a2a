use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::graph::EdgeOrigin;
use crate::rules::{Check, Family, Need, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "G308",
    "chain-field-dropped",
    Family::Graph,
    Severity::Warning,
    "A chain whose field is dropped on every path from source to destination",
)
.needs(&[Need::CompleteTopology])
.points_at("the `chain_id` value")
.check(Check::Contract(check));

/// Findings that name the edges in the way; each costs a search of the
/// graph, so past this many in a file the rest go without.
const NAMED_EDGES_FOR: usize = 50;

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let contract = ctx.contract;
    let Some(topology) = &contract.topology else {
        return;
    };
    if !ctx.graph.from_topology() {
        return;
    }
    let mut searches_left = NAMED_EDGES_FOR;
    for (c, chain) in contract.chains.iter().enumerate() {
        let Some(stops) = super::resolved_stops(contract, chain) else {
            continue;
        };
        let routes = ctx.graph.chain_routes(c);
        for (pair, route) in stops.windows(2).zip(routes) {
            let ((from, from_stop), (to, _)) = (pair[0], pair[1]);
            let Some(field) = &from_stop.field else { break };
            if from == to {
                continue;
            }
            if !route.reaches {
                break; // G307's finding.
            }
            if route.passes {
                continue;
            }
            let anchor = chain.chain_id.as_ref().map_or(field.span, |c| c.span);
            let mut diagnostic = RULE
                .diagnostic(
                    anchor,
                    format!(
                        "chain `{}`: `{}` cannot arrive at `{}`: every path from `{}` drops it",
                        super::chain_name(chain),
                        field.value,
                        contract.phases[to].name,
                        contract.phases[from].name
                    ),
                )
                .with_help("add the field to the `preserves` list (or remove it from `drops`) of the edges on the way");
            if searches_left > 0 {
                searches_left -= 1;
                // Name the edges on the way that stop it: edges between
                // phases the source reaches, that do not pass the field.
                let passes = |origin: EdgeOrigin| match origin {
                    EdgeOrigin::Sequence => true,
                    EdgeOrigin::Topology(i) => {
                        topology.edges.get(i).is_none_or(|e| e.passes(&field.value))
                    }
                };
                let reachable = ctx.graph.reachable_from(from, |_| true);
                let blocking = ctx.graph.edges().filter_map(|(a, _, origin)| match origin {
                    EdgeOrigin::Topology(i)
                        if (a == from || reachable.contains(a)) && !passes(origin) =>
                    {
                        topology.edges.get(i)
                    }
                    _ => None,
                });
                for edge in blocking.take(4) {
                    diagnostic =
                        diagnostic.with_related(edge.span, "this edge does not pass the field");
                }
            }
            out.push(diagnostic);
            break;
        }
    }
}
