//! What the analysis of one document holds: its kind, its text, what was
//! built from it (by kind: a contract's model and graph, a harness
//! config's model) and its findings. `analyze` in `lib.rs` fills it.

use std::sync::{Arc, OnceLock};

use crate::diagnostic::Diagnostic;
use crate::graph::PhaseGraph;
use crate::line_index::LineIndex;
use crate::model::{Contract, HarnessConfig};
use crate::resume::ResumeFacts;

/// What a document is, which decides the tables and rules it is read by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DocumentKind {
    /// A context contract (docs/contract-format.md).
    #[default]
    Contract,
    /// A harness config with named checkpoints (`.harness/config.json`).
    Harness,
}

impl DocumentKind {
    /// The kind a file's path names: `.harness/config.json` is a harness
    /// config; anything else is read as a contract.
    pub fn of_path(path: &std::path::Path) -> DocumentKind {
        let mut components = path.components().rev();
        let file = components.next().map(|c| c.as_os_str());
        let folder = components.next().map(|c| c.as_os_str());
        if file == Some("config.json".as_ref()) && folder == Some(".harness".as_ref()) {
            DocumentKind::Harness
        } else {
            DocumentKind::Contract
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            DocumentKind::Contract => "contract",
            DocumentKind::Harness => "harness",
        }
    }

    /// What a file of this kind is, in a message ("cannot load this file as …").
    pub(crate) fn noun(self) -> &'static str {
        match self {
            DocumentKind::Contract => "a contract",
            DocumentKind::Harness => "a harness config",
        }
    }

    /// Whether `source`, of this kind, is written as JSON: a harness
    /// config whose text opens an object. JSON is held to JSON's syntax,
    /// its helps speak JSON, and it takes no `#` comment.
    pub(crate) fn is_json(self, source: &str) -> bool {
        self == DocumentKind::Harness && source.trim_start().starts_with('{')
    }
}

/// What the analysis of a document got as far as building, by kind: a
/// contract's model and phase graph, a harness config's model, or nothing.
// One per analysis, inline as the `Option` fields it replaces were: a box
// would only add an allocation per document.
#[allow(clippy::large_enum_variant)]
pub enum Model {
    /// The text was not read as far as a model (E001, E007, a root that is
    /// not a mapping), or `Analysis::keep_only_findings` dropped it.
    Unbuilt,
    Contract {
        /// Shared, so an editor can keep the last contract that parsed while
        /// dropping the rest of a stale analysis.
        contract: Arc<Contract>,
        /// `None` when the model is partial (over the memory budget) or
        /// too wildcard-heavy for the graph analyses (E007 says which).
        graph: Option<PhaseGraph>,
    },
    Harness(HarnessConfig),
}

/// Everything known about one document: the text, its line index, the
/// model and graph when the text got that far, and the findings. The YAML
/// tree is dropped once the model is built: it is most of the memory, and
/// what needs it later (the resume digest, enum hover) parses again.
pub struct Analysis {
    pub kind: DocumentKind,
    pub source: String,
    pub line_index: LineIndex,
    pub(crate) is_context_contract: bool,
    /// What was built, by document kind.
    pub(crate) model: Model,
    /// Sorted by position, then code; filtered by the settings and by
    /// suppression comments.
    pub diagnostics: Vec<Diagnostic>,
    /// E-code findings that the configuration or a suppression comment
    /// removed from `diagnostics`. A linter may hide them on request; the
    /// resume check must not, so it reads them here.
    pub hidden_errors: Vec<Diagnostic>,
    /// What the resume check reads from the YAML tree (target digests,
    /// entry defaults), from one parse on first use and kept: a caller
    /// that checks the same analysis again (the Python API's guard) does
    /// not parse the contract again for each check.
    pub(crate) resume_facts: OnceLock<ResumeFacts>,
}

impl Analysis {
    /// An analysis of `source` with nothing built and nothing found yet.
    pub(crate) fn empty(kind: DocumentKind, source: String) -> Analysis {
        let line_index = LineIndex::new(&source);
        Analysis {
            kind,
            source,
            line_index,
            is_context_contract: false,
            model: Model::Unbuilt,
            diagnostics: Vec::new(),
            hidden_errors: Vec::new(),
            resume_facts: OnceLock::new(),
        }
    }

    /// Whether the root looks like a context contract: it has one of
    /// `schema_version`, `pipeline_id`, `phases`, `checkpoint_integrity`.
    pub fn is_context_contract(&self) -> bool {
        self.is_context_contract
    }

    /// The contract's model, when the document is a contract that got that
    /// far.
    pub fn contract(&self) -> Option<&Contract> {
        self.shared_contract().map(|contract| &**contract)
    }

    /// The contract's model as the shared handle an editor keeps.
    pub fn shared_contract(&self) -> Option<&Arc<Contract>> {
        match &self.model {
            Model::Contract { contract, .. } => Some(contract),
            Model::Unbuilt | Model::Harness(_) => None,
        }
    }

    /// The contract's phase graph, when its model was built whole.
    pub(crate) fn graph(&self) -> Option<&PhaseGraph> {
        match &self.model {
            Model::Contract { graph, .. } => graph.as_ref(),
            Model::Unbuilt | Model::Harness(_) => None,
        }
    }

    /// The model of a harness config, when the document is one.
    pub fn harness(&self) -> Option<&HarnessConfig> {
        match &self.model {
            Model::Harness(config) => Some(config),
            Model::Unbuilt | Model::Contract { .. } => None,
        }
    }

    /// The harness config's model, taken out of the analysis.
    pub fn into_harness(self) -> Option<HarnessConfig> {
        match self.model {
            Model::Harness(config) => Some(config),
            Model::Unbuilt | Model::Contract { .. } => None,
        }
    }

    /// The resume check's facts from the YAML tree, parsed on first use.
    pub(crate) fn resume_facts(&self) -> &ResumeFacts {
        self.resume_facts
            .get_or_init(|| ResumeFacts::read(&self.source, self.contract(), self.graph()))
    }

    /// Drops the model and graph, keeping what a report needs (the source,
    /// its line index and the diagnostics). A linter holding thousands of
    /// analyses until it prints would otherwise hold every file's model.
    pub fn keep_only_findings(&mut self) {
        drop(self.take_model());
    }

    /// What `keep_only_findings` drops, handed to the caller instead: a
    /// process about to exit leaves a large model to the exit rather than
    /// free it piece by piece.
    pub fn take_model(&mut self) -> Option<Model> {
        match self.model {
            Model::Contract { .. } => Some(std::mem::replace(&mut self.model, Model::Unbuilt)),
            _ => None,
        }
    }

    /// Whether a `# phaselint: disable=` comment can be written in it (not
    /// in JSON).
    pub fn takes_comments(&self) -> bool {
        !self.kind.is_json(&self.source)
    }

    /// Whether the YAML itself could not be read (E001 or E007).
    pub fn is_unreadable(&self) -> bool {
        self.diagnostics.iter().any(|d| d.code.is_load_error())
    }
}
