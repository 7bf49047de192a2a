use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::model::{CheckpointMode, EnumValue, SideEffects};
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "P405",
    "always-mode-mutation-without-checkpoint",
    Family::Policy,
    Severity::Warning,
    "`checkpoint_mode: always`, and a side-effecting phase has no checkpoint_integrity entry",
)
.points_at("the phase's name")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let contract = ctx.contract;
    // Under `always` G305 counts every phase as checkpointed; this rule
    // asks whether the checkpoint after a mutation has a spec to check.
    let Some(mode) = contract
        .checkpoint_mode
        .as_ref()
        .filter(|m| m.value == CheckpointMode::Always)
    else {
        return;
    };
    for (index, phase) in contract.phases.iter().enumerate() {
        let class = phase.side_effect_class();
        if class == SideEffects::None || !ctx.checkpoints_on(index).is_empty() {
            continue;
        }
        out.push(
            RULE.diagnostic(
                phase.name_span,
                format!(
                    "phase `{}` has `{}` side effects and no checkpoint_integrity entry: `checkpoint_mode: always` says a checkpoint is taken after it, but nothing says what a resume after its side effects must check (staleness, entry fields, approval), and `resume-check` knows no checkpoint to check",
                    phase.name,
                    class.as_str()
                ),
            )
            .with_related(mode.span, "every phase is checkpointed here")
            .with_help(format!(
                "add a checkpoint_integrity entry with `phase: {}`, so the resume after its side effects is checked",
                phase.name
            )),
        );
    }
}
