//! Where each phase and field name occurs in a contract, with what role:
//! the basis of go-to-definition, references, rename, hover and symbols.
//! Built from the model, so it only knows what parsed.

use crate::field_path::FieldPath;
use crate::model::{Contract, Spanned};
use crate::syntax::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhaseRole {
    /// The phase's key under `phases`.
    Definition,
    Checkpoint,
    ChainStop,
    SourcePhase,
    TopologyNode,
    TopologyEdge,
    MergePoint,
    CycleInvariant,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldRole {
    /// `entry.required` / `entry.enrichment` of `phase`.
    Consumed {
        phase: usize,
    },
    /// `exit.required` / `exit.optional` of `phase`.
    Produced {
        phase: usize,
    },
    Staleness {
        checkpoint: usize,
    },
    Chain {
        chain: usize,
    },
    PipelineInput,
    Topology,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Symbol {
    Phase { name: String, role: PhaseRole },
    Field { name: FieldPath, role: FieldRole },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    pub span: Span,
    pub symbol: Symbol,
}

#[derive(Clone, Debug, Default)]
pub struct SymbolIndex {
    /// Sorted by span start.
    occurrences: Vec<Occurrence>,
}

impl SymbolIndex {
    pub fn build(contract: &Contract) -> Self {
        let mut index = SymbolIndex::default();
        let mut phase = |s: &Spanned<String>, role| {
            index.occurrences.push(Occurrence {
                span: s.span,
                symbol: Symbol::Phase {
                    name: s.value.clone(),
                    role,
                },
            })
        };
        for p in &contract.phases {
            phase(
                &Spanned::new(p.name.clone(), p.name_span),
                PhaseRole::Definition,
            );
            for f in p.all_fields() {
                if let Some(source) = &f.source_phase() {
                    phase(source, PhaseRole::SourcePhase);
                }
            }
        }
        for spec in &contract.checkpoints {
            if let Some(p) = &spec.phase {
                phase(p, PhaseRole::Checkpoint);
            }
        }
        for chain in &contract.chains {
            for stop in chain.stops() {
                if let Some(p) = &stop.phase {
                    phase(p, PhaseRole::ChainStop);
                }
            }
        }
        if let Some(topology) = &contract.topology {
            for node in &topology.nodes {
                phase(&node.id, PhaseRole::TopologyNode);
            }
            for edge in &topology.edges {
                for end in [&edge.from, &edge.to].into_iter().flatten() {
                    phase(end, PhaseRole::TopologyEdge);
                }
            }
            for merge in &topology.merge_points {
                for name in merge.node.iter().chain(&merge.sources) {
                    phase(name, PhaseRole::MergePoint);
                }
            }
            for cycle in &topology.cycle_invariants {
                for name in &cycle.nodes {
                    phase(name, PhaseRole::CycleInvariant);
                }
            }
        }

        let mut field = |s: &Spanned<FieldPath>, role| {
            index.occurrences.push(Occurrence {
                span: s.span,
                symbol: Symbol::Field {
                    name: s.value.clone(),
                    role,
                },
            })
        };
        for (i, p) in contract.phases.iter().enumerate() {
            for f in p.entry_fields() {
                field(&f.name, FieldRole::Consumed { phase: i });
            }
            for f in p.exit_fields() {
                field(&f.name, FieldRole::Produced { phase: i });
            }
        }
        for (i, spec) in contract.checkpoints.iter().enumerate() {
            for check in &spec.on_resume.staleness_checks {
                if let Some(f) = &check.field {
                    field(f, FieldRole::Staleness { checkpoint: i });
                }
            }
        }
        for (i, chain) in contract.chains.iter().enumerate() {
            for stop in chain.stops() {
                if let Some(f) = &stop.field {
                    field(f, FieldRole::Chain { chain: i });
                }
            }
        }
        for input in &contract.pipeline_inputs {
            field(input, FieldRole::PipelineInput);
        }
        if let Some(topology) = &contract.topology {
            let lists = topology
                .nodes
                .iter()
                .flat_map(|n| n.requires.iter().chain(&n.produces).chain(&n.optional))
                .chain(
                    topology
                        .edges
                        .iter()
                        .flat_map(|e| e.preserves.iter().flatten().chain(&e.drops)),
                )
                .chain(
                    topology
                        .cycle_invariants
                        .iter()
                        .flat_map(|c| &c.invariant_fields),
                );
            for f in lists {
                field(f, FieldRole::Topology);
            }
        }
        index
            .occurrences
            .sort_by_key(|o| (o.span.start, o.span.end));
        // Kept while the document is open.
        index.occurrences.shrink_to_fit();
        index
    }

    pub fn occurrences(&self) -> &[Occurrence] {
        &self.occurrences
    }

    /// The occurrence under `offset` (an offset at the end of a name counts,
    /// as editors place the cursor after the last character).
    pub fn at(&self, offset: usize) -> Option<&Occurrence> {
        let after = self.occurrences.partition_point(|o| o.span.start <= offset);
        self.occurrences[..after]
            .iter()
            .rev()
            .take(8)
            .find(|o| o.span.start <= offset && offset <= o.span.end)
    }

    /// Every occurrence of the phase `name`, its definition included.
    pub fn phase_occurrences<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = &'a Occurrence> + 'a {
        self.occurrences
            .iter()
            .filter(move |o| matches!(&o.symbol, Symbol::Phase { name: n, .. } if n == name))
    }

    pub fn phase_definition(&self, name: &str) -> Option<Span> {
        self.phase_occurrences(name)
            .find(|o| {
                matches!(
                    o.symbol,
                    Symbol::Phase {
                        role: PhaseRole::Definition,
                        ..
                    }
                )
            })
            .map(|o| o.span)
    }

    /// Every occurrence of a field name that overlaps `name` (the same
    /// field, a sub-path or a containing path).
    pub fn field_occurrences<'a>(
        &'a self,
        name: &'a FieldPath,
    ) -> impl Iterator<Item = &'a Occurrence> + 'a {
        self.occurrences
            .iter()
            .filter(move |o| matches!(&o.symbol, Symbol::Field { name: n, .. } if n.overlaps(name)))
    }

    /// Exit fields that produce `name` (cover it).
    pub fn producers<'a>(
        &'a self,
        name: &'a FieldPath,
    ) -> impl Iterator<Item = (usize, Span)> + 'a {
        self.occurrences
            .iter()
            .filter_map(move |o| match &o.symbol {
                Symbol::Field {
                    name: n,
                    role: FieldRole::Produced { phase },
                } if n.covers(name) => Some((*phase, o.span)),
                _ => None,
            })
    }

    /// Entry fields that read `name` (overlap it).
    pub fn consumers<'a>(
        &'a self,
        name: &'a FieldPath,
    ) -> impl Iterator<Item = (usize, Span)> + 'a {
        self.occurrences
            .iter()
            .filter_map(move |o| match &o.symbol {
                Symbol::Field {
                    name: n,
                    role: FieldRole::Consumed { phase },
                } if n.overlaps(name) => Some((*phase, o.span)),
                _ => None,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    const SOURCE: &str = "\
schema_version: '1'
pipeline_id: p
phases:
  retrieve:
    exit: { required: [{ name: docs }] }
  generate:
    entry: { required: [{ name: docs.items, source_phase: retrieve }] }
propagation_chains:
  - chain_id: c
    source: { phase: retrieve, field: docs }
    destination: { phase: generate, field: docs.items }
checkpoint_integrity:
  - checkpoint_id: k
    phase: retrieve
    on_resume: { staleness_checks: [{ field: docs, max_age_seconds: 5 }] }
";

    #[test]
    fn phases_and_fields_are_indexed_with_their_roles() {
        let analysis = crate::analyze(SOURCE, &Settings::default());
        let index = SymbolIndex::build(analysis.contract().unwrap());
        let retrieve: Vec<PhaseRole> = index
            .phase_occurrences("retrieve")
            .map(|o| match o.symbol {
                Symbol::Phase { role, .. } => role,
                Symbol::Field { .. } => unreachable!(),
            })
            .collect();
        assert_eq!(
            retrieve,
            [
                PhaseRole::Definition,
                PhaseRole::SourcePhase,
                PhaseRole::ChainStop,
                PhaseRole::Checkpoint
            ]
        );
        let def = index.phase_definition("retrieve").unwrap();
        assert_eq!(&SOURCE[def.start..def.end], "retrieve");
        let docs = FieldPath::new("docs.items");
        assert_eq!(
            index.producers(&docs).map(|(p, _)| p).collect::<Vec<_>>(),
            [0]
        );
        assert_eq!(
            index.consumers(&docs).map(|(p, _)| p).collect::<Vec<_>>(),
            [1]
        );
        assert_eq!(index.field_occurrences(&FieldPath::new("docs")).count(), 5);
        let on_chain = SOURCE.find("phase: generate").unwrap() + "phase: ".len() + 3;
        assert!(
            matches!(&index.at(on_chain).unwrap().symbol, Symbol::Phase { name, .. } if name == "generate")
        );
    }
}

/// An exit field and the phases that read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitReaders<'a> {
    /// Where the exit field is declared.
    pub span: Span,
    pub name: &'a FieldPath,
    /// Phases (by index) whose entry reads the field, as `consumers` finds
    /// them (hover's "consumed by"), each once, in phase order.
    pub readers: Vec<usize>,
}

impl SymbolIndex {
    /// The first `limit` exit fields in document order, each with the
    /// phases that read it. Bounded: each is matched against every reader,
    /// and a generated contract has a hundred thousand of each.
    pub fn exit_readers(&self, limit: usize) -> Vec<ExitReaders<'_>> {
        let mut readers: Vec<(&FieldPath, usize)> = self
            .occurrences
            .iter()
            .filter_map(|o| match &o.symbol {
                Symbol::Field {
                    name,
                    role: FieldRole::Consumed { phase },
                } => Some((name, *phase)),
                _ => None,
            })
            .collect();
        readers.sort_unstable_by(|a, b| (a.0.as_str(), a.1).cmp(&(b.0.as_str(), b.1)));
        readers.dedup();
        self.occurrences
            .iter()
            .filter_map(|o| match &o.symbol {
                Symbol::Field {
                    name,
                    role: FieldRole::Produced { .. },
                } => Some((o.span, name)),
                _ => None,
            })
            .take(limit)
            .map(|(span, name)| {
                let mut phases: Vec<usize> = readers
                    .iter()
                    .filter(|(reader, _)| reader.overlaps(name))
                    .map(|(_, phase)| *phase)
                    .collect();
                phases.sort_unstable();
                phases.dedup();
                ExitReaders {
                    span,
                    name,
                    readers: phases,
                }
            })
            .collect()
    }
}
