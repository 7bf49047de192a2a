//! Rules. A rule is one file: its metadata (code, name, default severity,
//! the page from `rules/CODE.md`) and either a check over the model and
//! graph, or the constructors the schema walk calls for its findings. This
//! file declares what a rule is and what it sees; `registry.rs` lists them.

/// A rule's declaration, `Rule::new` with its page: `rules/CODE.md`, found
/// from the code, so no rule file writes the page's path (and a missing
/// page fails the build). The other properties take their defaults unless
/// the builder's methods (`.off_by_default()`, `.needs(..)`, …) say
/// otherwise.
macro_rules! rule {
    ($code:literal, $name:literal, $family:expr, $severity:expr, $summary:expr $(,)?) => {
        $crate::rules::Rule::new(
            $crate::rule_id::RuleId::new($code),
            $name,
            $family,
            $severity,
            $summary,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../rules/",
                $code,
                ".md"
            )),
        )
    };
}

mod checkpoint;
pub(crate) mod diff;
mod graph;
mod harness;
pub mod page;
mod policy;
mod reference;
mod registry;
pub(crate) mod schema;

pub use registry::{RULES, rule};
pub(crate) use registry::{run, run_harness};

/// Why a harness checkpoint name cannot be part of a file name (H503): the
/// resume check builds no sentinel path from such a name.
pub(crate) use harness::h503_unsafe_checkpoint_name::problem as harness_name_problem;

use std::sync::OnceLock;

use crate::diagnostic::{Diagnostic, Severity};
use crate::field_path::{FieldIndex, FieldPath};
use crate::findings::Findings;
use crate::graph::PhaseGraph;
use crate::model::{CheckpointMode, CheckpointSpec, Contract, HarnessConfig};
pub use crate::rule_id::RuleId;
use crate::settings::Settings;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Schema,
    Reference,
    Checkpoint,
    Graph,
    Policy,
    Harness,
    /// `phaselint diff OLD NEW`'s D6xx codes: what a contract change does
    /// to runs paused under OLD. No check of their own (`crate::diff`).
    Diff,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Schema => "schema",
            Family::Reference => "reference",
            Family::Checkpoint => "checkpoint",
            Family::Graph => "graph",
            Family::Policy => "policy",
            Family::Harness => "harness",
            Family::Diff => "diff",
        }
    }
}

/// What a rule sees: the model, its graph and the settings for this file,
/// and lookups several rules share, built on first use.
pub struct RuleContext<'a> {
    /// The document's text: a rule narrowing a span inside a scalar checks
    /// that the scalar is written as its value reads.
    pub(crate) source: &'a str,
    pub(crate) contract: &'a Contract,
    pub(crate) graph: &'a PhaseGraph,
    pub(crate) settings: &'a Settings,
    fields: OnceLock<FieldLookups<'a>>,
    inputs: OnceLock<FieldIndex<'a>>,
    checkpoints_by_phase: OnceLock<Vec<Vec<&'a CheckpointSpec>>>,
}

impl<'a> RuleContext<'a> {
    pub fn new(
        source: &'a str,
        contract: &'a Contract,
        graph: &'a PhaseGraph,
        settings: &'a Settings,
    ) -> Self {
        RuleContext {
            source,
            contract,
            graph,
            settings,
            fields: OnceLock::new(),
            inputs: OnceLock::new(),
            checkpoints_by_phase: OnceLock::new(),
        }
    }

    /// The checkpoints taken after phase `phase` (those naming a known phase).
    pub(crate) fn checkpoints_on(&self, phase: usize) -> &[&'a CheckpointSpec] {
        let by_phase = self.checkpoints_by_phase.get_or_init(|| {
            let contract = self.contract;
            let mut by_phase = vec![Vec::new(); contract.phases.len()];
            for checkpoint in &contract.checkpoints {
                if let Some(p) = checkpoint
                    .phase
                    .as_ref()
                    .and_then(|p| contract.phase_index(&p.value))
                {
                    by_phase[p].push(checkpoint);
                }
            }
            by_phase
        });
        by_phase.get(phase).map_or(&[], Vec::as_slice)
    }

    /// Whether a checkpoint is taken after phase `phase`: one names it, or
    /// `checkpoint_mode: always` checkpoints after every phase.
    pub(crate) fn is_checkpointed(&self, phase: usize) -> bool {
        self.contract.checkpoint_mode() == CheckpointMode::Always
            || !self.checkpoints_on(phase).is_empty()
    }

    fn fields(&self) -> &FieldLookups<'a> {
        self.fields.get_or_init(|| FieldLookups::new(self.contract))
    }

    /// Whether phase `phase` produces `field` (an exit field covers it).
    pub(crate) fn produces(&self, phase: usize, field: &FieldPath) -> bool {
        self.phase_declares(phase, field, Declared::Exit)
    }

    /// Whether phase `phase` guarantees `field` (an `exit.required` field
    /// covers it).
    pub(crate) fn requires_on_exit(&self, phase: usize, field: &FieldPath) -> bool {
        self.phase_declares(phase, field, Declared::ExitRequired)
    }

    /// Whether phase `phase` declares `field` anywhere (entry or exit).
    pub(crate) fn declares(&self, phase: usize, field: &FieldPath) -> bool {
        self.phase_declares(phase, field, Declared::Anywhere)
    }

    /// Whether phase `phase` declares a field covering `field` at least as
    /// `how`. A phase of a few fields is scanned: building the index over
    /// every field of the contract cost more than all the questions a
    /// clean contract asks; a larger phase asks the index.
    fn phase_declares(&self, phase: usize, field: &FieldPath, how: Declared) -> bool {
        let Some(declaring) = self.contract.phases.get(phase) else {
            return false;
        };
        let count = declaring.entry_required().len()
            + declaring.entry_enrichment().len()
            + declaring.exit_required().len()
            + declaring.exit_optional().len();
        if count > SCANNED_FIELDS {
            return self.fields().declares(phase, field, how);
        }
        let covers = |f: &crate::model::Field| f.name.value.covers(field);
        match how {
            Declared::ExitRequired => declaring.exit_required().iter().any(covers),
            Declared::Exit => declaring.exit_fields().any(covers),
            Declared::Anywhere => declaring.all_fields().any(covers),
        }
    }

    /// The phases that produce `field`, in declaration order, at most `limit`.
    pub(crate) fn producers(&self, field: &FieldPath, limit: usize) -> Vec<usize> {
        let lookups = self.fields();
        let mut phases: Vec<usize> = Vec::new();
        lookups.fields.covering(field, |fact| {
            phases.extend(
                lookups
                    .declarers(fact)
                    .iter()
                    .filter(|(_, how)| *how != Declared::Anywhere)
                    .map(|&(p, _)| p as usize),
            );
        });
        phases.sort_unstable();
        phases.dedup();
        phases.truncate(limit);
        phases
    }

    /// Every field name a phase produces or the caller supplies: what a typo
    /// in an entry field most likely meant.
    pub(crate) fn produced_names(&self) -> impl Iterator<Item = &'a str> + use<'a, '_> {
        let contract = self.contract;
        contract
            .phases
            .iter()
            .flat_map(|p| p.exit_fields())
            .map(|f| f.name.value.as_str())
            .chain(contract.pipeline_inputs.iter().map(|i| i.value.as_str()))
    }

    /// Whether G303 reports `field`, an `entry.required` field of phase
    /// `reader`, as never produced and proposes renaming it to a close
    /// produced name. Another rule must not propose the opposite rename:
    /// `--unsafe-fixes` would apply both and swap the names.
    pub(crate) fn renames_unproduced_read(&self, reader: usize, field: &FieldPath) -> bool {
        self.graph.is_reachable(reader)
            && !self.graph.is_entry(reader)
            && !self.is_pipeline_input(field)
            && self.producers(field, 1).is_empty()
            && crate::suggest::closest(field.as_str(), self.produced_names()).is_some()
    }

    /// Whether the caller supplies `field` (a `pipeline_inputs` entry covers it).
    pub(crate) fn is_pipeline_input(&self, field: &FieldPath) -> bool {
        self.inputs
            .get_or_init(|| FieldIndex::new(self.contract.pipeline_inputs.iter().map(|s| &s.value)))
            .any_covering(field)
    }
}

/// The most fields a phase may have for `RuleContext::phase_declares` to
/// scan them rather than ask the index over every field.
const SCANNED_FIELDS: usize = 64;

/// How a phase declares a field: the strongest of exit.required, exit
/// (optional), or entry only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Declared {
    ExitRequired,
    Exit,
    Anywhere,
}

/// Who declares what: every field of every phase, indexed once so a rule's
/// lookups cost the name's length, not a scan of every phase.
struct FieldLookups<'a> {
    fields: FieldIndex<'a>,
    /// Per fact, the phases that declare it and how, sorted by phase:
    /// fact `f`'s are `declared[starts[f]..starts[f + 1]]` (one list, not
    /// a list per fact: a million fields made a million lists).
    starts: Vec<u32>,
    declared: Vec<(u32, Declared)>,
}

impl<'a> FieldLookups<'a> {
    fn new(contract: &'a Contract) -> Self {
        let fields = FieldIndex::new(
            contract
                .phases
                .iter()
                .flat_map(|p| p.all_fields().map(|f| &f.name.value)),
        );
        // Every (fact, phase, how), in phase order and, within a phase, from
        // the strongest way of declaring to the weakest.
        let mut all: Vec<(u32, u32, Declared)> = Vec::new();
        for (i, phase) in contract.phases.iter().enumerate() {
            let declared = phase
                .exit_required()
                .iter()
                .map(|f| (f, Declared::ExitRequired))
                .chain(phase.exit_optional().iter().map(|f| (f, Declared::Exit)))
                .chain(phase.entry_fields().map(|f| (f, Declared::Anywhere)));
            for (field, how) in declared {
                if let Some(fact) = fields.id(field.name.value.as_str()) {
                    all.push((fact, i as u32, how));
                }
            }
        }
        // Grouped by fact with a counting sort, which keeps that order (a
        // comparison sort of these triples was most of the lookups' cost).
        let mut starts = vec![0u32; fields.len() + 1];
        for &(fact, _, _) in &all {
            starts[fact as usize + 1] += 1;
        }
        for fact in 0..fields.len() {
            starts[fact + 1] += starts[fact];
        }
        let mut next = starts.clone();
        let mut grouped = vec![(0u32, Declared::Anywhere); all.len()];
        for (fact, phase, how) in all {
            let at = &mut next[fact as usize];
            grouped[*at as usize] = (phase, how);
            *at += 1;
        }
        // One entry per fact and phase, the strongest way it declares it:
        // the first of its run.
        let mut declared = Vec::with_capacity(grouped.len());
        for fact in 0..fields.len() {
            let run = &grouped[starts[fact] as usize..starts[fact + 1] as usize];
            starts[fact] = declared.len() as u32;
            for (i, &(phase, how)) in run.iter().enumerate() {
                if i == 0 || run[i - 1].0 != phase {
                    declared.push((phase, how));
                }
            }
        }
        starts[fields.len()] = declared.len() as u32;
        declared.shrink_to_fit();
        FieldLookups {
            fields,
            starts,
            declared,
        }
    }

    /// The phases that declare fact `fact`, and how, sorted by phase.
    fn declarers(&self, fact: u32) -> &[(u32, Declared)] {
        let range = self.starts[fact as usize] as usize..self.starts[fact as usize + 1] as usize;
        &self.declared[range]
    }

    /// Whether `phase` declares a field covering `field` at least as `how`.
    fn declares(&self, phase: usize, field: &FieldPath, how: Declared) -> bool {
        let mut found = false;
        self.fields.covering(field, |fact| {
            let list = self.declarers(fact);
            if let Ok(at) = list.binary_search_by_key(&(phase as u32), |&(p, _)| p) {
                found |= list[at].1 <= how;
            }
        });
        found
    }
}

/// A rule's check, over the model of the document kind it applies to.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    /// Over a context contract, its phase graph and settings.
    Contract(fn(&RuleContext<'_>, &mut Findings)),
    /// Over a harness config (`.harness/config.json`).
    Harness(fn(&HarnessContext<'_>, &mut Findings)),
}

/// What a harness rule sees: the text (a fix keeps a JSON string's quotes)
/// and the model.
pub struct HarnessContext<'a> {
    pub(crate) source: &'a str,
    pub(crate) config: &'a HarnessConfig,
}

/// What fixes a rule's findings can carry: safe ones `--fix` applies,
/// unsafe ones (a did-you-mean) only with `--unsafe-fixes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FixAvailability {
    None,
    Safe,
    Unsafe,
}

impl FixAvailability {
    pub fn as_str(self) -> &'static str {
        match self {
            FixAvailability::None => "none",
            FixAvailability::Safe => "safe",
            FixAvailability::Unsafe => "unsafe",
        }
    }
}

/// What a rule reads that a schema error can take away. A rule whose need
/// does not hold is not run: it would report what the error explains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// Every phase's fields as written (no schema error in a phase body).
    CompleteFields,
    /// `graph_topology`'s edges as written.
    CompleteTopology,
}

impl Need {
    fn holds(self, contract: &Contract) -> bool {
        match self {
            Need::CompleteFields => contract.fields_complete(),
            Need::CompleteTopology => contract.topology_complete(),
        }
    }
}

/// A rule, declared once: everything the registry, configuration,
/// suppression, the fixer, `phaselint rule` and the generated parts of its
/// page need to know.
#[derive(Debug)]
pub struct Rule {
    pub code: RuleId,
    pub name: &'static str,
    pub family: Family,
    pub default_severity: Severity,
    /// Off-by-default rules run only when `select` names them (or `ALL`).
    pub default_enabled: bool,
    pub fix: FixAvailability,
    pub(crate) needs: &'static [Need],
    /// A rule that reports at more than one level: each level and when.
    /// Empty for a rule with one level, `default_severity`.
    pub(crate) levels: &'static [(Severity, &'static str)],
    /// Where its diagnostic points, in words, for the page.
    pub(crate) points_at: &'static str,
    /// Cannot be turned off, downgraded or suppressed: a file that cannot be
    /// loaded never passes. Read off the code (`RuleId::is_load_error`).
    pub always_on: bool,
    /// A suppression comment can silence it (not E001/E007, not S001, whose
    /// fix removes the comment, not a diff code). Read off the code
    /// (`RuleId::can_be_suppressed`), which the findings sink asks.
    pub suppressible: bool,
    /// One line, for `phaselint rule` and completion details.
    pub summary: &'static str,
    /// The rule's page, `rules/CODE.md`, embedded.
    pub doc: &'static str,
    /// `None` for findings produced while reading the document (E0xx, S00x).
    pub check: Option<Check>,
}

impl Rule {
    /// A rule with the defaults most rules take: on by default, at one
    /// level, no fix, no need, no check of its own (a schema code, made by
    /// the walk); whether it is always on and can be suppressed is its
    /// code's. Declared through `rule!`, which finds the
    /// page from the code.
    pub(crate) const fn new(
        code: RuleId,
        name: &'static str,
        family: Family,
        default_severity: Severity,
        summary: &'static str,
        doc: &'static str,
    ) -> Rule {
        Rule {
            code,
            name,
            family,
            default_severity,
            default_enabled: true,
            fix: FixAvailability::None,
            needs: &[],
            levels: &[],
            points_at: "",
            always_on: code.is_load_error(),
            suppressible: code.can_be_suppressed(),
            summary,
            doc,
            check: None,
        }
    }

    /// Runs only when `select` names it (or `ALL`).
    pub(crate) const fn off_by_default(self) -> Rule {
        Rule {
            default_enabled: false,
            ..self
        }
    }

    /// Is not run unless these hold: what it would report, the schema
    /// error that took them away already explains.
    pub(crate) const fn needs(self, needs: &'static [Need]) -> Rule {
        Rule { needs, ..self }
    }

    pub(crate) const fn fix(self, fix: FixAvailability) -> Rule {
        Rule { fix, ..self }
    }

    /// Reports at more than one level: each level, and when.
    pub(crate) const fn levels(self, levels: &'static [(Severity, &'static str)]) -> Rule {
        Rule { levels, ..self }
    }

    /// Where its diagnostic points, in words, for the page.
    pub(crate) const fn points_at(self, points_at: &'static str) -> Rule {
        Rule { points_at, ..self }
    }

    pub(crate) const fn check(self, check: Check) -> Rule {
        Rule {
            check: Some(check),
            ..self
        }
    }

    /// Its default level as rule lists show it: the severity, or
    /// `off (info)` for a rule that only `select` turns on.
    pub fn default_level(&self) -> String {
        let severity = self.default_severity.as_str();
        if self.default_enabled {
            severity.to_string()
        } else {
            format!("off ({severity})")
        }
    }

    pub(crate) fn diagnostic(
        &self,
        span: crate::syntax::Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(self.code, self.default_severity, span, message)
    }
}
