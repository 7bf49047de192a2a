use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "C202",
    "dead-approval-policy",
    Family::Checkpoint,
    Severity::Warning,
    "approval_policy set while approval_required is false",
)
.points_at("the `checkpoint_id` value")
.check(Check::Contract(check));

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
