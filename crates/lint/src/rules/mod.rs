//! The rule registry. A rule is one file: its metadata (code, name, default
//! severity, the page from `rules/CODE.md`) and either a check over the model
//! and graph, or the constructors the schema walk calls for its findings.

mod checkpoint;
mod graph;
mod reference;
pub(crate) mod schema;

use crate::config::Settings;
use crate::diagnostic::{Diagnostic, Severity};
use crate::graph::PhaseGraph;
use crate::model::Contract;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Schema,
    Reference,
    Checkpoint,
    Graph,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Schema => "schema",
            Family::Reference => "reference",
            Family::Checkpoint => "checkpoint",
            Family::Graph => "graph",
        }
    }
}

/// What a rule sees: the model, its graph and the settings for this file.
pub struct RuleContext<'a> {
    pub contract: &'a Contract,
    pub graph: &'a PhaseGraph,
    pub settings: &'a Settings,
}

pub type Check = fn(&RuleContext<'_>, &mut Vec<Diagnostic>);

#[derive(Debug)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub family: Family,
    pub default_severity: Severity,
    /// One line, for `phaselint rule` and completion details.
    pub summary: &'static str,
    /// The rule's page, `rules/CODE.md`, embedded.
    pub doc: &'static str,
    /// `None` for findings produced while reading the document (E0xx, S00x).
    pub check: Option<Check>,
}

impl Rule {
    pub fn diagnostic(&self, span: crate::syntax::Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.code, self.default_severity, span, message)
    }
}

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
    &graph::g307_unreachable_chain_destination::RULE,
    &graph::g308_chain_field_dropped::RULE,
];

pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .copied()
        .find(|r| r.code.eq_ignore_ascii_case(code))
}

/// Runs every model-level rule; schema findings come from the build step.
pub(crate) fn run(context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    for rule in RULES {
        if let Some(check) = rule.check
            && context.settings.is_enabled(rule.code)
        {
            check(context, out);
        }
    }
}
