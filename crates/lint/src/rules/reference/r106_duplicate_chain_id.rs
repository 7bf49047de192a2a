use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "R106",
    "duplicate-chain-id",
    Family::Reference,
    Severity::Error,
    "Two propagation chains share a chain_id",
)
.points_at("the second `chain_id` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let ids = ctx
        .contract
        .chains
        .iter()
        .filter_map(|c| c.chain_id.as_ref());
    super::report_duplicates(&RULE, ids, "chain_id", out);
}
