use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, Need, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "C208",
    "revalidate-without-successor",
    Family::Checkpoint,
    Severity::Info,
    "revalidate_entry: true on a phase with no successor",
)
.needs(&[Need::CompleteTopology])
.points_at("the `checkpoint_id` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    for spec in &ctx.contract.checkpoints {
        let Some(revalidate) = spec.on_resume.revalidate_entry.as_ref().filter(|r| r.value) else {
            continue;
        };
        let Some(phase) = spec
            .phase
            .as_ref()
            .and_then(|p| ctx.contract.phase_index(&p.value))
        else {
            continue;
        };
        if ctx.graph.successors(phase).next().is_none() {
            out.push(
                RULE.diagnostic(
                    super::anchor(spec),
                    format!(
                        "checkpoint `{}` revalidates entry, but phase `{}` has no successor whose entry could be revalidated",
                        super::name(spec),
                        ctx.contract.phases[phase].name
                    ),
                )
                .with_related(revalidate.span, "set here")
                .with_help("remove `revalidate_entry: true`; resuming after the last phase only finishes the run"),
            );
        }
    }
}
