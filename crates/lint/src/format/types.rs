//! The types a table is made of: mappings, keys and the types of their values.

use std::fmt;

use super::enums::{
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
    pub(crate) const ALL: &'static [EnumKind] = &[
        EnumKind::FieldSeverity,
        EnumKind::Recovery,
        EnumKind::ApprovalPolicy,
        EnumKind::SideEffects,
        EnumKind::RiskClass,
        EnumKind::CheckpointMode,
        EnumKind::MergePolicy,
    ];

    /// What a value is called in messages, and each value with its meaning.
    pub(crate) fn values(self) -> (&'static str, Vec<(&'static str, &'static str)>) {
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
    /// A dotted field name; `*` matches any one segment. Which fields fit
    /// there is what completion offers.
    FieldPath(FieldNames),
    /// The name of a declared phase. Which phases fit there is what
    /// completion offers.
    PhaseName(PhaseNames),
    /// A field's type: a text; completion offers the names the resume
    /// check knows (`TYPE_NAMES`).
    TypeName,
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
        /// The keys in words, for the reference and hover.
        keys: &'static str,
        /// What a key is: which names completion offers for one.
        key: &'static ValueType,
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
            ValueType::FieldPath(_) => "field name (dotted path)".into(),
            ValueType::PhaseName(_) => "phase name".into(),
            ValueType::TypeName => "string".into(),
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
            ValueType::MapOf { keys, value, .. } => {
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

/// The fields a `FieldPath` value can name without a finding: what
/// completion offers there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldNames {
    /// A new name, or any field: nothing to offer.
    Any,
    /// An exit field of the phase of the checkpoint around it (a staleness
    /// check watches what its checkpoint's phase produced, R102).
    CheckpointPhaseExit,
    /// A field of the phase of the chain stop around it (R104): an exit
    /// field at the source, any field of the phase elsewhere.
    ChainStopPhase,
}

/// The phases a `PhaseName` value can name without a finding: what
/// completion offers there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhaseNames {
    /// Every declared phase.
    Any,
    /// The phases the checkpoint around it can be taken after (R102, C208).
    CheckpointPhase,
    /// The phases the chain stop around it can name and keep the chain's
    /// route (R104, G307, G308).
    ChainStop,
    /// The phases that produce the field around it and run before the
    /// phase that reads it (R110).
    FieldSource,
}

/// The field types real contracts write, which the resume check knows:
/// what completion offers for a `TypeName` value.
pub(crate) const TYPE_NAMES: &[&str] = &["str", "int", "float", "bool", "list", "dict", "any"];

/// One key of a mapping.
#[derive(Debug)]
pub struct Key {
    pub name: &'static str,
    pub value: ValueType,
    pub required: bool,
    /// The value assumed when the key is absent. The model's accessors
    /// read it from the key (`PHASE_SIDE_EFFECTS.default_value()`), hover,
    /// the reference and the JSON Schema print it: declared once, here.
    pub default: Option<DefaultValue>,
    /// A list's least number of items, and why.
    pub(crate) min_items: Option<(usize, &'static str)>,
    /// A phaselint extension: ContextCore rejects it, so the `contextcore`
    /// dialect reports it.
    pub(crate) extension: bool,
    pub description: &'static str,
}

impl Key {
    pub(super) const fn new(
        name: &'static str,
        value: ValueType,
        description: &'static str,
    ) -> Key {
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

    pub(super) const fn required(mut self) -> Key {
        self.required = true;
        self
    }

    pub(super) const fn extension(mut self) -> Key {
        self.extension = true;
        self
    }

    /// The value assumed when the key is absent; of the key's type, or the
    /// table does not compile.
    pub(super) const fn default(mut self, value: DefaultValue) -> Key {
        assert!(
            value.fits(&self.value),
            "a key's default is of another type than the key"
        );
        self.default = Some(value);
        self
    }

    /// Its default, for an accessor that reads it in a `const`: a key
    /// without one fails to compile there.
    pub const fn default_value(&self) -> DefaultValue {
        match self.default {
            Some(value) => value,
            None => panic!("the key declares no default"),
        }
    }

    pub(super) const fn min_items(mut self, count: usize, why: &'static str) -> Key {
        self.min_items = Some((count, why));
        self
    }
}

/// A key's default, of the key's type. An enum's default is a variant of
/// that enum (add one here for an enum that has none yet).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DefaultValue {
    Bool(bool),
    /// Of a text key.
    Text(&'static str),
    FieldSeverity(FieldSeverity),
    SideEffects(SideEffects),
    RiskClass(RiskClass),
    CheckpointMode(CheckpointMode),
}

impl DefaultValue {
    /// Whether it is a value of `value_type`.
    const fn fits(&self, value_type: &ValueType) -> bool {
        matches!(
            (self, value_type),
            (DefaultValue::Bool(_), ValueType::Bool)
                | (
                    DefaultValue::Text(_),
                    ValueType::String | ValueType::TypeName
                )
                | (
                    DefaultValue::FieldSeverity(_),
                    ValueType::Enum(EnumKind::FieldSeverity)
                )
                | (
                    DefaultValue::SideEffects(_),
                    ValueType::Enum(EnumKind::SideEffects)
                )
                | (
                    DefaultValue::RiskClass(_),
                    ValueType::Enum(EnumKind::RiskClass)
                )
                | (
                    DefaultValue::CheckpointMode(_),
                    ValueType::Enum(EnumKind::CheckpointMode)
                )
        )
    }

    // Each reader below is called in a `const`: a default of another type
    // stops the build.

    pub const fn bool(self) -> bool {
        match self {
            DefaultValue::Bool(value) => value,
            _ => panic!("not a boolean default"),
        }
    }

    pub(crate) const fn field_severity(self) -> FieldSeverity {
        match self {
            DefaultValue::FieldSeverity(value) => value,
            _ => panic!("not a severity default"),
        }
    }

    pub const fn side_effects(self) -> SideEffects {
        match self {
            DefaultValue::SideEffects(value) => value,
            _ => panic!("not a side-effect class default"),
        }
    }

    pub const fn risk_class(self) -> RiskClass {
        match self {
            DefaultValue::RiskClass(value) => value,
            _ => panic!("not a risk class default"),
        }
    }

    pub const fn checkpoint_mode(self) -> CheckpointMode {
        match self {
            DefaultValue::CheckpointMode(value) => value,
            _ => panic!("not a checkpoint mode default"),
        }
    }
}

/// As written in YAML: `true`, `none`, `str`.
impl fmt::Display for DefaultValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DefaultValue::Bool(value) => write!(f, "{value}"),
            DefaultValue::Text(text) => f.write_str(text),
            DefaultValue::FieldSeverity(value) => f.write_str(value.as_str()),
            DefaultValue::SideEffects(value) => f.write_str(value.as_str()),
            DefaultValue::RiskClass(value) => f.write_str(value.as_str()),
            DefaultValue::CheckpointMode(value) => f.write_str(value.as_str()),
        }
    }
}

/// One mapping of the format.
#[derive(Debug)]
pub struct Mapping {
    /// Its name in the reference ("Phase", "Staleness check").
    pub name: &'static str,
    /// Keys it does not list belong to someone else and are not reported
    /// (a harness config's own settings); otherwise they are E003.
    pub(crate) open: bool,
    pub(crate) description: &'static str,
    pub keys: &'static [Key],
}

impl Mapping {
    pub(crate) fn key(&self, name: &str) -> Option<&'static Key> {
        self.keys.iter().find(|k| k.name == name)
    }
}

/// A heading's anchor in the generated reference.
fn anchor(name: &str) -> String {
    name.to_lowercase().replace(' ', "-")
}
