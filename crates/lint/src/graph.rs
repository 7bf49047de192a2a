//! The phase graph (SPEC §2.6): one petgraph graph per contract and the
//! analyses every graph rule reads. No analysis enumerates paths; each is a
//! linear traversal or a bit-vector fixpoint (see ARCHITECTURE.md for costs).

use std::collections::{HashMap, VecDeque};

use fixedbitset::FixedBitSet;
use petgraph::Direction;
use petgraph::algo::dominators::{self, Dominators};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use crate::field_path::{FieldIndex, FieldPath};
use crate::model::{Contract, FieldSeverity, TopologyEdge};

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

pub struct PhaseGraph {
    /// Node `i` is phase `i` of `Contract::phases`.
    graph: DiGraph<(), EdgeOrigin>,
    from_topology: bool,
    entries: Vec<usize>,
    reachable: FixedBitSet,
    cycles: Vec<Vec<usize>>,
    dominators: Dominators<NodeIndex>,
    virtual_root: NodeIndex,
    /// Per phase, aligned with its `entry_required`: whether each field is
    /// available on entry. Computed by the fixpoint, whose bit-vectors
    /// (phases x fields) are dropped once answered.
    entry_presence: Vec<Vec<Presence>>,
    /// Per phase, aligned with `exit_fields()`: whether a later phase reads it.
    exit_read_later: Vec<Vec<bool>>,
}

impl PhaseGraph {
    pub fn build(contract: &Contract) -> PhaseGraph {
        let n = contract.phases.len();
        let mut graph = DiGraph::<(), EdgeOrigin>::with_capacity(n + 1, n);
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
                    .neighbors_directed(NodeIndex::new(i), Direction::Incoming)
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

        // Kosaraju, not Tarjan: petgraph's Tarjan recurses once per phase on
        // a chain and overflows the stack on long contracts.
        let mut cycles: Vec<Vec<usize>> = petgraph::algo::kosaraju_scc(&graph)
            .into_iter()
            .filter(|scc| scc.len() > 1 || graph.contains_edge(scc[0], scc[0]))
            .map(|scc| {
                let mut phases: Vec<usize> = scc.into_iter().map(NodeIndex::index).collect();
                phases.sort_unstable();
                phases
            })
            .collect();
        cycles.sort();

        // Dominators need one root: a virtual node before every entry phase.
        let virtual_root = graph.add_node(());
        for &e in &entries {
            graph.add_edge(virtual_root, NodeIndex::new(e), EdgeOrigin::Sequence);
        }
        let dominators = dominators::simple_fast(&graph, virtual_root);
        let order = reverse_post_order(&graph, virtual_root);

        let edges_of_topology: &[TopologyEdge] = contract
            .topology
            .as_ref()
            .map_or(&[], |t| t.edges.as_slice());
        let availability = Availability::new(contract, edges_of_topology);
        let liveness = Liveness::new(contract);
        let (entry_presence, exit_read_later) = if cycles.is_empty() {
            (
                availability.solve_acyclic(&graph, &order),
                liveness.solve_acyclic(&graph, &order),
            )
        } else {
            (
                availability.solve_by_fixpoint(&graph, &entries, &order),
                liveness.solve_by_fixpoint(&graph, &order),
            )
        };

        PhaseGraph {
            graph,
            from_topology,
            entries,
            reachable,
            cycles,
            dominators,
            virtual_root,
            entry_presence,
            exit_read_later,
        }
    }

    pub fn phase_count(&self) -> usize {
        self.graph.node_count() - 1
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
            .neighbors_directed(NodeIndex::new(phase), Direction::Incoming)
            .map(NodeIndex::index)
            .filter(move |&p| p != self.virtual_root.index())
    }

    pub fn has_edges(&self, phase: usize) -> bool {
        self.successors(phase).next().is_some() || self.predecessors(phase).next().is_some()
    }

    /// `(from, to, origin)` of every edge between phases.
    pub fn edges(&self) -> impl Iterator<Item = (usize, usize, EdgeOrigin)> + '_ {
        self.graph
            .edge_references()
            .filter(|e| e.source() != self.virtual_root)
            .map(|e| (e.source().index(), e.target().index(), *e.weight()))
    }

    /// Strongly connected components that contain a cycle, each sorted by
    /// declaration order.
    pub fn cycles(&self) -> &[Vec<usize>] {
        &self.cycles
    }

    /// Whether every path from an entry phase to `phase` passes `by`.
    pub fn dominates(&self, by: usize, phase: usize) -> bool {
        if !self.is_reachable(phase) {
            return false;
        }
        self.dominators
            .dominators(NodeIndex::new(phase))
            .is_some_and(|mut d| d.any(|n| n.index() == by))
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

    /// Whether `field` is available when `phase` starts.
    /// Aligned with the phase's `entry_required`.
    pub fn entry_presence(&self, phase: usize) -> &[Presence] {
        self.entry_presence.get(phase).map_or(&[], Vec::as_slice)
    }

    /// Whether a phase reachable after `phase` reads a field overlapping `field`.
    /// Aligned with the phase's `exit_fields()`.
    pub fn exit_read_later(&self, phase: usize) -> &[bool] {
        self.exit_read_later.get(phase).map_or(&[], Vec::as_slice)
    }
}

fn reverse_post_order(graph: &DiGraph<(), EdgeOrigin>, root: NodeIndex) -> Vec<usize> {
    let mut order = Vec::with_capacity(graph.node_count());
    let mut dfs = petgraph::visit::DfsPostOrder::new(graph, root);
    while let Some(n) = dfs.next(graph) {
        if n != root {
            order.push(n.index());
        }
    }
    order.reverse();
    // Unreachable phases are visited too, after the reachable ones, so every
    // phase gets a value (they keep the optimistic top and report nothing).
    let mut visited = FixedBitSet::with_capacity(graph.node_count());
    for &p in &order {
        visited.insert(p);
    }
    for p in 0..graph.node_count() {
        if p != root.index() && !visited.contains(p) {
            order.push(p);
        }
    }
    order
}

/// A must/may pair of fact sets flowing along the graph.
#[derive(Clone)]
struct Flow {
    must: FixedBitSet,
    may: FixedBitSet,
}

/// Must/may availability of every entry-required field at every phase
/// entry: the facts, what each phase adds, and what each edge lets through.
struct Availability<'c> {
    contract: &'c Contract,
    facts: FieldIndex<'c>,
    /// Per phase, the fact ids of its `entry_required`, aligned with it
    /// (`None` for a name that is no fact, which cannot happen but costs
    /// nothing to handle).
    queries: Vec<Vec<Option<usize>>>,
    /// What each phase guarantees on exit (exit.required, and blocking
    /// entry fields, which stay in the context), as fact ids: a few per
    /// phase, so lists rather than phases x facts bits.
    must_gen: Vec<Vec<usize>>,
    /// What each phase may add (exit.optional).
    may_gen: Vec<Vec<usize>>,
    /// What each topology edge lets through, when it restricts anything.
    edge_masks: Vec<Option<FixedBitSet>>,
}

impl<'c> Availability<'c> {
    fn new(contract: &'c Contract, topology_edges: &[TopologyEdge]) -> Self {
        let phases = &contract.phases;
        let facts = FieldIndex::new(
            phases
                .iter()
                .flat_map(|p| p.entry_required.iter().map(|f| &f.name.value)),
        );
        let ids_of = |paths: &mut dyn Iterator<Item = &FieldPath>| -> Vec<usize> {
            let mut ids = Vec::new();
            for path in paths {
                facts.covered_by(path, |id| ids.push(id));
            }
            ids
        };
        let queries = phases
            .iter()
            .map(|p| {
                p.entry_required
                    .iter()
                    .map(|f| facts.id(f.name.value.as_str()))
                    .collect()
            })
            .collect();
        let must_gen = phases
            .iter()
            .map(|p| {
                ids_of(
                    &mut p.exit_required.iter().map(|f| &f.name.value).chain(
                        p.entry_required
                            .iter()
                            .filter(|f| f.severity() == FieldSeverity::Blocking)
                            .map(|f| &f.name.value),
                    ),
                )
            })
            .collect();
        let may_gen = phases
            .iter()
            .map(|p| ids_of(&mut p.exit_optional.iter().map(|f| &f.name.value)))
            .collect();
        let edge_masks = topology_edges
            .iter()
            .map(|edge| {
                if edge.preserves.is_none() && edge.drops.is_empty() {
                    return None;
                }
                let mut mask = match &edge.preserves {
                    Some(kept) => facts.set_of(kept.iter().map(|k| &k.value)),
                    None => {
                        let mut all = FixedBitSet::with_capacity(facts.len());
                        all.insert_range(..);
                        all
                    }
                };
                for drop in &edge.drops {
                    facts.covered_by(&drop.value, |id| mask.set(id, false));
                }
                Some(mask)
            })
            .collect();
        Availability {
            contract,
            facts,
            queries,
            must_gen,
            may_gen,
            edge_masks,
        }
    }

    /// What the caller supplies at an entry phase: the pipeline inputs and
    /// the phase's own entry fields (required for sure, enrichment maybe);
    /// they stay in the context afterwards.
    fn given(&self, entry: usize) -> Flow {
        let phase = &self.contract.phases[entry];
        let mut must = self
            .facts
            .set_of(self.contract.pipeline_inputs.iter().map(|s| &s.value));
        must.union_with(
            &self
                .facts
                .set_of(phase.entry_required.iter().map(|f| &f.name.value)),
        );
        let mut may = must.clone();
        may.union_with(
            &self
                .facts
                .set_of(phase.entry_enrichment.iter().map(|f| &f.name.value)),
        );
        Flow { must, may }
    }

    /// Turns what holds at `phase`'s entry into what holds at its exit.
    fn transfer(&self, phase: usize, flow: &mut Flow) {
        flow.must.extend(self.must_gen[phase].iter().copied());
        flow.may.extend(self.may_gen[phase].iter().copied());
        flow.may.extend(self.must_gen[phase].iter().copied());
    }

    /// Restricts a flow to what an edge lets through.
    fn across(&self, origin: EdgeOrigin, flow: &mut Flow) {
        if let EdgeOrigin::Topology(i) = origin
            && let Some(Some(mask)) = self.edge_masks.get(i)
        {
            flow.must.intersect_with(mask);
            flow.may.intersect_with(mask);
        }
    }

    fn answer(&self, phase: usize, flow: &Flow) -> Vec<Presence> {
        self.queries[phase]
            .iter()
            .map(|id| match id {
                Some(id) if flow.must.contains(*id) => Presence::Always,
                Some(id) if flow.may.contains(*id) => Presence::Sometimes,
                _ => Presence::Never,
            })
            .collect()
    }

    /// An acyclic graph in topological order needs one pass, and a phase's
    /// flow is needed only until its last successor has read it: a chain
    /// hands one pair of sets down the line without copying it, so the cost
    /// is the fields declared plus one set width per branch or merge.
    fn solve_acyclic(
        &self,
        graph: &DiGraph<(), EdgeOrigin>,
        order: &[usize],
    ) -> Vec<Vec<Presence>> {
        let n = self.contract.phases.len();
        let mut out: Vec<Option<Flow>> = (0..n).map(|_| None).collect();
        let mut readers_left: Vec<usize> = (0..n)
            .map(|p| graph.edges(NodeIndex::new(p)).count())
            .collect();
        let mut answers: Vec<Vec<Presence>> = vec![Vec::new(); n];
        for &p in order {
            if p >= n {
                continue;
            }
            let mut flow: Option<Flow> = None;
            for edge in graph.edges_directed(NodeIndex::new(p), Direction::Incoming) {
                let q = edge.source().index();
                if q >= n {
                    continue;
                }
                let Some(mut incoming) = hand_over(&mut out[q], &mut readers_left[q]) else {
                    continue;
                };
                self.across(*edge.weight(), &mut incoming);
                flow = Some(match flow {
                    None => incoming,
                    Some(mut met) => {
                        met.must.intersect_with(&incoming.must);
                        met.may.union_with(&incoming.may);
                        met
                    }
                });
            }
            // No predecessor: an entry phase, given what the caller supplies.
            let mut flow = flow.unwrap_or_else(|| self.given(p));
            answers[p] = self.answer(p, &flow);
            if readers_left[p] > 0 {
                self.transfer(p, &mut flow);
                out[p] = Some(flow);
            }
        }
        answers
    }

    /// With cycles: the classic fixpoint in reverse post-order, every
    /// phase's entry flow kept until nothing changes (must starts full,
    /// may empty; unreachable phases keep that optimistic top).
    fn solve_by_fixpoint(
        &self,
        graph: &DiGraph<(), EdgeOrigin>,
        entries: &[usize],
        order: &[usize],
    ) -> Vec<Vec<Presence>> {
        let n = self.contract.phases.len();
        let width = self.facts.len();
        let empty = FixedBitSet::with_capacity(width);
        let mut full = empty.clone();
        full.insert_range(..);
        let is_entry = |p: usize| entries.binary_search(&p).is_ok();
        let mut flows: Vec<Flow> = (0..n)
            .map(|p| {
                if is_entry(p) {
                    self.given(p)
                } else {
                    Flow {
                        must: full.clone(),
                        may: empty.clone(),
                    }
                }
            })
            .collect();
        let mut met = Flow {
            must: empty.clone(),
            may: empty.clone(),
        };
        let mut incoming = met.clone();
        let mut changed = true;
        while changed {
            changed = false;
            for &p in order {
                if p >= n || is_entry(p) {
                    continue;
                }
                met.must.insert_range(..);
                met.may.clear();
                for edge in graph.edges_directed(NodeIndex::new(p), Direction::Incoming) {
                    let q = edge.source().index();
                    if q >= n {
                        continue;
                    }
                    incoming.clone_from(&flows[q]);
                    self.transfer(q, &mut incoming);
                    self.across(*edge.weight(), &mut incoming);
                    met.must.intersect_with(&incoming.must);
                    met.may.union_with(&incoming.may);
                }
                if met.must != flows[p].must || met.may != flows[p].may {
                    flows[p].clone_from(&met);
                    changed = true;
                }
            }
        }
        (0..n).map(|p| self.answer(p, &flows[p])).collect()
    }
}

/// A phase's set for one more of the phases that read it: a copy, or the
/// set itself for the last of them, so a chain never copies.
fn hand_over<T: Clone>(slot: &mut Option<T>, readers_left: &mut usize) -> Option<T> {
    *readers_left = readers_left.saturating_sub(1);
    if *readers_left == 0 {
        slot.take()
    } else {
        slot.clone()
    }
}

/// Backward may-analysis: which exit fields some later phase reads.
struct Liveness<'c> {
    contract: &'c Contract,
    facts: FieldIndex<'c>,
    /// Per phase, the fact ids it reads on entry.
    reads: Vec<Vec<usize>>,
}

impl<'c> Liveness<'c> {
    fn new(contract: &'c Contract) -> Self {
        let facts = FieldIndex::new(
            contract
                .phases
                .iter()
                .flat_map(|p| p.entry_fields().map(|f| &f.name.value)),
        );
        let reads = contract
            .phases
            .iter()
            .map(|p| {
                p.entry_fields()
                    .filter_map(|f| facts.id(f.name.value.as_str()))
                    .collect()
            })
            .collect();
        Liveness {
            contract,
            facts,
            reads,
        }
    }

    /// `live_out` is what phases after `phase` read.
    fn answer(&self, phase: usize, live_out: &FixedBitSet) -> Vec<bool> {
        self.contract.phases[phase]
            .exit_fields()
            .map(|f| {
                let mut found = false;
                self.facts
                    .overlapping(&f.name.value, |id| found |= live_out.contains(id));
                found
            })
            .collect()
    }

    /// One pass in reverse topological order, each phase's set handed to
    /// its predecessors and dropped after the last one (see
    /// `Availability::solve_acyclic`).
    fn solve_acyclic(&self, graph: &DiGraph<(), EdgeOrigin>, order: &[usize]) -> Vec<Vec<bool>> {
        let n = self.contract.phases.len();
        // Per phase, what it and the phases after it read.
        let mut live_in: Vec<Option<FixedBitSet>> = (0..n).map(|_| None).collect();
        let mut writers_left: Vec<usize> = (0..n)
            .map(|p| {
                graph
                    .edges_directed(NodeIndex::new(p), Direction::Incoming)
                    .filter(|e| e.source().index() < n)
                    .count()
            })
            .collect();
        let mut answers: Vec<Vec<bool>> = vec![Vec::new(); n];
        for &p in order.iter().rev() {
            if p >= n {
                continue;
            }
            let mut live: Option<FixedBitSet> = None;
            for s in graph.neighbors(NodeIndex::new(p)) {
                let s = s.index();
                let Some(from_s) = hand_over(&mut live_in[s], &mut writers_left[s]) else {
                    continue;
                };
                live = Some(match live {
                    None => from_s,
                    Some(mut union) => {
                        union.union_with(&from_s);
                        union
                    }
                });
            }
            let mut live = live.unwrap_or_else(|| FixedBitSet::with_capacity(self.facts.len()));
            answers[p] = self.answer(p, &live);
            if writers_left[p] > 0 {
                live.extend(self.reads[p].iter().copied());
                live_in[p] = Some(live);
            }
        }
        answers
    }

    /// With cycles: iterate to the fixpoint, every phase's set kept.
    fn solve_by_fixpoint(
        &self,
        graph: &DiGraph<(), EdgeOrigin>,
        order: &[usize],
    ) -> Vec<Vec<bool>> {
        let n = self.contract.phases.len();
        let width = self.facts.len();
        let reads: Vec<FixedBitSet> = self
            .reads
            .iter()
            .map(|ids| {
                let mut set = FixedBitSet::with_capacity(width);
                set.extend(ids.iter().copied());
                set
            })
            .collect();
        let mut live_out: Vec<FixedBitSet> =
            (0..n).map(|_| FixedBitSet::with_capacity(width)).collect();
        let mut changed = true;
        let mut scratch = FixedBitSet::with_capacity(width);
        while changed {
            changed = false;
            for &p in order.iter().rev() {
                if p >= n {
                    continue;
                }
                scratch.clear();
                for s in graph.neighbors(NodeIndex::new(p)) {
                    let s = s.index();
                    if s >= n {
                        continue;
                    }
                    scratch.union_with(&reads[s]);
                    scratch.union_with(&live_out[s]);
                }
                if scratch != live_out[p] {
                    live_out[p].clone_from(&scratch);
                    changed = true;
                }
            }
        }
        (0..n).map(|p| self.answer(p, &live_out[p])).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Dialect;
    use crate::syntax::{Limits, parse};

    fn graph_of(src: &str) -> (Contract, PhaseGraph) {
        let root = parse(src, Limits::default()).unwrap().unwrap();
        let (contract, diagnostics) = crate::schema::build(&root, src, Dialect::Phaselint);
        assert!(diagnostics.is_empty(), "{diagnostics:#?}");
        let graph = PhaseGraph::build(&contract);
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
    fn reachability_entries_and_dominators() {
        let (_, graph) = graph_of(BRANCH);
        assert_eq!(graph.entries(), &[0, 4]);
        assert!(!graph.has_edges(4));
        assert!(graph.dominates(0, 3));
        assert!(!graph.dominates(1, 3));
        assert!(graph.dominates(3, 3));
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
    fn long_chains_do_not_recurse_per_phase() {
        let mut src = String::from("schema_version: '1'\npipeline_id: p\nphases:\n");
        for i in 0..40_000 {
            src.push_str(&format!("  p{i}: {{}}\n"));
        }
        // A small stack, as worker threads have: no analysis may recurse per phase.
        let handle = std::thread::Builder::new()
            .stack_size(512 * 1024)
            .spawn(move || graph_of(&src).1.phase_count())
            .unwrap();
        assert_eq!(handle.join().unwrap(), 40_000);
    }

    /// A deterministic pseudo-random DAG contract: phases read fields that
    /// earlier phases write (required or optional), edges skip forward, and
    /// some edges drop or preserve fields.
    fn random_dag(seed: u64, phases: usize) -> String {
        let mut state = seed | 1;
        let mut next = |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        let mut src =
            String::from("schema_version: '1'\npipeline_id: p\npipeline_inputs: [f0]\nphases:\n");
        for p in 0..phases {
            let reads: Vec<String> = (0..next(3))
                .map(|_| format!("{{ name: f{} }}", next(p * 2 + 2)))
                .collect();
            src.push_str(&format!(
                "  p{p}:\n    entry: {{ required: [{}] }}\n    exit: {{ required: [{{ name: f{} }}], optional: [{{ name: f{} }}] }}\n",
                reads.join(", "),
                2 * p + 1,
                2 * p + 2
            ));
        }
        src.push_str("graph_topology:\n  edges:\n");
        for p in 1..phases {
            for _ in 0..=next(2) {
                let from = next(p);
                let filter = match next(4) {
                    0 => format!(", drops: [f{}]", next(2 * p + 2)),
                    1 => format!(", preserves: [f{}, f{}]", next(2 * p + 2), next(2 * p + 2)),
                    _ => String::new(),
                };
                src.push_str(&format!("    - {{ from: p{from}, to: p{p}{filter} }}\n"));
            }
        }
        src
    }

    #[test]
    fn one_pass_on_acyclic_graphs_agrees_with_the_fixpoint() {
        for seed in 1..40 {
            let src = random_dag(seed, 3 + (seed as usize % 20));
            let root = parse(&src, Limits::default()).unwrap().unwrap();
            let (contract, _) = crate::schema::build(&root, &src, Dialect::Phaselint);
            let graph = PhaseGraph::build(&contract);
            assert!(graph.cycles().is_empty(), "seed {seed}: not a DAG");
            let n = contract.phases.len();
            let mut digraph = DiGraph::<(), EdgeOrigin>::new();
            for _ in 0..=n {
                digraph.add_node(());
            }
            for (from, to, origin) in graph.edges() {
                digraph.add_edge(NodeIndex::new(from), NodeIndex::new(to), origin);
            }
            let root_node = NodeIndex::new(n);
            for &e in graph.entries() {
                digraph.add_edge(root_node, NodeIndex::new(e), EdgeOrigin::Sequence);
            }
            let order = reverse_post_order(&digraph, root_node);
            let edges = contract
                .topology
                .as_ref()
                .map_or(&[][..], |t| t.edges.as_slice());
            let availability = Availability::new(&contract, edges);
            assert_eq!(
                availability.solve_acyclic(&digraph, &order),
                availability.solve_by_fixpoint(&digraph, graph.entries(), &order),
                "seed {seed}"
            );
            let liveness = Liveness::new(&contract);
            assert_eq!(
                liveness.solve_acyclic(&digraph, &order),
                liveness.solve_by_fixpoint(&digraph, &order),
                "seed {seed}"
            );
            let found: usize = (0..n)
                .map(|p| {
                    graph
                        .entry_presence(p)
                        .iter()
                        .filter(|x| **x != Presence::Always)
                        .count()
                })
                .sum();
            // The generator is meant to leave some fields unavailable.
            if seed == 1 {
                assert!(found > 0, "{src}");
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
