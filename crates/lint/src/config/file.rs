//! One configuration file as written (`phaselint.toml` or `[tool.phaselint]`),
//! and how reading one fails.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::settings::Dialect;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{0}")]
    Input(#[from] crate::input::InputError),
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// One configuration file as written. Each key keeps its span, so
/// `phaselint config` can say on which line a value was set.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct ConfigFile {
    pub(super) extend: Option<Spanned<String>>,
    pub(super) include: Option<Spanned<Vec<String>>>,
    pub(super) exclude: Option<Spanned<Vec<String>>>,
    pub(super) select: Option<Spanned<Vec<String>>>,
    pub(super) extend_select: Option<Spanned<Vec<String>>>,
    pub(super) ignore: Option<Spanned<Vec<String>>>,
    pub(super) extend_ignore: Option<Spanned<Vec<String>>>,
    pub(super) severity: Option<BTreeMap<String, Spanned<String>>>,
    #[serde(alias = "long_running_threshold")]
    pub(super) long_running_threshold: Option<Spanned<toml::Value>>,
    #[serde(alias = "max_clock_skew")]
    pub(super) max_clock_skew: Option<Spanned<toml::Value>>,
    pub(super) dialect: Option<Spanned<Dialect>>,
    #[serde(alias = "trust_context_approvals")]
    pub(super) trust_context_approvals: Option<Spanned<bool>>,
    #[serde(alias = "per_file_ignores")]
    pub(super) per_file_ignores: Option<BTreeMap<String, Spanned<Vec<String>>>>,
    /// A baseline file (`lint --write-baseline`), relative to this file.
    pub(super) baseline: Option<Spanned<String>>,
}

/// How `Config::discover_with` reads a candidate: its bytes when a file is
/// at that path, `None` when none is.
pub(crate) type ConfigReader<'a> = dyn FnMut(&Path) -> Result<Option<Vec<u8>>, ConfigError> + 'a;

pub(super) fn text(path: &Path, bytes: Vec<u8>) -> Result<String, ConfigError> {
    String::from_utf8(bytes).map_err(|_| ConfigError::Invalid {
        path: path.to_path_buf(),
        message: "is not UTF-8".into(),
    })
}

/// The keys a configuration file may have, as the docs spell them.
const CONFIG_KEYS: &[&str] = &[
    "include",
    "exclude",
    "select",
    "ignore",
    "severity",
    "long_running_threshold",
    "max_clock_skew",
    "dialect",
    "trust_context_approvals",
    "per-file-ignores",
    "baseline",
    "extend",
    "extend-select",
    "extend-ignore",
];

pub(super) fn invalid(path: &Path, text: &str, table: &str, error: toml::de::Error) -> ConfigError {
    let mut message = error.message().trim().to_string();
    // serde lists every field, both spellings; say what users need instead.
    if let Some(key) = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(key, _)| key.to_string())
    {
        message = match crate::suggest::closest(&key, CONFIG_KEYS.iter().copied()) {
            Some(close) => format!("unknown key `{key}`; did you mean `{close}`?"),
            None => format!(
                "unknown key `{key}`; the keys are {}",
                CONFIG_KEYS.join(", ")
            ),
        };
    }
    let location = match error.span() {
        Some(span) => {
            let line = memchr::memchr_iter(b'\n', &text.as_bytes()[..span.start.min(text.len())])
                .count()
                + 1;
            format!(" (line {line})")
        }
        None => String::new(),
    };
    let within = if table.is_empty() {
        String::new()
    } else {
        format!(" in [{table}]")
    };
    ConfigError::Invalid {
        path: path.to_path_buf(),
        message: format!("{message}{within}{location}"),
    }
}
