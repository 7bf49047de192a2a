use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "R103",
    name: "unknown-chain-phase",
    family: Family::Reference,
    default_severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Unsafe,
    needs: &[],
    levels: &[],
    points_at: "the endpoint's `phase` value",
    always_on: false,
    suppressible: true,
    summary: "A chain endpoint or waypoint names an unknown phase",
    doc: include_str!("../../../../../rules/R103.md"),
    check: Some(Check::Contract(check)),
};

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
