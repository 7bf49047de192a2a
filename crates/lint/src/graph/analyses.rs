//! The field analyses of the phase graph, each a run of the one data-flow
//! solver (`dataflow.rs`): must/may availability at each entry (G303), what
//! a paused run holds for sure (D604) and "read later" liveness (G304).

use std::collections::HashMap;
use std::ops::Range;

use fixedbitset::FixedBitSet;

use super::answers::Presence;
use super::structure::{EdgeOrigin, PhaseGraph, Ragged};
use crate::dataflow::{self, Direction, FlowProblem, Meet, Window};
use crate::field_path::{FieldIndex, merge_ranges};
use crate::model::{Contract, FieldSeverity};

impl PhaseGraph {
    /// Whether each `(phase, field)` of `queries` is in the context on
    /// every path once `phase` has finished: what a run paused after
    /// `phase` holds for sure (`phaselint diff`, D604). Counted as in
    /// G303's availability: the pipeline inputs and an entry phase's
    /// required entry fields are given, a phase adds its `exit.required`
    /// and keeps its blocking entry fields, an edge lets through only its
    /// `preserves` and never its `drops`. One solve answers every query.
    pub(crate) fn held_after(
        &self,
        queries: &[(usize, &crate::field_path::FieldPath)],
    ) -> Vec<bool> {
        HeldAfter::solve(self, queries)
    }

    /// Whether each entry-required field of `phase` is available when it
    /// starts. Aligned with the phase's `entry_required`.
    pub fn entry_presence(&self, phase: usize) -> &[Presence] {
        self.entry_presence
            .get_or_init(|| Availability::solve(self))
            .row(phase)
    }

    /// Whether a phase reachable after `phase` reads a field overlapping
    /// each of its exit fields. Aligned with the phase's `exit_fields()`.
    pub fn exit_read_later(&self, phase: usize) -> &[bool] {
        self.exit_read_later
            .get_or_init(|| Liveness::solve(self))
            .row(phase)
    }
}

/// Adds the id ranges of the facts `names` cover to `into`, merged into as
/// few ranges as they can be.
fn cover<'a>(
    facts: &FieldIndex<'_>,
    names: impl Iterator<Item = &'a crate::field_path::FieldPath>,
    into: &mut Vec<Range<u32>>,
) {
    for name in names {
        facts.covered_by(name, |ids| into.push(ids));
    }
    merge_ranges(into);
}

/// Must/may availability of every entry-required field at every phase
/// entry (G303): a forward problem with an "on every path" lane and an "on
/// some path" lane.
struct Availability<'c> {
    facts: FieldIndex<'c>,
    /// Per phase, what it guarantees on exit (exit.required, and blocking
    /// entry fields, which stay in the context).
    must_gen: Ragged<Range<u32>>,
    /// Per phase, what it may add besides (exit.optional).
    may_gen: Ragged<Range<u32>>,
    /// Per entry phase, what the caller supplies for sure (the pipeline
    /// inputs and its required entry fields) and maybe (its enrichment).
    given_must: Ragged<Range<u32>>,
    given_may: Ragged<Range<u32>>,
    /// Per topology edge, what it lets through, when it restricts anything.
    edge_filters: Vec<Option<EdgeFilter>>,
    /// Per phase, the fact of each entry-required field, aligned with it.
    queries: Ragged<Option<u32>>,
    answers: Ragged<Presence>,
}

/// What a topology edge lets through, as fact ranges: only `keep` (its
/// `preserves`, when it lists them), never `drop` (its `drops`).
pub(super) struct EdgeFilter {
    pub(super) keep: Option<Vec<Range<u32>>>,
    pub(super) drop: Vec<Range<u32>>,
}

impl EdgeFilter {
    /// Restricts `set` to what topology edge `edge` lets through (its own
    /// filter, when it has one); other edges pass everything.
    fn apply_on(
        filters: &[Option<EdgeFilter>],
        edge: EdgeOrigin,
        window: &Window,
        set: &mut FixedBitSet,
        scratch: &mut FixedBitSet,
    ) {
        if let EdgeOrigin::Topology(i) = edge
            && let Some(Some(filter)) = filters.get(i)
        {
            filter.apply(window, set, scratch);
        }
    }

    /// Each topology edge's filter over `facts` (`None`: the edge
    /// neither lists `preserves` nor drops anything, so passes all).
    fn of_topology(contract: &Contract, facts: &FieldIndex<'_>) -> Vec<Option<EdgeFilter>> {
        contract
            .topology
            .as_ref()
            .map_or(&[][..], |t| t.edges.as_slice())
            .iter()
            .map(|edge| {
                (edge.preserves.is_some() || !edge.drops.is_empty()).then(|| {
                    EdgeFilter::of(
                        facts,
                        edge.preserves
                            .as_ref()
                            .map(|kept| kept.iter().map(|k| &k.value)),
                        edge.drops.iter().map(|d| &d.value),
                    )
                })
            })
            .collect()
    }

    fn of<'a>(
        facts: &FieldIndex<'_>,
        preserves: Option<impl Iterator<Item = &'a crate::field_path::FieldPath>>,
        drops: impl Iterator<Item = &'a crate::field_path::FieldPath>,
    ) -> Self {
        let keep = preserves.map(|names| {
            let mut ids = Vec::new();
            cover(facts, names, &mut ids);
            ids
        });
        let mut drop = Vec::new();
        cover(facts, drops, &mut drop);
        EdgeFilter { keep, drop }
    }

    pub(super) fn apply(&self, window: &Window, set: &mut FixedBitSet, scratch: &mut FixedBitSet) {
        if let Some(keep) = &self.keep {
            scratch.clear();
            scratch.grow(set.len());
            for ids in keep {
                if let Some(bits) = window.local(ids.clone()) {
                    scratch.insert_range(bits);
                }
            }
            set.intersect_with(scratch);
        }
        for ids in &self.drop {
            if let Some(bits) = window.local(ids.clone()) {
                set.set_range(bits, false);
            }
        }
    }
}

const MUST: usize = 0;
const MAY: usize = 1;

impl<'c> Availability<'c> {
    fn solve(graph: &'c PhaseGraph) -> Ragged<Presence> {
        let contract: &Contract = &graph.contract;
        let phases = &contract.phases;
        let n = phases.len();
        // What an entry phase requires, the caller gives it: only the entry
        // fields of later phases are worth solving for.
        let facts = FieldIndex::new(
            phases
                .iter()
                .enumerate()
                .filter(|&(i, _)| !graph.is_entry(i))
                .flat_map(|(_, p)| p.entry_required().iter().map(|f| &f.name.value)),
        );
        let names = |fields: &mut dyn Iterator<Item = &'c crate::model::Field>| {
            let mut ids = Vec::new();
            cover(&facts, fields.map(|f| &f.name.value), &mut ids);
            ids
        };
        let mut must_gen = Ragged::with_rows(n);
        let mut may_gen = Ragged::with_rows(n);
        for p in phases {
            let blocking_entry = p
                .entry_required()
                .iter()
                .filter(|f| f.severity() == FieldSeverity::Blocking);
            must_gen.push_row(names(&mut p.exit_required().iter().chain(blocking_entry)));
            may_gen.push_row(names(&mut p.exit_optional().iter()));
        }
        let mut inputs = Vec::new();
        cover(
            &facts,
            contract.pipeline_inputs.iter().map(|s| &s.value),
            &mut inputs,
        );
        let (mut given_must, mut given_may) = (Ragged::with_rows(n), Ragged::with_rows(n));
        for (i, phase) in phases.iter().enumerate() {
            if !graph.is_entry(i) {
                given_must.push_row([]);
                given_may.push_row([]);
                continue;
            }
            let mut must = names(&mut phase.entry_required().iter());
            must.extend(inputs.iter().cloned());
            merge_ranges(&mut must);
            let mut may = names(&mut phase.entry_enrichment().iter());
            may.extend(must.iter().cloned());
            merge_ranges(&mut may);
            given_must.push_row(must);
            given_may.push_row(may);
        }
        let edge_filters = EdgeFilter::of_topology(contract, &facts);
        let mut queries = Ragged::with_rows(n);
        // An entry phase has what it requires: the caller supplies it.
        let mut answers = Ragged::with_rows(n);
        for (i, p) in phases.iter().enumerate() {
            queries.push_row(
                p.entry_required()
                    .iter()
                    .map(|f| facts.id(f.name.value.as_str())),
            );
            let given = if graph.is_entry(i) {
                Presence::Always
            } else {
                Presence::Never
            };
            answers.push_row(std::iter::repeat_n(given, p.entry_required().len()));
        }
        let mut problem = Availability {
            facts,
            must_gen: must_gen.shrink(),
            may_gen: may_gen.shrink(),
            given_must: given_must.shrink(),
            given_may: given_may.shrink(),
            edge_filters,
            queries: queries.shrink(),
            answers: answers.shrink(),
        };
        dataflow::solve(graph, &mut problem);
        problem.answers
    }
}

impl FlowProblem for Availability<'_> {
    fn direction(&self) -> Direction {
        Direction::Forward
    }

    fn lanes(&self) -> &'static [Meet] {
        &[Meet::All, Meet::Any]
    }

    fn facts(&self) -> usize {
        self.facts.len()
    }

    fn adds(&self, lane: usize, node: usize, visit: &mut dyn FnMut(Range<u32>)) {
        self.must_gen
            .row(node)
            .iter()
            .cloned()
            .for_each(&mut *visit);
        if lane == MAY {
            self.may_gen.row(node).iter().cloned().for_each(visit);
        }
    }

    /// An entry phase gets the pipeline inputs and its own entry fields
    /// (required for sure, enrichment maybe); they stay in the context.
    fn boundary(&self, lane: usize, node: usize, visit: &mut dyn FnMut(Range<u32>)) {
        let given = if lane == MUST {
            self.given_must.row(node)
        } else {
            self.given_may.row(node)
        };
        given.iter().cloned().for_each(visit);
    }

    /// A topology edge passes only its `preserves` (when listed) and never
    /// its `drops`.
    fn restrict(
        &self,
        _lane: usize,
        edge: EdgeOrigin,
        window: &Window,
        set: &mut FixedBitSet,
        scratch: &mut FixedBitSet,
    ) {
        EdgeFilter::apply_on(&self.edge_filters, edge, window, set, scratch);
    }

    fn answer(&mut self, node: usize, window: &Window, lanes: &[FixedBitSet]) {
        for (&id, answer) in self
            .queries
            .row(node)
            .iter()
            .zip(self.answers.row_mut(node))
        {
            let Some(id) = id.filter(|&id| window.contains(id)) else {
                continue;
            };
            let bit = (id - window.start) as usize;
            *answer = if lanes[MUST].contains(bit) {
                Presence::Always
            } else if lanes[MAY].contains(bit) {
                Presence::Sometimes
            } else {
                Presence::Never
            };
        }
    }
}

/// What is in the context on every path once a phase has finished
/// (`PhaseGraph::held_after`): a forward problem with one "on every path"
/// lane, whose facts are only the queried names.
struct HeldAfter<'c> {
    facts: FieldIndex<'c>,
    /// Per phase, what it guarantees on exit (as `Availability`'s).
    must_gen: Ragged<Range<u32>>,
    /// Per entry phase, what the caller supplies for sure.
    given: Ragged<Range<u32>>,
    edge_filters: Vec<Option<EdgeFilter>>,
    /// Per phase, the queries about it: (index in the answers, fact).
    queries: HashMap<usize, Vec<(usize, Option<u32>)>>,
    answers: Vec<bool>,
    /// The phases some entry reaches.
    reachable: &'c FixedBitSet,
}

impl<'c> HeldAfter<'c> {
    fn solve(
        graph: &'c PhaseGraph,
        queries: &[(usize, &'c crate::field_path::FieldPath)],
    ) -> Vec<bool> {
        let contract: &Contract = &graph.contract;
        let phases = &contract.phases;
        let facts = FieldIndex::new(queries.iter().map(|(_, name)| *name));
        let names = |fields: &mut dyn Iterator<Item = &'c crate::model::Field>| {
            let mut ids = Vec::new();
            cover(&facts, fields.map(|f| &f.name.value), &mut ids);
            ids
        };
        let mut must_gen = Ragged::with_rows(phases.len());
        let mut given = Ragged::with_rows(phases.len());
        let mut inputs = Vec::new();
        cover(
            &facts,
            contract.pipeline_inputs.iter().map(|s| &s.value),
            &mut inputs,
        );
        for (i, p) in phases.iter().enumerate() {
            // Only blocking fields are sure to be there: a warning or
            // advisory field may be missing when the phase finishes or
            // when the run starts (diff S5).
            let blocking = |f: &&crate::model::Field| f.severity() == FieldSeverity::Blocking;
            let blocking_entry = p.entry_required().iter().filter(blocking);
            let blocking_exit = p.exit_required().iter().filter(blocking);
            must_gen.push_row(names(&mut blocking_exit.chain(blocking_entry)));
            if graph.is_entry(i) {
                let mut must = names(&mut p.entry_required().iter().filter(blocking));
                must.extend(inputs.iter().cloned());
                merge_ranges(&mut must);
                given.push_row(must);
            } else {
                given.push_row([]);
            }
        }
        let edge_filters = EdgeFilter::of_topology(contract, &facts);
        let mut by_phase: HashMap<usize, Vec<(usize, Option<u32>)>> = HashMap::new();
        for (index, (phase, name)) in queries.iter().enumerate() {
            by_phase
                .entry(*phase)
                .or_default()
                .push((index, facts.id(name.as_str())));
        }
        let mut problem = HeldAfter {
            facts,
            must_gen: must_gen.shrink(),
            given: given.shrink(),
            edge_filters,
            queries: by_phase,
            answers: vec![false; queries.len()],
            reachable: &graph.reachable,
        };
        dataflow::solve(graph, &mut problem);
        problem.answers
    }
}

impl FlowProblem for HeldAfter<'_> {
    fn direction(&self) -> Direction {
        Direction::Forward
    }

    fn lanes(&self) -> &'static [Meet] {
        &[Meet::All]
    }

    fn facts(&self) -> usize {
        self.facts.len()
    }

    fn adds(&self, _lane: usize, node: usize, visit: &mut dyn FnMut(Range<u32>)) {
        self.must_gen.row(node).iter().cloned().for_each(visit);
    }

    fn boundary(&self, _lane: usize, node: usize, visit: &mut dyn FnMut(Range<u32>)) {
        self.given.row(node).iter().cloned().for_each(visit);
    }

    fn restrict(
        &self,
        _lane: usize,
        edge: EdgeOrigin,
        window: &Window,
        set: &mut FixedBitSet,
        scratch: &mut FixedBitSet,
    ) {
        EdgeFilter::apply_on(&self.edge_filters, edge, window, set, scratch);
    }

    /// The answer is what holds on entry; what the phase itself adds
    /// holds on its exit too.
    fn answer(&mut self, node: usize, window: &Window, lanes: &[FixedBitSet]) {
        let Some(queries) = self.queries.get(&node) else {
            return;
        };
        // A phase no entry reaches holds nothing for sure: the solver's
        // "everything" for it is no fact about any run (diff S6).
        if !self.reachable.contains(node) {
            return;
        }
        for &(index, id) in queries {
            let Some(id) = id.filter(|&id| window.contains(id)) else {
                continue;
            };
            let on_entry = lanes[0].contains((id - window.start) as usize);
            let added = self.must_gen.row(node).iter().any(|ids| ids.contains(&id));
            if let Some(answer) = self.answers.get_mut(index) {
                *answer = on_entry || added;
            }
        }
    }
}

/// Which exit fields some later phase reads (G304): a backward problem
/// whose one lane is "read on some path after here".
struct Liveness {
    facts: usize,
    /// Per phase, the facts it reads (its entry fields).
    reads: Ragged<u32>,
    /// Per exit field of every phase, in order, the facts that overlap it.
    writes: Ragged<Range<u32>>,
    /// Per phase, one per exit field: whether a later phase reads it.
    answers: Ragged<bool>,
}

impl Liveness {
    fn solve(graph: &PhaseGraph) -> Ragged<bool> {
        let contract: &Contract = &graph.contract;
        let facts = FieldIndex::new(
            contract
                .phases
                .iter()
                .flat_map(|p| p.entry_fields().map(|f| &f.name.value)),
        );
        let n = contract.phases.len();
        let mut reads = Ragged::with_rows(n);
        let mut writes = Ragged::with_rows(0);
        let mut answers = Ragged::with_rows(n);
        let mut ids = Vec::new();
        for p in &contract.phases {
            reads.push_row(
                p.entry_fields()
                    .filter_map(|f| facts.id(f.name.value.as_str())),
            );
            for f in p.exit_fields() {
                ids.clear();
                facts.overlapping(&f.name.value, |r| ids.push(r));
                merge_ranges(&mut ids);
                writes.push_row(ids.drain(..));
            }
            answers.push_row(std::iter::repeat_n(false, p.exit_fields().count()));
        }
        let mut problem = Liveness {
            facts: facts.len(),
            reads: reads.shrink(),
            writes: writes.shrink(),
            answers: answers.shrink(),
        };
        dataflow::solve(graph, &mut problem);
        problem.answers
    }
}

impl FlowProblem for Liveness {
    fn direction(&self) -> Direction {
        Direction::Backward
    }

    fn lanes(&self) -> &'static [Meet] {
        &[Meet::Any]
    }

    fn facts(&self) -> usize {
        self.facts
    }

    /// A phase reads its entry fields.
    fn adds(&self, _lane: usize, node: usize, visit: &mut dyn FnMut(Range<u32>)) {
        for &id in self.reads.row(node) {
            visit(id..id + 1);
        }
    }

    /// Nothing is read after a phase with no successor.
    fn boundary(&self, _lane: usize, _node: usize, _visit: &mut dyn FnMut(Range<u32>)) {}

    fn answer(&mut self, node: usize, window: &Window, lanes: &[FixedBitSet]) {
        let first = self.answers.row_start(node);
        for (i, read) in self.answers.row_mut(node).iter_mut().enumerate() {
            if *read {
                continue;
            }
            *read = self.writes.row(first + i).iter().any(|ids| {
                window
                    .local(ids.clone())
                    .is_some_and(|bits| lanes[0].count_ones(bits) > 0)
            });
        }
    }
}
