//! The registry: every rule in code order, looked up by code, and run.
//! A file of its own, apart from the declaration types in `mod.rs`, so the
//! rule files import those without importing the list that names them.

use super::{
    Check, HarnessContext, Rule, RuleContext, checkpoint, diff, graph, harness, policy, reference,
    schema,
};
use crate::findings::Findings;
use crate::settings::Settings;

/// Every rule, in code order.
pub static RULES: &[&Rule] = &[
    &schema::e001_yaml_syntax_error::RULE,
    &schema::e002_duplicate_key::RULE,
    &schema::e003_unknown_key::RULE,
    &schema::e004_wrong_type::RULE,
    &schema::e005_missing_required_key::RULE,
    &schema::e006_invalid_enum_value::RULE,
    &schema::e007_unloadable_document::RULE,
    &schema::s001_unused_suppression::RULE,
    &schema::s002_non_canonical_case::RULE,
    &reference::r101_unknown_checkpoint_phase::RULE,
    &reference::r102_staleness_field_not_produced::RULE,
    &reference::r103_unknown_chain_phase::RULE,
    &reference::r104_chain_field_not_declared::RULE,
    &reference::r105_duplicate_checkpoint_id::RULE,
    &reference::r106_duplicate_chain_id::RULE,
    &reference::r107_unknown_source_phase::RULE,
    &reference::r108_unknown_graph_node::RULE,
    &reference::r109_duplicate_staleness_field::RULE,
    &reference::r110_source_phase_does_not_produce::RULE,
    &checkpoint::c201_approval_without_policy::RULE,
    &checkpoint::c202_dead_approval_policy::RULE,
    &checkpoint::c203_uncovered_long_running_phase::RULE,
    &checkpoint::c204_checkpoint_without_staleness_checks::RULE,
    &checkpoint::c205_non_positive_max_age::RULE,
    &checkpoint::c206_fail_recovery_not_blocking::RULE,
    &checkpoint::c207_blocking_with_log_and_continue::RULE,
    &checkpoint::c208_revalidate_without_successor::RULE,
    &graph::g301_unreachable_phase::RULE,
    &graph::g302_cycle_without_invariant::RULE,
    &graph::g303_unavailable_entry_field::RULE,
    &graph::g304_dead_write::RULE,
    &graph::g305_unprotected_mutation::RULE,
    &graph::g306_unguarded_risk_escalation::RULE,
    &graph::g307_unreachable_chain_destination::RULE,
    &graph::g308_chain_field_dropped::RULE,
    &policy::p401_irreversible_without_human_gate::RULE,
    &policy::p402_unauthorized_never_mode::RULE,
    &policy::p403_unsafe_verification::RULE,
    &policy::p404_persisted_secret::RULE,
    &policy::p405_always_mode_mutation_without_checkpoint::RULE,
    &policy::p406_irreversible_phase_without_description::RULE,
    &harness::h501_duplicate_checkpoint_name::RULE,
    &harness::h502_unknown_trigger::RULE,
    &harness::h503_unsafe_checkpoint_name::RULE,
    &diff::D601_CHECKPOINT_REMOVED,
    &diff::D602_CHECKPOINT_PHASE_CHANGED,
    &diff::D603_RESUME_TARGETS_CHANGED,
    &diff::D604_NEW_BLOCKING_ENTRY_REQUIREMENT,
    &diff::D605_FIELD_TYPE_CHANGED,
    &diff::D606_RESUMED_PHASE_RAISED,
    &diff::D611_TARGET_DIGEST_CHANGED,
    &diff::D612_STALENESS_TIGHTENED,
    &diff::D613_APPROVAL_STRENGTHENED,
    &diff::D614_PIPELINE_ID_CHANGED,
    &diff::D621_PHASE_ADDED,
    &diff::D622_LIMITS_LOOSENED,
];

pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .copied()
        .find(|r| r.code.as_str().eq_ignore_ascii_case(code))
}

/// Runs every model-level rule of contracts; schema findings come from the
/// build step.
pub(crate) fn run(context: &RuleContext<'_>, out: &mut Findings) {
    for rule in RULES {
        if let Some(Check::Contract(check)) = rule.check
            && context.settings.is_enabled(rule.code.as_str())
            && rule.needs.iter().all(|need| need.holds(context.contract))
        {
            check(context, out);
        }
    }
}

/// Runs every model-level rule of harness configs.
pub(crate) fn run_harness(context: &HarnessContext<'_>, settings: &Settings, out: &mut Findings) {
    for rule in RULES {
        if let Some(Check::Harness(check)) = rule.check
            && settings.is_enabled(rule.code.as_str())
        {
            check(context, out);
        }
    }
}
