use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "R101",
    "unknown-checkpoint-phase",
    Family::Reference,
    Severity::Error,
    "A checkpoint's phase is not a declared phase",
)
.fix(FixAvailability::Unsafe)
.points_at("the checkpoint's `phase` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let mut suggester = crate::suggest::Suggester::new();
    for spec in &ctx.contract.checkpoints {
        if let Some(phase) = &spec.phase
            && ctx.contract.is_unknown_phase(&phase.value)
        {
            out.push(super::unknown_phase(
                &RULE,
                ctx,
                phase,
                "checkpoint phase",
                &mut suggester,
            ));
        }
    }
}
