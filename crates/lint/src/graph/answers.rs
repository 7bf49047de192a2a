//! What the field analyses answer, kept in the `PhaseGraph` once solved.

/// Whether a field is available at a phase's entry, by the data-flow fixpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Guaranteed on every path.
    Always,
    /// On some paths only, or only as an optional output.
    Sometimes,
    /// Produced on no path.
    Never,
}

/// How one leg of a propagation chain runs: from one stop's phase to the
/// next's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Route {
    pub(crate) from: usize,
    pub(crate) to: usize,
    /// Whether `to` is reachable from `from` by one or more edges.
    pub(crate) reaches: bool,
    /// Whether some such path lets the first stop's field through every
    /// edge (no `drops` of it, every `preserves` keeps it).
    pub(crate) passes: bool,
}
