use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "R105",
    "duplicate-checkpoint-id",
    Family::Reference,
    Severity::Error,
    "Two checkpoints share a checkpoint_id",
)
.points_at("the second `checkpoint_id` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let ids = ctx
        .contract
        .checkpoints
        .iter()
        .filter_map(|c| c.checkpoint_id.as_ref());
    super::report_duplicates(&RULE, ids, "checkpoint_id", out);
}
