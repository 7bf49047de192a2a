//! The one data-flow solver behind every analysis of the phase graph:
//! forward or backward, one or more lanes of facts, each lane with its own
//! meet (∩ for "on every path", ∪ for "on some path"). Nodes add facts
//! (and may clear what reached them); edges may restrict what crosses.
//!
//! Strongly connected components are solved one at a time in topological
//! order: a component of one phase without a self-loop (every phase of an
//! acyclic graph) takes one step, a cyclic one iterates to its fixpoint.
//! A node's outgoing set lives only until its last reader has taken it,
//! and the last reader takes it without a copy, so a chain of phases hands
//! one set down the line.
//!
//! Memory is bounded whatever the shape: the sets that can be alive at once
//! are counted before solving, and when they would need more than
//! `SET_BUDGET_BYTES`, the facts are solved in windows (ids `0..w`, then
//! `w..2w`, …), each with sets only as wide as the window. A cycle through
//! 100,000 phases reading 100,000 fields costs a few passes per window
//! instead of 100,000 sets of 100,000 bits.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;

use fixedbitset::FixedBitSet;

pub(crate) use crate::graph::Direction;
use crate::graph::{EdgeOrigin, PhaseGraph};

/// The most memory the sets of one solve may take at once.
pub(crate) const SET_BUDGET_BYTES: usize = 64 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Meet {
    /// A fact holds where it arrives on every path (∩).
    All,
    /// A fact holds where it arrives on some path (∪).
    Any,
}

/// The fact ids a solve is working on: `start..end`, bit `i` of a set is
/// fact `start + i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

impl Window {
    /// The bits of `ids` that fall in this window.
    pub(crate) fn local(&self, ids: Range<u32>) -> Option<Range<usize>> {
        let start = ids.start.max(self.start);
        let end = ids.end.min(self.end);
        (start < end).then(|| (start - self.start) as usize..(end - self.start) as usize)
    }

    pub(crate) fn contains(&self, id: u32) -> bool {
        (self.start..self.end).contains(&id)
    }

    fn width(&self) -> usize {
        (self.end - self.start) as usize
    }
}

/// An analysis the solver runs: its facts, what nodes add, what edges let
/// through, and what it does with the answer at each node.
pub(crate) trait FlowProblem {
    fn direction(&self) -> Direction;
    /// The meet of each lane.
    fn lanes(&self) -> &'static [Meet];
    /// How many facts there are; ids are `0..facts()`.
    fn facts(&self) -> usize;
    /// What `node` adds to `lane` on the way through, as id ranges.
    fn adds(&self, lane: usize, node: usize, visit: &mut dyn FnMut(Range<u32>));
    /// Whether `node` drops what reached it before adding its own.
    fn clears(&self, _node: usize) -> bool {
        false
    }
    /// What a node that nothing flows into starts with, as id ranges.
    fn boundary(&self, lane: usize, node: usize, visit: &mut dyn FnMut(Range<u32>));
    /// Removes from `set` (lane `lane`'s) what `edge` does not let through.
    fn restrict(
        &self,
        _lane: usize,
        _edge: EdgeOrigin,
        _window: &Window,
        _set: &mut FixedBitSet,
        _scratch: &mut FixedBitSet,
    ) {
    }
    /// The facts that hold where `node` starts (its entry going forward,
    /// its exit going backward), one set per lane.
    fn answer(&mut self, node: usize, window: &Window, lanes: &[FixedBitSet]);
}

/// One set per lane.
type Sets = Vec<FixedBitSet>;

/// Runs `problem` over `graph` to its fixpoint and hands each node's answer
/// to `problem.answer`, once per window of facts.
pub(crate) fn solve(graph: &PhaseGraph, problem: &mut impl FlowProblem) {
    let facts = problem.facts();
    if facts == 0 {
        return;
    }
    let sets = peak_sets(graph, problem.direction()) * problem.lanes().len();
    let width = window_width(facts, sets);
    #[cfg(test)]
    let width = tests::WIDTH.with(|w| w.get()).unwrap_or(width);
    let mut solver = Solver::new(graph, problem);
    let mut start = 0;
    while start < facts {
        let end = (start + width).min(facts);
        solver.run(Window {
            start: start as u32,
            end: end as u32,
        });
        start = end;
    }
}

/// How many facts one set may hold so that `sets` of them fit the budget:
/// a multiple of 64 bits, at least one word, at most every fact.
fn window_width(facts: usize, sets: usize) -> usize {
    let bits = SET_BUDGET_BYTES * 8 / sets.max(1);
    (bits / 64 * 64).max(64).min(facts)
}

/// An upper bound on the sets (per lane) alive at once while solving: the
/// outgoing sets still waiting for a reader, plus the working sets of the
/// component being solved. Mirrors `Solver::run` without the sets.
fn peak_sets(graph: &PhaseGraph, direction: Direction) -> usize {
    let mut readers_left = readers(graph, direction);
    let mut waiting = 0usize;
    let mut peak = 0usize;
    for component in graph.components_in(direction) {
        let nodes = graph.component_nodes(component, direction);
        let working = if component.cyclic {
            // A value per node, the inflow of nodes entered from outside,
            // and three to work with.
            let entered = nodes
                .iter()
                .filter(|&&p| {
                    graph
                        .upstream(p as usize, direction)
                        .any(|(u, _)| graph.component_of(u) != component.id)
                })
                .count();
            nodes.len() + entered + 3
        } else {
            2
        };
        peak = peak.max(waiting + working);
        for &p in &nodes {
            for (u, _) in graph.upstream(p as usize, direction) {
                if graph.component_of(u) != component.id && readers_left[u] > 0 {
                    readers_left[u] -= 1;
                    if readers_left[u] == 0 {
                        waiting -= 1;
                    }
                }
            }
        }
        waiting += nodes
            .iter()
            .filter(|&&p| readers_left[p as usize] > 0)
            .count();
    }
    peak.max(1)
}

/// Per node, how many edges lead from it to another component along the
/// direction of flow: how many readers its outgoing set will have.
fn readers(graph: &PhaseGraph, direction: Direction) -> Vec<u32> {
    (0..graph.phase_count())
        .map(|p| {
            graph
                .downstream(p, direction)
                .filter(|&(d, _)| graph.component_of(d) != graph.component_of(p))
                .count() as u32
        })
        .collect()
}

/// The state of a solve: what is waiting between components, and buffers
/// kept from one window to the next.
struct Solver<'g, 'p, P: FlowProblem> {
    graph: &'g PhaseGraph,
    problem: &'p mut P,
    window: Window,
    meets: &'static [Meet],
    direction: Direction,
    /// Outgoing sets waiting for readers in later components.
    waiting: Vec<Option<Sets>>,
    readers_left: Vec<u32>,
    /// A node's position among the nodes of the cyclic component being solved.
    position: Vec<u32>,
    /// The values of a cyclic component's nodes, reused from one component
    /// and window to the next.
    cycle_values: Vec<Sets>,
    scratch: FixedBitSet,
}

impl<'g, 'p, P: FlowProblem> Solver<'g, 'p, P> {
    fn new(graph: &'g PhaseGraph, problem: &'p mut P) -> Self {
        let direction = problem.direction();
        Solver {
            graph,
            meets: problem.lanes(),
            direction,
            waiting: (0..graph.phase_count()).map(|_| None).collect(),
            readers_left: Vec::new(),
            position: vec![0; graph.phase_count()],
            cycle_values: Vec::new(),
            scratch: FixedBitSet::new(),
            problem,
            window: Window { start: 0, end: 0 },
        }
    }

    fn run(&mut self, window: Window) {
        let graph = self.graph;
        self.scratch = FixedBitSet::with_capacity(window.width());
        self.readers_left = readers(graph, self.direction);
        if self.window.width() != window.width() {
            self.cycle_values.clear();
        }
        self.window = window;
        for component in graph.components_in(self.direction) {
            if component.cyclic {
                let nodes = graph.component_nodes(component, self.direction);
                self.solve_cycle(component.id, &nodes);
            } else {
                self.solve_single(graph.first_node(component));
            }
        }
    }

    /// The value every lane starts from in a cycle: everything for ∩
    /// (optimistic, narrowed by each pass), nothing for ∪.
    fn top(&self) -> Sets {
        self.meets
            .iter()
            .map(|meet| {
                let mut set = FixedBitSet::with_capacity(self.window.width());
                if *meet == Meet::All {
                    set.insert_range(..);
                }
                set
            })
            .collect()
    }

    fn boundary(&self, node: usize) -> Sets {
        (0..self.meets.len())
            .map(|lane| {
                let mut set = FixedBitSet::with_capacity(self.window.width());
                self.problem.boundary(lane, node, &mut |ids| {
                    if let Some(bits) = self.window.local(ids) {
                        set.insert_range(bits);
                    }
                });
                set
            })
            .collect()
    }

    /// Turns what holds where `node` starts into what it passes on.
    fn transfer(&self, node: usize, sets: &mut Sets) {
        let clears = self.problem.clears(node);
        for (lane, set) in sets.iter_mut().enumerate() {
            if clears {
                set.clear();
            }
            self.problem.adds(lane, node, &mut |ids| {
                if let Some(bits) = self.window.local(ids) {
                    set.insert_range(bits);
                }
            });
        }
    }

    fn restrict(&mut self, edge: EdgeOrigin, sets: &mut Sets) {
        for (lane, set) in sets.iter_mut().enumerate() {
            self.problem
                .restrict(lane, edge, &self.window, set, &mut self.scratch);
        }
    }

    fn meet_into(&self, into: &mut Sets, incoming: &Sets) {
        for ((into, incoming), meet) in into.iter_mut().zip(incoming).zip(self.meets) {
            match meet {
                Meet::All => into.intersect_with(incoming),
                Meet::Any => into.union_with(incoming),
            }
        }
    }

    /// The outgoing set of `upstream` for one more reader: a copy, or the
    /// set itself for its last reader.
    fn take_waiting(&mut self, upstream: usize) -> Option<Sets> {
        let left = &mut self.readers_left[upstream];
        *left = left.saturating_sub(1);
        if *left == 0 {
            self.waiting[upstream].take()
        } else {
            self.waiting[upstream].clone()
        }
    }

    /// The meet of what flows into `node` from other components, or `None`
    /// when nothing does.
    fn external_input(&mut self, node: usize, component: usize) -> Option<Sets> {
        let graph = self.graph;
        let mut input: Option<Sets> = None;
        for (u, edge) in graph.upstream(node, self.direction) {
            if graph.component_of(u) == component {
                continue;
            }
            let Some(mut incoming) = self.take_waiting(u) else {
                continue;
            };
            self.restrict(edge, &mut incoming);
            match &mut input {
                None => input = Some(incoming),
                Some(met) => self.meet_into(met, &incoming),
            }
        }
        input
    }

    fn finish(&mut self, node: usize, mut sets: Sets) {
        self.problem.answer(node, &self.window, &sets);
        if self.readers_left[node] > 0 {
            self.transfer(node, &mut sets);
            self.waiting[node] = Some(sets);
        }
    }

    fn solve_single(&mut self, node: usize) {
        let component = self.graph.component_of(node);
        let has_upstream = self.graph.upstream(node, self.direction).next().is_some();
        let sets = match self.external_input(node, component) {
            Some(sets) => sets,
            None if has_upstream => self.top(),
            None => self.boundary(node),
        };
        self.finish(node, sets);
    }

    fn solve_cycle(&mut self, component: usize, nodes: &[u32]) {
        let graph = self.graph;
        let external: Vec<Option<Sets>> = nodes
            .iter()
            .map(|&p| self.external_input(p as usize, component))
            .collect();
        for (i, &p) in nodes.iter().enumerate() {
            self.position[p as usize] = i as u32;
        }
        let top = self.top();
        let mut values = std::mem::take(&mut self.cycle_values);
        values.truncate(nodes.len());
        for value in &mut values {
            clone_sets(value, &top);
        }
        values.resize(nodes.len(), top.clone());
        let mut next = top.clone();
        let mut passing = top.clone();
        // A worklist in visiting order: a node is solved again only when
        // something upstream of it changed, and always the earliest such
        // node first, so a fact crosses a long cycle in one sweep, whichever
        // way it flows.
        let mut queued = FixedBitSet::with_capacity(nodes.len());
        queued.insert_range(..);
        let mut worklist: BinaryHeap<Reverse<u32>> = (0..nodes.len() as u32).map(Reverse).collect();
        while let Some(Reverse(i)) = worklist.pop() {
            let i = i as usize;
            queued.set(i, false);
            let p = nodes[i] as usize;
            clone_sets(&mut next, external[i].as_ref().unwrap_or(&top));
            for (u, edge) in graph.upstream(p, self.direction) {
                if graph.component_of(u) != component {
                    continue;
                }
                clone_sets(&mut passing, &values[self.position[u] as usize]);
                self.transfer(u, &mut passing);
                self.restrict(edge, &mut passing);
                self.meet_into(&mut next, &passing);
            }
            if same(&next, &values[i]) {
                continue;
            }
            std::mem::swap(&mut next, &mut values[i]);
            for (d, _) in graph.downstream(p, self.direction) {
                if graph.component_of(d) != component {
                    continue;
                }
                let j = self.position[d];
                if !queued.put(j as usize) {
                    worklist.push(Reverse(j));
                }
            }
        }
        drop(external);
        for (i, &p) in nodes.iter().enumerate() {
            let node = p as usize;
            self.problem.answer(node, &self.window, &values[i]);
            if self.readers_left[node] > 0 {
                let mut out = values[i].clone();
                self.transfer(node, &mut out);
                self.waiting[node] = Some(out);
            }
        }
        self.cycle_values = values;
    }
}

/// Whether two values hold the same facts (word by word; comparing the
/// sets themselves walks their bits).
fn same(a: &Sets, b: &Sets) -> bool {
    a.iter().zip(b).all(|(a, b)| a.as_slice() == b.as_slice())
}

fn clone_sets(into: &mut Sets, from: &Sets) {
    for (into, from) in into.iter_mut().zip(from) {
        into.clone_from(from);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    thread_local! {
        /// Forces a window width, so tests can solve in many windows.
        pub(crate) static WIDTH: Cell<Option<usize>> = const { Cell::new(None) };
    }

    #[test]
    fn windows_fit_the_budget() {
        assert_eq!(super::window_width(10, 4), 10);
        assert_eq!(super::window_width(1_000_000, 1), 1_000_000);
        // 200,000 sets of 64 MiB in all: 2,624 bits each.
        let width = super::window_width(100_000, 200_000);
        assert_eq!(width % 64, 0);
        assert!(width * 200_000 <= super::SET_BUDGET_BYTES * 8, "{width}");
        assert_eq!(super::window_width(100_000, usize::MAX / 8), 64);
    }
}
