//! phaselint's analyzer: source text -> spanned YAML -> contract model ->
//! phase graph -> rules -> diagnostics. `analyze` is the only way in; the
//! CLI, the language server and the resume check all call it.
// What the other crates use is `pub`, the rest `pub(crate)`: a `pub` item
// no path outside reaches is flagged (ARCHITECTURE.md's invariants).
#![warn(unreachable_pub)]

pub mod add_suppressions;
mod analysis;
pub mod baseline;
pub mod completion;
pub mod config;
mod dataflow;
pub mod diagnostic;
pub mod diff;
pub mod duration;
pub mod field_path;
pub mod findings;
pub mod fix;
pub mod format;
pub mod graph;
pub mod graph_export;
pub mod index;
pub mod input;
pub mod json_schema;
pub mod key_documentation;
pub mod line_index;
pub mod model;
mod name_table;
pub mod rename;
pub mod resume;
pub(crate) mod rule_id;
pub mod rules;
mod scalar_edit;
mod schema;
pub(crate) mod settings;
pub mod structure;
mod suggest;
pub mod suppression;
pub mod syntax;
pub mod walk;

use std::sync::Arc;

use config::Settings;
use findings::Findings;
use graph::PhaseGraph;
use line_index::LineIndex;
use model::Contract;
use rules::schema::{e001_yaml_syntax_error, e007_unloadable_document};
use syntax::{Limits, Span, SyntaxError};

pub(crate) use analysis::Model;
pub use analysis::{Analysis, DocumentKind};
pub(crate) use input::oversized;
pub(crate) use schema::looks_like_context_contract;

/// Analyzes raw bytes the caller hands over: the text is not copied (at
/// the 32 MiB bound a copy is 32 MiB more at the peak of the analysis).
pub fn analyze_vec(bytes: Vec<u8>, kind: DocumentKind, settings: &Settings) -> Analysis {
    match String::from_utf8(bytes) {
        Ok(text) => analyze_document(text, kind, settings),
        Err(error) => analyze_bytes(error.as_bytes(), kind, settings),
    }
}

/// Analyzes raw bytes; input that is not UTF-8 is reported (E007).
pub fn analyze_bytes(bytes: &[u8], kind: DocumentKind, settings: &Settings) -> Analysis {
    match std::str::from_utf8(bytes) {
        Ok(text) => analyze_kind(text, kind, settings),
        Err(error) => {
            let source = String::from_utf8_lossy(bytes).into_owned();
            let offset = String::from_utf8_lossy(&bytes[..error.valid_up_to()]).len();
            let mut analysis = Analysis::empty(kind, source);
            analysis.diagnostics = vec![e007_unloadable_document::diagnostic(
                Span::empty(offset),
                &format!(
                    "the file is not valid UTF-8 (invalid byte at offset {})",
                    error.valid_up_to()
                ),
                kind.noun(),
            )];
            analysis
        }
    }
}

/// The analysis of a file that was not read at all because it is over a
/// bound: one E007 with `message`.
pub(crate) fn unloadable(message: &str, kind: DocumentKind) -> Analysis {
    let mut analysis = Analysis::empty(kind, String::new());
    analysis.diagnostics = vec![e007_unloadable_document::diagnostic(
        Span::empty(0),
        message,
        kind.noun(),
    )];
    analysis
}

/// Reads and analyzes a contract file: a file over the size bound gets
/// E007 without being read; one that cannot be read at all (missing, not a
/// regular file) is the error.
pub fn analyze_file(
    path: &std::path::Path,
    kind: DocumentKind,
    settings: &Settings,
) -> Result<Analysis, input::InputError> {
    match input::read_file(path, input::Bound::Contract) {
        Ok(bytes) => Ok(analyze_vec(bytes, kind, settings)),
        Err(input::InputError::TooLarge { bound, size, .. }) => {
            Ok(unloadable(&oversized(size, bound), kind))
        }
        Err(error) => Err(error),
    }
}

/// How many phases a contract may have. Each costs about 400 bytes in the
/// model, the graph and its analyses besides its text, so a 32 MiB file of
/// `p1: {}` lines (2.3 million phases) would need a gigabyte; generated
/// contracts of 100,000 to 120,000 phases (the tests' largest) are
/// analyzed, a realistic contract at the size bound has about 14,000.
pub(crate) const MAX_PHASES: usize = 200_000;

/// The longest name (a phase, a field, an id) a contract may use, in
/// bytes: messages quote names, and a finding about each of a million
/// fields of a phase would otherwise copy its name a million times.
pub(crate) const MAX_NAME_BYTES: usize = 1024;

/// How much memory a contract's model may take, estimated as it is built
/// (each phase, field, checkpoint, chain, edge… and its texts): what a
/// contract declares may cost more per byte than its text (a checkpoint
/// written in 30 bytes is a 200-byte record), and the analyses that read
/// the model grow with it. A realistic contract at the 32 MiB size bound
/// takes about 40 MiB.
pub(crate) const MAX_MODEL_BYTES: usize = 64 * 1024 * 1024;

/// How many distinct field names with a `*` segment a contract may use. A
/// name with `*` matches every name at that level, so each costs a pass
/// over the field names it could match; real contracts use a handful.
pub(crate) const MAX_WILDCARD_NAMES: usize = 100;

/// The span of the first wildcard name past `MAX_WILDCARD_NAMES`, if any.
fn too_many_wildcards(contract: &Contract) -> Option<Span> {
    let mut seen = std::collections::HashSet::new();
    let phase_fields = contract
        .phases
        .iter()
        .flat_map(|p| p.all_fields())
        .map(|f| &f.name);
    let chain_fields = contract
        .chains
        .iter()
        .flat_map(|c| c.stops())
        .filter_map(|s| s.field.as_ref());
    let staleness = contract
        .checkpoints
        .iter()
        .flat_map(|c| &c.on_resume.staleness_checks)
        .filter_map(|s| s.field.as_ref());
    let topology = contract.topology.iter().flat_map(|t| {
        t.edges
            .iter()
            .flat_map(|e| e.preserves.iter().flatten().chain(&e.drops))
            .chain(
                t.nodes
                    .iter()
                    .flat_map(|n| n.requires.iter().chain(&n.produces).chain(&n.optional)),
            )
            .chain(t.cycle_invariants.iter().flat_map(|c| &c.invariant_fields))
    });
    phase_fields
        .chain(chain_fields)
        .chain(staleness)
        .chain(&contract.pipeline_inputs)
        .chain(topology)
        .filter(|name| name.value.segments().any(|s| s == "*"))
        .find(|name| seen.insert(name.value.as_str()) && seen.len() > MAX_WILDCARD_NAMES)
        .map(|name| name.span)
}

/// The first JSON syntax error of a harness config written as JSON, with
/// the offset of its line and column.
fn json_syntax_error(
    source: &str,
    kind: DocumentKind,
    lines: &LineIndex,
) -> Option<(String, usize)> {
    if !kind.is_json(source) {
        return None;
    }
    let error = serde_json::from_str::<serde::de::IgnoredAny>(source).err()?;
    let line_start = lines.line_start(error.line().saturating_sub(1));
    let mut offset = (line_start + error.column().saturating_sub(1)).min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    // serde_json's message ends with its own " at line L column C".
    let message = error.to_string();
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(text, _)| text)
        .to_string();
    Some((message, offset))
}

/// Analyzes one contract.
pub fn analyze(source: &str, settings: &Settings) -> Analysis {
    analyze_owned(source.to_string(), settings)
}

/// Analyzes one contract whose text the caller hands over, saving a copy
/// of it (the language server's documents can be megabytes).
pub(crate) fn analyze_owned(source: String, settings: &Settings) -> Analysis {
    analyze_document(source, DocumentKind::Contract, settings)
}

/// Analyzes one document of `kind`.
pub fn analyze_kind(source: &str, kind: DocumentKind, settings: &Settings) -> Analysis {
    analyze_document(source.to_string(), kind, settings)
}

/// Analyzes one document of `kind` whose text the caller hands over.
pub fn analyze_document(source: String, kind: DocumentKind, settings: &Settings) -> Analysis {
    analyze_document_with(source, kind, settings, false)
}

/// Analyzes a contract whose checkpoints will be resume-checked or
/// compared (`phaselint diff`): the YAML tree is kept through the rules
/// and the resume check's facts (target digests, entry defaults) read from
/// it, instead of parsing the text a second time on first use. Costs the
/// tree's memory while the rules run.
pub fn analyze_contract_for_resume(bytes: &[u8], settings: &Settings) -> Analysis {
    match std::str::from_utf8(bytes) {
        Ok(text) => analyze_document_with(text.to_string(), DocumentKind::Contract, settings, true),
        Err(_) => analyze_bytes(bytes, DocumentKind::Contract, settings),
    }
}

fn analyze_document_with(
    source: String,
    kind: DocumentKind,
    settings: &Settings,
    read_resume_facts: bool,
) -> Analysis {
    let mut analysis = Analysis::empty(kind, source);
    let source = analysis.source.as_str();
    let mut findings = Findings::new(source, &analysis.line_index, settings);
    // YAML reads JSON, but forgives what JSON parsers do not (a trailing
    // comma, a comment): a harness config written as JSON is held to JSON.
    let parsed = match json_syntax_error(source, kind, &analysis.line_index) {
        Some((message, offset)) => Err(SyntaxError::Yaml { message, offset }),
        None => syntax::parse(source, Limits::default()),
    };
    let mut model = Model::Unbuilt;
    let mut resume_facts = None;
    match parsed {
        Err(SyntaxError::Yaml { message, offset }) => {
            findings.read_suppressions(&[]);
            // A harness config is JSON (which YAML reads): name what the
            // author wrote.
            let language = if kind.is_json(source) { "JSON" } else { "YAML" };
            findings.push(e001_yaml_syntax_error::diagnostic(
                &message, offset, language,
            ));
        }
        Err(SyntaxError::Unloadable { message, span }) => {
            findings.read_suppressions(&[]);
            findings.push(e007_unloadable_document::diagnostic(
                span,
                &message,
                kind.noun(),
            ));
        }
        Ok(None) => {
            findings.read_suppressions(&[]);
            findings.push(e007_unloadable_document::diagnostic(
                Span::empty(0),
                match kind {
                    DocumentKind::Contract => "the file is empty; a contract is a mapping with schema_version, pipeline_id and phases",
                    DocumentKind::Harness => "the file is empty; a harness config is a JSON object with `checkpoints.types`",
                },
                kind.noun(),
            ));
        }
        Ok(Some(tree)) => {
            let root = tree.root();
            // Where a `#` is text, for suppression comments: only when the
            // text has one.
            if source.contains("phaselint:") {
                findings.read_suppressions(&syntax::string_spans(root));
            }
            if root.as_mapping().is_none() {
                findings.push(e007_unloadable_document::diagnostic(
                    Span::new(root.span.start, root.span.start),
                    &format!("the root must be a mapping, found {}", root.type_name()),
                    kind.noun(),
                ));
            } else if kind == DocumentKind::Harness {
                let config = schema::build_harness(root, source, &mut findings);
                drop(tree);
                let context = rules::HarnessContext {
                    source,
                    config: &config,
                };
                rules::run_harness(&context, settings, &mut findings);
                model = Model::Harness(config);
            } else {
                let (built, within_budget) =
                    schema::build(root, source, settings.dialect, &mut findings);
                analysis.is_context_contract = looks_like_context_contract(root);
                let kept_tree = if read_resume_facts {
                    Some(tree)
                } else {
                    drop(tree);
                    None
                };
                let built = Arc::new(built);
                let mut graph = None;
                if !within_budget {
                    // E007 says so; the model is partial, and its graph
                    // would not be the contract's.
                } else if let Some(over) = too_many_wildcards(&built) {
                    // Wildcards match each other pairwise; past the bound the
                    // graph analyses would be quadratic, so none runs.
                    findings.push(e007_unloadable_document::diagnostic(
                        over,
                        &format!(
                            "more than {MAX_WILDCARD_NAMES} distinct field names with a `*` segment; phaselint does not analyze the phase graph of such a contract"
                        ),
                        kind.noun(),
                    ));
                } else {
                    let phase_graph = PhaseGraph::build(built.clone());
                    let context = rules::RuleContext::new(source, &built, &phase_graph, settings);
                    rules::run(&context, &mut findings);
                    drop(context);
                    graph = Some(phase_graph);
                }
                if let Some(tree) = kept_tree {
                    resume_facts = Some(resume::ResumeFacts::from_tree(
                        &built,
                        graph.as_ref(),
                        &tree,
                    ));
                }
                model = Model::Contract {
                    contract: built,
                    graph,
                };
            }
        }
    }
    let (diagnostics, hidden) = findings.finish();
    analysis.model = model;
    analysis.diagnostics = diagnostics;
    analysis.hidden_errors = hidden;
    if let Some(facts) = resume_facts {
        let _ = analysis.resume_facts.set(facts);
    }
    analysis
}
