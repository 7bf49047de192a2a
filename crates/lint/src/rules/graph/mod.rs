//! Findings read off the phase graph: reachability, cycles, field
//! availability, chain routes, and the governance flows (G305, G306).

pub(crate) mod g301_unreachable_phase;
pub(crate) mod g302_cycle_without_invariant;
pub(crate) mod g303_unavailable_entry_field;
pub(crate) mod g304_dead_write;
pub(crate) mod g305_unprotected_mutation;
pub(crate) mod g306_unguarded_risk_escalation;
pub(crate) mod g307_unreachable_chain_destination;
pub(crate) mod g308_chain_field_dropped;

use crate::model::{Chain, Contract, Endpoint};

/// A chain's stops as (phase index, endpoint), or `None` when any stop names
/// no known phase (R103 reports that; route rules then stay silent).
fn resolved_stops<'c>(contract: &Contract, chain: &'c Chain) -> Option<Vec<(usize, &'c Endpoint)>> {
    chain.source.as_ref()?;
    chain.destination.as_ref()?;
    chain
        .stops()
        .map(|stop| {
            let phase = stop.phase.as_ref()?;
            Some((contract.phase_index(&phase.value)?, stop))
        })
        .collect()
}

fn chain_name(chain: &Chain) -> &str {
    chain
        .chain_id
        .as_ref()
        .map_or("(unnamed)", |c| c.value.as_str())
}
