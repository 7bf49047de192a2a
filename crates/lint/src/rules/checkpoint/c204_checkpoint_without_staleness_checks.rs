use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "C204",
    "checkpoint-without-staleness-checks",
    Family::Checkpoint,
    Severity::Info,
    "A checkpoint with no staleness checks",
)
.points_at("the `checkpoint_id` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    for spec in &ctx.contract.checkpoints {
        if spec.on_resume.staleness_checks.is_empty() {
            out.push(
                RULE.diagnostic(
                    super::anchor(spec),
                    format!(
                        "checkpoint `{}` has no staleness checks, so a resume never re-checks how old its context is",
                        super::name(spec)
                    ),
                )
                .with_help("add `on_resume.staleness_checks` for the fields that can go stale while the run is paused"),
            );
        }
    }
}
