//! The phase graph's structure: its edges (those of `graph_topology`, or
//! else declaration order), entry phases, reachability and strongly
//! connected components in topological order. Computed by `build`; the
//! field analyses (`analyses.rs`, `routes.rs`) run on it later, on demand.

use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use fixedbitset::FixedBitSet;
use petgraph::Direction as EdgeDirection;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use super::answers::{Presence, Route};
use crate::model::Contract;

/// What an edge of the graph came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EdgeOrigin {
    /// Declaration order: phase i -> phase i+1.
    Sequence,
    /// `graph_topology.edges[i]`.
    Topology(usize),
}

/// Which way facts flow through the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Facts flow along the edges (what is available on entry).
    Forward,
    /// Facts flow against the edges (what is read later).
    Backward,
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

    pub(super) fn shrink(mut self) -> Self {
        self.items.shrink_to_fit();
        self.starts.shrink_to_fit();
        self
    }
}

/// A strongly connected component: one phase, or the phases of a cycle.
#[derive(Debug)]
pub(crate) struct Component {
    pub(crate) id: usize,
    /// More than one phase, or one with an edge to itself.
    pub(crate) cyclic: bool,
    /// Where its phases are in `PhaseGraph::component_nodes`.
    nodes: Range<u32>,
}

pub struct PhaseGraph {
    pub(super) contract: Arc<Contract>,
    /// Node `i` is phase `i` of `Contract::phases`.
    pub(super) graph: DiGraph<(), EdgeOrigin>,
    pub(super) from_topology: bool,
    pub(super) entries: Vec<usize>,
    pub(super) reachable: FixedBitSet,
    /// In topological order (upstream components first).
    pub(super) components: Vec<Component>,
    /// The phases of each component, in reverse post-order.
    pub(super) component_nodes: Vec<u32>,
    pub(super) component_of: Vec<u32>,
    pub(super) cycles: Vec<Vec<usize>>,
    /// Per phase, aligned with its `entry_required`: whether each field is
    /// available on entry. Solved on first use.
    pub(super) entry_presence: OnceLock<Ragged<Presence>>,
    /// Per phase, aligned with `exit_fields()`: whether a later phase reads
    /// it. Solved on first use.
    pub(super) exit_read_later: OnceLock<Ragged<bool>>,
    /// Per chain, per pair of consecutive stops. Solved on first use.
    pub(super) chain_routes: OnceLock<Vec<Vec<Route>>>,
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

    pub(crate) fn phase_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Whether the edges come from `graph_topology` rather than declaration order.
    // A question, not a conversion: clippy's `from_*` rule checked it only
    // once it was no longer `pub`.
    #[allow(clippy::wrong_self_convention)]
    pub(crate) fn from_topology(&self) -> bool {
        self.from_topology
    }

    /// Phases with no incoming edge.
    pub(crate) fn entries(&self) -> &[usize] {
        &self.entries
    }

    pub(crate) fn is_entry(&self, phase: usize) -> bool {
        self.entries.binary_search(&phase).is_ok()
    }

    pub(crate) fn is_reachable(&self, phase: usize) -> bool {
        self.reachable.contains(phase)
    }

    pub(crate) fn successors(&self, phase: usize) -> impl Iterator<Item = usize> + '_ {
        self.graph
            .neighbors(NodeIndex::new(phase))
            .map(NodeIndex::index)
    }

    pub(crate) fn predecessors(&self, phase: usize) -> impl Iterator<Item = usize> + '_ {
        self.graph
            .neighbors_directed(NodeIndex::new(phase), EdgeDirection::Incoming)
            .map(NodeIndex::index)
    }

    /// `(to, origin)` of every edge leaving `phase`, in edge order.
    pub(crate) fn out_edges(&self, phase: usize) -> impl Iterator<Item = (usize, EdgeOrigin)> + '_ {
        let mut edges: Vec<(usize, EdgeOrigin)> = self
            .graph
            .edges(NodeIndex::new(phase))
            .map(|e| (e.target().index(), *e.weight()))
            .collect();
        // petgraph lists a node's edges newest first.
        edges.reverse();
        edges.into_iter()
    }

    pub(crate) fn has_edges(&self, phase: usize) -> bool {
        self.successors(phase).next().is_some() || self.predecessors(phase).next().is_some()
    }

    /// `(from, to, origin)` of every edge between phases.
    pub(crate) fn edges(&self) -> impl Iterator<Item = (usize, usize, EdgeOrigin)> + '_ {
        self.graph
            .edge_references()
            .map(|e| (e.source().index(), e.target().index(), *e.weight()))
    }

    /// Strongly connected components that contain a cycle, each sorted by
    /// declaration order.
    pub(crate) fn cycles(&self) -> &[Vec<usize>] {
        &self.cycles
    }

    /// Whether `to` is reachable from `from` by one or more edges. In
    /// declaration order that is a comparison; otherwise a search that
    /// stops at `to`, so a chain between nearby phases costs little.
    pub(crate) fn reaches(&self, from: usize, to: usize) -> bool {
        if !self.from_topology {
            return to > from && to < self.phase_count();
        }
        self.reaches_by(from, to, |_| true)
    }

    /// Whether `to` is reachable from `from` by one or more edges whose
    /// origin passes `allow`; the search stops at `to`.
    pub(crate) fn reaches_by(
        &self,
        from: usize,
        to: usize,
        allow: impl FnMut(EdgeOrigin) -> bool,
    ) -> bool {
        self.search(from, allow, Some(to)).1
    }

    /// Phases reachable from `from` by one or more edges whose origin passes `allow`.
    pub(crate) fn reachable_from(
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

    /// Every phase in graph order: upstream before downstream, the phases
    /// of a cycle together (components in topological order, each in
    /// reverse post-order), the order the data flows run in.
    pub(crate) fn order(&self) -> Vec<usize> {
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
