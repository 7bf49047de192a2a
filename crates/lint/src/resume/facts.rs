//! What the resume check reads from a contract's YAML tree (each
//! checkpoint's canonical target and its digest, the entry defaults), read
//! once and kept with the analysis. It takes the parts of an analysis, not
//! the `Analysis`, which holds it.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::graph::{EdgeOrigin, PhaseGraph};
use crate::model::{Contract, Field};
use crate::resume::document::{node_to_value, write_canonical_node};
use crate::resume::error::ResumeError;
use crate::syntax::{Node, Span};

/// The version of the target digest's canonical form, hashed with it. 1
/// covered the checkpoint and its own phase only; 2 adds the phases the
/// run resumes into.
pub(crate) const DIGEST_VERSION: u64 = 2;

/// What the resume check reads from a contract's YAML tree, from one parse
/// of its text: the canonical target of each checkpoint spec and the value
/// of each entry field's `default`. Kept with the analysis
/// (`Analysis::resume_facts`), so checking one analysis again parses
/// nothing.
pub(crate) struct ResumeFacts {
    /// By index in `checkpoint_integrity`; `None` for a spec whose phase
    /// is not declared. `None` as a whole when the text did not parse.
    targets: Option<Vec<Option<Result<CanonicalTarget, ResumeError>>>>,
    /// The value written at each entry field's `default` (null values
    /// left out).
    defaults: HashMap<Span, Value>,
}

impl ResumeFacts {
    pub(crate) fn read(
        source: &str,
        contract: Option<&Contract>,
        graph: Option<&PhaseGraph>,
    ) -> ResumeFacts {
        let tree = crate::syntax::parse(source, crate::syntax::Limits::default())
            .ok()
            .flatten();
        match (contract, tree) {
            (Some(contract), Some(tree)) => ResumeFacts::from_tree(contract, graph, &tree),
            _ => ResumeFacts {
                targets: None,
                defaults: HashMap::new(),
            },
        }
    }

    /// The facts from a tree already parsed (`analyze_contract_for_resume`
    /// keeps the analysis's own, so nothing is parsed twice).
    pub(crate) fn from_tree(
        contract: &Contract,
        graph: Option<&PhaseGraph>,
        tree: &crate::syntax::Tree<'_>,
    ) -> ResumeFacts {
        let tree_index = TreeIndex::of(tree.root());
        let targets = contract
            .checkpoints
            .iter()
            .enumerate()
            .map(|(index, spec)| {
                let phase = contract.phase_index(&spec.phase.as_ref()?.value)?;
                Some(CanonicalTarget::build(
                    &tree_index,
                    contract,
                    graph,
                    index,
                    phase,
                    None,
                ))
            })
            .collect();
        let defaults = contract
            .phases
            .iter()
            .flat_map(|p| p.entry_required())
            .filter_map(Field::default)
            .filter_map(|span| {
                let value = node_to_value(tree.node_at(span)?).ok()?;
                (!value.is_null()).then_some((span, value))
            })
            .collect();
        ResumeFacts {
            targets: Some(targets),
            defaults,
        }
    }

    /// The canonical target of the spec at `spec_index`.
    pub(super) fn target(&self, spec_index: usize) -> Result<&CanonicalTarget, ResumeError> {
        let unreadable = || ResumeError::ContractHasErrors {
            findings: vec!["the contract could not be loaded".into()],
        };
        match self.targets.as_ref().and_then(|t| t.get(spec_index)) {
            Some(Some(Ok(target))) => Ok(target),
            Some(Some(Err(error))) => Err(error.clone()),
            Some(None) | None => Err(unreadable()),
        }
    }

    /// The value of the `default` written at `span`, when it is not null.
    pub(crate) fn default_at(&self, span: Span) -> Option<&Value> {
        self.defaults.get(&span)
    }
}

/// The parts of a contract's YAML tree the target digest reads, with the
/// phases and the topology's nodes by name: looked up once per checkpoint
/// and successor, a scan of every phase each time would make the facts of
/// a contract with a checkpoint per phase quadratic.
pub(super) struct TreeIndex<'t> {
    root: Node<'t>,
    phases: HashMap<&'t str, Node<'t>>,
    topology_nodes: HashMap<&'t str, Node<'t>>,
}

impl<'t> TreeIndex<'t> {
    pub(super) fn of(root: Node<'t>) -> Self {
        let by_name = |mapping: Option<crate::syntax::Mapping<'t>>| {
            let mut map = HashMap::new();
            for entry in mapping.unwrap_or_default() {
                map.entry(entry.key.text).or_insert(entry.value);
            }
            map
        };
        let entries = root.as_mapping().unwrap_or_default();
        let phases = by_name(entries.get_key("phases").and_then(|n| n.as_mapping()));
        let topology_nodes = by_name(
            entries
                .get_key("graph_topology")
                .and_then(|n| n.as_mapping())
                .and_then(|t| t.get_key("nodes"))
                .and_then(|n| n.as_mapping()),
        );
        TreeIndex {
            root,
            phases,
            topology_nodes,
        }
    }
}

/// What the target digest covers, as written in the file, hashed as it is
/// written out: the canonical JSON of a phase definition is never built.
#[derive(Clone)]
pub(super) struct CanonicalTarget {
    /// The successors' indexes, in declaration order.
    pub(super) successors: Vec<usize>,
    pub(super) digest: String,
    pub(super) legacy_digest: String,
    pub(super) shape_digest: String,
}

impl CanonicalTarget {
    pub(super) fn build(
        index: &TreeIndex<'_>,
        contract: &Contract,
        graph: Option<&PhaseGraph>,
        spec_index: usize,
        phase_index: usize,
        mut text: Option<&mut String>,
    ) -> Result<Self, ResumeError> {
        let unlocated = || ResumeError::ContractHasErrors {
            findings: vec!["the checkpoint or its phase could not be located in the file".into()],
        };
        let duplicate = |(key, _): (String, usize)| ResumeError::ContractHasErrors {
            findings: vec![format!("E002 duplicate key `{key}`")],
        };
        let entries = index.root.as_mapping().unwrap_or_default();
        let get = |key: &str| entries.get_key(key);
        let definition = |name: &str| index.phases.get(name).copied().ok_or_else(unlocated);
        let topology = get("graph_topology").and_then(|n| n.as_mapping());
        let topology_get = |key: &str| topology.and_then(|t| t.get_key(key));
        let topology_edges = topology_get("edges")
            .and_then(|n| n.as_sequence())
            .unwrap_or_default();

        let checkpoint = get("checkpoint_integrity")
            .and_then(|n| n.as_sequence())
            .and_then(|items| items.get(spec_index))
            .ok_or_else(unlocated)?;
        let phase = contract.phases.get(phase_index).ok_or_else(unlocated)?;
        let phase_definition = definition(&phase.name)?;

        /// One edge into a successor: from declaration order, or as written.
        enum EdgeText<'t> {
            Sequence,
            Written(Node<'t>),
        }
        let mut edges_to: BTreeMap<usize, Vec<EdgeText<'_>>> = BTreeMap::new();
        for (to, origin) in graph.into_iter().flat_map(|g| g.out_edges(phase_index)) {
            contract.phases.get(to).ok_or_else(unlocated)?;
            let edge = match origin {
                EdgeOrigin::Sequence => EdgeText::Sequence,
                EdgeOrigin::Topology(i) => {
                    EdgeText::Written(topology_edges.get(i).ok_or_else(unlocated)?)
                }
            };
            edges_to.entry(to).or_default().push(edge);
        }
        // Every part is located before anything is hashed.
        let mut successors = Vec::with_capacity(edges_to.len());
        for &to in edges_to.keys() {
            definition(&contract.phases[to].name)?;
            successors.push(to);
        }

        // Version 2 and version 1 share their first keys: both are hashed
        // in one pass over the text, each piece written once.
        let mut current = Sha256::new();
        let mut legacy = Sha256::new();
        // The shape digest takes every piece but the checkpoint as written
        // (it gets the checkpoint without its id instead) and the
        // pipeline_id's value.
        let mut shape = Sha256::new();
        let shape_skips = std::cell::Cell::new(true);
        // The current version's text, when asked for (`canonical_form`).
        let mut shown = |piece: &str| {
            if let Some(text) = text.as_deref_mut() {
                text.push_str(piece);
            }
        };
        let mut both = |piece: &str| {
            current.update(piece.as_bytes());
            legacy.update(piece.as_bytes());
            shown(piece);
        };
        both("{\"checkpoint\":");
        write_canonical_node(checkpoint, &mut both).map_err(duplicate)?;
        let mut without_id = node_to_value(checkpoint).map_err(duplicate)?;
        if let Some(entry) = without_id.as_object_mut() {
            entry.remove("checkpoint_id");
        }
        shape.update(b"{\"checkpoint\":");
        super::document::write_canonical_without(&without_id, "", &mut |piece| {
            shape.update(piece.as_bytes())
        });
        shape_skips.set(false);
        let version = format!(",\"digest_version\":{DIGEST_VERSION}");
        current.update(version.as_bytes());
        shown(&version);
        let mut both = |piece: &str| {
            current.update(piece.as_bytes());
            legacy.update(piece.as_bytes());
            if !shape_skips.get() {
                shape.update(piece.as_bytes());
            }
            shown(piece);
        };
        both(",\"phase\":{\"definition\":");
        write_canonical_node(phase_definition, &mut both).map_err(duplicate)?;
        both(",\"name\":");
        both(&json_string(&phase.name));
        both("},\"pipeline_id\":");
        shape_skips.set(true);
        match get("pipeline_id") {
            Some(node) => write_canonical_node(node, &mut both).map_err(duplicate)?,
            None => both("null"),
        }
        shape_skips.set(false);
        legacy.update(b"}");
        let mut sink = |piece: &str| {
            current.update(piece.as_bytes());
            shape.update(piece.as_bytes());
            shown(piece);
        };
        sink(",\"resumes_into\":[");
        for (i, (to, edges)) in edges_to.iter().enumerate() {
            let next = &contract.phases[*to];
            if i > 0 {
                sink(",");
            }
            sink("{\"definition\":");
            write_canonical_node(definition(&next.name)?, &mut sink).map_err(duplicate)?;
            sink(",\"edges\":[");
            for (j, edge) in edges.iter().enumerate() {
                if j > 0 {
                    sink(",");
                }
                match edge {
                    EdgeText::Sequence => {
                        sink("{\"from\":");
                        sink(&json_string(&phase.name));
                        sink(",\"to\":");
                        sink(&json_string(&next.name));
                        sink("}");
                    }
                    EdgeText::Written(node) => {
                        write_canonical_node(*node, &mut sink).map_err(duplicate)?;
                    }
                }
            }
            sink("],\"name\":");
            sink(&json_string(&next.name));
            sink(",\"node\":");
            match index.topology_nodes.get(next.name.as_str()).copied() {
                Some(node) => write_canonical_node(node, &mut sink).map_err(duplicate)?,
                None => sink("null"),
            }
            sink("}");
        }
        sink("]}");
        Ok(CanonicalTarget {
            successors,
            digest: hex(&current.finalize()),
            legacy_digest: hex(&legacy.finalize()),
            shape_digest: hex(&shape.finalize()),
        })
    }
}

/// A string as JSON writes it.
fn json_string(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

pub(super) fn hex(digest: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(64);
    for byte in digest.iter() {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    out
}
