use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::model::CheckpointMode;
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "P402",
    "unauthorized-never-mode",
    Family::Policy,
    Severity::Error,
    "`checkpoint_mode: never` without checkpoint_mode_authorization",
)
.points_at("the `never` value of `checkpoint_mode`")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let contract = ctx.contract;
    let Some(mode) = contract
        .checkpoint_mode
        .as_ref()
        .filter(|m| m.value == CheckpointMode::Never)
    else {
        return;
    };
    if contract.checkpoint_mode_authorization.is_some() {
        return;
    }
    out.push(
        RULE.diagnostic(
            mode.span,
            "`checkpoint_mode: never` turns every checkpoint off, and no checkpoint_mode_authorization says who allowed it",
        )
        .with_help(
            "add `checkpoint_mode_authorization:` with `authorized_by`, `reason` and `trust_tier` at the top level, or remove `checkpoint_mode: never`",
        ),
    );
}
