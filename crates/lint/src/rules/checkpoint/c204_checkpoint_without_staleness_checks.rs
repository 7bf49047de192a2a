use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "C204",
    name: "checkpoint-without-staleness-checks",
    family: Family::Checkpoint,
    default_severity: Severity::Info,
    default_enabled: true,
    fix: FixAvailability::None,
    needs: &[],
    levels: &[],
    points_at: "the `checkpoint_id` value",
    always_on: false,
    suppressible: true,
    summary: "A checkpoint with no staleness checks",
    doc: include_str!("../../../../../rules/C204.md"),
    check: Some(Check::Contract(check)),
};

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
