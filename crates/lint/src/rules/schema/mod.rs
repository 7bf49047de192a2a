//! Findings made while reading the document: YAML syntax, the shape of the
//! contract (`format/`), enum spelling, and unused suppressions.

pub(crate) mod e001_yaml_syntax_error;
pub(crate) mod e002_duplicate_key;
pub(crate) mod e003_unknown_key;
pub(crate) mod e004_wrong_type;
pub(crate) mod e005_missing_required_key;
pub(crate) mod e006_invalid_enum_value;
pub(crate) mod e007_unloadable_document;
pub(crate) mod s001_unused_suppression;
pub(crate) mod s002_non_canonical_case;
