//! The settings one analysis runs with: which codes are on and at what
//! level, and the thresholds the rules read. `config.rs` resolves them from
//! configuration files; the findings sink and the rules only read them, so
//! they do not depend on how configuration is found or validated.

use std::collections::HashMap;

use serde::Deserialize;

use crate::diagnostic::{Diagnostic, Severity};
use crate::rule_id::RuleId;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    #[default]
    Phaselint,
    /// Also report every phaselint extension key, so the file stays
    /// loadable by ContextCore.
    Contextcore,
}

impl Dialect {
    /// As a configuration file spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Dialect::Phaselint => "phaselint",
            Dialect::Contextcore => "contextcore",
        }
    }
}

/// The settings one analysis runs with.
#[derive(Clone, Debug)]
pub struct Settings {
    /// A level for every rule of the registry (`config.rs` builds it so).
    pub(crate) levels: HashMap<RuleId, RuleLevel>,
    pub(crate) long_running_threshold: u64,
    pub max_clock_skew: u64,
    pub dialect: Dialect,
    /// Only the orchestrator writes the context store, so the resume check
    /// may count a `human` approval read from the context (never for an
    /// irreversible next phase).
    pub trust_context_approvals: bool,
}

impl Settings {
    /// Every rule on, off-by-default ones included (`select = ["ALL"]`).
    pub fn all_rules() -> Self {
        let mut settings = Settings::default();
        for level in settings.levels.values_mut() {
            *level = RuleLevel::Default;
        }
        settings
    }

    /// The rule a code names, as a comment or a file writes it (upper
    /// case): the sink and the suppression comments, which sit below the
    /// registry, learn what a code is from the settings built from it.
    pub(crate) fn rule_id(&self, code: &str) -> Option<RuleId> {
        self.levels.get_key_value(code).map(|(&id, _)| id)
    }

    pub fn is_enabled(&self, code: &str) -> bool {
        self.levels.get(code).is_some_and(|l| *l != RuleLevel::Off)
    }

    /// The severity a finding of `code` is reported at, or `None` if the
    /// code is off. A rule with two levels (C205, G303) keeps its own
    /// choice unless a `[severity]` override names the code.
    pub(crate) fn level(&self, code: &str, reported: Severity) -> Option<Severity> {
        match self.levels.get(code) {
            Some(RuleLevel::Off) => None,
            Some(RuleLevel::Set(level)) => Some(*level),
            Some(RuleLevel::Default) | None => Some(reported),
        }
    }
}

impl Settings {
    /// Findings made outside an analysis's findings sink (`phaselint
    /// diff`'s D-codes) with these settings applied: a code turned off is
    /// dropped, a `[severity]` override sets the level of the others.
    pub fn apply_levels(&self, findings: Vec<Diagnostic>) -> Vec<Diagnostic> {
        findings
            .into_iter()
            .filter_map(|mut d| {
                d.severity = self.level(d.code.as_str(), d.severity)?;
                Some(d)
            })
            .collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RuleLevel {
    Off,
    Default,
    Set(Severity),
}
