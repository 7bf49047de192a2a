//! The tables: every mapping of a context contract and of a harness
//! config, with its keys.

use super::{
    CheckpointMode, DefaultValue as D, EnumKind, FieldNames, FieldSeverity, Key, Mapping,
    PhaseNames, RiskClass, SideEffects, ValueType,
};

use ValueType as T;

// The keys with a default are named: the model's accessors read the default
// off the key (`PHASE_SIDE_EFFECTS.default_value().side_effects()`), so the
// table is the one place it is written.

const FIELD_PATH_LIST: ValueType = T::List(&T::FieldPath(FieldNames::Any));
const PHASE_NAME: ValueType = T::PhaseName(PhaseNames::Any);
const FIELDS: ValueType = T::List(&T::Mapping(&FIELD));

pub(crate) const CHECKPOINT_MODE: Key = Key::new(
    "checkpoint_mode",
    T::Enum(EnumKind::CheckpointMode),
    "When checkpoints are taken.",
)
.default(D::CheckpointMode(CheckpointMode::Policy))
.extension();

pub(crate) static ROOT: Mapping = Mapping {
    name: "Contract",
    open: false,
    description: "A context contract: the phases of a pipeline, what each needs and produces, how fields propagate, and where the run pauses and resumes.",
    keys: &[
        Key::new("schema_version", T::NonEmptyString, "The version of the contract format the file is written for. Any non-empty string is accepted and none is compared with a list (ContextCore's contracts write `\"0.1.0\"` to `\"0.4.0\"`); quote it, since unquoted `1` or `0.4` is a number to YAML (E004).").required(),
        Key::new("pipeline_id", T::NonEmptyString, "The pipeline's identifier; part of every checkpoint's target digest.").required(),
        Key::new("description", T::String, "What the pipeline does."),
        Key::new("phases", T::MapOf { keys: "phase names", key: &T::NonEmptyString, value: &T::Mapping(&PHASE) }, "The phases, by name. Declaration order is the default execution order; `graph_topology` replaces it.").required(),
        Key::new("propagation_chains", T::List(&T::Mapping(&CHAIN)), "Fields that must travel from a source phase to a destination phase."),
        Key::new("checkpoint_integrity", T::List(&T::Mapping(&CHECKPOINT)), "Where the run pauses, and what is checked before it resumes (REQ-10)."),
        Key::new("graph_topology", T::Mapping(&TOPOLOGY), "Explicit control flow: branches, merges and cycles (REQ-12). Without it, phases run in declaration order."),
        CHECKPOINT_MODE,
        Key::new("checkpoint_mode_authorization", T::Mapping(&AUTHORIZATION), "Who authorized `checkpoint_mode: never`, and why; required with it.").extension(),
        Key::new("pipeline_inputs", FIELD_PATH_LIST, "Fields the caller supplies before the first phase: available everywhere.").extension(),
    ],
};

pub(crate) const PHASE_SIDE_EFFECTS: Key = Key::new(
    "side_effects",
    T::Enum(EnumKind::SideEffects),
    "What the phase does to the world outside the run.",
)
.default(D::SideEffects(SideEffects::None))
.extension();
pub(crate) const PHASE_RISK_CLASS: Key = Key::new(
    "risk_class",
    T::Enum(EnumKind::RiskClass),
    "How much is at stake when the phase runs.",
)
.default(D::RiskClass(RiskClass::Low))
.extension();

pub static PHASE: Mapping = Mapping {
    name: "Phase",
    open: false,
    description: "One step of the pipeline: what it needs on entry and what it guarantees on exit.",
    keys: &[
        Key::new("description", T::String, "What the phase does."),
        Key::new("entry", T::Mapping(&ENTRY), "What the phase needs when it starts."),
        Key::new("exit", T::Mapping(&EXIT), "What the phase guarantees (and may produce) when it ends."),
        Key::new("long_running", T::Bool, "Marks the phase long-running: C203 asks for a checkpoint after it.").extension(),
        Key::new("expected_duration", T::Duration, "How long the phase usually takes; at or above `long_running_threshold` (default 15m) it is long-running.").extension(),
        PHASE_SIDE_EFFECTS,
        PHASE_RISK_CLASS,
    ],
};

pub(crate) static ENTRY: Mapping = Mapping {
    name: "Entry",
    open: false,
    description: "The fields a phase reads when it starts.",
    keys: &[
        Key::new(
            "required",
            FIELDS,
            "Fields that must be present when the phase starts; entry validation fails without them (by their severity).",
        ),
        Key::new(
            "enrichment",
            FIELDS,
            "Fields the phase uses when present; never required.",
        ),
    ],
};

pub(crate) static EXIT: Mapping = Mapping {
    name: "Exit",
    open: false,
    description: "The fields a phase produces.",
    keys: &[
        Key::new(
            "required",
            FIELDS,
            "Fields the phase guarantees to produce.",
        ),
        Key::new("optional", FIELDS, "Fields the phase may produce."),
    ],
};

/// Documented, and not read: the resume check type-checks only a field
/// that writes its `type`.
pub(crate) const FIELD_TYPE: Key = Key::new("type", T::TypeName, "The value's type (`str`, `int`, `float`, `bool`, `list`, `dict`, `any`; other names are accepted and not checked).").default(D::Text("str"));
pub(crate) const FIELD_SEVERITY: Key = Key::new(
    "severity",
    T::Enum(EnumKind::FieldSeverity),
    "What happens when the field is missing or stale.",
)
.default(D::FieldSeverity(FieldSeverity::Blocking));

pub static FIELD: Mapping = Mapping {
    name: "Field",
    open: false,
    description: "A field of the context, as a phase reads or writes it.",
    keys: &[
        Key::new("name", T::FieldPath(FieldNames::Any), "The field's dotted path; a `*` segment matches any one segment, and a declared field covers its sub-paths.").required(),
        FIELD_TYPE,
        FIELD_SEVERITY,
        Key::new("default", T::Any, "The value used when a `warning` field is missing."),
        Key::new("description", T::String, "What the field holds."),
        Key::new("source_phase", T::PhaseName(PhaseNames::FieldSource), "The phase that sets the field (its provenance)."),
        Key::new("constraints", T::AnyMapping, "Constraints on the value, checked by ContextCore."),
        Key::new("quality", T::Mapping(&QUALITY), "A quality metric the value must meet."),
        Key::new("evaluation", T::Mapping(&EVALUATION), "How the value is evaluated, and what happens when it is not or falls short."),
    ],
};

pub(crate) static QUALITY: Mapping = Mapping {
    name: "Quality",
    open: false,
    description: "A quality metric a field's value must meet.",
    keys: &[
        Key::new("metric", T::String, "The metric's name."),
        Key::new("threshold", T::Number, "The least acceptable value."),
        Key::new(
            "on_below",
            T::Enum(EnumKind::FieldSeverity),
            "What happens when the value falls below the threshold.",
        ),
        Key::new("description", T::String, "What the metric measures."),
    ],
};

pub(crate) static EVALUATION: Mapping = Mapping {
    name: "Evaluation",
    open: false,
    description: "How a field's value is evaluated.",
    keys: &[
        Key::new("required", T::Bool, "Whether the value must be evaluated."),
        Key::new("policy", T::String, "The evaluation policy's name."),
        Key::new("threshold", T::Number, "The least acceptable score."),
        Key::new("evaluator", T::String, "Who or what evaluates."),
        Key::new(
            "on_unevaluated",
            T::Enum(EnumKind::FieldSeverity),
            "What happens when the value was not evaluated.",
        ),
        Key::new(
            "on_below_threshold",
            T::Enum(EnumKind::FieldSeverity),
            "What happens when the score is below the threshold.",
        ),
    ],
};

/// Documented, and not read: no rule or check reads a chain's severity.
pub(crate) const CHAIN_SEVERITY: Key = Key::new(
    "severity",
    T::Enum(EnumKind::FieldSeverity),
    "What a broken chain means.",
)
.default(D::FieldSeverity(FieldSeverity::Warning));

pub(crate) static CHAIN: Mapping = Mapping {
    name: "Propagation chain",
    open: false,
    description: "A field that must travel from a source phase, through waypoints, to a destination phase.",
    keys: &[
        Key::new(
            "chain_id",
            T::NonEmptyString,
            "The chain's identifier, unique in the contract.",
        )
        .required(),
        Key::new("description", T::String, "What the chain guarantees."),
        Key::new(
            "source",
            T::Mapping(&ENDPOINT),
            "Where the field starts: a phase that produces it.",
        )
        .required(),
        Key::new(
            "waypoints",
            T::List(&T::Mapping(&ENDPOINT)),
            "Phases the field passes on the way, in order.",
        ),
        Key::new(
            "destination",
            T::Mapping(&ENDPOINT),
            "Where the field must arrive: a phase that reads or writes it.",
        )
        .required(),
        CHAIN_SEVERITY,
        Key::new(
            "verification",
            T::String,
            "A Python expression ContextCore evaluates to verify the chain.",
        ),
    ],
};

pub(crate) static ENDPOINT: Mapping = Mapping {
    name: "Chain endpoint",
    open: false,
    description: "A stop of a propagation chain: a phase and the field there.",
    keys: &[
        Key::new(
            "phase",
            T::PhaseName(PhaseNames::ChainStop),
            "A declared phase.",
        )
        .required(),
        Key::new(
            "field",
            T::FieldPath(FieldNames::ChainStopPhase),
            "The field at that phase.",
        )
        .required(),
    ],
};

pub(crate) static CHECKPOINT: Mapping = Mapping {
    name: "Checkpoint",
    open: false,
    description: "A pause after a phase, and what is checked before the run resumes (REQ-10).",
    keys: &[
        Key::new(
            "checkpoint_id",
            T::NonEmptyString,
            "The checkpoint's identifier, unique in the contract.",
        )
        .required(),
        Key::new(
            "phase",
            T::PhaseName(PhaseNames::CheckpointPhase),
            "The phase the checkpoint is taken after.",
        )
        .required(),
        Key::new(
            "on_resume",
            T::Mapping(&ON_RESUME),
            "What `resume-check` verifies before the run resumes; omitted, every default applies.",
        ),
    ],
};

pub(crate) const ON_RESUME_REVALIDATE_ENTRY: Key = Key::new(
    "revalidate_entry",
    T::Bool,
    "Re-run the entry validation of the phase(s) the run resumes into.",
)
.default(D::Bool(true));
pub(crate) const ON_RESUME_APPROVAL_REQUIRED: Key = Key::new(
    "approval_required",
    T::Bool,
    "Whether resuming needs an approval.",
)
.default(D::Bool(false));

pub(crate) static ON_RESUME: Mapping = Mapping {
    name: "On resume",
    open: false,
    description: "What is checked before a paused run resumes.",
    keys: &[
        ON_RESUME_REVALIDATE_ENTRY,
        Key::new(
            "staleness_checks",
            T::List(&T::Mapping(&STALENESS)),
            "Fields whose age is checked on resume.",
        ),
        ON_RESUME_APPROVAL_REQUIRED,
        Key::new(
            "approval_policy",
            T::Enum(EnumKind::ApprovalPolicy),
            "Who may approve the resume.",
        ),
    ],
};

pub(crate) const STALENESS_ON_STALE: Key = Key::new(
    "on_stale",
    T::Enum(EnumKind::FieldSeverity),
    "What a stale field means.",
)
.default(D::FieldSeverity(FieldSeverity::Blocking));

pub(crate) static STALENESS: Mapping = Mapping {
    name: "Staleness check",
    open: false,
    description: "A field whose age is checked when the run resumes.",
    keys: &[
        Key::new(
            "field",
            T::FieldPath(FieldNames::CheckpointPhaseExit),
            "The field, an exit field of the checkpoint's phase.",
        )
        .required(),
        Key::new(
            "max_age_seconds",
            T::Int,
            "The field is stale when older than this (0 means always stale).",
        )
        .required(),
        STALENESS_ON_STALE,
        Key::new(
            "recovery",
            T::Enum(EnumKind::Recovery),
            "What to do about a stale field.",
        ),
        Key::new("description", T::String, "Why the field goes stale."),
    ],
};

pub(crate) static AUTHORIZATION: Mapping = Mapping {
    name: "Checkpoint mode authorization",
    open: false,
    description: "Who authorized running without checkpoints, and why.",
    keys: &[
        Key::new("authorized_by", T::NonEmptyString, "Who authorized it.").required(),
        Key::new("reason", T::NonEmptyString, "Why.").required(),
        Key::new(
            "trust_tier",
            T::NonEmptyString,
            "The authorizer's trust tier.",
        )
        .required(),
    ],
};

pub(crate) static TOPOLOGY: Mapping = Mapping {
    name: "Graph topology",
    open: false,
    description: "Explicit control flow between phases (REQ-12).",
    keys: &[
        Key::new("graph_id", T::String, "The graph's identifier."),
        Key::new("description", T::String, "What the graph describes."),
        Key::new(
            "nodes",
            T::MapOf {
                keys: "phase names",
                key: &PHASE_NAME,
                value: &T::Mapping(&TOPOLOGY_NODE),
            },
            "The graph's nodes; each names a declared phase.",
        ),
        Key::new(
            "edges",
            T::List(&T::Mapping(&EDGE)),
            "The transitions between phases.",
        ),
        Key::new(
            "merge_points",
            T::List(&T::Mapping(&MERGE_POINT)),
            "Phases where branches join, and how their fields merge.",
        ),
        Key::new(
            "cycle_invariants",
            T::List(&T::Mapping(&CYCLE_INVARIANT)),
            "What bounds each cycle, and which fields survive its iterations.",
        ),
    ],
};

pub(crate) static TOPOLOGY_NODE: Mapping = Mapping {
    name: "Topology node",
    open: false,
    description: "A node of the graph: what it requires and produces.",
    keys: &[
        Key::new("requires", FIELD_PATH_LIST, "Fields the node requires."),
        Key::new("produces", FIELD_PATH_LIST, "Fields the node produces."),
        Key::new("optional", FIELD_PATH_LIST, "Fields the node may produce."),
        Key::new("description", T::String, "What the node does."),
    ],
};

pub(crate) static EDGE: Mapping = Mapping {
    name: "Edge",
    open: false,
    description: "A transition from one phase to another.",
    keys: &[
        Key::new("from", PHASE_NAME, "The phase the transition leaves.").required(),
        Key::new("to", PHASE_NAME, "The phase the transition enters.").required(),
        Key::new("condition", T::String, "When the transition is taken."),
        Key::new(
            "preserves",
            FIELD_PATH_LIST,
            "Only these fields survive the transition.",
        ),
        Key::new(
            "drops",
            FIELD_PATH_LIST,
            "These fields do not survive the transition.",
        ),
        Key::new("description", T::String, "What the transition means."),
    ],
};

pub(crate) static MERGE_POINT: Mapping = Mapping {
    name: "Merge point",
    open: false,
    description: "A phase where branches join.",
    keys: &[
        Key::new("node", PHASE_NAME, "The phase where the branches join.").required(),
        Key::new(
            "sources",
            T::List(&PHASE_NAME),
            "The phases whose branches join there.",
        )
        .required()
        .min_items(2, "a merge joins two or more branches"),
        Key::new(
            "merge_policy",
            T::MapOf {
                keys: "field names",
                key: &T::FieldPath(FieldNames::Any),
                value: &T::Enum(EnumKind::MergePolicy),
            },
            "How each field's values from the branches combine.",
        ),
    ],
};

pub(crate) static CYCLE_INVARIANT: Mapping = Mapping {
    name: "Cycle invariant",
    open: false,
    description: "What bounds a cycle of phases.",
    keys: &[
        Key::new("cycle_id", T::NonEmptyString, "The cycle's identifier.").required(),
        Key::new("nodes", T::List(&PHASE_NAME), "The phases of the cycle.")
            .required()
            .min_items(2, "a cycle runs through two or more phases"),
        Key::new(
            "max_iterations",
            T::Int,
            "The most times the cycle may run (at least 1).",
        ),
        Key::new(
            "invariant_fields",
            FIELD_PATH_LIST,
            "Fields that must survive every iteration.",
        ),
        Key::new("description", T::String, "What the cycle does."),
    ],
};

/// Every mapping, in the order the reference lists them.
/// A harness config, `.harness/config.json`: only its named checkpoints are
/// phaselint's business.
pub(crate) static HARNESS_ROOT: Mapping = Mapping {
    name: "Harness config",
    open: true,
    description: "A harness's `.harness/config.json`. Only `checkpoints` is checked; every other key belongs to the harness.",
    keys: &[Key::new(
        "checkpoints",
        T::Mapping(&HARNESS_CHECKPOINTS),
        "The harness's named checkpoints.",
    )],
};

pub(crate) const HARNESS_CHECKPOINTS_ENABLED: Key = Key::new(
    "enabled",
    T::Bool,
    "Whether the harness takes its checkpoints at all; when not `true`, it neither writes nor waits for their files (`phaselint harness fire` refuses, and the resume check says so).",
)
.default(D::Bool(false));

pub(crate) static HARNESS_CHECKPOINTS: Mapping = Mapping {
    name: "Harness checkpoints",
    open: true,
    description: "Where the harness declares the kinds of checkpoint it takes.",
    keys: &[
        HARNESS_CHECKPOINTS_ENABLED,
        Key::new(
            "types",
            T::List(&T::Mapping(&HARNESS_CHECKPOINT_TYPE)),
            "One entry per named checkpoint.",
        ),
    ],
};

pub(crate) static HARNESS_CHECKPOINT_TYPE: Mapping = Mapping {
    name: "Harness checkpoint type",
    open: true,
    description: "One named checkpoint: the harness writes `.harness/checkpoint-<name>.md` when it is taken, and `checkpoint-<name>.md.granted` once it is approved.",
    keys: &[
        Key::new("name", T::NonEmptyString, "The checkpoint's name; it becomes part of a file name, so only letters, digits, `.`, `_` and `-`, not starting with `.`, at most 100 characters (H503). Unique in the file (H501).").required(),
        Key::new("triggerOn", T::String, "When the harness takes it: `post-planner`, `pre-done`, or `feature-claim:<area>` (area of `a-z`, `0-9`, `_`, `-`); absent for a custom checkpoint the harness takes on request (H502)."),
        Key::new("description", T::String, "What the checkpoint is for, shown to whoever approves it."),
    ],
};

/// The mappings of a harness config, in reference order.
pub(crate) static HARNESS_MAPPINGS: &[&Mapping] = &[
    &HARNESS_ROOT,
    &HARNESS_CHECKPOINTS,
    &HARNESS_CHECKPOINT_TYPE,
];

pub static MAPPINGS: &[&Mapping] = &[
    &ROOT,
    &PHASE,
    &ENTRY,
    &EXIT,
    &FIELD,
    &QUALITY,
    &EVALUATION,
    &CHAIN,
    &ENDPOINT,
    &CHECKPOINT,
    &ON_RESUME,
    &STALENESS,
    &AUTHORIZATION,
    &TOPOLOGY,
    &TOPOLOGY_NODE,
    &EDGE,
    &MERGE_POINT,
    &CYCLE_INVARIANT,
];
