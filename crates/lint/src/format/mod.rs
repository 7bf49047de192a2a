//! The contract format, declared once: every mapping with its keys, each
//! key's type, whether it is required, its default, its minimum number of
//! items, whether it is a phaselint extension, and what it means.
//!
//! Read by the schema walker (unknown keys, extensions, missing required
//! keys, minimum items: E003, E005, E004), by completion (keys, enum values)
//! and hover (keys, enum values), and by the generated format reference
//! `docs/contract-format.md`. Adding a key is one entry in `tables.rs`
//! plus the model field and the walker's line that fills it. Here: the
//! types a table is made of and the lookups by path; `reference.rs`
//! writes the reference and hover's text from the tables.

mod reference;
mod tables;
#[cfg(test)]
mod tests;

pub use reference::{key_documentation, reference};
pub use tables::*;

use reference::anchor;

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
