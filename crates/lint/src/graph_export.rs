//! The phase graph as `phaselint graph` draws it: what a reader of the
//! pipeline needs on each phase (its checkpoints, side effects, risk, long
//! running) and each edge (condition, `drops`), and, on request, the
//! findings on the phase they point at. Renderers (DOT, Mermaid, JSON) only
//! lay this out; what is shown is decided here.

use std::collections::HashMap;

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Severity};
use crate::graph::EdgeOrigin;
use crate::model::{ApprovalPolicy, CheckpointMode, Contract, RiskClass, SideEffects};
use crate::syntax::Span;
use crate::{Analysis, Settings};

/// Bumped when a key changes meaning or goes away (new keys may appear).
pub const VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct GraphExport {
    pub version: u32,
    pub pipeline_id: Option<String>,
    /// `graph_topology` edges, or declaration order when there are none.
    pub edges_from: EdgesFrom,
    /// `checkpoint_mode: always` checkpoints after every phase.
    pub checkpoint_mode: Option<CheckpointMode>,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// With findings: those that point at no phase or edge (the contract's
    /// own keys, a chain's description…), so none is lost from the picture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_findings: Option<Vec<Finding>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgesFrom {
    GraphTopology,
    DeclarationOrder,
}

#[derive(Debug, Serialize)]
pub struct Node {
    pub id: String,
    /// 1-based line of the phase's name.
    pub line: usize,
    pub entry: bool,
    pub reachable: bool,
    pub checkpoints: Vec<CheckpointMark>,
    pub side_effects: SideEffects,
    pub risk_class: RiskClass,
    pub long_running: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub findings: Option<Vec<Finding>>,
}

impl Node {
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
pub struct CheckpointMark {
    pub id: String,
    pub approval_required: bool,
    pub approval_policy: Option<ApprovalPolicy>,
}

#[derive(Debug, Serialize)]
pub struct Edge {
    pub from: String,
    pub to: String,
    /// Where `from` and `to` are in `GraphExport::nodes`, so a renderer
    /// does not look phases up by name.
    #[serde(skip)]
    pub from_node: usize,
    #[serde(skip)]
    pub to_node: usize,
    pub condition: Option<String>,
    pub drops: Vec<String>,
    /// `None` when the edge lets everything through.
    pub preserves: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub findings: Option<Vec<Finding>>,
}

impl Edge {
    pub fn worst(&self) -> Option<Severity> {
        worst(self.findings.as_deref())
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub line: usize,
}

fn worst(findings: Option<&[Finding]>) -> Option<Severity> {
    findings?.iter().map(|f| f.severity).max()
}

/// The graph of an analysed contract; `None` when there is no model to
/// draw (the YAML could not be read). `findings` overlays the analysis's
/// diagnostics.
pub fn export(analysis: &Analysis, settings: &Settings, findings: bool) -> Option<GraphExport> {
    let contract = analysis.contract.as_deref()?;
    let graph = analysis.graph.as_ref()?;
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
    let mut marks: HashMap<&str, Vec<CheckpointMark>> = HashMap::new();
    for checkpoint in &contract.checkpoints {
        let (Some(phase), Some(id)) = (&checkpoint.phase, &checkpoint.checkpoint_id) else {
            continue;
        };
        marks
            .entry(phase.value.as_str())
            .or_default()
            .push(CheckpointMark {
                id: id.value.clone(),
                approval_required: checkpoint.on_resume.approval_required(),
                approval_policy: checkpoint
                    .on_resume
                    .approval_policy
                    .as_ref()
                    .map(|p| p.value),
            });
    }
    let mut nodes: Vec<Node> = contract
        .phases
        .iter()
        .enumerate()
        .map(|(i, phase)| Node {
            id: phase.name.clone(),
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
    let mut edges: Vec<(Edge, Option<Span>)> = graph
        .edges()
        .map(|(from, to, origin)| {
            let written = match origin {
                EdgeOrigin::Topology(i) => topology.and_then(|t| t.edges.get(i)),
                EdgeOrigin::Sequence => None,
            };
            let names = |list: &[crate::model::Spanned<crate::field_path::FieldPath>]| {
                list.iter().map(|f| f.value.to_string()).collect::<Vec<_>>()
            };
            let edge = Edge {
                from: contract.phases[from].name.clone(),
                to: contract.phases[to].name.clone(),
                from_node: from,
                to_node: to,
                condition: written.and_then(|e| e.condition.as_ref().map(|c| c.value.clone())),
                drops: written.map(|e| names(&e.drops)).unwrap_or_default(),
                preserves: written.and_then(|e| e.preserves.as_deref().map(names)),
                findings: findings.then(Vec::new),
            };
            (edge, written.map(|e| e.span))
        })
        .collect();
    let mut other = findings.then(Vec::new);
    if findings {
        for d in &analysis.diagnostics {
            let finding = Finding {
                code: d.code,
                severity: d.severity,
                message: d.message.clone(),
                line: line(d.span.start),
            };
            let list = match target(contract, d) {
                Target::Phase(i) => nodes[i].findings.as_mut(),
                Target::Edge(span) => edges
                    .iter_mut()
                    .find(|(_, s)| *s == Some(span))
                    .and_then(|(e, _)| e.findings.as_mut()),
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
        pipeline_id: contract.pipeline_id.as_ref().map(|p| p.value.clone()),
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

enum Target {
    Phase(usize),
    Edge(Span),
    None,
}

/// What a finding points at: the phase whose declaration holds it, the
/// phase a checkpoint entry, a chain stop or a `graph_topology` node
/// names, or a written edge.
fn target(contract: &Contract, d: &Diagnostic) -> Target {
    let at = d.span.start;
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
        if let Some(edge) = topology.edges.iter().find(|e| within(e.span)) {
            return Target::Edge(edge.span);
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
