use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, Need, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "G307",
    "unreachable-chain-destination",
    Family::Graph,
    Severity::Warning,
    "A chain's destination is not reachable from its source through its waypoints in order",
)
.needs(&[Need::CompleteTopology])
.points_at("the stop's `phase` value that cannot be reached")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let contract = ctx.contract;
    for (c, chain) in contract.chains.iter().enumerate() {
        let Some(stops) = super::resolved_stops(contract, chain) else {
            continue;
        };
        let routes = ctx.graph.chain_routes(c);
        for (pair, route) in stops.windows(2).zip(routes) {
            let ((from, from_stop), (to, to_stop)) = (pair[0], pair[1]);
            if from == to || route.reaches {
                continue;
            }
            let (Some(from_phase), Some(to_phase)) = (&from_stop.phase, &to_stop.phase) else {
                continue;
            };
            out.push(
                RULE.diagnostic(
                    to_phase.span,
                    format!(
                        "chain `{}` cannot reach `{}` from `{}`: no path in the phase graph leads there",
                        super::chain_name(chain),
                        to_phase.value,
                        from_phase.value
                    ),
                )
                .with_related(from_phase.span, "previous stop")
                .with_help("remove or reorder the chain's stops so they follow the pipeline, or add the missing graph_topology edge"),
            );
            break;
        }
    }
}
