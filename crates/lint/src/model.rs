//! The contract model (docs/contract-format.md): typed, with the span of
//! every key and value it came from. Built by `schema::build`, which
//! reports what does not fit.

use crate::field_path::FieldPath;
use crate::format;
use crate::syntax::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub(crate) fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

// The format declares its enums (and the defaults of keys that take
// them); the model is built of them.
pub use crate::format::{ApprovalPolicy, CheckpointMode, EnumValue, Recovery, SideEffects};
pub(crate) use crate::format::{FieldSeverity, MergePolicy, RiskClass};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Contract {
    pub(crate) schema_version: Option<Spanned<String>>,
    pub pipeline_id: Option<Spanned<String>>,
    pub(crate) description: Option<Spanned<String>>,
    /// In declaration order, which is the default execution order. Present
    /// only when `phases` itself was well-formed; rules that need the phase
    /// list check `phases_known` before reporting "unknown phase".
    pub phases: Vec<Phase>,
    pub(crate) phases_known: bool,
    pub chains: Vec<Chain>,
    pub checkpoints: Vec<CheckpointSpec>,
    pub(crate) topology: Option<GraphTopology>,
    pub(crate) checkpoint_mode: Option<Spanned<CheckpointMode>>,
    pub(crate) checkpoint_mode_authorization: Option<Authorization>,
    pub(crate) pipeline_inputs: Vec<Spanned<FieldPath>>,
    pub(crate) span: Span,
    /// Phase indexes by name (a few bytes a phase, where a map of owned
    /// names cost about 70; a hash lookup, where a binary search over the
    /// names touched a dozen phases scattered in memory).
    pub(crate) phase_index: crate::name_table::NameTable,
}

impl Contract {
    /// Whether every phase parsed without a schema error: whole-graph field
    /// analyses (G303, G304) are only sound then.
    pub(crate) fn fields_complete(&self) -> bool {
        self.phases_known && self.phases.iter().all(|p| p.complete)
    }

    /// Whether the control flow is as written: no topology, or one whose
    /// edges parsed without a schema error.
    pub(crate) fn topology_complete(&self) -> bool {
        self.topology.as_ref().is_none_or(|t| t.edges_complete)
    }

    pub fn phase(&self, name: &str) -> Option<&Phase> {
        self.phase_index(name).map(|i| &self.phases[i])
    }

    pub(crate) fn phase_index(&self, name: &str) -> Option<usize> {
        self.phase_index
            .get(name, |i| self.phases[i as usize].name.as_str())
            .map(|i| i as usize)
    }

    /// Sets the phases, and the index of their names (which are distinct).
    pub(crate) fn set_phases(&mut self, phases: Vec<Phase>) {
        self.phase_index =
            crate::name_table::NameTable::new(phases.iter().map(|p| p.name.as_str()));
        self.phases = phases;
    }

    /// Whether `name` is known not to be a phase (false while `phases` is broken).
    pub(crate) fn is_unknown_phase(&self, name: &str) -> bool {
        self.phases_known && self.phase_index(name).is_none()
    }

    /// Its `checkpoint_mode`, the format's default when absent.
    pub fn checkpoint_mode(&self) -> CheckpointMode {
        const ABSENT: CheckpointMode = format::CHECKPOINT_MODE.default_value().checkpoint_mode();
        self.checkpoint_mode.as_ref().map_or(ABSENT, |m| m.value)
    }

    pub(crate) fn phase_names(&self) -> impl Iterator<Item = &str> {
        self.phases.iter().map(|p| p.name.as_str())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    pub name: String,
    pub name_span: Span,
    pub span: Span,
    /// False when a schema error removed part of the phase (a misspelled
    /// `exit`, a field without a name): rules that read its field lists
    /// stay silent rather than report what the error already explains.
    pub(crate) complete: bool,
    /// Its entry.required, entry.enrichment, exit.required and
    /// exit.optional fields, in that order, in one list; `ends` is where
    /// the first three lists end. Four lists cost 96 bytes a phase even
    /// when empty.
    fields: Vec<Field>,
    ends: [u32; 3],
    /// What most phases leave out, boxed: a phase is 104 bytes.
    details: Option<Box<PhaseDetails>>,
}

/// The parts of a phase most phases do not write.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PhaseDetails {
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) long_running: Option<Spanned<bool>>,
    /// In seconds.
    pub(crate) expected_duration: Option<Spanned<u64>>,
    pub(crate) side_effects: Option<Spanned<SideEffects>>,
    pub(crate) risk_class: Option<Spanned<RiskClass>>,
}

/// A phase's four field lists, for building one: appended in order
/// (entry.required, entry.enrichment, exit.required, exit.optional) to one
/// list, each `end_list` marking where one ends. One is reused for every
/// phase of a contract, so its list grows once, not once per phase.
#[derive(Clone, Debug, Default)]
pub(crate) struct PhaseFields {
    fields: Vec<Field>,
    ends: [u32; 3],
    lists: usize,
}

impl PhaseFields {
    /// Adds to the list being built.
    pub(crate) fn push(&mut self, field: Field) {
        self.fields.push(field);
    }

    /// How many lists were ended.
    pub(crate) fn lists_ended(&self) -> usize {
        self.lists
    }

    /// Ends the list being built; the next `push` starts the next list.
    pub(crate) fn end_list(&mut self) {
        if let Some(end) = self.ends.get_mut(self.lists) {
            *end = self.fields.len() as u32;
        }
        self.lists += 1;
    }

    /// The phase's lists, in a list of exactly their length, and where the
    /// first three end; `self` is left empty for the next phase, its
    /// capacity kept.
    pub(crate) fn take(&mut self) -> (Vec<Field>, [u32; 3]) {
        // Lists never ended are empty.
        while self.lists < 3 {
            self.end_list();
        }
        let fields: Vec<Field> = self.fields.drain(..).collect();
        let ends = self.ends;
        self.ends = [0; 3];
        self.lists = 0;
        (fields, ends)
    }
}

impl Phase {
    pub(crate) fn new(
        name: String,
        name_span: Span,
        span: Span,
        complete: bool,
        lists: &mut PhaseFields,
        details: PhaseDetails,
    ) -> Phase {
        let (fields, ends) = lists.take();
        let details = (details != PhaseDetails::default()).then(|| Box::new(details));
        Phase {
            name,
            name_span,
            span,
            complete,
            fields,
            ends,
            details,
        }
    }

    fn list(&self, which: usize) -> &[Field] {
        let start = match which {
            0 => 0,
            _ => self.ends[which - 1] as usize,
        };
        let end = self
            .ends
            .get(which)
            .map_or(self.fields.len(), |&e| e as usize);
        &self.fields[start..end]
    }

    pub fn entry_required(&self) -> &[Field] {
        self.list(0)
    }

    pub fn entry_enrichment(&self) -> &[Field] {
        self.list(1)
    }

    pub fn exit_required(&self) -> &[Field] {
        self.list(2)
    }

    pub fn exit_optional(&self) -> &[Field] {
        self.list(3)
    }

    fn details(&self) -> Option<&PhaseDetails> {
        self.details.as_deref()
    }

    pub fn description(&self) -> Option<&Spanned<String>> {
        self.details()?.description.as_ref()
    }

    pub(crate) fn long_running(&self) -> Option<&Spanned<bool>> {
        self.details()?.long_running.as_ref()
    }

    /// In seconds.
    pub(crate) fn expected_duration(&self) -> Option<&Spanned<u64>> {
        self.details()?.expected_duration.as_ref()
    }

    pub(crate) fn side_effects(&self) -> Option<&Spanned<SideEffects>> {
        self.details()?.side_effects.as_ref()
    }

    pub(crate) fn risk_class(&self) -> Option<&Spanned<RiskClass>> {
        self.details()?.risk_class.as_ref()
    }

    pub(crate) fn entry_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields[..self.ends[1] as usize].iter()
    }

    pub(crate) fn exit_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields[self.ends[1] as usize..].iter()
    }

    pub fn all_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter()
    }

    pub(crate) fn produces(&self, field: &FieldPath) -> bool {
        self.exit_fields().any(|f| f.name.value.covers(field))
    }

    pub(crate) fn reads(&self, field: &FieldPath) -> bool {
        self.entry_fields().any(|f| f.name.value.covers(field))
    }

    /// Its `side_effects`, the format's default when absent.
    pub(crate) fn side_effect_class(&self) -> SideEffects {
        const ABSENT: SideEffects = format::PHASE_SIDE_EFFECTS.default_value().side_effects();
        self.side_effects().map_or(ABSENT, |s| s.value)
    }

    /// Marked `long_running`, or expected to take at least `threshold`
    /// seconds.
    pub(crate) fn is_long_running(&self, threshold: u64) -> bool {
        self.long_running().is_some_and(|l| l.value)
            || self
                .expected_duration()
                .is_some_and(|d| d.value >= threshold)
    }

    /// Its `risk_class`, the format's default when absent.
    pub fn risk(&self) -> RiskClass {
        const ABSENT: RiskClass = format::PHASE_RISK_CLASS.default_value().risk_class();
        self.risk_class().map_or(ABSENT, |r| r.value)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: Spanned<FieldPath>,
    pub span: Span,
    pub severity: Option<Spanned<FieldSeverity>>,
    /// What most fields leave out, boxed: a contract may have a million
    /// fields, and inline these made each 232 bytes instead of 88.
    details: Option<Box<FieldDetails>>,
}

/// The parts of a field most fields do not write (a type and a
/// description are common; the rest, rarer, is boxed once more).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FieldDetails {
    /// Inline up to 24 bytes: `str`, `int`, `list`…
    pub(crate) field_type: Option<Spanned<compact_str::CompactString>>,
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) source_phase: Option<Spanned<String>>,
    pub(crate) rare: Option<Box<FieldRare>>,
}

/// The parts of a field few fields write.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FieldRare {
    /// Where its `default` value is written (the resume check reads the
    /// value from the file).
    pub(crate) default: Option<Span>,
    /// Where its `constraints` mapping is written.
    pub(crate) constraints: Option<Span>,
    pub(crate) quality: Option<Quality>,
    pub(crate) evaluation: Option<Evaluation>,
}

impl Field {
    pub(crate) fn new(
        name: Spanned<FieldPath>,
        span: Span,
        severity: Option<Spanned<FieldSeverity>>,
        details: FieldDetails,
    ) -> Field {
        let details = (details != FieldDetails::default()).then(|| Box::new(details));
        Field {
            name,
            span,
            severity,
            details,
        }
    }

    fn details(&self) -> Option<&FieldDetails> {
        self.details.as_deref()
    }

    pub(crate) fn field_type(&self) -> Option<&Spanned<compact_str::CompactString>> {
        self.details()?.field_type.as_ref()
    }

    fn rare(&self) -> Option<&FieldRare> {
        self.details()?.rare.as_deref()
    }

    /// Where its `default` value is written.
    pub(crate) fn default(&self) -> Option<Span> {
        self.rare()?.default
    }

    pub(crate) fn description(&self) -> Option<&Spanned<String>> {
        self.details()?.description.as_ref()
    }

    pub fn source_phase(&self) -> Option<&Spanned<String>> {
        self.details()?.source_phase.as_ref()
    }

    /// Its `severity`, the format's default when absent.
    pub fn severity(&self) -> FieldSeverity {
        const ABSENT: FieldSeverity = format::FIELD_SEVERITY.default_value().field_severity();
        self.severity.as_ref().map_or(ABSENT, |s| s.value)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Quality {
    pub(crate) metric: Option<Spanned<String>>,
    pub(crate) threshold: Option<Spanned<f64>>,
    pub(crate) on_below: Option<Spanned<FieldSeverity>>,
    pub(crate) description: Option<Spanned<String>>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Evaluation {
    pub(crate) required: Option<Spanned<bool>>,
    pub(crate) policy: Option<Spanned<String>>,
    pub(crate) threshold: Option<Spanned<f64>>,
    pub(crate) evaluator: Option<Spanned<String>>,
    pub(crate) on_unevaluated: Option<Spanned<FieldSeverity>>,
    pub(crate) on_below_threshold: Option<Spanned<FieldSeverity>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    pub chain_id: Option<Spanned<String>>,
    pub span: Span,
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) source: Option<Endpoint>,
    pub(crate) waypoints: Vec<Endpoint>,
    pub destination: Option<Endpoint>,
    pub(crate) severity: Option<Spanned<FieldSeverity>>,
    pub(crate) verification: Option<Spanned<String>>,
}

impl Chain {
    /// Source, waypoints, destination, in order; only those that parsed.
    pub fn stops(&self) -> impl Iterator<Item = &Endpoint> {
        self.source
            .iter()
            .chain(&self.waypoints)
            .chain(&self.destination)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Endpoint {
    pub phase: Option<Spanned<String>>,
    pub field: Option<Spanned<FieldPath>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointSpec {
    pub checkpoint_id: Option<Spanned<String>>,
    pub phase: Option<Spanned<String>>,
    pub span: Span,
    pub on_resume: OnResume,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct OnResume {
    pub(crate) span: Option<Span>,
    pub(crate) revalidate_entry: Option<Spanned<bool>>,
    pub staleness_checks: Vec<StalenessCheck>,
    pub(crate) approval_required: Option<Spanned<bool>>,
    pub(crate) approval_policy: Option<Spanned<ApprovalPolicy>>,
}

impl OnResume {
    /// Its `revalidate_entry`, the format's default when absent.
    pub fn revalidate_entry(&self) -> bool {
        const ABSENT: bool = format::ON_RESUME_REVALIDATE_ENTRY.default_value().bool();
        self.revalidate_entry.as_ref().map_or(ABSENT, |v| v.value)
    }

    /// Its `approval_required`, the format's default when absent.
    pub fn approval_required(&self) -> bool {
        const ABSENT: bool = format::ON_RESUME_APPROVAL_REQUIRED.default_value().bool();
        self.approval_required.as_ref().map_or(ABSENT, |v| v.value)
    }

    /// Whether resuming past it needs a person's approval: required, with
    /// `approval_policy: human` (P401: an irreversible act needs a person).
    pub(crate) fn requires_human_approval(&self) -> bool {
        self.approval_required()
            && self
                .approval_policy
                .as_ref()
                .is_some_and(|p| p.value == ApprovalPolicy::Human)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct StalenessCheck {
    pub field: Option<Spanned<FieldPath>>,
    pub span: Span,
    pub(crate) max_age_seconds: Option<Spanned<i64>>,
    pub on_stale: Option<Spanned<FieldSeverity>>,
    pub recovery: Option<Spanned<Recovery>>,
    pub(crate) description: Option<Spanned<String>>,
}

impl StalenessCheck {
    /// Its `on_stale`, the format's default when absent.
    pub fn on_stale(&self) -> FieldSeverity {
        const ABSENT: FieldSeverity = format::STALENESS_ON_STALE.default_value().field_severity();
        self.on_stale.as_ref().map_or(ABSENT, |s| s.value)
    }

    /// Whether the field, once stale, blocks the resume: whatever is
    /// approved or acknowledged, only refreshing it unblocks.
    pub(crate) fn blocks(&self) -> bool {
        stale_field_blocks(self.on_stale(), self.recovery.as_ref().map(|r| r.value))
    }
}

/// `on_stale: blocking` blocks, and `recovery: fail` blocks whatever
/// `on_stale` says.
pub(crate) fn stale_field_blocks(on_stale: FieldSeverity, recovery: Option<Recovery>) -> bool {
    on_stale == FieldSeverity::Blocking || recovery == Some(Recovery::Fail)
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Authorization {
    pub(crate) span: Span,
    pub(crate) authorized_by: Option<Spanned<String>>,
    pub(crate) reason: Option<Spanned<String>>,
    pub(crate) trust_tier: Option<Spanned<String>>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct GraphTopology {
    pub(crate) span: Span,
    /// False when a schema error removed an edge (one without `to`), so the
    /// graph is not the control flow the author wrote.
    pub(crate) edges_complete: bool,
    pub(crate) graph_id: Option<Spanned<String>>,
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) nodes: Vec<TopologyNode>,
    pub(crate) edges: Vec<TopologyEdge>,
    pub(crate) merge_points: Vec<MergePoint>,
    pub(crate) cycle_invariants: Vec<CycleInvariant>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TopologyNode {
    pub(crate) id: Spanned<String>,
    pub(crate) requires: Vec<Spanned<FieldPath>>,
    pub(crate) produces: Vec<Spanned<FieldPath>>,
    pub(crate) optional: Vec<Spanned<FieldPath>>,
    pub(crate) description: Option<Spanned<String>>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TopologyEdge {
    pub(crate) span: Span,
    pub(crate) from: Option<Spanned<String>>,
    pub(crate) to: Option<Spanned<String>>,
    pub(crate) condition: Option<Spanned<String>>,
    /// `None` when the edge does not restrict what passes.
    pub(crate) preserves: Option<Vec<Spanned<FieldPath>>>,
    pub(crate) drops: Vec<Spanned<FieldPath>>,
    pub(crate) description: Option<Spanned<String>>,
}

impl TopologyEdge {
    /// Whether `field` survives this edge.
    pub(crate) fn passes(&self, field: &FieldPath) -> bool {
        if self.drops.iter().any(|d| d.value.covers(field)) {
            return false;
        }
        match &self.preserves {
            None => true,
            Some(kept) => kept.iter().any(|k| k.value.covers(field)),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MergePoint {
    pub(crate) span: Span,
    pub(crate) node: Option<Spanned<String>>,
    pub(crate) sources: Vec<Spanned<String>>,
    pub(crate) merge_policy: Vec<(Spanned<String>, Spanned<MergePolicy>)>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CycleInvariant {
    pub(crate) span: Span,
    pub(crate) cycle_id: Option<Spanned<String>>,
    pub(crate) nodes: Vec<Spanned<String>>,
    pub(crate) max_iterations: Option<Spanned<i64>>,
    pub(crate) invariant_fields: Vec<Spanned<FieldPath>>,
    pub(crate) description: Option<Spanned<String>>,
}

/// A harness config: its named checkpoints, in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HarnessConfig {
    /// `checkpoints.enabled` as written; `checkpoints_enabled` answers for
    /// an absent one.
    pub enabled: Option<Spanned<bool>>,
    pub checkpoints: Vec<HarnessCheckpoint>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HarnessCheckpoint {
    pub(crate) span: Span,
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) trigger_on: Option<Spanned<String>>,
    pub(crate) description: Option<Spanned<String>>,
}

impl HarnessConfig {
    /// Whether the harness takes checkpoints: its `checkpoints.enabled`,
    /// the format's default (the harness's: false) when absent.
    pub fn checkpoints_enabled(&self) -> bool {
        const ABSENT: bool = format::HARNESS_CHECKPOINTS_ENABLED.default_value().bool();
        self.enabled.as_ref().map_or(ABSENT, |e| e.value)
    }

    /// The declared names, in file order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.checkpoints
            .iter()
            .filter_map(|c| c.name.as_ref().map(|n| n.value.as_str()))
    }
}
