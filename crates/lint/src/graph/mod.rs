//! The phase graph: one petgraph graph per contract, its edges those of
//! `graph_topology` or else declaration order, and the analyses every graph
//! rule reads. No analysis enumerates paths: each is a linear traversal or
//! a run of the one data-flow solver (`dataflow.rs`). The field analyses
//! run on first use, so rules that are turned off cost nothing (see
//! ARCHITECTURE.md for costs).

mod analyses;
mod answers;
mod routes;
mod structure;
#[cfg(test)]
mod tests;

pub(crate) use answers::Presence;
pub use structure::PhaseGraph;
pub(crate) use structure::{Direction, EdgeOrigin};
