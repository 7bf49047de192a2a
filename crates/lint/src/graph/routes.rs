//! Chain routes (G307, G308): for each leg of a propagation chain, whether
//! its destination is reachable and whether its field passes every edge on
//! some path, one solver run for all legs.

use std::ops::Range;

use fixedbitset::FixedBitSet;

use super::analyses::EdgeFilter;
use super::answers::Route;
use super::structure::{EdgeOrigin, PhaseGraph, Ragged};
use crate::dataflow::{self, Direction, FlowProblem, Meet, Window};
use crate::field_path::{FieldIndex, merge_ranges};
use crate::model::Contract;

impl PhaseGraph {
    /// The legs of chain `chain` (by position in `Contract::chains`), one
    /// per pair of consecutive stops; empty when a stop names no known
    /// phase (R103's finding) or the chain lacks a source or destination.
    pub(crate) fn chain_routes(&self, chain: usize) -> &[Route] {
        self.chain_routes
            .get_or_init(|| ChainRoutes::solve(self))
            .get(chain)
            .map_or(&[], Vec::as_slice)
    }
}

/// The legs of every propagation chain (G307, G308): a forward problem whose
/// facts are the legs, each added at its start phase. A leg's fact reaches
/// its end phase in the "reaches" lane if any path leads there, and in the
/// "passes" lane if a path does whose every edge lets the leg's field
/// through. One solve answers every chain, where a search per chain would
/// cost the graph once per chain.
struct ChainRoutes {
    /// Per topology edge that restricts what passes, the legs it lets
    /// through (leg ids are grouped by field, so these are few ranges).
    edge_filters: Vec<Option<EdgeFilter>>,
    /// Per phase, the legs that start there.
    starting: Ragged<u32>,
    /// Per phase, the legs that end there.
    ending: Ragged<u32>,
    /// Per leg id, where its answer goes: (chain, leg).
    slots: Vec<(usize, usize)>,
    answers: Vec<Vec<Route>>,
}

const REACHES: usize = 0;
const PASSES: usize = 1;

impl ChainRoutes {
    fn solve(graph: &PhaseGraph) -> Vec<Vec<Route>> {
        let contract: &Contract = &graph.contract;
        // Every leg with its field (legs without one never stop at an edge).
        type Leg<'p> = (
            Option<&'p crate::field_path::FieldPath>,
            usize,
            usize,
            (usize, usize),
        );
        let mut legs: Vec<Leg<'_>> = Vec::new();
        let mut answers: Vec<Vec<Route>> = Vec::with_capacity(contract.chains.len());
        for (c, chain) in contract.chains.iter().enumerate() {
            let stops: Option<Vec<(usize, Option<&crate::field_path::FieldPath>)>> =
                if chain.source.is_none() || chain.destination.is_none() {
                    None
                } else {
                    chain
                        .stops()
                        .map(|stop| {
                            let phase = contract.phase_index(&stop.phase.as_ref()?.value)?;
                            Some((phase, stop.field.as_ref().map(|f| &f.value)))
                        })
                        .collect()
                };
            let mut routes = Vec::new();
            for (l, pair) in stops.unwrap_or_default().windows(2).enumerate() {
                let ((from, field), (to, _)) = (pair[0], pair[1]);
                // In declaration order every edge goes forward and passes all.
                let forward = to > from && to < graph.phase_count();
                routes.push(Route {
                    from,
                    to,
                    reaches: forward,
                    passes: forward,
                });
                if graph.from_topology() {
                    legs.push((field, from, to, (c, l)));
                }
            }
            answers.push(routes);
        }
        if legs.is_empty() {
            return answers;
        }
        let fields = FieldIndex::new(legs.iter().filter_map(|leg| leg.0));
        let field_of = |leg: &Leg<'_>| {
            leg.0
                .and_then(|f| fields.id(f.as_str()))
                .map_or(u32::MAX, |id| id)
        };
        legs.sort_by_key(|leg| field_of(leg));
        let with_field = legs.iter().filter(|leg| field_of(leg) != u32::MAX).count();
        let mut field_start = vec![legs.len() as u32; fields.len() + 1];
        field_start[fields.len()] = with_field as u32;
        for (id, leg) in legs.iter().enumerate().rev() {
            let field = field_of(leg);
            if field != u32::MAX {
                field_start[field as usize] = id as u32;
            }
        }
        for f in (0..fields.len()).rev() {
            field_start[f] = field_start[f].min(field_start[f + 1]);
        }
        let n = graph.phase_count();
        let mut starting = Vec::with_capacity(legs.len());
        let mut ending = Vec::with_capacity(legs.len());
        let mut slots = Vec::with_capacity(legs.len());
        for (id, &(_, from, to, slot)) in legs.iter().enumerate() {
            starting.push((from as u32, id as u32));
            ending.push((to as u32, id as u32));
            slots.push(slot);
            // The solver answers every leg; none is assumed.
            answers[slot.0][slot.1].reaches = false;
            answers[slot.0][slot.1].passes = false;
        }
        // The legs whose field a name covers, as id ranges.
        let legs_of = |names: &mut dyn Iterator<Item = &crate::field_path::FieldPath>| {
            let mut ranges = Vec::new();
            for name in names {
                fields.covered_by(name, |covered| {
                    let start = field_start[covered.start as usize];
                    let end = field_start[covered.end as usize];
                    if start < end {
                        ranges.push(start..end);
                    }
                });
            }
            merge_ranges(&mut ranges);
            ranges
        };
        // Legs without a field are stopped by no edge.
        let fieldless = field_start[fields.len()]..legs.len() as u32;
        let edge_filters = contract
            .topology
            .as_ref()
            .map_or(&[][..], |t| t.edges.as_slice())
            .iter()
            .map(|edge| {
                (edge.preserves.is_some() || !edge.drops.is_empty()).then(|| EdgeFilter {
                    keep: edge.preserves.as_ref().map(|kept| {
                        let mut keep = legs_of(&mut kept.iter().map(|k| &k.value));
                        keep.push(fieldless.clone());
                        merge_ranges(&mut keep);
                        keep
                    }),
                    drop: legs_of(&mut edge.drops.iter().map(|d| &d.value)),
                })
            })
            .collect();
        let mut problem = ChainRoutes {
            edge_filters,
            starting: Ragged::from_pairs(n, starting),
            ending: Ragged::from_pairs(n, ending),
            slots,
            answers,
        };
        dataflow::solve(graph, &mut problem);
        problem.answers
    }
}

impl FlowProblem for ChainRoutes {
    fn direction(&self) -> Direction {
        Direction::Forward
    }

    fn lanes(&self) -> &'static [Meet] {
        &[Meet::Any, Meet::Any]
    }

    fn facts(&self) -> usize {
        self.slots.len()
    }

    /// A leg sets out from its first stop's phase.
    fn adds(&self, _lane: usize, node: usize, visit: &mut dyn FnMut(Range<u32>)) {
        for &leg in self.starting.row(node) {
            visit(leg..leg + 1);
        }
    }

    fn boundary(&self, _lane: usize, _node: usize, _visit: &mut dyn FnMut(Range<u32>)) {}

    /// In the "passes" lane, an edge stops the legs whose field it drops or
    /// does not preserve.
    fn restrict(
        &self,
        lane: usize,
        edge: EdgeOrigin,
        window: &Window,
        set: &mut FixedBitSet,
        scratch: &mut FixedBitSet,
    ) {
        if lane == PASSES
            && let EdgeOrigin::Topology(i) = edge
            && let Some(Some(filter)) = self.edge_filters.get(i)
        {
            filter.apply(window, set, scratch);
        }
    }

    fn answer(&mut self, node: usize, window: &Window, lanes: &[FixedBitSet]) {
        for &leg in self.ending.row(node) {
            if !window.contains(leg) {
                continue;
            }
            let bit = (leg - window.start) as usize;
            let (chain, at) = self.slots[leg as usize];
            let route = &mut self.answers[chain][at];
            route.reaches = lanes[REACHES].contains(bit);
            route.passes = lanes[PASSES].contains(bit);
        }
    }
}
