use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "R106",
    name: "duplicate-chain-id",
    family: Family::Reference,
    default_severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::None,
    needs: &[],
    levels: &[],
    points_at: "the second `chain_id` value",
    always_on: false,
    suppressible: true,
    summary: "Two propagation chains share a chain_id",
    doc: include_str!("../../../../../rules/R106.md"),
    check: Some(Check::Contract(check)),
};

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let ids = ctx
        .contract
        .chains
        .iter()
        .filter_map(|c| c.chain_id.as_ref());
    super::report_duplicates(&RULE, ids, "chain_id", out);
}
