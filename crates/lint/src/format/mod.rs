//! The contract format, declared once: every mapping with its keys, each
//! key's type, whether it is required, its default, its minimum number of
//! items, whether it is a phaselint extension, and what it means.
//!
//! Read by the schema walker (unknown keys, extensions, missing required
//! keys, minimum items: E003, E005, E004), by completion (keys, enum values)
//! and hover (keys, enum values), and by the generated format reference
//! `docs/contract-format.md`. Adding a key is one entry in `tables.rs`
//! plus the model field and the walker's line that fills it. A default is
//! typed and written once, on its key; the model's accessors read it from
//! there. Here: the face; `types.rs` holds the types a table is made of
//! (value types, typed defaults), `enums.rs` the format's enums,
//! `lookup.rs` the lookups by path, `reference.rs` writes the reference
//! and hover's text from the tables.

mod enums;
mod lookup;
mod reference;
mod tables;
#[cfg(test)]
mod tests;
mod types;

pub use enums::*;
pub(crate) use lookup::{mapping_at, value_type_at};
pub use reference::{key_documentation, reference};
pub use tables::*;
pub(crate) use types::*;
