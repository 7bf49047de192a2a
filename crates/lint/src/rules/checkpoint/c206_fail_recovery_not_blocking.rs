use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::model::EnumValue;
use crate::model::{FieldSeverity, Recovery};
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "C206",
    "fail-recovery-not-blocking",
    Family::Checkpoint,
    Severity::Warning,
    "recovery: fail with on_stale other than blocking (fail always blocks)",
)
.points_at("the `recovery` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    for spec in &ctx.contract.checkpoints {
        for check in &spec.on_resume.staleness_checks {
            let (Some(recovery), Some(on_stale)) = (&check.recovery, &check.on_stale) else {
                continue;
            };
            if recovery.value == Recovery::Fail && on_stale.value != FieldSeverity::Blocking {
                out.push(
                    RULE.diagnostic(
                        recovery.span,
                        format!(
                            "`recovery: fail` always blocks the resume, but on_stale says `{}`",
                            on_stale.value.as_str()
                        ),
                    )
                    .with_related(on_stale.span, "severity set here")
                    .with_help("set `on_stale: blocking`, or choose a recovery that matches a non-blocking severity"),
                );
            }
        }
    }
}
