//! The phase graph as `phaselint graph` draws it: what a reader of the
//! pipeline needs on each phase (its checkpoints, side effects, risk, long
//! running) and each edge (condition, `drops`), and, on request, the
//! findings on the phase they point at. Renderers (DOT, Mermaid, JSON) only
//! lay this out; what is shown is decided here.

use std::collections::HashMap;

use serde::Serialize;

use crate::diagnostic::Severity;
use crate::graph::EdgeOrigin;
use crate::model::{ApprovalPolicy, CheckpointMode, Contract, RiskClass, SideEffects};
use crate::syntax::Span;
use crate::{Analysis, Settings};

/// Bumped when a key changes meaning or goes away (new keys may appear).
pub(crate) const VERSION: u32 = 1;

/// Borrows its names and messages from the analysis it was drawn from: a
/// contract at the size bound has millions of phases, and a copy of each
/// name (three, for an edge's ends) doubled what drawing it cost.
#[derive(Debug, Serialize)]
pub struct GraphExport<'a> {
    pub(crate) version: u32,
    pub pipeline_id: Option<&'a str>,
    /// `graph_topology` edges, or declaration order when there are none.
    pub(crate) edges_from: EdgesFrom,
    /// `checkpoint_mode: always` checkpoints after every phase.
    pub checkpoint_mode: Option<CheckpointMode>,
    pub nodes: Vec<Node<'a>>,
    pub edges: Vec<Edge<'a>>,
    /// With findings: those that point at no phase or edge (the contract's
    /// own keys, a chain's description…), so none is lost from the picture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_findings: Option<Vec<Finding<'a>>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum EdgesFrom {
    GraphTopology,
    DeclarationOrder,
}

#[derive(Debug, Serialize)]
pub struct Node<'a> {
    pub id: &'a str,
    /// 1-based line of the phase's name.
    pub(crate) line: usize,
    pub(crate) entry: bool,
    pub reachable: bool,
    pub checkpoints: Vec<CheckpointMark<'a>>,
    pub side_effects: SideEffects,
    pub risk_class: RiskClass,
    pub long_running: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub findings: Option<Vec<Finding<'a>>>,
}

impl Node<'_> {
    /// Whether it changes the world outside the run.
    pub fn side_effecting(&self) -> bool {
        self.side_effects != SideEffects::None
    }

    pub fn high_risk(&self) -> bool {
        self.risk_class >= RiskClass::High
    }

    /// Its worst finding, for colouring.
    pub fn worst(&self) -> Option<Severity> {
        worst(self.findings.as_deref())
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct CheckpointMark<'a> {
    pub id: &'a str,
    pub approval_required: bool,
    pub approval_policy: Option<ApprovalPolicy>,
}

#[derive(Debug, Serialize)]
pub struct Edge<'a> {
    pub(crate) from: &'a str,
    pub(crate) to: &'a str,
    /// Where `from` and `to` are in `GraphExport::nodes`, so a renderer
    /// does not look phases up by name.
    #[serde(skip)]
    pub from_node: usize,
    #[serde(skip)]
    pub to_node: usize,
    pub condition: Option<&'a str>,
    pub drops: Vec<&'a str>,
    /// `None` when the edge lets everything through.
    pub preserves: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub findings: Option<Vec<Finding<'a>>>,
}

impl Edge<'_> {
    pub fn worst(&self) -> Option<Severity> {
        worst(self.findings.as_deref())
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Finding<'a> {
    pub code: crate::rule_id::RuleId,
    pub severity: Severity,
    pub message: &'a str,
    pub line: usize,
}

fn worst(findings: Option<&[Finding]>) -> Option<Severity> {
    findings?.iter().map(|f| f.severity).max()
}

/// The graph of an analysed contract; `None` when there is no model to
/// draw (the YAML could not be read). `findings` overlays the analysis's
/// diagnostics.
pub fn export<'a>(
    analysis: &'a Analysis,
    settings: &Settings,
    findings: bool,
) -> Option<GraphExport<'a>> {
    let contract = analysis.contract()?;
    let graph = analysis.graph()?;
    let line = |offset: usize| {
        analysis
            .line_index
            .position(
                &analysis.source,
                offset,
                crate::line_index::ColumnUnit::Chars,
            )
            .line
            + 1
    };
    // Each checkpoint on its phase, in file order: one pass over them, not
    // one per phase.
    let mut marks: HashMap<&str, Vec<CheckpointMark<'a>>> = HashMap::new();
    for checkpoint in &contract.checkpoints {
        let (Some(phase), Some(id)) = (&checkpoint.phase, &checkpoint.checkpoint_id) else {
            continue;
        };
        marks
            .entry(phase.value.as_str())
            .or_default()
            .push(CheckpointMark {
                id: id.value.as_str(),
                approval_required: checkpoint.on_resume.approval_required(),
                approval_policy: checkpoint
                    .on_resume
                    .approval_policy
                    .as_ref()
                    .map(|p| p.value),
            });
    }
    let mut nodes: Vec<Node<'a>> = contract
        .phases
        .iter()
        .enumerate()
        .map(|(i, phase)| Node {
            id: phase.name.as_str(),
            line: line(phase.name_span.start),
            entry: graph.is_entry(i),
            reachable: graph.is_reachable(i),
            checkpoints: marks.get(phase.name.as_str()).cloned().unwrap_or_default(),
            side_effects: phase.side_effect_class(),
            risk_class: phase.risk(),
            long_running: phase.is_long_running(settings.long_running_threshold),
            findings: findings.then(Vec::new),
        })
        .collect();
    let topology = contract.topology.as_ref();
    let mut edges: Vec<(Edge<'a>, Option<usize>)> = graph
        .edges()
        .map(|(from, to, origin)| {
            let written = match origin {
                EdgeOrigin::Topology(i) => topology.and_then(|t| t.edges.get(i)),
                EdgeOrigin::Sequence => None,
            };
            let names = |list: &'a [crate::model::Spanned<crate::field_path::FieldPath>]| {
                list.iter().map(|f| f.value.as_str()).collect::<Vec<_>>()
            };
            let edge = Edge {
                from: contract.phases[from].name.as_str(),
                to: contract.phases[to].name.as_str(),
                from_node: from,
                to_node: to,
                condition: written.and_then(|e| e.condition.as_ref().map(|c| c.value.as_str())),
                drops: written.map(|e| names(&e.drops)).unwrap_or_default(),
                preserves: written.and_then(|e| e.preserves.as_deref().map(names)),
                findings: findings.then(Vec::new),
            };
            let topology_edge = match origin {
                EdgeOrigin::Topology(i) => Some(i),
                EdgeOrigin::Sequence => None,
            };
            (edge, topology_edge)
        })
        .collect();
    let mut other = findings.then(Vec::new);
    if findings {
        let targets = Targets::new(contract, edges.iter().map(|(_, t)| *t));
        for d in &analysis.diagnostics {
            let finding = Finding {
                code: d.code,
                severity: d.severity,
                message: d.message.as_str(),
                line: line(d.span.start),
            };
            let list = match targets.of(d.span.start) {
                Target::Phase(i) => nodes.get_mut(i).and_then(|n| n.findings.as_mut()),
                Target::Edge(i) => edges.get_mut(i).and_then(|(e, _)| e.findings.as_mut()),
                Target::None => None,
            };
            match list {
                Some(list) => list.push(finding),
                None => other.get_or_insert_with(Vec::new).push(finding),
            }
        }
    }
    Some(GraphExport {
        version: VERSION,
        pipeline_id: contract.pipeline_id.as_ref().map(|p| p.value.as_str()),
        edges_from: if graph.from_topology() {
            EdgesFrom::GraphTopology
        } else {
            EdgesFrom::DeclarationOrder
        },
        checkpoint_mode: contract.checkpoint_mode.as_ref().map(|m| m.value),
        nodes,
        edges: edges.into_iter().map(|(e, _)| e).collect(),
        other_findings: other,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Phase(usize),
    /// An edge of `GraphExport::edges`.
    Edge(usize),
    None,
}

/// What a finding points at, by where it starts: the phase whose
/// declaration holds it, the phase a checkpoint entry, a chain stop or a
/// `graph_topology` node names, or a written edge. Built once per export,
/// so placing each finding is a few binary searches, not a search of every
/// phase (a contract at the size bound has hundreds of thousands).
struct Targets {
    phases: Regions,
    checkpoints: Regions,
    stops: Regions,
    /// Topology edges, to the export's edge each became (if any).
    edges: Regions,
    nodes: Regions,
}

impl Targets {
    /// `topology_edges`: for each export edge, the `graph_topology.edges`
    /// entry it was written as.
    fn new(contract: &Contract, topology_edges: impl Iterator<Item = Option<usize>>) -> Self {
        let phase_named = |name: &Option<crate::model::Spanned<String>>| {
            name.as_ref().and_then(|p| contract.phase_index(&p.value))
        };
        let phases = contract
            .phases
            .iter()
            .enumerate()
            .map(|(i, p)| (Span::new(p.name_span.start, p.span.end), Some(i)))
            .collect();
        let checkpoints = contract
            .checkpoints
            .iter()
            .map(|c| (c.span, phase_named(&c.phase)))
            .collect();
        let stops = contract
            .chains
            .iter()
            .flat_map(|c| c.stops())
            .map(|stop| (stop.span, phase_named(&stop.phase)))
            .collect();
        let (mut edges, mut nodes) = (Vec::new(), Vec::new());
        if let Some(topology) = &contract.topology {
            // The first export edge each written edge became.
            let mut export_edge = vec![None; topology.edges.len()];
            for (e, written) in topology_edges.enumerate() {
                if let Some(slot) = written.and_then(|w| export_edge.get_mut(w))
                    && slot.is_none()
                {
                    *slot = Some(e);
                }
            }
            edges = topology
                .edges
                .iter()
                .zip(export_edge)
                .map(|(edge, e)| (edge.span, e))
                .collect();
            nodes = topology
                .nodes
                .iter()
                .map(|n| (n.id.span, contract.phase_index(&n.id.value)))
                .collect();
        }
        Targets {
            phases: Regions::new(phases),
            checkpoints: Regions::new(checkpoints),
            stops: Regions::new(stops),
            edges: Regions::new(edges),
            nodes: Regions::new(nodes),
        }
    }

    /// What a finding starting at `at` is drawn on.
    fn of(&self, at: usize) -> Target {
        if let Some(i) = self.phases.find(at) {
            return Target::Phase(i);
        }
        if let Some(i) = self.checkpoints.find(at) {
            return Target::Phase(i);
        }
        if let Some(i) = self.stops.find(at) {
            return Target::Phase(i);
        }
        match self.edges.holding(at) {
            Some(Some(e)) => return Target::Edge(e),
            // A written edge that became none (an unknown phase): on the
            // contract, as before.
            Some(None) => return Target::None,
            None => {}
        }
        match self.nodes.find(at) {
            Some(i) => Target::Phase(i),
            None => Target::None,
        }
    }
}

/// Spans of the file (siblings in one YAML collection, so they do not
/// overlap), each with what it stands for, sorted by start.
struct Regions(Vec<(Span, Option<usize>)>);

impl Regions {
    fn new(mut spans: Vec<(Span, Option<usize>)>) -> Self {
        spans.sort_by_key(|(span, _)| span.start);
        Regions(spans)
    }

    /// What the region holding `at` stands for: `Some(None)` when a region
    /// holds it but stands for nothing.
    fn holding(&self, at: usize) -> Option<Option<usize>> {
        let after = self.0.partition_point(|(span, _)| span.start <= at);
        let (span, value) = self.0.get(after.checked_sub(1)?)?;
        span.contains(at).then_some(*value)
    }

    fn find(&self, at: usize) -> Option<usize> {
        self.holding(at).flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a finding points at, found the slow way: every phase, every
    /// checkpoint, every chain stop, every written edge and node, in that
    /// order (the code `Targets` replaced).
    fn linear(contract: &Contract, topology_edges: &[Option<usize>], at: usize) -> Target {
        let within = |span: Span| span.contains(at);
        let phase_named = |name: &str| contract.phase_index(name);
        if let Some(i) = contract
            .phases
            .iter()
            .position(|p| within(Span::new(p.name_span.start, p.span.end)))
        {
            return Target::Phase(i);
        }
        for checkpoint in &contract.checkpoints {
            if within(checkpoint.span)
                && let Some(i) = checkpoint
                    .phase
                    .as_ref()
                    .and_then(|p| phase_named(&p.value))
            {
                return Target::Phase(i);
            }
        }
        for stop in contract.chains.iter().flat_map(|c| c.stops()) {
            if within(stop.span)
                && let Some(i) = stop.phase.as_ref().and_then(|p| phase_named(&p.value))
            {
                return Target::Phase(i);
            }
        }
        if let Some(topology) = &contract.topology {
            if let Some(w) = topology.edges.iter().position(|e| within(e.span)) {
                return topology_edges
                    .iter()
                    .position(|t| *t == Some(w))
                    .map_or(Target::None, Target::Edge);
            }
            for node in &topology.nodes {
                if within(node.id.span)
                    && let Some(i) = phase_named(&node.id.value)
                {
                    return Target::Phase(i);
                }
            }
        }
        Target::None
    }

    /// The contracts under `dir`, at any depth.
    fn contracts(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                contracts(&path, found);
            } else if path.to_string_lossy().ends_with(".contract.yaml") {
                found.push(path);
            }
        }
    }

    /// Every fixture (and the corpus beside the repository, where it is)
    /// and every offset of each: the index places a finding where the
    /// search of everything did.
    #[test]
    fn the_index_agrees_with_a_search_of_everything() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        contracts(&repo.join("fixtures"), &mut files);
        contracts(&repo.join("../shared/corpus"), &mut files);
        let mut checked = 0;
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let analysis = crate::analyze(&text, &Settings::default());
            let (Some(contract), Some(graph)) = (analysis.contract(), analysis.graph()) else {
                continue;
            };
            let topology_edges: Vec<Option<usize>> = graph
                .edges()
                .map(|(_, _, origin)| match origin {
                    EdgeOrigin::Topology(i) => Some(i),
                    EdgeOrigin::Sequence => None,
                })
                .collect();
            let targets = Targets::new(contract, topology_edges.iter().copied());
            for at in 0..=text.len() {
                assert_eq!(
                    targets.of(at),
                    linear(contract, &topology_edges, at),
                    "{} at {at}",
                    path.display()
                );
            }
            checked += 1;
        }
        assert!(checked > 80, "{checked}");
    }
}
