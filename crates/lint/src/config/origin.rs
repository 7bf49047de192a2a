//! Where a value of the effective configuration came from.

use std::path::PathBuf;

/// Where a value was set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Built in: no file sets it.
    Default,
    /// A file of the chain, at a line, under a key as written there.
    File {
        path: PathBuf,
        line: usize,
        key: String,
    },
    /// A command-line option, as given.
    CommandLine(String),
}

/// One value of the effective configuration.
#[derive(Clone, Debug)]
pub struct Setting {
    /// The key as the docs spell it (`select`, `severity.C204`,
    /// `per-file-ignores."legacy/**"`).
    pub key: String,
    pub value: serde_json::Value,
    /// Added to what the files below set (`extend-select`,
    /// `extend-ignore`, `--ignore`, a `[per-file-ignores]` entry), rather
    /// than replacing it.
    pub added: bool,
    pub origin: Origin,
}

pub(super) fn list(values: &[String]) -> serde_json::Value {
    serde_json::Value::Array(
        values
            .iter()
            .map(|v| serde_json::Value::from(v.as_str()))
            .collect(),
    )
}
