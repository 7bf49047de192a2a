//! What the generator decides before it writes: each phase, chain,
//! checkpoint and diamond, and the spacing of the periodic ones.

/// A propagation chain starts at every phase `i` with `i % CHAIN_EVERY == 1`.
pub(super) const CHAIN_EVERY: usize = 10;
/// A checkpoint covers every phase `i` with `i % CHECKPOINT_EVERY == 5`.
pub(super) const CHECKPOINT_EVERY: usize = 25;
/// A diamond forks at every phase `i` with `i % DIAMOND_EVERY == 6` (topology only).
pub(super) const DIAMOND_EVERY: usize = 12;
pub(super) const PIPELINE_INPUTS: &[&str] = &["project_root", "request_id"];

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Plain,
    /// One of the two parallel phases after the fork at the given phase.
    Branch(usize),
    /// The phase where the branches of the fork at the given phase join.
    Merge(usize),
}

pub(super) struct ExitField {
    pub(super) name: String,
    pub(super) ty: &'static str,
    pub(super) severity: &'static str,
    pub(super) description: String,
    pub(super) quality: Option<(&'static str, &'static str)>,
}

pub(super) struct EntryField {
    pub(super) name: String,
    pub(super) ty: &'static str,
    pub(super) severity: &'static str,
    pub(super) source_phase: Option<usize>,
    pub(super) description: String,
}

pub(super) struct PhasePlan {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) entry_required: Vec<EntryField>,
    pub(super) enrichment: Vec<EntryField>,
    pub(super) exit_required: Vec<ExitField>,
    pub(super) exit_optional: Vec<ExitField>,
    pub(super) expected_duration: Option<&'static str>,
    pub(super) long_running: bool,
    /// `side_effects` and `risk_class`, when set (the governance rules).
    pub(super) side_effects: Option<&'static str>,
    pub(super) risk_class: Option<&'static str>,
}

pub(super) struct ChainPlan {
    pub(super) id: String,
    pub(super) source: usize,
    pub(super) waypoints: Vec<usize>,
    pub(super) destination: usize,
    pub(super) field: String,
    pub(super) severity: &'static str,
    pub(super) verification: Option<&'static str>,
}

pub(super) struct CheckpointPlan {
    pub(super) phase: usize,
    pub(super) fields: Vec<(String, u64, &'static str, &'static str)>,
    pub(super) approval: bool,
}

pub(super) struct Diamond {
    pub(super) fork: usize,
    pub(super) shared_field: String,
    /// Fields the merge and later phases require from the fork or before.
    pub(super) preserves: Vec<String>,
}
