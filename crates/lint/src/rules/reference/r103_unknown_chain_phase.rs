use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "R103",
    "unknown-chain-phase",
    Family::Reference,
    Severity::Error,
    "A chain endpoint or waypoint names an unknown phase",
)
.fix(FixAvailability::Unsafe)
.points_at("the endpoint's `phase` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let mut suggester = crate::suggest::Suggester::new();
    for chain in &ctx.contract.chains {
        for stop in chain.stops() {
            if let Some(phase) = &stop.phase
                && ctx.contract.is_unknown_phase(&phase.value)
            {
                out.push(super::unknown_phase(
                    &RULE,
                    ctx,
                    phase,
                    "chain phase",
                    &mut suggester,
                ));
            }
        }
    }
}
