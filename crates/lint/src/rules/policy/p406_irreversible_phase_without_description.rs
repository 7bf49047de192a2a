use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::model::{EnumValue, SideEffects};
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "P406",
    "irreversible-phase-without-description",
    Family::Policy,
    Severity::Warning,
    "A phase with `side_effects: irreversible` has no description",
)
.points_at("the phase's name")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    for phase in &ctx.contract.phases {
        let Some(side_effects) = phase
            .side_effects()
            .filter(|s| s.value == SideEffects::Irreversible)
        else {
            continue;
        };
        if phase
            .description()
            .is_some_and(|d| !d.value.trim().is_empty())
        {
            continue;
        }
        out.push(
            RULE.diagnostic(
                phase.name_span,
                format!(
                    "phase `{}` has `{}` side effects and no description: an operator asked to approve a resume into it sees nothing but its name",
                    phase.name,
                    side_effects.value.as_str()
                ),
            )
            .with_related(side_effects.span, "its side effects cannot be undone")
            .with_help(format!(
                "add `description:` to phase `{}`, saying what it changes outside the run (what it writes, sends, pays or deletes), so the person approving a resume knows what they let happen",
                phase.name
            )),
        );
    }
}
