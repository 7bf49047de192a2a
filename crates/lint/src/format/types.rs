//! The types a table is made of: mappings, keys and the types of their values.

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
    pub(crate) required: bool,
    /// The value assumed when the key is absent, as written in YAML.
    pub(crate) default: Option<&'static str>,
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

    pub(super) const fn default(mut self, value: &'static str) -> Key {
        self.default = Some(value);
        self
    }

    pub(super) const fn min_items(mut self, count: usize, why: &'static str) -> Key {
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
