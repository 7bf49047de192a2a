//! The contract model (docs/contract-format.md): typed, with the span of
//! every key and value it came from. Built by `schema::build`, which
//! reports what does not fit.

use crate::field_path::FieldPath;
use crate::syntax::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

/// A closed set of lower-case values read in any case, so the model is right
/// even where S002 reports the spelling.
pub trait EnumValue: Sized + Copy + 'static {
    /// What the value is called in messages ("severity").
    const WHAT: &'static str;
    /// Each value with its canonical spelling and what it means.
    const ALL: &'static [(&'static str, Self, &'static str)];

    fn parse_canonical(text: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(name, _, _)| *name == text)
            .map(|&(_, v, _)| v)
    }

    fn as_str(self) -> &'static str;
}

macro_rules! enum_value {
    ($(#[$meta:meta])* $name:ident, $what:literal, { $($variant:ident = $text:literal => $doc:literal),+ $(,)? }) => {
        $(#[$meta])*
        // Ordered as declared: risk classes and side-effect classes are
        // compared (low < medium < high < critical, none < reversible <
        // irreversible).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $($variant),+ }

        impl EnumValue for $name {
            const WHAT: &'static str = $what;
            const ALL: &'static [(&'static str, Self, &'static str)] = &[$(($text, $name::$variant, $doc)),+];

            fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        // In reports (the resume check's JSON), as the contract writes it.
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

enum_value!(
    /// How much a missing or stale field matters.
    FieldSeverity, "severity", {
        Blocking = "blocking" => "Missing or stale blocks the phase (or the resume).",
        Warning = "warning" => "Missing or stale is reported; a declared default is used and the run goes on.",
        Advisory = "advisory" => "Only noted; never blocks and never triggers recovery.",
    }
);
enum_value!(Recovery, "recovery strategy", {
    ReRetrieve = "re_retrieve" => "Fetch the field again from its source before resuming.",
    ReGenerate = "re_generate" => "Produce the field again (re-run the generating step) before resuming.",
    LogAndContinue = "log_and_continue" => "Record that the field is stale and resume with it as it is.",
    Fail = "fail" => "Never resume past a stale value: the resume is always blocked.",
});
enum_value!(ApprovalPolicy, "approval policy", {
    Human = "human" => "A person must approve the resume.",
    Orchestrator = "orchestrator" => "The orchestrator (an automated approver) must approve the resume.",
    HumanOrOrchestrator = "human_or_orchestrator" => "Either a person or the orchestrator may approve.",
    AutoIfFresh = "auto_if_fresh" => "Granted automatically when nothing blocking is stale; otherwise an approval is needed.",
});
enum_value!(SideEffects, "side-effect class", {
    None = "none" => "The phase changes nothing outside the run.",
    Reversible = "reversible" => "The phase changes the outside world in a way that can be undone.",
    Irreversible = "irreversible" => "The phase changes the outside world for good; resuming into it needs human approval.",
});
enum_value!(RiskClass, "risk class", {
    Low = "low" => "Low risk.",
    Medium = "medium" => "Medium risk.",
    High = "high" => "High risk: entering it should pass an approval gate.",
    Critical = "critical" => "Critical risk: entering it should pass an approval gate.",
});
enum_value!(CheckpointMode, "checkpoint mode", {
    Always = "always" => "Checkpoint after every phase.",
    Policy = "policy" => "Checkpoint where checkpoint_integrity says (the default).",
    Never = "never" => "Never checkpoint: a policy override that needs checkpoint_mode_authorization.",
});
enum_value!(MergePolicy, "merge policy", {
    RequiredFromAny = "required_from_any" => "The field must arrive from at least one incoming branch.",
    RequiredFromAll = "required_from_all" => "The field must arrive from every incoming branch.",
    PreferLatest = "prefer_latest" => "Take the value from the branch that finished last.",
    UnionAll = "union_all" => "Combine the values of all branches.",
});

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Contract {
    pub schema_version: Option<Spanned<String>>,
    pub pipeline_id: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    /// In declaration order, which is the default execution order. Present
    /// only when `phases` itself was well-formed; rules that need the phase
    /// list check `phases_known` before reporting "unknown phase".
    pub phases: Vec<Phase>,
    pub phases_known: bool,
    pub chains: Vec<Chain>,
    pub checkpoints: Vec<CheckpointSpec>,
    pub topology: Option<GraphTopology>,
    pub checkpoint_mode: Option<Spanned<CheckpointMode>>,
    pub checkpoint_mode_authorization: Option<Authorization>,
    pub pipeline_inputs: Vec<Spanned<FieldPath>>,
    pub span: Span,
    /// Phase indexes by name (a few bytes a phase, where a map of owned
    /// names cost about 70; a hash lookup, where a binary search over the
    /// names touched a dozen phases scattered in memory).
    pub(crate) phase_index: crate::name_table::NameTable,
}

impl Contract {
    /// Whether every phase parsed without a schema error: whole-graph field
    /// analyses (G303, G304) are only sound then.
    pub fn fields_complete(&self) -> bool {
        self.phases_known && self.phases.iter().all(|p| p.complete)
    }

    /// Whether the control flow is as written: no topology, or one whose
    /// edges parsed without a schema error.
    pub fn topology_complete(&self) -> bool {
        self.topology.as_ref().is_none_or(|t| t.edges_complete)
    }

    pub fn phase(&self, name: &str) -> Option<&Phase> {
        self.phase_index(name).map(|i| &self.phases[i])
    }

    pub fn phase_index(&self, name: &str) -> Option<usize> {
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
    pub fn is_unknown_phase(&self, name: &str) -> bool {
        self.phases_known && self.phase_index(name).is_none()
    }

    pub fn phase_names(&self) -> impl Iterator<Item = &str> {
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
    pub complete: bool,
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
pub struct PhaseDetails {
    pub description: Option<Spanned<String>>,
    pub long_running: Option<Spanned<bool>>,
    /// In seconds.
    pub expected_duration: Option<Spanned<u64>>,
    pub side_effects: Option<Spanned<SideEffects>>,
    pub risk_class: Option<Spanned<RiskClass>>,
}

/// A phase's four field lists, for building one: appended in order
/// (entry.required, entry.enrichment, exit.required, exit.optional) to one
/// list, each `end_list` marking where one ends.
#[derive(Clone, Debug, Default)]
pub struct PhaseFields {
    fields: Vec<Field>,
    ends: [u32; 3],
    lists: usize,
}

impl PhaseFields {
    /// Adds to the list being built.
    pub fn push(&mut self, field: Field) {
        self.fields.push(field);
    }

    /// How many lists were ended.
    pub fn lists_ended(&self) -> usize {
        self.lists
    }

    /// Ends the list being built; the next `push` starts the next list.
    pub fn end_list(&mut self) {
        if let Some(end) = self.ends.get_mut(self.lists) {
            *end = self.fields.len() as u32;
        }
        self.lists += 1;
    }
}

impl Phase {
    pub fn new(
        name: String,
        name_span: Span,
        span: Span,
        complete: bool,
        mut lists: PhaseFields,
        details: PhaseDetails,
    ) -> Phase {
        // Lists never ended are empty.
        while lists.lists < 3 {
            lists.end_list();
        }
        let PhaseFields {
            mut fields, ends, ..
        } = lists;
        fields.shrink_to_fit();
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

    pub fn long_running(&self) -> Option<&Spanned<bool>> {
        self.details()?.long_running.as_ref()
    }

    /// In seconds.
    pub fn expected_duration(&self) -> Option<&Spanned<u64>> {
        self.details()?.expected_duration.as_ref()
    }

    pub fn side_effects(&self) -> Option<&Spanned<SideEffects>> {
        self.details()?.side_effects.as_ref()
    }

    pub fn risk_class(&self) -> Option<&Spanned<RiskClass>> {
        self.details()?.risk_class.as_ref()
    }

    pub fn entry_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields[..self.ends[1] as usize].iter()
    }

    pub fn exit_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields[self.ends[1] as usize..].iter()
    }

    pub fn all_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter()
    }

    pub fn produces(&self, field: &FieldPath) -> bool {
        self.exit_fields().any(|f| f.name.value.covers(field))
    }

    pub fn reads(&self, field: &FieldPath) -> bool {
        self.entry_fields().any(|f| f.name.value.covers(field))
    }

    /// Its `side_effects`, `none` when absent.
    pub fn side_effect_class(&self) -> SideEffects {
        self.side_effects().map_or(SideEffects::None, |s| s.value)
    }

    /// Marked `long_running`, or expected to take at least `threshold`
    /// seconds.
    pub fn is_long_running(&self, threshold: u64) -> bool {
        self.long_running().is_some_and(|l| l.value)
            || self
                .expected_duration()
                .is_some_and(|d| d.value >= threshold)
    }

    /// Its `risk_class`, `low` when absent.
    pub fn risk(&self) -> RiskClass {
        self.risk_class().map_or(RiskClass::Low, |r| r.value)
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
pub struct FieldDetails {
    /// Inline up to 24 bytes: `str`, `int`, `list`…
    pub field_type: Option<Spanned<compact_str::CompactString>>,
    pub description: Option<Spanned<String>>,
    pub source_phase: Option<Spanned<String>>,
    pub rare: Option<Box<FieldRare>>,
}

/// The parts of a field few fields write.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldRare {
    /// Where its `default` value is written (the resume check reads the
    /// value from the file).
    pub default: Option<Span>,
    /// Where its `constraints` mapping is written.
    pub constraints: Option<Span>,
    pub quality: Option<Quality>,
    pub evaluation: Option<Evaluation>,
}

impl Field {
    pub fn new(
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

    pub fn field_type(&self) -> Option<&Spanned<compact_str::CompactString>> {
        self.details()?.field_type.as_ref()
    }

    fn rare(&self) -> Option<&FieldRare> {
        self.details()?.rare.as_deref()
    }

    /// Where its `default` value is written.
    pub fn default(&self) -> Option<Span> {
        self.rare()?.default
    }

    pub fn description(&self) -> Option<&Spanned<String>> {
        self.details()?.description.as_ref()
    }

    pub fn source_phase(&self) -> Option<&Spanned<String>> {
        self.details()?.source_phase.as_ref()
    }

    /// Where its `constraints` mapping is written.
    pub fn constraints(&self) -> Option<Span> {
        self.rare()?.constraints
    }

    pub fn quality(&self) -> Option<&Quality> {
        self.rare()?.quality.as_ref()
    }

    pub fn evaluation(&self) -> Option<&Evaluation> {
        self.rare()?.evaluation.as_ref()
    }

    pub fn severity(&self) -> FieldSeverity {
        self.severity
            .as_ref()
            .map_or(FieldSeverity::Blocking, |s| s.value)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Quality {
    pub metric: Option<Spanned<String>>,
    pub threshold: Option<Spanned<f64>>,
    pub on_below: Option<Spanned<FieldSeverity>>,
    pub description: Option<Spanned<String>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub required: Option<Spanned<bool>>,
    pub policy: Option<Spanned<String>>,
    pub threshold: Option<Spanned<f64>>,
    pub evaluator: Option<Spanned<String>>,
    pub on_unevaluated: Option<Spanned<FieldSeverity>>,
    pub on_below_threshold: Option<Spanned<FieldSeverity>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    pub chain_id: Option<Spanned<String>>,
    pub span: Span,
    pub description: Option<Spanned<String>>,
    pub source: Option<Endpoint>,
    pub waypoints: Vec<Endpoint>,
    pub destination: Option<Endpoint>,
    pub severity: Option<Spanned<FieldSeverity>>,
    pub verification: Option<Spanned<String>>,
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
    pub span: Option<Span>,
    pub revalidate_entry: Option<Spanned<bool>>,
    pub staleness_checks: Vec<StalenessCheck>,
    pub approval_required: Option<Spanned<bool>>,
    pub approval_policy: Option<Spanned<ApprovalPolicy>>,
}

impl OnResume {
    pub fn revalidate_entry(&self) -> bool {
        self.revalidate_entry.as_ref().is_none_or(|v| v.value)
    }

    pub fn approval_required(&self) -> bool {
        self.approval_required.as_ref().is_some_and(|v| v.value)
    }

    /// Whether resuming past it needs a person's approval: required, with
    /// `approval_policy: human` (P401: an irreversible act needs a person).
    pub fn requires_human_approval(&self) -> bool {
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
    pub max_age_seconds: Option<Spanned<i64>>,
    pub on_stale: Option<Spanned<FieldSeverity>>,
    pub recovery: Option<Spanned<Recovery>>,
    pub description: Option<Spanned<String>>,
}

impl StalenessCheck {
    pub fn on_stale(&self) -> FieldSeverity {
        self.on_stale
            .as_ref()
            .map_or(FieldSeverity::Blocking, |s| s.value)
    }

    /// Whether the field, once stale, blocks the resume: whatever is
    /// approved or acknowledged, only refreshing it unblocks.
    pub fn blocks(&self) -> bool {
        stale_field_blocks(self.on_stale(), self.recovery.as_ref().map(|r| r.value))
    }
}

/// `on_stale: blocking` blocks, and `recovery: fail` blocks whatever
/// `on_stale` says.
pub fn stale_field_blocks(on_stale: FieldSeverity, recovery: Option<Recovery>) -> bool {
    on_stale == FieldSeverity::Blocking || recovery == Some(Recovery::Fail)
}

#[derive(Clone, Debug, PartialEq)]
pub struct Authorization {
    pub span: Span,
    pub authorized_by: Option<Spanned<String>>,
    pub reason: Option<Spanned<String>>,
    pub trust_tier: Option<Spanned<String>>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GraphTopology {
    pub span: Span,
    /// False when a schema error removed an edge (one without `to`), so the
    /// graph is not the control flow the author wrote.
    pub edges_complete: bool,
    pub graph_id: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    pub nodes: Vec<TopologyNode>,
    pub edges: Vec<TopologyEdge>,
    pub merge_points: Vec<MergePoint>,
    pub cycle_invariants: Vec<CycleInvariant>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TopologyNode {
    pub id: Spanned<String>,
    pub requires: Vec<Spanned<FieldPath>>,
    pub produces: Vec<Spanned<FieldPath>>,
    pub optional: Vec<Spanned<FieldPath>>,
    pub description: Option<Spanned<String>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TopologyEdge {
    pub span: Span,
    pub from: Option<Spanned<String>>,
    pub to: Option<Spanned<String>>,
    pub condition: Option<Spanned<String>>,
    /// `None` when the edge does not restrict what passes.
    pub preserves: Option<Vec<Spanned<FieldPath>>>,
    pub drops: Vec<Spanned<FieldPath>>,
    pub description: Option<Spanned<String>>,
}

impl TopologyEdge {
    /// Whether `field` survives this edge.
    pub fn passes(&self, field: &FieldPath) -> bool {
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
pub struct MergePoint {
    pub span: Span,
    pub node: Option<Spanned<String>>,
    pub sources: Vec<Spanned<String>>,
    pub merge_policy: Vec<(Spanned<String>, Spanned<MergePolicy>)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CycleInvariant {
    pub span: Span,
    pub cycle_id: Option<Spanned<String>>,
    pub nodes: Vec<Spanned<String>>,
    pub max_iterations: Option<Spanned<i64>>,
    pub invariant_fields: Vec<Spanned<FieldPath>>,
    pub description: Option<Spanned<String>>,
}

/// A harness config: its named checkpoints, in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HarnessConfig {
    /// `checkpoints.enabled`; absent means false, as the harness reads it.
    pub enabled: Option<Spanned<bool>>,
    pub checkpoints: Vec<HarnessCheckpoint>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HarnessCheckpoint {
    pub span: Span,
    pub name: Option<Spanned<String>>,
    pub trigger_on: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
}

impl HarnessConfig {
    /// Whether the harness takes checkpoints: `checkpoints.enabled` is
    /// `true` (the harness's default is false).
    pub fn checkpoints_enabled(&self) -> bool {
        self.enabled.as_ref().is_some_and(|e| e.value)
    }

    /// The declared names, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.checkpoints
            .iter()
            .filter_map(|c| c.name.as_ref().map(|n| n.value.as_str()))
    }
}
