use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::model::SideEffects;
use crate::rules::{Check, Family, Need, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "P401",
    "irreversible-without-human-gate",
    Family::Policy,
    Severity::Error,
    "An irreversible phase can be entered without a person approving",
)
.needs(&[Need::CompleteTopology])
.points_at("the phase's `side_effects` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let phases = &ctx.contract.phases;
    for (index, phase) in phases.iter().enumerate() {
        let Some(side_effects) = phase
            .side_effects()
            .filter(|s| s.value == SideEffects::Irreversible)
        else {
            continue;
        };
        if ctx.graph.is_entry(index) {
            out.push(
                RULE.diagnostic(
                    side_effects.span,
                    format!(
                        "irreversible phase `{}` is where the pipeline starts: no person can be asked before it runs",
                        phase.name
                    ),
                )
                .with_help(
                    "nothing before it can ask a person; add a phase before it with a human-approved checkpoint",
                ),
            );
            continue;
        }
        let mut ungated: Vec<usize> = ctx
            .graph
            .predecessors(index)
            .filter(|&p| {
                !ctx.checkpoints_on(p)
                    .iter()
                    .any(|c| c.on_resume.requires_human_approval())
            })
            .collect();
        ungated.sort_unstable();
        ungated.dedup();
        let Some(&first) = ungated.first() else {
            continue;
        };
        let names = crate::diagnostic::code_list(ungated.iter().map(|&p| &phases[p].name));
        let mut diagnostic = RULE
            .diagnostic(
                side_effects.span,
                format!(
                    "irreversible phase `{}` can be entered from {} without a person approving",
                    phase.name, names
                ),
            )
            .with_help(match ctx.checkpoints_on(first).first().and_then(|c| c.checkpoint_id.as_ref()) {
                Some(id) if ungated.len() == 1 => format!(
                    "set `approval_required: true` and `approval_policy: human` in the on_resume of checkpoint `{}` (on `{}`)",
                    id.value, phases[first].name
                ),
                _ => "give each phase before it a checkpoint_integrity entry with `on_resume: {approval_required: true, approval_policy: human}`".to_string(),
            });
        for &p in &ungated {
            diagnostic = diagnostic.with_related(
                phases[p].name_span,
                "no checkpoint here requires a person's approval (`approval_required: true`, `approval_policy: human`)",
            );
        }
        out.push(diagnostic);
    }
}
