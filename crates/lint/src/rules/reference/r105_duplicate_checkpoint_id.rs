use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "R105",
    name: "duplicate-checkpoint-id",
    family: Family::Reference,
    default_severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::None,
    needs: &[],
    levels: &[],
    points_at: "the second `checkpoint_id` value",
    always_on: false,
    suppressible: true,
    summary: "Two checkpoints share a checkpoint_id",
    doc: include_str!("../../../../../rules/R105.md"),
    check: Some(Check::Contract(check)),
};

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let ids = ctx
        .contract
        .checkpoints
        .iter()
        .filter_map(|c| c.checkpoint_id.as_ref());
    super::report_duplicates(&RULE, ids, "checkpoint_id", out);
}
