//! The shape of a contract, as `format/` declares it: one walk over the
//! spanned tree that builds the model and reports every schema problem at
//! once, as pydantic lists them all. Anything malformed is left out of the
//! model, so later rules never see it and stay silent (no cascades).
//!
//! `walker.rs` holds the readers every document kind shares (a mapping
//! against its table, each typed value as the table declares it),
//! `contract.rs` and `harness.rs` the builders of each kind's model.

mod contract;
mod harness;
mod walker;

use std::fmt;

use crate::config::Dialect;
use crate::findings::Findings;
use crate::format::{Mapping, ValueType};
use crate::model::*;
use crate::syntax::{Entry, Mapping as YamlMapping, Node, NodeKind};

/// How much of a key a path shows.
const SHOWN_KEY_CHARS: usize = 64;

/// Where a value sits, rendered only when a message needs it.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    /// The root of a harness config.
    HarnessRoot,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }

    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root | Path::HarnessRoot => Ok(()),
            Path::Key(parent, key) => {
                if !matches!(parent, Path::Root | Path::HarnessRoot) {
                    parent.write(f)?;
                    f.write_str(".")?;
                }
                // A long key is shown by its start: a path is rendered into
                // every message about what lies under it.
                let key: std::borrow::Cow<'_, str> = match key.char_indices().nth(SHOWN_KEY_CHARS) {
                    Some((cut, _)) => format!("{}…", &key[..cut]).into(),
                    None => (*key).into(),
                };
                // Keys that would read as path syntax are quoted: `phases."..."`.
                if !key.is_empty()
                    && key
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
                {
                    write!(f, "{key}")
                } else {
                    write!(f, "{key:?}")
                }
            }
            Path::Index(parent, index) => {
                parent.write(f)?;
                write!(f, "[{index}]")
            }
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => f.write_str("the contract root"),
            Path::HarnessRoot => f.write_str("the harness config's root"),
            _ => {
                f.write_str("`")?;
                self.write(f)?;
                f.write_str("`")
            }
        }
    }
}

/// The most keys one mapping of the format declares (a test holds the
/// tables to it): what `Keys` has room for without an allocation.
pub(crate) const MAX_KEYS_PER_MAPPING: usize = 32;

/// The known keys of one mapping, the last occurrence of each (as YAML
/// loaders keep it): where the table's `i`th key is written, as an index
/// into the mapping's entries plus one (0: not written). A fixed array,
/// because a contract has a mapping per field and a `Vec` each cost an
/// allocation and its growth.
struct Keys<'n> {
    spec: &'static Mapping,
    entries: YamlMapping<'n>,
    written_at: [u32; MAX_KEYS_PER_MAPPING],
}

impl<'n> Keys<'n> {
    /// The table is the one source of truth: a builder that reads a key
    /// the table lacks, or as another type than the table declares, is a
    /// bug that every test with that key catches.
    fn declared(&self, key: &str, reads_as: fn(&ValueType) -> bool) {
        let declared = self.spec.key(key).map(|k| &k.value);
        debug_assert!(
            declared.is_some_and(reads_as),
            "`{}.{key}` is read as another type than the format table's {declared:?}",
            self.spec.name,
        );
    }

    /// The type the table declares for `key`: what the builder reads it as.
    fn declared_type(&self, key: &str) -> Option<&'static ValueType> {
        self.spec.key(key).map(|k| &k.value)
    }

    fn entry(&self, key: &str) -> Option<Entry<'n>> {
        debug_assert!(
            self.spec.key(key).is_some(),
            "`{}.{key}` is read but not in the format table",
            self.spec.name
        );
        let position = self.spec.keys.iter().position(|k| k.name == key)?;
        self.written(position)
    }

    /// The last entry of the table's `position`th key.
    fn written(&self, position: usize) -> Option<Entry<'n>> {
        let at = *self.written_at.get(position)? as usize;
        at.checked_sub(1).and_then(|i| self.entries.get(i))
    }

    fn value(&self, key: &str) -> Option<Node<'n>> {
        self.entry(key).map(|e| e.value)
    }

    /// The value, unless it is absent or an explicit null (pydantic's
    /// `Optional[...] = None` accepts both).
    fn present(&self, key: &str) -> Option<Node<'n>> {
        self.value(key).filter(|n| !n.is_null())
    }
}

pub(crate) struct Walker<'s, 'f> {
    source: &'s str,
    dialect: Dialect,
    /// The document is JSON: helps say how to write JSON, not YAML.
    json: bool,
    findings: &'f mut Findings<'s>,
    /// What the model built so far takes in memory, estimated as it is
    /// built; past `MAX_MODEL_BYTES` nothing more is built.
    model_bytes: usize,
    over_budget: bool,
    /// The field lists of the phase being built.
    phase_fields: PhaseFields,
}

/// What a string of `len` bytes takes on the heap.
fn heap(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        len.div_ceil(16) * 16 + 16
    }
}

/// Reads a harness config with the same walker: E002, E004 and E005 from
/// the harness tables, whose mappings are open.
pub(crate) fn build_harness<'s>(
    root: Node<'_>,
    source: &'s str,
    findings: &mut Findings<'s>,
) -> HarnessConfig {
    let mut walker = Walker {
        source,
        dialect: Dialect::Phaselint,
        json: crate::DocumentKind::Harness.is_json(source),
        findings,
        model_bytes: 0,
        over_budget: false,
        phase_fields: PhaseFields::default(),
    };
    walker.harness(root)
}

/// The contract's model, and whether it stayed within `MAX_MODEL_BYTES`
/// (an E007 says so when it did not, and the model is partial).
pub(crate) fn build<'s>(
    root: Node<'_>,
    source: &'s str,
    dialect: Dialect,
    findings: &mut Findings<'s>,
) -> (Contract, bool) {
    let mut walker = Walker {
        source,
        dialect,
        json: false,
        findings,
        model_bytes: 0,
        over_budget: false,
        phase_fields: PhaseFields::default(),
    };
    let contract = walker.contract(root);
    (contract, !walker.over_budget)
}

/// Whether a parsed document looks like a context contract at all: walked
/// files of another kind that share the suffix are skipped, not reported.
pub(crate) fn looks_like_context_contract(root: Node<'_>) -> bool {
    match root.kind() {
        NodeKind::Mapping(entries) => entries.iter().any(|e| {
            matches!(
                e.key.text,
                "schema_version" | "pipeline_id" | "phases" | "checkpoint_integrity"
            )
        }),
        _ => false,
    }
}
