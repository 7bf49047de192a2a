use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "C201",
    "approval-without-policy",
    Family::Checkpoint,
    Severity::Error,
    "approval_required: true without approval_policy (REQ-10-003)",
)
.points_at("the `checkpoint_id` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    for spec in &ctx.contract.checkpoints {
        let on_resume = &spec.on_resume;
        if on_resume.approval_required() && on_resume.approval_policy.is_none() {
            let mut diagnostic = RULE
                .diagnostic(
                    super::anchor(spec),
                    format!("checkpoint `{}` requires approval but names no approval_policy", super::name(spec)),
                )
                .with_help("add `approval_policy: human`, `orchestrator`, `human_or_orchestrator` or `auto_if_fresh` under on_resume");
            if let Some(required) = &on_resume.approval_required {
                diagnostic = diagnostic.with_related(required.span, "approval required here");
            }
            out.push(diagnostic);
        }
    }
}
