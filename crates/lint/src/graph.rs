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
use crate::model::{Contract, FieldSeverity, Phase, TopologyEdge};

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
        let availability =
            Availability::compute(contract, &graph, &entries, &order, edges_of_topology);
        let liveness = Liveness::compute(contract, &graph, &order);
        let entry_presence = contract
            .phases
            .iter()
            .enumerate()
            .map(|(i, p)| {
                p.entry_required
                    .iter()
                    .map(|f| availability.presence(i, &f.name.value))
                    .collect()
            })
            .collect();
        let exit_read_later = contract
            .phases
            .iter()
            .enumerate()
            .map(|(i, p)| {
                p.exit_fields()
                    .map(|f| liveness.read_later(i, &f.name.value))
                    .collect()
            })
            .collect();

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

    /// Phases reachable from `from` by one or more edges whose origin passes `allow`.
    pub fn reachable_from(
        &self,
        from: usize,
        mut allow: impl FnMut(EdgeOrigin) -> bool,
    ) -> FixedBitSet {
        let mut seen = FixedBitSet::with_capacity(self.graph.node_count());
        let mut queue = VecDeque::from([from]);
        while let Some(p) = queue.pop_front() {
            for edge in self.graph.edges(NodeIndex::new(p)) {
                if allow(*edge.weight()) && !seen.put(edge.target().index()) {
                    queue.push_back(edge.target().index());
                }
            }
        }
        seen
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

/// Must/may availability of every entry-required field at every phase entry.
struct Availability {
    facts: FieldIndex,
    must_in: Vec<FixedBitSet>,
    may_in: Vec<FixedBitSet>,
}

impl Availability {
    fn compute(
        contract: &Contract,
        graph: &DiGraph<(), EdgeOrigin>,
        entries: &[usize],
        order: &[usize],
        topology_edges: &[TopologyEdge],
    ) -> Self {
        let phases = &contract.phases;
        let facts = FieldIndex::new(
            phases
                .iter()
                .flat_map(|p| p.entry_required.iter().map(|f| &f.name.value)),
        );
        let n = phases.len();
        let width = facts.len();
        let empty = FixedBitSet::with_capacity(width);
        let mut full = FixedBitSet::with_capacity(width);
        full.insert_range(..);

        let inputs = facts.set_of(contract.pipeline_inputs.iter().map(|s| &s.value));
        // What each phase adds, as fact ids: a few per phase, so lists
        // rather than phases x facts bits.
        let ids_of = |paths: &mut dyn Iterator<Item = &FieldPath>| -> Vec<usize> {
            let mut ids = Vec::new();
            for path in paths {
                facts.covered_by(path, |id| ids.push(id));
            }
            ids
        };
        let must_gen: Vec<Vec<usize>> = phases
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
        let may_gen: Vec<Vec<usize>> = phases
            .iter()
            .map(|p| ids_of(&mut p.exit_optional.iter().map(|f| &f.name.value)))
            .collect();
        // What each topology edge lets through, when it restricts anything.
        let edge_masks: Vec<Option<FixedBitSet>> = topology_edges
            .iter()
            .map(|edge| {
                if edge.preserves.is_none() && edge.drops.is_empty() {
                    return None;
                }
                let mut mask = match &edge.preserves {
                    Some(kept) => facts.set_of(kept.iter().map(|k| &k.value)),
                    None => full.clone(),
                };
                for drop in &edge.drops {
                    facts.covered_by(&drop.value, |id| mask.set(id, false));
                }
                Some(mask)
            })
            .collect();

        let is_entry = |p: usize| entries.binary_search(&p).is_ok();
        let mut must_in: Vec<FixedBitSet> = (0..n).map(|_| full.clone()).collect();
        let mut may_in: Vec<FixedBitSet> = (0..n).map(|_| empty.clone()).collect();
        for &e in entries {
            // The caller supplies the pipeline inputs and the first phases'
            // entry fields; they stay in the context afterwards.
            let mut given = inputs.clone();
            given.union_with(&facts.set_of(phases[e].entry_required.iter().map(|f| &f.name.value)));
            let mut possible = given.clone();
            possible.union_with(
                &facts.set_of(phases[e].entry_enrichment.iter().map(|f| &f.name.value)),
            );
            must_in[e] = given;
            may_in[e] = possible;
        }

        let mut changed = true;
        let mut scratch_must = empty.clone();
        let mut scratch_may = empty.clone();
        let mut out_must = empty.clone();
        let mut out_may = empty.clone();
        while changed {
            changed = false;
            for &p in order {
                if p >= n || is_entry(p) {
                    continue;
                }
                scratch_must.insert_range(..);
                scratch_may.clear();
                for edge in graph.edges_directed(NodeIndex::new(p), Direction::Incoming) {
                    let q = edge.source().index();
                    if q >= n {
                        continue;
                    }
                    out_must.clone_from(&must_in[q]);
                    out_must.extend(must_gen[q].iter().copied());
                    out_may.clone_from(&may_in[q]);
                    out_may.extend(may_gen[q].iter().copied());
                    out_may.union_with(&out_must);
                    if let EdgeOrigin::Topology(i) = *edge.weight()
                        && let Some(Some(mask)) = edge_masks.get(i)
                    {
                        out_must.intersect_with(mask);
                        out_may.intersect_with(mask);
                    }
                    scratch_must.intersect_with(&out_must);
                    scratch_may.union_with(&out_may);
                }
                if scratch_must != must_in[p] || scratch_may != may_in[p] {
                    must_in[p].clone_from(&scratch_must);
                    may_in[p].clone_from(&scratch_may);
                    changed = true;
                }
            }
        }
        Availability {
            facts,
            must_in,
            may_in,
        }
    }

    fn presence(&self, phase: usize, field: &FieldPath) -> Presence {
        let Some(&id) = self.facts.ids.get(field.as_str()) else {
            return Presence::Never;
        };
        if self.must_in.get(phase).is_some_and(|s| s.contains(id)) {
            Presence::Always
        } else if self.may_in.get(phase).is_some_and(|s| s.contains(id)) {
            Presence::Sometimes
        } else {
            Presence::Never
        }
    }
}

/// Backward may-analysis: which entry fields some later phase reads.
struct Liveness {
    facts: FieldIndex,
    live_out: Vec<FixedBitSet>,
}

impl Liveness {
    fn compute(contract: &Contract, graph: &DiGraph<(), EdgeOrigin>, order: &[usize]) -> Self {
        let phases: &[Phase] = &contract.phases;
        let facts = FieldIndex::new(
            phases
                .iter()
                .flat_map(|p| p.entry_fields().map(|f| &f.name.value)),
        );
        let n = phases.len();
        let reads: Vec<FixedBitSet> = phases
            .iter()
            .map(|p| {
                let mut set = FixedBitSet::with_capacity(facts.len());
                for f in p.entry_fields() {
                    if let Some(&id) = facts.ids.get(f.name.value.as_str()) {
                        set.insert(id);
                    }
                }
                set
            })
            .collect();
        let mut live_out: Vec<FixedBitSet> = (0..n)
            .map(|_| FixedBitSet::with_capacity(facts.len()))
            .collect();
        let mut changed = true;
        let mut scratch = FixedBitSet::with_capacity(facts.len());
        while changed {
            changed = false;
            for &p in order.iter().rev() {
                if p >= n {
                    continue;
                }
                scratch.clear();
                for s in graph.neighbors(NodeIndex::new(p)) {
                    let s = s.index();
                    scratch.union_with(&reads[s]);
                    scratch.union_with(&live_out[s]);
                }
                if scratch != live_out[p] {
                    live_out[p].clone_from(&scratch);
                    changed = true;
                }
            }
        }
        Liveness { facts, live_out }
    }

    fn read_later(&self, phase: usize, field: &FieldPath) -> bool {
        let Some(live) = self.live_out.get(phase) else {
            return false;
        };
        let mut found = false;
        self.facts
            .overlapping(field, |id| found |= live.contains(id));
        found
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

    #[test]
    fn declaration_order_without_topology() {
        let (_, graph) =
            graph_of("schema_version: '1'\npipeline_id: p\nphases: { a: {}, b: {}, c: {} }\n");
        assert_eq!(graph.successors(0).collect::<Vec<_>>(), vec![1]);
        assert_eq!(graph.entries(), &[0]);
        assert!(!graph.from_topology());
    }
}
