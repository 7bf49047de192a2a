use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::model::EnumValue;
use crate::model::{FieldSeverity, Recovery};
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "C206",
    name: "fail-recovery-not-blocking",
    family: Family::Checkpoint,
    default_severity: Severity::Warning,
    default_enabled: true,
    fix: FixAvailability::None,
    needs: &[],
    levels: &[],
    points_at: "the `recovery` value",
    always_on: false,
    suppressible: true,
    summary: "recovery: fail with on_stale other than blocking (fail always blocks)",
    doc: include_str!("../../../../../rules/C206.md"),
    check: Some(Check::Contract(check)),
};

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
