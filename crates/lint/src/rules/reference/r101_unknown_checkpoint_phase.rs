use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "R101",
    name: "unknown-checkpoint-phase",
    family: Family::Reference,
    default_severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Unsafe,
    needs: &[],
    levels: &[],
    points_at: "the checkpoint's `phase` value",
    always_on: false,
    suppressible: true,
    summary: "A checkpoint's phase is not a declared phase",
    doc: include_str!("../../../../../rules/R101.md"),
    check: Some(Check::Contract(check)),
};

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
