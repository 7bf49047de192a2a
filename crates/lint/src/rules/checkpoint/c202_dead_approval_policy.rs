use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "C202",
    name: "dead-approval-policy",
    family: Family::Checkpoint,
    default_severity: Severity::Warning,
    default_enabled: true,
    fix: FixAvailability::None,
    needs: &[],
    levels: &[],
    points_at: "the `checkpoint_id` value",
    always_on: false,
    suppressible: true,
    summary: "approval_policy set while approval_required is false",
    doc: include_str!("../../../../../rules/C202.md"),
    check: Some(Check::Contract(check)),
};

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    for spec in &ctx.contract.checkpoints {
        let on_resume = &spec.on_resume;
        let Some(policy) = &on_resume.approval_policy else {
            continue;
        };
        if !on_resume.approval_required() {
            use crate::model::EnumValue;
            out.push(
                RULE.diagnostic(
                    super::anchor(spec),
                    format!(
                        "checkpoint `{}` sets approval_policy `{}` but does not require approval, so the policy never applies",
                        super::name(spec),
                        policy.value.as_str()
                    ),
                )
                .with_related(policy.span, "policy set here")
                .with_help("set `approval_required: true`, or remove approval_policy"),
            );
        }
    }
}
