use std::collections::VecDeque;
use std::ops::Range;

use fixedbitset::FixedBitSet;

use crate::dataflow::{self, Direction, FlowProblem, Meet, Window};
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::model::{EnumValue, SideEffects};
use crate::rules::{Check, Family, Need, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "G305",
    "unprotected-mutation",
    Family::Graph,
    Severity::Warning,
    "A side-effecting phase is reached by a path that passes no checkpoint",
)
.needs(&[Need::CompleteTopology])
.points_at("the phase's name")
.check(Check::Contract(check));

/// What the flow needs to know of each phase.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A checkpoint is taken after it: what leaves it is protected.
    Checkpointed,
    /// It mutates and nothing is checkpointed after it: what leaves it is
    /// unprotected, from it.
    UnprotectedMutation,
    /// Passes on what reaches it.
    Other,
}

/// G305's may-reach flow with one fact, "unprotected": the pipeline's
/// start brings it, an uncheckpointed side-effecting phase makes it, a
/// checkpointed phase stops it.
struct Unprotected {
    kinds: Vec<Kind>,
    /// Per phase, whether unprotected may reach its entry.
    on_entry: FixedBitSet,
}

impl FlowProblem for Unprotected {
    fn direction(&self) -> Direction {
        Direction::Forward
    }

    fn lanes(&self) -> &'static [Meet] {
        &[Meet::Any]
    }

    fn facts(&self) -> usize {
        1
    }

    fn adds(&self, _lane: usize, node: usize, visit: &mut dyn FnMut(Range<u32>)) {
        if self.kinds[node] == Kind::UnprotectedMutation {
            visit(0..1);
        }
    }

    fn clears(&self, node: usize) -> bool {
        self.kinds[node] != Kind::Other
    }

    /// The pipeline's start is unprotected.
    fn boundary(&self, _lane: usize, _node: usize, visit: &mut dyn FnMut(Range<u32>)) {
        visit(0..1);
    }

    fn answer(&mut self, node: usize, _window: &Window, lanes: &[FixedBitSet]) {
        self.on_entry.set(node, lanes[0].contains(0));
    }
}

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let contract = ctx.contract;
    let graph = ctx.graph;
    let mutates = |p: usize| contract.phases[p].side_effect_class() != SideEffects::None;
    if !(0..contract.phases.len()).any(mutates) {
        return;
    }
    let kinds: Vec<Kind> = (0..contract.phases.len())
        .map(|p| {
            if ctx.is_checkpointed(p) {
                Kind::Checkpointed
            } else if mutates(p) {
                Kind::UnprotectedMutation
            } else {
                Kind::Other
            }
        })
        .collect();
    let mut flow = Unprotected {
        on_entry: FixedBitSet::with_capacity(kinds.len()),
        kinds,
    };
    dataflow::solve(graph, &mut flow);
    let reported: Vec<usize> = flow.on_entry.ones().filter(|&p| mutates(p)).collect();
    if reported.is_empty() {
        return;
    }
    let starts = path_starts(ctx, &flow);
    for phase in reported {
        let node = &contract.phases[phase];
        let class = node.side_effect_class().as_str();
        let Some(start) = starts[phase] else {
            continue;
        };
        let mut diagnostic = if graph.is_entry(phase) {
            RULE.diagnostic(
                node.name_span,
                format!(
                    "phase `{}` has `{class}` side effects and the pipeline starts with it: no checkpoint can be taken before it",
                    node.name
                ),
            )
            .with_help(format!(
                "add a phase before `{}` with a checkpoint_integrity entry, so the state before its side effects can be restored",
                node.name
            ))
        } else {
            let exposed: Vec<&str> = graph
                .predecessors(phase)
                .filter(|&p| flow.leaves_unprotected(p))
                .map(|p| contract.phases[p].name.as_str())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let from = match start {
                Start::Pipeline(entry) => format!(
                    "the start of the pipeline (`{}`)",
                    contract.phases[entry].name
                ),
                Start::Mutation(earlier) if earlier == phase => {
                    "its own side effects, around a cycle,".to_string()
                }
                Start::Mutation(earlier) => {
                    format!("the side effects of `{}`", contract.phases[earlier].name)
                }
            };
            RULE.diagnostic(
                node.name_span,
                format!(
                    "phase `{}` has `{class}` side effects, and a path from {from} reaches it through no checkpoint",
                    node.name
                ),
            )
            .with_help(match exposed.as_slice() {
                [one] => format!(
                    "add a checkpoint_integrity entry with `phase: {one}`, so the state before `{}` can be restored",
                    node.name
                ),
                many => format!(
                    "add a checkpoint_integrity entry on each phase before `{}` that the path comes through ({}), so the state before it can be restored",
                    node.name,
                    crate::diagnostic::code_list(many.iter())
                ),
            })
        };
        let (origin, label) = match start {
            Start::Pipeline(entry) => (
                entry,
                "the unprotected path starts here, where the pipeline starts",
            ),
            Start::Mutation(earlier) => (
                earlier,
                "the unprotected path starts after this phase's side effects",
            ),
        };
        if origin != phase {
            diagnostic = diagnostic.with_related(contract.phases[origin].name_span, label);
        }
        out.push(diagnostic);
    }
}

impl Unprotected {
    /// Whether what leaves `phase` is unprotected.
    fn leaves_unprotected(&self, phase: usize) -> bool {
        match self.kinds[phase] {
            Kind::Checkpointed => false,
            Kind::UnprotectedMutation => true,
            Kind::Other => self.on_entry.contains(phase),
        }
    }
}

#[derive(Clone, Copy)]
enum Start {
    /// The pipeline starts at this entry phase.
    Pipeline(usize),
    /// After this uncheckpointed side-effecting phase.
    Mutation(usize),
}

/// For each phase that unprotected reaches, one place where such a path
/// starts: a breadth-first pass from every start at once, through the
/// phases that pass it on, so it is linear in phases + edges. Only run
/// when some phase is reported.
fn path_starts(ctx: &RuleContext<'_>, flow: &Unprotected) -> Vec<Option<Start>> {
    let graph = ctx.graph;
    let mut starts: Vec<Option<Start>> = vec![None; flow.kinds.len()];
    let mut queue: VecDeque<usize> = VecDeque::new();
    fn reach(
        starts: &mut [Option<Start>],
        queue: &mut VecDeque<usize>,
        phase: usize,
        start: Start,
    ) {
        if starts[phase].is_none() {
            starts[phase] = Some(start);
            queue.push_back(phase);
        }
    }
    // The pipeline's start first, so a phase reached both ways names it;
    // then what leaves each uncheckpointed mutation.
    for &entry in graph.entries() {
        reach(&mut starts, &mut queue, entry, Start::Pipeline(entry));
    }
    let mutations = (0..flow.kinds.len()).filter(|&p| flow.kinds[p] == Kind::UnprotectedMutation);
    let mut seeds = mutations.map(|m| (m, Start::Mutation(m)));
    loop {
        while let Some(phase) = queue.pop_front() {
            if flow.kinds[phase] != Kind::Other {
                continue;
            }
            let Some(start) = starts[phase] else { continue };
            for successor in graph.successors(phase) {
                reach(&mut starts, &mut queue, successor, start);
            }
        }
        let Some((mutation, start)) = seeds.next() else {
            break;
        };
        for successor in graph.successors(mutation) {
            reach(&mut starts, &mut queue, successor, start);
        }
    }
    starts
}
