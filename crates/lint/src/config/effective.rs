//! Where each value of a merged configuration came from: what `phaselint
//! config` prints.

use super::origin::{Origin, Setting, list};
use super::{Config, DEFAULT_INCLUDE, Settings};
use crate::duration;

/// The order keys are shown in.
const ORDER: &[&str] = &[
    "include",
    "exclude",
    "select",
    "extend-select",
    "ignore",
    "extend-ignore",
    "severity.",
    "per-file-ignores.",
    "long_running_threshold",
    "max_clock_skew",
    "dialect",
    "trust_context_approvals",
    "baseline",
];

fn rank(key: &str) -> usize {
    ORDER
        .iter()
        .position(|k| key == *k || (k.ends_with('.') && key.starts_with(k)))
        .unwrap_or(ORDER.len())
}

impl Config {
    pub(super) fn set_origin(&mut self, key: &str, value: serde_json::Value, origin: Origin) {
        self.origins.retain(|s| s.key != key);
        self.origins.push(Setting {
            key: key.to_string(),
            value,
            added: false,
            origin,
        });
    }

    pub(super) fn add_origin(&mut self, key: &str, value: serde_json::Value, origin: Origin) {
        self.origins.push(Setting {
            key: key.to_string(),
            value,
            added: true,
            origin,
        });
    }

    pub(super) fn clear_origins(&mut self, keys: &[&str]) {
        self.origins.retain(|s| !keys.contains(&s.key.as_str()));
    }

    /// Every value of this configuration with where it came from: those
    /// the chain or the command line set, in the order they were applied
    /// within a key, and the built-in defaults of the others.
    pub fn effective(&self) -> Vec<Setting> {
        let defaults = Settings::default();
        let seconds = |s: u64| serde_json::Value::from(duration::format_seconds(s));
        let builtin = [
            (
                "include",
                list(
                    &DEFAULT_INCLUDE
                        .iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>(),
                ),
            ),
            ("exclude", serde_json::Value::Array(Vec::new())),
            ("ignore", serde_json::Value::Array(Vec::new())),
            (
                "long_running_threshold",
                seconds(defaults.long_running_threshold),
            ),
            ("max_clock_skew", seconds(defaults.max_clock_skew)),
            ("dialect", serde_json::Value::from(defaults.dialect.name())),
            (
                "trust_context_approvals",
                serde_json::Value::from(defaults.trust_context_approvals),
            ),
        ];
        let mut settings = self.origins.clone();
        for (key, value) in builtin {
            let set = settings
                .iter()
                .any(|s| s.key == key || (key == "ignore" && s.key == "extend-ignore"));
            if !set {
                settings.push(Setting {
                    key: key.to_string(),
                    value,
                    added: false,
                    origin: Origin::Default,
                });
            }
        }
        // Stable: within a key, the order they were applied in.
        settings.sort_by_key(|s| rank(&s.key));
        settings
    }

    /// Whether the `[per-file-ignores]` entry `key` (as `effective` names
    /// it) matches `file`.
    pub fn per_file_ignore_matches(&self, key: &str, file: &std::path::Path) -> bool {
        let Some(pattern) = key
            .strip_prefix("per-file-ignores.\"")
            .and_then(|rest| rest.strip_suffix('"'))
        else {
            return false;
        };
        self.per_file_ignores
            .iter()
            .any(|(globs, _)| globs.patterns.iter().any(|p| p == pattern) && globs.matches(file))
    }
}
