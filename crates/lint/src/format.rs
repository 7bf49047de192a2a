//! The contract format, declared once: every mapping with its keys, each
//! key's type, whether it is required, its default, its minimum number of
//! items, whether it is a phaselint extension, and what it means.
//!
//! Read by the schema walker (unknown keys, extensions, missing required
//! keys, minimum items: E003, E005, E004), by completion (keys, enum values)
//! and hover (keys, enum values), and by the generated format reference
//! `docs/contract-format.md`. Adding a key is one entry here plus the model
//! field the walker fills.

use std::fmt::Write;

use crate::model::{
    ApprovalPolicy, CheckpointMode, EnumValue, FieldSeverity, MergePolicy, Recovery, RiskClass,
    SideEffects,
};

/// The enums of the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnumKind {
    FieldSeverity,
    Recovery,
    ApprovalPolicy,
    SideEffects,
    RiskClass,
    CheckpointMode,
    MergePolicy,
}

impl EnumKind {
    pub const ALL: &'static [EnumKind] = &[
        EnumKind::FieldSeverity,
        EnumKind::Recovery,
        EnumKind::ApprovalPolicy,
        EnumKind::SideEffects,
        EnumKind::RiskClass,
        EnumKind::CheckpointMode,
        EnumKind::MergePolicy,
    ];

    /// What a value is called in messages, and each value with its meaning.
    pub fn values(self) -> (&'static str, Vec<(&'static str, &'static str)>) {
        fn of<E: EnumValue>() -> (&'static str, Vec<(&'static str, &'static str)>) {
            (
                E::WHAT,
                E::ALL.iter().map(|&(v, _, doc)| (v, doc)).collect(),
            )
        }
        match self {
            EnumKind::FieldSeverity => of::<FieldSeverity>(),
            EnumKind::Recovery => of::<Recovery>(),
            EnumKind::ApprovalPolicy => of::<ApprovalPolicy>(),
            EnumKind::SideEffects => of::<SideEffects>(),
            EnumKind::RiskClass => of::<RiskClass>(),
            EnumKind::CheckpointMode => of::<CheckpointMode>(),
            EnumKind::MergePolicy => of::<MergePolicy>(),
        }
    }
}

/// The type of a key's value.
#[derive(Clone, Copy, Debug)]
pub enum ValueType {
    String,
    /// A string that must not be empty (ids, names).
    NonEmptyString,
    /// A dotted field name; `*` matches any one segment.
    FieldPath,
    /// The name of a declared phase.
    PhaseName,
    Bool,
    Int,
    Number,
    /// `90s`, `15m`, `2h`, `1d` or whole seconds.
    Duration,
    Enum(EnumKind),
    List(&'static ValueType),
    Mapping(&'static Mapping),
    /// A mapping whose keys are names chosen by the author (phase names,
    /// node ids, field names), each with a value of this type.
    MapOf {
        keys: &'static str,
        value: &'static ValueType,
    },
    /// Any YAML value.
    Any,
    /// A mapping with keys of the author's choosing, not checked here.
    AnyMapping,
}

impl ValueType {
    /// The type in words, for the reference and for hover.
    pub fn describe(&self) -> String {
        match self {
            ValueType::String => "string".into(),
            ValueType::NonEmptyString => "string, non-empty".into(),
            ValueType::FieldPath => "field name (dotted path)".into(),
            ValueType::PhaseName => "phase name".into(),
            ValueType::Bool => "`true` or `false`".into(),
            ValueType::Int => "integer".into(),
            ValueType::Number => "number".into(),
            ValueType::Duration => "duration (`90s`, `15m`, `2h`, `1d` or whole seconds)".into(),
            ValueType::Enum(kind) => kind
                .values()
                .1
                .iter()
                .map(|(v, _)| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(" | "),
            ValueType::List(item) => format!("list of {}", item.describe()),
            ValueType::Mapping(mapping) => format!("[{}](#{})", mapping.name, anchor(mapping.name)),
            ValueType::MapOf { keys, value } => {
                format!("mapping of {keys} to {}", value.describe())
            }
            ValueType::Any => "any value".into(),
            ValueType::AnyMapping => "mapping".into(),
        }
    }

    /// The mapping its values (or list items, or map values) are, if any.
    pub fn mapping(&self) -> Option<&'static Mapping> {
        match self {
            ValueType::Mapping(mapping) => Some(mapping),
            ValueType::List(item) | ValueType::MapOf { value: item, .. } => item.mapping(),
            _ => None,
        }
    }
}

/// One key of a mapping.
#[derive(Debug)]
pub struct Key {
    pub name: &'static str,
    pub value: ValueType,
    pub required: bool,
    /// The value assumed when the key is absent, as written in YAML.
    pub default: Option<&'static str>,
    /// A list's least number of items, and why.
    pub min_items: Option<(usize, &'static str)>,
    /// A phaselint extension: ContextCore rejects it, so the `contextcore`
    /// dialect reports it.
    pub extension: bool,
    pub description: &'static str,
}

impl Key {
    const fn new(name: &'static str, value: ValueType, description: &'static str) -> Key {
        Key {
            name,
            value,
            required: false,
            default: None,
            min_items: None,
            extension: false,
            description,
        }
    }

    const fn required(mut self) -> Key {
        self.required = true;
        self
    }

    const fn extension(mut self) -> Key {
        self.extension = true;
        self
    }

    const fn default(mut self, value: &'static str) -> Key {
        self.default = Some(value);
        self
    }

    const fn min_items(mut self, count: usize, why: &'static str) -> Key {
        self.min_items = Some((count, why));
        self
    }
}

/// One mapping of the format.
#[derive(Debug)]
pub struct Mapping {
    /// Its name in the reference ("Phase", "Staleness check").
    pub name: &'static str,
    /// Keys it does not list belong to someone else and are not reported
    /// (a harness config's own settings); otherwise they are E003.
    pub open: bool,
    pub description: &'static str,
    pub keys: &'static [Key],
}

impl Mapping {
    pub fn key(&self, name: &str) -> Option<&'static Key> {
        self.keys.iter().find(|k| k.name == name)
    }
}

use ValueType as T;

const FIELD_PATH_LIST: ValueType = T::List(&T::FieldPath);
const FIELDS: ValueType = T::List(&T::Mapping(&FIELD));

pub static ROOT: Mapping = Mapping {
    name: "Contract",
    open: false,
    description: "A context contract: the phases of a pipeline, what each needs and produces, how fields propagate, and where the run pauses and resumes.",
    keys: &[
        Key::new("schema_version", T::NonEmptyString, "The version of the contract format the file is written for.").required(),
        Key::new("pipeline_id", T::NonEmptyString, "The pipeline's identifier; part of every checkpoint's target digest.").required(),
        Key::new("description", T::String, "What the pipeline does."),
        Key::new("phases", T::MapOf { keys: "phase names", value: &T::Mapping(&PHASE) }, "The phases, by name. Declaration order is the default execution order; `graph_topology` replaces it.").required(),
        Key::new("propagation_chains", T::List(&T::Mapping(&CHAIN)), "Fields that must travel from a source phase to a destination phase."),
        Key::new("checkpoint_integrity", T::List(&T::Mapping(&CHECKPOINT)), "Where the run pauses, and what is checked before it resumes (REQ-10)."),
        Key::new("graph_topology", T::Mapping(&TOPOLOGY), "Explicit control flow: branches, merges and cycles (REQ-12). Without it, phases run in declaration order."),
        Key::new("checkpoint_mode", T::Enum(EnumKind::CheckpointMode), "When checkpoints are taken.").default("policy").extension(),
        Key::new("checkpoint_mode_authorization", T::Mapping(&AUTHORIZATION), "Who authorized `checkpoint_mode: never`, and why; required with it.").extension(),
        Key::new("pipeline_inputs", FIELD_PATH_LIST, "Fields the caller supplies before the first phase: available everywhere.").extension(),
    ],
};

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
        Key::new("side_effects", T::Enum(EnumKind::SideEffects), "What the phase does to the world outside the run.").default("none").extension(),
        Key::new("risk_class", T::Enum(EnumKind::RiskClass), "How much is at stake when the phase runs.").default("low").extension(),
    ],
};

pub static ENTRY: Mapping = Mapping {
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

pub static EXIT: Mapping = Mapping {
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

pub static FIELD: Mapping = Mapping {
    name: "Field",
    open: false,
    description: "A field of the context, as a phase reads or writes it.",
    keys: &[
        Key::new("name", T::FieldPath, "The field's dotted path; a `*` segment matches any one segment, and a declared field covers its sub-paths.").required(),
        Key::new("type", T::String, "The value's type (`str`, `int`, `float`, `bool`, `list`, `dict`, `any`; other names are accepted and not checked).").default("str"),
        Key::new("severity", T::Enum(EnumKind::FieldSeverity), "What happens when the field is missing or stale.").default("blocking"),
        Key::new("default", T::Any, "The value used when a `warning` field is missing."),
        Key::new("description", T::String, "What the field holds."),
        Key::new("source_phase", T::PhaseName, "The phase that sets the field (its provenance)."),
        Key::new("constraints", T::AnyMapping, "Constraints on the value, checked by ContextCore."),
        Key::new("quality", T::Mapping(&QUALITY), "A quality metric the value must meet."),
        Key::new("evaluation", T::Mapping(&EVALUATION), "How the value is evaluated, and what happens when it is not or falls short."),
    ],
};

pub static QUALITY: Mapping = Mapping {
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

pub static EVALUATION: Mapping = Mapping {
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

pub static CHAIN: Mapping = Mapping {
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
        Key::new(
            "severity",
            T::Enum(EnumKind::FieldSeverity),
            "What a broken chain means.",
        )
        .default("warning"),
        Key::new(
            "verification",
            T::String,
            "A Python expression ContextCore evaluates to verify the chain.",
        ),
    ],
};

pub static ENDPOINT: Mapping = Mapping {
    name: "Chain endpoint",
    open: false,
    description: "A stop of a propagation chain: a phase and the field there.",
    keys: &[
        Key::new("phase", T::PhaseName, "A declared phase.").required(),
        Key::new("field", T::FieldPath, "The field at that phase.").required(),
    ],
};

pub static CHECKPOINT: Mapping = Mapping {
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
            T::PhaseName,
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

pub static ON_RESUME: Mapping = Mapping {
    name: "On resume",
    open: false,
    description: "What is checked before a paused run resumes.",
    keys: &[
        Key::new(
            "revalidate_entry",
            T::Bool,
            "Re-run the entry validation of the phase(s) the run resumes into.",
        )
        .default("true"),
        Key::new(
            "staleness_checks",
            T::List(&T::Mapping(&STALENESS)),
            "Fields whose age is checked on resume.",
        ),
        Key::new(
            "approval_required",
            T::Bool,
            "Whether resuming needs an approval.",
        )
        .default("false"),
        Key::new(
            "approval_policy",
            T::Enum(EnumKind::ApprovalPolicy),
            "Who may approve the resume.",
        ),
    ],
};

pub static STALENESS: Mapping = Mapping {
    name: "Staleness check",
    open: false,
    description: "A field whose age is checked when the run resumes.",
    keys: &[
        Key::new(
            "field",
            T::FieldPath,
            "The field, an exit field of the checkpoint's phase.",
        )
        .required(),
        Key::new(
            "max_age_seconds",
            T::Int,
            "The field is stale when older than this (0 means always stale).",
        )
        .required(),
        Key::new(
            "on_stale",
            T::Enum(EnumKind::FieldSeverity),
            "What a stale field means.",
        )
        .default("blocking"),
        Key::new(
            "recovery",
            T::Enum(EnumKind::Recovery),
            "What to do about a stale field.",
        ),
        Key::new("description", T::String, "Why the field goes stale."),
    ],
};

pub static AUTHORIZATION: Mapping = Mapping {
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

pub static TOPOLOGY: Mapping = Mapping {
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

pub static TOPOLOGY_NODE: Mapping = Mapping {
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

pub static EDGE: Mapping = Mapping {
    name: "Edge",
    open: false,
    description: "A transition from one phase to another.",
    keys: &[
        Key::new("from", T::PhaseName, "The phase the transition leaves.").required(),
        Key::new("to", T::PhaseName, "The phase the transition enters.").required(),
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

pub static MERGE_POINT: Mapping = Mapping {
    name: "Merge point",
    open: false,
    description: "A phase where branches join.",
    keys: &[
        Key::new("node", T::PhaseName, "The phase where the branches join.").required(),
        Key::new(
            "sources",
            T::List(&T::PhaseName),
            "The phases whose branches join there.",
        )
        .required()
        .min_items(2, "a merge joins two or more branches"),
        Key::new(
            "merge_policy",
            T::MapOf {
                keys: "field names",
                value: &T::Enum(EnumKind::MergePolicy),
            },
            "How each field's values from the branches combine.",
        ),
    ],
};

pub static CYCLE_INVARIANT: Mapping = Mapping {
    name: "Cycle invariant",
    open: false,
    description: "What bounds a cycle of phases.",
    keys: &[
        Key::new("cycle_id", T::NonEmptyString, "The cycle's identifier.").required(),
        Key::new("nodes", T::List(&T::PhaseName), "The phases of the cycle.")
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
pub static HARNESS_ROOT: Mapping = Mapping {
    name: "Harness config",
    open: true,
    description: "A harness's `.harness/config.json`. Only `checkpoints` is checked; every other key belongs to the harness.",
    keys: &[Key::new(
        "checkpoints",
        T::Mapping(&HARNESS_CHECKPOINTS),
        "The harness's named checkpoints.",
    )],
};

pub static HARNESS_CHECKPOINTS: Mapping = Mapping {
    name: "Harness checkpoints",
    open: true,
    description: "Where the harness declares the kinds of checkpoint it takes.",
    keys: &[
        Key::new(
            "enabled",
            T::Bool,
            "Whether the harness takes its checkpoints at all; when not `true`, it neither writes nor waits for their files (`phaselint harness fire` refuses, and the resume check says so).",
        )
        .default("false"),
        Key::new(
            "types",
            T::List(&T::Mapping(&HARNESS_CHECKPOINT_TYPE)),
            "One entry per named checkpoint.",
        ),
    ],
};

pub static HARNESS_CHECKPOINT_TYPE: Mapping = Mapping {
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
pub static HARNESS_MAPPINGS: &[&Mapping] = &[
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

/// Where the cursor is, as keys from the root (`-` for a list item):
/// the mapping there, if it is one of the format's. `["phases", "plan",
/// "exit", "required", "-"]` is a field.
pub fn mapping_at(path: &[&str]) -> Option<&'static Mapping> {
    let mut mapping: &'static Mapping = &ROOT;
    let mut rest = path;
    while let [key, tail @ ..] = rest {
        let mut value = &mapping.key(key)?.value;
        rest = tail;
        // Step through lists (`-`) and author-named keys to the mapping.
        loop {
            match (value, rest) {
                (ValueType::Mapping(next), _) => {
                    mapping = next;
                    break;
                }
                (ValueType::List(item), ["-", tail @ ..])
                | (ValueType::MapOf { value: item, .. }, [_, tail @ ..]) => {
                    value = item;
                    rest = tail;
                }
                _ => return None,
            }
        }
    }
    Some(mapping)
}

/// The key at the end of `path` (the last element names it) and its spec:
/// what a value under the cursor is. For a value of an author-named key
/// (`merge_policy: { answer: ... }`), the type of those values.
pub fn value_type_at(path: &[&str], key: &str) -> Option<&'static ValueType> {
    if let Some(mapping) = mapping_at(path) {
        return mapping.key(key).map(|k| &k.value);
    }
    let (last, parent) = path.split_last()?;
    match &mapping_at(parent)?.key(last)?.value {
        ValueType::MapOf { value, .. } => Some(value),
        _ => None,
    }
}

fn anchor(name: &str) -> String {
    name.to_lowercase().replace(' ', "-")
}

/// `docs/contract-format.md`: the format reference, generated from the tables.
pub fn reference() -> String {
    let mut out = String::from(
        "# The contract format\n\n\
         Generated from `crates/lint/src/format.rs`, the tables the linter, \
         completion and hover read; `tests/rules.rs` fails when this file is \
         stale. Keys marked *extension* are phaselint's own: ContextCore \
         rejects them, so `dialect = \"contextcore\"` reports them (E003). \
         Every other key follows ContextCore's `ContextContract`; an unknown \
         key is an error at every level (E003).\n",
    );
    for mapping in MAPPINGS {
        write_mapping(&mut out, mapping);
    }
    out.push_str("\n## Enumerations\n\nValues are lower case; phaselint reads any case and reports the others (S002).\n");
    for kind in EnumKind::ALL {
        let (what, values) = kind.values();
        let _ = write!(out, "\n### {what}\n\n| value | meaning |\n|---|---|\n");
        for (value, meaning) in values {
            let _ = writeln!(out, "| `{value}` | {meaning} |");
        }
    }
    out.push_str(
        "\n# Harness configs\n\n\
         `.harness/config.json` (or any JSON or YAML file linted with \
         `--kind harness`). These mappings are open: keys they do not list \
         belong to the harness and are not reported.\n",
    );
    for mapping in HARNESS_MAPPINGS {
        write_mapping(&mut out, mapping);
    }
    out
}

/// One mapping's section of the reference: its description and key table.
fn write_mapping(out: &mut String, mapping: &Mapping) {
    let _ = write!(
        out,
        "\n## {}\n\n{}\n\n| key | type | required | default | description |\n|---|---|---|---|---|\n",
        mapping.name, mapping.description
    );
    for key in mapping.keys {
        let mut description = key.description.to_string();
        if let Some((count, why)) = key.min_items {
            let _ = write!(description, " At least {count} ({why}).");
        }
        if key.extension {
            description.push_str(" *Extension.*");
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            key.name,
            key.value.describe().replace('|', "\\|"),
            if key.required { "yes" } else { "" },
            key.default.map_or(String::new(), |d| format!("`{d}`")),
            description
        );
    }
}

/// Hover text for the key `key` of the mapping at `path`.
pub fn key_documentation(path: &[&str], key: &str) -> Option<String> {
    let mapping = mapping_at(path)?;
    let spec = mapping.key(key)?;
    let mut text = format!(
        "**`{}`** ({}): {}\n\n{}",
        spec.name,
        mapping.name,
        spec.value.describe(),
        spec.description
    );
    if spec.required {
        text.push_str("\n\nRequired.");
    }
    if let Some(default) = spec.default {
        let _ = write!(text, "\n\nDefault: `{default}`.");
    }
    if let Some((count, why)) = spec.min_items {
        let _ = write!(text, "\n\nAt least {count} ({why}).");
    }
    if spec.extension {
        text.push_str("\n\nA phaselint extension: ContextCore rejects it.");
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_lead_to_their_mappings() {
        let name = |path: &[&str]| mapping_at(path).map(|m| m.name);
        assert_eq!(name(&[]), Some("Contract"));
        assert_eq!(name(&["phases", "plan"]), Some("Phase"));
        assert_eq!(
            name(&["phases", "plan", "exit", "required", "-"]),
            Some("Field")
        );
        assert_eq!(
            name(&[
                "checkpoint_integrity",
                "-",
                "on_resume",
                "staleness_checks",
                "-"
            ]),
            Some("Staleness check")
        );
        assert_eq!(
            name(&["propagation_chains", "-", "waypoints", "-"]),
            Some("Chain endpoint")
        );
        assert_eq!(
            name(&["graph_topology", "nodes", "plan"]),
            Some("Topology node")
        );
        assert_eq!(name(&["phases", "plan", "nope"]), None);
        assert_eq!(name(&["phases"]), None, "phase names are the author's");
    }

    #[test]
    fn value_types_are_found_by_path_not_by_leaf_name() {
        let enum_at = |path: &[&str], key: &str| match value_type_at(path, key) {
            Some(ValueType::Enum(kind)) => Some(*kind),
            _ => None,
        };
        assert_eq!(
            enum_at(&["phases", "p", "exit", "required", "-"], "severity"),
            Some(EnumKind::FieldSeverity)
        );
        assert_eq!(
            enum_at(
                &["graph_topology", "merge_points", "-", "merge_policy"],
                "answer"
            ),
            Some(EnumKind::MergePolicy)
        );
        // `required` is a list of fields in `entry`, a boolean in `evaluation`.
        assert!(matches!(
            value_type_at(
                &["phases", "p", "exit", "required", "-", "evaluation"],
                "required"
            ),
            Some(ValueType::Bool)
        ));
        assert_eq!(enum_at(&["phases", "p"], "severity"), None);
    }

    /// A value of `value_type`, as YAML at `indent`, the first line after
    /// the key. Phase-valued things name the phase `a`.
    fn sample(value_type: &ValueType, indent: usize, out: &mut String) {
        let pad = " ".repeat(indent);
        match value_type {
            ValueType::String | ValueType::NonEmptyString => out.push_str(" s\n"),
            ValueType::FieldPath => out.push_str(" x\n"),
            ValueType::PhaseName => out.push_str(" a\n"),
            ValueType::Bool => out.push_str(" true\n"),
            ValueType::Int => out.push_str(" 3\n"),
            ValueType::Number => out.push_str(" 0.5\n"),
            ValueType::Duration => out.push_str(" 15m\n"),
            ValueType::Enum(kind) => {
                let _ = writeln!(out, " {}", kind.values().1[0].0);
            }
            ValueType::Any => out.push_str(" v\n"),
            ValueType::AnyMapping => out.push_str(" { k: v }\n"),
            ValueType::List(item) => {
                out.push('\n');
                for _ in 0..2 {
                    let _ = write!(out, "{pad}  -");
                    match item.mapping() {
                        Some(mapping) => {
                            out.push_str(" {}\n");
                            out.truncate(out.len() - 4);
                            out.push('\n');
                            every_key(mapping, indent + 4, out);
                        }
                        None => sample(item, indent + 2, out),
                    }
                }
            }
            ValueType::Mapping(mapping) => {
                out.push('\n');
                every_key(mapping, indent + 2, out);
            }
            ValueType::MapOf { value, .. } => {
                let _ = write!(out, "\n{pad}  a:");
                sample(value, indent + 2, out);
            }
        }
    }

    fn every_key(mapping: &Mapping, indent: usize, out: &mut String) {
        for key in mapping.keys {
            let _ = write!(out, "{}{}:", " ".repeat(indent), key.name);
            sample(&key.value, indent, out);
        }
    }

    #[test]
    fn a_contract_with_every_key_of_the_table_is_read_without_a_schema_error() {
        // The walker and the table agree: every key the table declares is
        // known to the walker and read as the type the table gives it.
        let mut text = String::new();
        every_key(&ROOT, 0, &mut text);
        let analysis = crate::analyze(&text, &crate::config::Settings::default());
        let schema_errors: Vec<_> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.code.is_schema_error())
            .map(|d| (d.code, d.message.as_str()))
            .collect();
        assert!(schema_errors.is_empty(), "{schema_errors:#?}\n{text}");
        if std::env::var_os("SHOW_SAMPLE").is_some() {
            println!("{text}");
        }
    }

    #[test]
    fn every_key_is_described_and_unique_in_its_mapping() {
        for mapping in MAPPINGS {
            for (i, key) in mapping.keys.iter().enumerate() {
                assert!(!key.description.is_empty(), "{}.{}", mapping.name, key.name);
                // Hover finds a key by the word under the cursor.
                assert!(
                    key.name.len() <= crate::completion::LONGEST_WORD,
                    "{}",
                    key.name
                );
                assert!(
                    !mapping.keys[..i].iter().any(|k| k.name == key.name),
                    "{}.{} twice",
                    mapping.name,
                    key.name
                );
            }
        }
    }
}
