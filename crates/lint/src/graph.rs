//! The phase graph: one petgraph graph per contract, its edges those of
//! `graph_topology` or else declaration order, and the analyses every graph
//! rule reads. No analysis enumerates paths: each is a linear traversal or
//! a run of the one data-flow solver (`dataflow.rs`). The field analyses
//! run on first use, so rules that are turned off cost nothing (see
//! ARCHITECTURE.md for costs).

use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use fixedbitset::FixedBitSet;
use petgraph::Direction as EdgeDirection;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use crate::dataflow::{self, Direction, FlowProblem, Meet, Window};
use crate::field_path::{FieldIndex, merge_ranges};
use crate::model::{Contract, FieldSeverity};

/// What an edge of the graph came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeOrigin {
    /// Declaration order: phase i -> phase i+1.
    Sequence,
    /// `graph_topology.edges[i]`.
    Topology(usize),
}

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

/// Rows of items kept in one list: row `i` is `items[starts[i]..starts[i + 1]]`.
/// Per-phase lists of lists cost 24 bytes a phase even when empty (and an
/// allocation each when not); this costs 4.
#[derive(Debug)]
pub(crate) struct Ragged<T> {
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T> Ragged<T> {
    pub(crate) fn with_rows(rows: usize) -> Self {
        let mut starts = Vec::with_capacity(rows + 1);
        starts.push(0);
        Ragged {
            starts,
            items: Vec::new(),
        }
    }

    /// Adds a row holding `items`.
    pub(crate) fn push_row(&mut self, items: impl IntoIterator<Item = T>) {
        self.items.extend(items);
        self.starts.push(self.items.len() as u32);
    }

    pub(crate) fn row(&self, row: usize) -> &[T] {
        match (self.starts.get(row), self.starts.get(row + 1)) {
            (Some(&start), Some(&end)) => &self.items[start as usize..end as usize],
            _ => &[],
        }
    }

    pub(crate) fn row_mut(&mut self, row: usize) -> &mut [T] {
        match (self.starts.get(row), self.starts.get(row + 1)) {
            (Some(&start), Some(&end)) => &mut self.items[start as usize..end as usize],
            _ => &mut [],
        }
    }

    /// Where row `row` starts in the list of all items.
    pub(crate) fn row_start(&self, row: usize) -> usize {
        self.starts
            .get(row)
            .map_or(self.items.len(), |&s| s as usize)
    }

    /// The rows of `rows` rows holding each `(row, item)`, items of a row
    /// in the order given.
    pub(crate) fn from_pairs(rows: usize, mut pairs: Vec<(u32, T)>) -> Self {
        pairs.sort_by_key(|&(row, _)| row);
        let mut ragged = Ragged::with_rows(rows);
        let mut pairs = pairs.into_iter().peekable();
        for row in 0..rows as u32 {
            let mut items = Vec::new();
            while let Some((_, item)) = pairs.next_if(|&(r, _)| r == row) {
                items.push(item);
            }
            ragged.push_row(items);
        }
        ragged.items.shrink_to_fit();
        ragged
    }

    fn shrink(mut self) -> Self {
        self.items.shrink_to_fit();
        self.starts.shrink_to_fit();
        self
    }
}

/// A strongly connected component: one phase, or the phases of a cycle.
#[derive(Debug)]
pub(crate) struct Component {
    pub id: usize,
    /// More than one phase, or one with an edge to itself.
    pub cyclic: bool,
    /// Where its phases are in `PhaseGraph::component_nodes`.
    nodes: Range<u32>,
}

pub struct PhaseGraph {
    contract: Arc<Contract>,
    /// Node `i` is phase `i` of `Contract::phases`.
    graph: DiGraph<(), EdgeOrigin>,
    from_topology: bool,
    entries: Vec<usize>,
    reachable: FixedBitSet,
    /// In topological order (upstream components first).
    components: Vec<Component>,
    /// The phases of each component, in reverse post-order.
    component_nodes: Vec<u32>,
    component_of: Vec<u32>,
    cycles: Vec<Vec<usize>>,
    /// Per phase, aligned with its `entry_required`: whether each field is
    /// available on entry. Solved on first use.
    entry_presence: OnceLock<Ragged<Presence>>,
    /// Per phase, aligned with `exit_fields()`: whether a later phase reads
    /// it. Solved on first use.
    exit_read_later: OnceLock<Ragged<bool>>,
    /// Per chain, per pair of consecutive stops. Solved on first use.
    chain_routes: OnceLock<Vec<Vec<Route>>>,
}

/// How one leg of a propagation chain runs: from one stop's phase to the
/// next's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    pub from: usize,
    pub to: usize,
    /// Whether `to` is reachable from `from` by one or more edges.
    pub reaches: bool,
    /// Whether some such path lets the first stop's field through every
    /// edge (no `drops` of it, every `preserves` keeps it).
    pub passes: bool,
}

impl PhaseGraph {
    pub fn build(contract: Arc<Contract>) -> PhaseGraph {
        let n = contract.phases.len();
        let mut graph = DiGraph::<(), EdgeOrigin>::with_capacity(n, n);
        for _ in 0..n {
            graph.add_node(());
        }
        let mut from_topology = false;
        if let Some(topology) = contract.topology.as_ref().filter(|t| !t.edges.is_empty()) {
            from_topology = true;
            let index: HashMap<&str, usize> = contract
                .phases
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.as_str(), i))
                .collect();
            for (i, edge) in topology.edges.iter().enumerate() {
                let endpoint = |e: &Option<crate::model::Spanned<String>>| {
                    e.as_ref()
                        .and_then(|s| index.get(s.value.as_str()).copied())
                };
                // Edges naming unknown nodes are R108's; leaving them out keeps
                // every graph finding about edges that exist.
                if let (Some(from), Some(to)) = (endpoint(&edge.from), endpoint(&edge.to)) {
                    graph.add_edge(
                        NodeIndex::new(from),
                        NodeIndex::new(to),
                        EdgeOrigin::Topology(i),
                    );
                }
            }
        } else {
            for i in 1..n {
                graph.add_edge(
                    NodeIndex::new(i - 1),
                    NodeIndex::new(i),
                    EdgeOrigin::Sequence,
                );
            }
        }

        let entries: Vec<usize> = (0..n)
            .filter(|&i| {
                graph
                    .neighbors_directed(NodeIndex::new(i), EdgeDirection::Incoming)
                    .next()
                    .is_none()
            })
            .collect();

        let mut reachable = FixedBitSet::with_capacity(n);
        let mut queue: VecDeque<usize> = entries.iter().copied().collect();
        for &e in &entries {
            reachable.insert(e);
        }
        while let Some(p) = queue.pop_front() {
            for next in graph.neighbors(NodeIndex::new(p)) {
                if !reachable.put(next.index()) {
                    queue.push_back(next.index());
                }
            }
        }

        let order = reverse_post_order(&graph, &entries);
        let mut rank = vec![0u32; n];
        for (i, &p) in order.iter().enumerate() {
            rank[p] = i as u32;
        }
        // Kosaraju, not Tarjan: petgraph's Tarjan recurses once per phase on
        // a chain and overflows the stack on long contracts. It lists the
        // components downstream first.
        let mut components = Vec::new();
        let mut component_nodes = Vec::with_capacity(n);
        let mut component_of = vec![0u32; n];
        let mut cycles = Vec::new();
        for (id, mut members) in petgraph::algo::kosaraju_scc(&graph)
            .into_iter()
            .rev()
            .enumerate()
        {
            members.sort_unstable_by_key(|m| rank[m.index()]);
            let cyclic = members.len() > 1 || graph.contains_edge(members[0], members[0]);
            let start = component_nodes.len() as u32;
            for m in &members {
                component_of[m.index()] = id as u32;
                component_nodes.push(m.index() as u32);
            }
            if cyclic {
                let mut phases: Vec<usize> = members.iter().map(|m| m.index()).collect();
                phases.sort_unstable();
                cycles.push(phases);
            }
            components.push(Component {
                id,
                cyclic,
                nodes: start..component_nodes.len() as u32,
            });
        }
        cycles.sort();

        PhaseGraph {
            contract,
            graph,
            from_topology,
            entries,
            reachable,
            components,
            component_nodes,
            component_of,
            cycles,
            entry_presence: OnceLock::new(),
            exit_read_later: OnceLock::new(),
            chain_routes: OnceLock::new(),
        }
    }

    pub fn phase_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Whether the edges come from `graph_topology` rather than declaration order.
    pub fn from_topology(&self) -> bool {
        self.from_topology
    }

    /// Phases with no incoming edge.
    pub fn entries(&self) -> &[usize] {
        &self.entries
    }

    pub fn is_entry(&self, phase: usize) -> bool {
        self.entries.binary_search(&phase).is_ok()
    }

    pub fn is_reachable(&self, phase: usize) -> bool {
        self.reachable.contains(phase)
    }

    pub fn successors(&self, phase: usize) -> impl Iterator<Item = usize> + '_ {
        self.graph
            .neighbors(NodeIndex::new(phase))
            .map(NodeIndex::index)
    }

    pub fn predecessors(&self, phase: usize) -> impl Iterator<Item = usize> + '_ {
        self.graph
            .neighbors_directed(NodeIndex::new(phase), EdgeDirection::Incoming)
            .map(NodeIndex::index)
    }

    /// `(to, origin)` of every edge leaving `phase`, in edge order.
    pub fn out_edges(&self, phase: usize) -> impl Iterator<Item = (usize, EdgeOrigin)> + '_ {
        let mut edges: Vec<(usize, EdgeOrigin)> = self
            .graph
            .edges(NodeIndex::new(phase))
            .map(|e| (e.target().index(), *e.weight()))
            .collect();
        // petgraph lists a node's edges newest first.
        edges.reverse();
        edges.into_iter()
    }

    pub fn has_edges(&self, phase: usize) -> bool {
        self.successors(phase).next().is_some() || self.predecessors(phase).next().is_some()
    }

    /// `(from, to, origin)` of every edge between phases.
    pub fn edges(&self) -> impl Iterator<Item = (usize, usize, EdgeOrigin)> + '_ {
        self.graph
            .edge_references()
            .map(|e| (e.source().index(), e.target().index(), *e.weight()))
    }

    /// Strongly connected components that contain a cycle, each sorted by
    /// declaration order.
    pub fn cycles(&self) -> &[Vec<usize>] {
        &self.cycles
    }

    /// Whether `to` is reachable from `from` by one or more edges. In
    /// declaration order that is a comparison; otherwise a search that
    /// stops at `to`, so a chain between nearby phases costs little.
    pub fn reaches(&self, from: usize, to: usize) -> bool {
        if !self.from_topology {
            return to > from && to < self.phase_count();
        }
        self.reaches_by(from, to, |_| true)
    }

    /// Whether `to` is reachable from `from` by one or more edges whose
    /// origin passes `allow`; the search stops at `to`.
    pub fn reaches_by(
        &self,
        from: usize,
        to: usize,
        allow: impl FnMut(EdgeOrigin) -> bool,
    ) -> bool {
        self.search(from, allow, Some(to)).1
    }

    /// Phases reachable from `from` by one or more edges whose origin passes `allow`.
    pub fn reachable_from(
        &self,
        from: usize,
        allow: impl FnMut(EdgeOrigin) -> bool,
    ) -> FixedBitSet {
        self.search(from, allow, None).0
    }

    /// Breadth-first search from `from` over the edges `allow` passes: the
    /// phases reached, and whether `target` was (the search stops there).
    fn search(
        &self,
        from: usize,
        mut allow: impl FnMut(EdgeOrigin) -> bool,
        target: Option<usize>,
    ) -> (FixedBitSet, bool) {
        let mut seen = FixedBitSet::with_capacity(self.graph.node_count());
        let mut queue = VecDeque::from([from]);
        while let Some(p) = queue.pop_front() {
            for edge in self.graph.edges(NodeIndex::new(p)) {
                if !allow(*edge.weight()) {
                    continue;
                }
                let next = edge.target().index();
                if Some(next) == target {
                    seen.insert(next);
                    return (seen, true);
                }
                if !seen.put(next) {
                    queue.push_back(next);
                }
            }
        }
        (seen, false)
    }

    /// Whether each `(phase, field)` of `queries` is in the context on
    /// every path once `phase` has finished: what a run paused after
    /// `phase` holds for sure (`phaselint diff`, D604). Counted as in
    /// G303's availability: the pipeline inputs and an entry phase's
    /// required entry fields are given, a phase adds its `exit.required`
    /// and keeps its blocking entry fields, an edge lets through only its
    /// `preserves` and never its `drops`. One solve answers every query.
    pub fn held_after(&self, queries: &[(usize, &crate::field_path::FieldPath)]) -> Vec<bool> {
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

    /// The legs of chain `chain` (by position in `Contract::chains`), one
    /// per pair of consecutive stops; empty when a stop names no known
    /// phase (R103's finding) or the chain lacks a source or destination.
    pub fn chain_routes(&self, chain: usize) -> &[Route] {
        self.chain_routes
            .get_or_init(|| ChainRoutes::solve(self))
            .get(chain)
            .map_or(&[], Vec::as_slice)
    }

    /// Every phase in graph order: upstream before downstream, the phases
    /// of a cycle together (components in topological order, each in
    /// reverse post-order), the order the data flows run in.
    pub fn order(&self) -> Vec<usize> {
        self.components_in(Direction::Forward)
            .flat_map(|c| self.component_nodes(c, Direction::Forward))
            .map(|node| node as usize)
            .collect()
    }

    pub(crate) fn components_in(
        &self,
        direction: Direction,
    ) -> impl Iterator<Item = &Component> + '_ {
        let forward = direction == Direction::Forward;
        let count = self.components.len();
        (0..count).map(move |i| &self.components[if forward { i } else { count - 1 - i }])
    }

    /// A component's phases in the order the solver visits them.
    pub(crate) fn component_nodes(&self, component: &Component, direction: Direction) -> Vec<u32> {
        let nodes =
            &self.component_nodes[component.nodes.start as usize..component.nodes.end as usize];
        match direction {
            Direction::Forward => nodes.to_vec(),
            Direction::Backward => nodes.iter().rev().copied().collect(),
        }
    }

    pub(crate) fn first_node(&self, component: &Component) -> usize {
        self.component_nodes[component.nodes.start as usize] as usize
    }

    /// The strongly connected component `phase` belongs to.
    pub(crate) fn component_of(&self, phase: usize) -> usize {
        self.component_of[phase] as usize
    }

    /// The neighbours facts flow from into `phase`, with the edge between.
    pub(crate) fn upstream(
        &self,
        phase: usize,
        direction: Direction,
    ) -> impl Iterator<Item = (usize, EdgeOrigin)> + '_ {
        let (side, forward) = match direction {
            Direction::Forward => (EdgeDirection::Incoming, true),
            Direction::Backward => (EdgeDirection::Outgoing, false),
        };
        self.graph
            .edges_directed(NodeIndex::new(phase), side)
            .map(move |e| {
                let other = if forward { e.source() } else { e.target() };
                (other.index(), *e.weight())
            })
    }

    /// The neighbours facts flow to from `phase`.
    pub(crate) fn downstream(
        &self,
        phase: usize,
        direction: Direction,
    ) -> impl Iterator<Item = (usize, EdgeOrigin)> + '_ {
        let opposite = match direction {
            Direction::Forward => Direction::Backward,
            Direction::Backward => Direction::Forward,
        };
        self.upstream(phase, opposite)
    }
}

/// Reverse post-order of a depth-first search from each entry phase in
/// turn; phases no entry reaches (cycles of their own) follow, so every
/// phase has a rank.
fn reverse_post_order(graph: &DiGraph<(), EdgeOrigin>, entries: &[usize]) -> Vec<usize> {
    let n = graph.node_count();
    let mut order = Vec::with_capacity(n);
    let mut dfs = petgraph::visit::DfsPostOrder::empty(graph);
    let starts = entries.iter().copied().chain(0..n);
    for start in starts {
        if dfs.discovered.contains(start) {
            continue;
        }
        dfs.move_to(NodeIndex::new(start));
        while let Some(node) = dfs.next(graph) {
            order.push(node.index());
        }
    }
    order.reverse();
    order
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
struct EdgeFilter {
    keep: Option<Vec<Range<u32>>>,
    drop: Vec<Range<u32>>,
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

    fn apply(&self, window: &Window, set: &mut FixedBitSet, scratch: &mut FixedBitSet) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Dialect;
    use crate::field_path::FieldPath;
    use crate::syntax::{Limits, parse};

    fn contract_of(src: &str) -> Arc<Contract> {
        let tree = parse(src, Limits::default()).unwrap().unwrap();
        let lines = crate::line_index::LineIndex::new(src);
        let settings = crate::config::Settings::default();
        let mut findings = crate::findings::Findings::new(src, &lines, &settings);
        let (contract, _) =
            crate::schema::build(tree.root(), src, Dialect::Phaselint, &mut findings);
        let (diagnostics, _) = findings.finish();
        assert!(diagnostics.is_empty(), "{diagnostics:#?}");
        Arc::new(contract)
    }

    fn graph_of(src: &str) -> (Arc<Contract>, PhaseGraph) {
        let contract = contract_of(src);
        let graph = PhaseGraph::build(contract.clone());
        (contract, graph)
    }

    const BRANCH: &str = r#"
schema_version: "1"
pipeline_id: p
phases:
  classify:
    exit: { required: [{ name: domain }, { name: tier }] }
  simple:
    exit: { required: [{ name: context }], optional: [{ name: hint }] }
  complex:
    exit: { required: [{ name: context }, { name: confidence }] }
  generate:
    entry: { required: [{ name: context }, { name: confidence }, { name: domain }, { name: hint }, { name: tier }] }
  orphan: {}
graph_topology:
  edges:
    - { from: classify, to: simple, drops: [tier] }
    - { from: classify, to: complex }
    - { from: simple, to: generate }
    - { from: complex, to: generate, preserves: [context, confidence, domain, tier] }
"#;

    #[test]
    fn must_and_may_availability_through_a_branch() {
        let (_, graph) = graph_of(BRANCH);
        // generate requires context, confidence, domain, hint, tier.
        assert_eq!(
            graph.entry_presence(3),
            [
                Presence::Always,
                Presence::Sometimes,
                Presence::Always,
                // Only an optional output.
                Presence::Sometimes,
                // Dropped on one branch, kept on the other.
                Presence::Sometimes,
            ]
        );
    }

    #[test]
    fn held_after_a_phase_is_what_every_path_there_produces() {
        let (_, graph) = graph_of(BRANCH);
        let name = |n: &str| FieldPath::new(n);
        let (context, confidence, domain, hint, tier, nothing) = (
            name("context"),
            name("confidence"),
            name("domain"),
            name("hint"),
            name("tier"),
            name("nothing"),
        );
        // After generate (3): context on both branches, confidence only on
        // one, hint only optional, tier dropped on one branch; generate's
        // blocking entry fields stay in the context all the same.
        assert_eq!(
            graph.held_after(&[
                (3, &context),
                (3, &confidence),
                (3, &domain),
                (3, &hint),
                (3, &tier),
                (3, &nothing),
            ]),
            [true, true, true, true, true, false]
        );
        // After simple (1): its own exit and what crosses the edge from
        // classify, which drops `tier`.
        assert_eq!(
            graph.held_after(&[
                (1, &context),
                (1, &domain),
                (1, &tier),
                (1, &hint),
                (2, &tier)
            ]),
            [true, true, false, false, true]
        );
    }

    #[test]
    fn reachability_and_entries() {
        let (_, graph) = graph_of(BRANCH);
        assert_eq!(graph.entries(), &[0, 4]);
        assert!(!graph.has_edges(4));
        assert!(graph.reaches(0, 3));
        assert!(!graph.reaches(1, 2));
    }

    #[test]
    fn cycles_are_strongly_connected_components() {
        let (_, graph) = graph_of(
            r#"
schema_version: "1"
pipeline_id: p
phases: { a: {}, b: {}, c: {}, d: {} }
graph_topology:
  edges: [{ from: a, to: b }, { from: b, to: c }, { from: c, to: b }, { from: c, to: d }]
"#,
        );
        assert_eq!(graph.cycles(), &[vec![1, 2]]);
        assert!((0..4).all(|p| graph.is_reachable(p)));
        let order: Vec<usize> = graph
            .components_in(Direction::Forward)
            .map(|c| graph.first_node(c))
            .collect();
        assert_eq!(order.len(), 3);
        assert_eq!((order[0], order[2]), (0, 3), "topological order");
    }

    #[test]
    fn liveness_sees_reads_downstream_only() {
        let (_, graph) = graph_of(BRANCH);
        // classify's domain and tier are read by generate.
        assert_eq!(graph.exit_read_later(0), [true, true]);
        // generate is last; orphan reads nothing and has no successor.
        assert_eq!(graph.exit_read_later(3), [] as [bool; 0]);
        let (contract, graph) = graph_of(
            "schema_version: '1'\npipeline_id: p\nphases:\n  a: { exit: { required: [{ name: context.items }, { name: unused }] } }\n  b: { entry: { required: [{ name: context }] } }\n",
        );
        // A read of `context` counts for a write of `context.items`.
        assert_eq!(contract.phases.len(), 2);
        assert_eq!(graph.exit_read_later(0), [true, false]);
    }

    #[test]
    fn field_analyses_run_only_when_asked() {
        let (_, graph) = graph_of(BRANCH);
        assert!(graph.entry_presence.get().is_none());
        assert!(graph.exit_read_later.get().is_none());
        let _ = graph.entry_presence(3);
        assert!(graph.entry_presence.get().is_some());
        assert!(graph.exit_read_later.get().is_none());
    }

    #[test]
    fn long_chains_do_not_recurse_per_phase() {
        let mut src = String::from("schema_version: '1'\npipeline_id: p\nphases:\n");
        for i in 0..40_000 {
            src.push_str(&format!("  p{i}: {{}}\n"));
        }
        // A small stack, as worker threads have: no analysis may recurse per phase.
        let handle = std::thread::Builder::new()
            .stack_size(512 * 1024)
            .spawn(move || {
                let (_, graph) = graph_of(&src);
                let _ = graph.entry_presence(0);
                let _ = graph.exit_read_later(0);
                graph.phase_count()
            })
            .unwrap();
        assert_eq!(handle.join().unwrap(), 40_000);
    }

    /// A deterministic pseudo-random contract: phases read fields that
    /// other phases write (required or optional, sometimes as a sub-path or
    /// a wildcard), edges skip forward, some edges go back (cycles when
    /// `back_edges`), and some drop or preserve fields.
    fn random_contract(seed: u64, phases: usize, back_edges: bool) -> String {
        let mut state = seed | 1;
        let mut next = |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound.max(1) as u64) as usize
        };
        let mut src =
            String::from("schema_version: '1'\npipeline_id: p\npipeline_inputs: [f0]\nphases:\n");
        for p in 0..phases {
            let reads: Vec<String> = (0..next(4))
                .map(|_| {
                    let f = next(phases * 2 + 2);
                    match next(6) {
                        0 => format!("{{ name: f{f}.part }}"),
                        1 => "{ name: '*.part' }".to_string(),
                        _ => format!("{{ name: f{f} }}"),
                    }
                })
                .collect();
            let enrich = if next(3) == 0 {
                format!("{{ name: f{} }}", next(phases * 2 + 2))
            } else {
                String::new()
            };
            src.push_str(&format!(
                "  p{p}:\n    entry: {{ required: [{}], enrichment: [{enrich}] }}\n    exit: {{ required: [{{ name: f{} }}], optional: [{{ name: f{} }}] }}\n",
                reads.join(", "),
                2 * p + 1,
                2 * p + 2
            ));
        }
        src.push_str("graph_topology:\n  edges:\n");
        for p in 1..phases {
            for _ in 0..=next(2) {
                let from = if back_edges && next(5) == 0 {
                    p + next(phases - p)
                } else {
                    next(p)
                };
                let filter = match next(4) {
                    0 => format!(", drops: [f{}]", next(2 * phases + 2)),
                    1 => format!(
                        ", preserves: [f{}, f{}]",
                        next(2 * phases + 2),
                        next(2 * phases + 2)
                    ),
                    _ => String::new(),
                };
                src.push_str(&format!("    - {{ from: p{from}, to: p{p}{filter} }}\n"));
            }
        }
        src
    }

    /// Availability and liveness the plainest way: one set of field names
    /// per phase, coverage by `FieldPath::covers`, passes over every phase
    /// until nothing changes. Shares no code with the solver.
    fn reference(contract: &Contract, graph: &PhaseGraph) -> (Vec<Vec<Presence>>, Vec<Vec<bool>>) {
        use std::collections::BTreeSet;
        let phases = &contract.phases;
        let n = phases.len();
        let facts: Vec<&FieldPath> = phases
            .iter()
            .flat_map(|p| p.entry_required().iter().map(|f| &f.name.value))
            .collect();
        let covered = |names: &mut dyn Iterator<Item = &FieldPath>| -> BTreeSet<usize> {
            let names: Vec<&FieldPath> = names.collect();
            (0..facts.len())
                .filter(|&i| names.iter().any(|n| n.covers(facts[i])))
                .collect()
        };
        let all: BTreeSet<usize> = (0..facts.len()).collect();
        let edges: Vec<(usize, usize, EdgeOrigin)> = graph.edges().collect();
        let passes = |origin: EdgeOrigin, fact: usize| match origin {
            EdgeOrigin::Topology(i) => {
                contract.topology.as_ref().unwrap().edges[i].passes(facts[fact])
            }
            EdgeOrigin::Sequence => true,
        };
        let gen_must: Vec<BTreeSet<usize>> = phases
            .iter()
            .map(|p| {
                covered(
                    &mut p.exit_required().iter().map(|f| &f.name.value).chain(
                        p.entry_required()
                            .iter()
                            .filter(|f| f.severity() == FieldSeverity::Blocking)
                            .map(|f| &f.name.value),
                    ),
                )
            })
            .collect();
        let gen_may: Vec<BTreeSet<usize>> = phases
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut s = covered(&mut p.exit_optional().iter().map(|f| &f.name.value));
                s.extend(&gen_must[i]);
                s
            })
            .collect();
        let mut must: Vec<BTreeSet<usize>> = vec![all.clone(); n];
        let mut may: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        for &e in graph.entries() {
            let p = &phases[e];
            must[e] = covered(
                &mut contract
                    .pipeline_inputs
                    .iter()
                    .map(|s| &s.value)
                    .chain(p.entry_required().iter().map(|f| &f.name.value)),
            );
            may[e] = must[e].clone();
            may[e].extend(covered(
                &mut p.entry_enrichment().iter().map(|f| &f.name.value),
            ));
        }
        loop {
            let mut changed = false;
            for p in 0..n {
                if graph.is_entry(p) {
                    continue;
                }
                let mut m = all.clone();
                let mut y = BTreeSet::new();
                for &(q, _, origin) in edges.iter().filter(|e| e.1 == p) {
                    let out_must: BTreeSet<usize> = must[q]
                        .union(&gen_must[q])
                        .copied()
                        .filter(|&f| passes(origin, f))
                        .collect();
                    let out_may: BTreeSet<usize> = may[q]
                        .union(&gen_may[q])
                        .copied()
                        .filter(|&f| passes(origin, f))
                        .collect();
                    m = m.intersection(&out_must).copied().collect();
                    y.extend(out_may);
                }
                if m != must[p] || y != may[p] {
                    must[p] = m;
                    may[p] = y;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let presence = phases
            .iter()
            .enumerate()
            .map(|(p, phase)| {
                phase
                    .entry_required()
                    .iter()
                    .map(|f| {
                        let id = facts
                            .iter()
                            .position(|x| x.as_str() == f.name.value.as_str())
                            .unwrap();
                        if must[p].contains(&id) {
                            Presence::Always
                        } else if may[p].contains(&id) {
                            Presence::Sometimes
                        } else {
                            Presence::Never
                        }
                    })
                    .collect()
            })
            .collect();
        // Liveness: names read after each phase.
        let mut live: Vec<BTreeSet<&str>> = vec![BTreeSet::new(); n];
        loop {
            let mut changed = false;
            for p in (0..n).rev() {
                let mut out = BTreeSet::new();
                for &(_, s, _) in edges.iter().filter(|e| e.0 == p) {
                    out.extend(live[s].iter().copied());
                    out.extend(phases[s].entry_fields().map(|f| f.name.value.as_str()));
                }
                if out != live[p] {
                    live[p] = out;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let read_later = phases
            .iter()
            .enumerate()
            .map(|(p, phase)| {
                phase
                    .exit_fields()
                    .map(|f| {
                        live[p]
                            .iter()
                            .any(|r| FieldPath::new(*r).overlaps(&f.name.value))
                    })
                    .collect()
            })
            .collect();
        (presence, read_later)
    }

    fn solved(
        contract: &Arc<Contract>,
        width: Option<usize>,
    ) -> (Vec<Vec<Presence>>, Vec<Vec<bool>>) {
        dataflow::tests::WIDTH.with(|w| w.set(width));
        let graph = PhaseGraph::build(contract.clone());
        let n = contract.phases.len();
        let presence = (0..n).map(|p| graph.entry_presence(p).to_vec()).collect();
        let read = (0..n).map(|p| graph.exit_read_later(p).to_vec()).collect();
        dataflow::tests::WIDTH.with(|w| w.set(None));
        (presence, read)
    }

    #[test]
    fn the_solver_agrees_with_a_plain_fixpoint_with_and_without_cycles_in_any_window() {
        let mut saw_cycle = false;
        let mut saw_gap = false;
        for seed in 1..60u64 {
            let cyclic = seed % 2 == 0;
            let src = random_contract(seed, 3 + (seed as usize % 25), cyclic);
            let contract = contract_of(&src);
            let graph = PhaseGraph::build(contract.clone());
            saw_cycle |= !graph.cycles().is_empty();
            let expected = reference(&contract, &graph);
            saw_gap |= expected.0.iter().flatten().any(|p| *p != Presence::Always);
            assert_eq!(solved(&contract, None), expected, "seed {seed}\n{src}");
            // Windows of one word: most facts solved in a later window.
            assert_eq!(
                solved(&contract, Some(64)),
                expected,
                "seed {seed}, windowed"
            );
        }
        assert!(
            saw_cycle && saw_gap,
            "the generator should make cycles and gaps"
        );
    }

    #[test]
    fn many_windows_give_the_same_answers_as_one() {
        // 300 facts in windows of 64 bits: five windows.
        let src = random_contract(7, 150, true);
        let contract = contract_of(&src);
        let graph = PhaseGraph::build(contract.clone());
        let facts = FieldIndex::new(
            contract
                .phases
                .iter()
                .flat_map(|p| p.entry_required().iter().map(|f| &f.name.value)),
        )
        .len();
        assert!(facts > 128, "{facts} facts");
        assert_eq!(solved(&contract, Some(64)), reference(&contract, &graph));
    }

    #[test]
    fn chain_routes_agree_with_a_search_per_leg() {
        for seed in 1..40u64 {
            let mut src = random_contract(seed, 4 + (seed as usize % 20), seed % 2 == 0);
            let phases = 4 + (seed as usize % 20);
            let mut state = seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1;
            let mut next = |bound: usize| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % bound as u64) as usize
            };
            src.push_str("propagation_chains:\n");
            for c in 0..8 {
                let stops: Vec<String> = (0..2 + next(3))
                    .map(|_| {
                        format!(
                            "{{ phase: p{}, field: f{} }}",
                            next(phases),
                            next(2 * phases + 2)
                        )
                    })
                    .collect();
                let (source, rest) = stops.split_first().unwrap();
                let (destination, waypoints) = rest.split_last().unwrap();
                src.push_str(&format!(
                    "  - {{ chain_id: c{c}, source: {source}, destination: {destination}, waypoints: [{}] }}\n",
                    waypoints.join(", ")
                ));
            }
            let contract = contract_of(&src);
            let graph = PhaseGraph::build(contract.clone());
            let topology = contract.topology.as_ref().unwrap();
            for (c, chain) in contract.chains.iter().enumerate() {
                let stops: Vec<&crate::model::Endpoint> = chain.stops().collect();
                let routes = graph.chain_routes(c);
                assert_eq!(routes.len(), stops.len() - 1, "seed {seed}");
                for (pair, route) in stops.windows(2).zip(routes) {
                    let field = &pair[0].field.as_ref().unwrap().value;
                    assert_eq!(
                        route.reaches,
                        graph.reaches(route.from, route.to),
                        "seed {seed}"
                    );
                    let passes = graph.reaches_by(route.from, route.to, |origin| match origin {
                        EdgeOrigin::Topology(i) => topology.edges[i].passes(field),
                        EdgeOrigin::Sequence => true,
                    });
                    assert_eq!(route.passes, passes, "seed {seed} chain {c}\n{src}");
                }
            }
        }
    }

    #[test]
    fn declaration_order_without_topology() {
        let (_, graph) =
            graph_of("schema_version: '1'\npipeline_id: p\nphases: { a: {}, b: {}, c: {} }\n");
        assert_eq!(graph.successors(0).collect::<Vec<_>>(), vec![1]);
        assert_eq!(graph.entries(), &[0]);
        assert!(!graph.from_topology());
    }
}
