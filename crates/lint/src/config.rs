//! Configuration: `phaselint.toml` or `[tool.phaselint]` in
//! `pyproject.toml`, found by walking up from each file, resolved into the
//! `Settings` that one analysis runs with.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::diagnostic::{Diagnostic, Severity};
use crate::duration;
use crate::rules::RULES;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    #[default]
    Phaselint,
    /// Also report every phaselint extension key, so the file stays
    /// loadable by ContextCore.
    Contextcore,
}

/// The settings one analysis runs with.
#[derive(Clone, Debug)]
pub struct Settings {
    levels: HashMap<&'static str, RuleLevel>,
    pub long_running_threshold: u64,
    pub max_clock_skew: u64,
    pub dialect: Dialect,
    /// Only the orchestrator writes the context store, so the resume check
    /// may count a `human` approval read from the context (never for an
    /// irreversible next phase).
    pub trust_context_approvals: bool,
}

/// The most a clock may be off: a larger `max_clock_skew` would let a
/// timestamp from the future (a handoff dated 2125, a context stamped
/// ahead) count as fresh for as long as the skew.
pub const MAX_CLOCK_SKEW_LIMIT: u64 = 60 * 60;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            levels: RULES
                .iter()
                .map(|r| {
                    let level = if r.default_enabled {
                        RuleLevel::Default
                    } else {
                        RuleLevel::Off
                    };
                    (r.code.as_str(), level)
                })
                .collect(),
            long_running_threshold: 15 * 60,
            max_clock_skew: 5 * 60,
            dialect: Dialect::Phaselint,
            trust_context_approvals: false,
        }
    }
}

impl Settings {
    /// Every rule on, off-by-default ones included (`select = ["ALL"]`).
    pub fn all_rules() -> Self {
        let mut settings = Settings::default();
        for level in settings.levels.values_mut() {
            *level = RuleLevel::Default;
        }
        settings
    }

    pub fn is_enabled(&self, code: &str) -> bool {
        self.levels.get(code).is_some_and(|l| *l != RuleLevel::Off)
    }

    /// The severity a finding of `code` is reported at, or `None` if the
    /// code is off. A rule with two levels (C205, G303) keeps its own
    /// choice unless a `[severity]` override names the code.
    pub fn level(&self, code: &str, reported: Severity) -> Option<Severity> {
        match self.levels.get(code) {
            Some(RuleLevel::Off) => None,
            Some(RuleLevel::Set(level)) => Some(*level),
            Some(RuleLevel::Default) | None => Some(reported),
        }
    }
}

impl Settings {
    /// Findings made outside an analysis's findings sink (`phaselint
    /// diff`'s D-codes) with these settings applied: a code turned off is
    /// dropped, a `[severity]` override sets the level of the others.
    pub fn apply_levels(&self, findings: Vec<Diagnostic>) -> Vec<Diagnostic> {
        findings
            .into_iter()
            .filter_map(|mut d| {
                d.severity = self.level(d.code.as_str(), d.severity)?;
                Some(d)
            })
            .collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RuleLevel {
    Off,
    Default,
    Set(Severity),
}

/// What the user asked for on the command line, applied over the file's config.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub select: Option<Vec<String>>,
    pub ignore: Vec<String>,
    pub severity: Vec<(String, String)>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{0}")]
    Input(#[from] crate::input::InputError),
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ConfigFile {
    include: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    severity: Option<BTreeMap<String, String>>,
    #[serde(alias = "long_running_threshold")]
    long_running_threshold: Option<toml::Value>,
    #[serde(alias = "max_clock_skew")]
    max_clock_skew: Option<toml::Value>,
    dialect: Option<Dialect>,
    #[serde(alias = "trust_context_approvals")]
    trust_context_approvals: Option<bool>,
    #[serde(alias = "per_file_ignores")]
    per_file_ignores: Option<BTreeMap<String, Vec<String>>>,
}

/// How `Config::discover_with` reads a candidate: its bytes when a file is
/// at that path, `None` when none is.
pub type ConfigReader<'a> = dyn FnMut(&Path) -> Result<Option<Vec<u8>>, ConfigError> + 'a;

/// A loaded configuration file (or the defaults when there is none).
#[derive(Clone, Debug)]
pub struct Config {
    /// The file it came from; `None` for the built-in defaults.
    pub path: Option<PathBuf>,
    root: PathBuf,
    base: Settings,
    include: GlobSet,
    exclude: GlobSet,
    per_file_ignores: Vec<(GlobSet, Vec<String>)>,
    /// `None`: the default rule set (every rule not off by default).
    select: Option<Vec<String>>,
    ignore: Vec<String>,
    severity: Vec<(String, Option<Severity>)>,
}

pub const DEFAULT_INCLUDE: &[&str] = &["**/*.contract.yaml", "**/*.contract.yml"];

impl Config {
    pub fn defaults(root: &Path) -> Self {
        let mut config = Config {
            path: None,
            root: root.to_path_buf(),
            base: Settings::default(),
            include: globs(DEFAULT_INCLUDE.iter().copied()).unwrap_or_else(|_| GlobSet::empty()),
            exclude: GlobSet::empty(),
            per_file_ignores: Vec::new(),
            select: None,
            ignore: Vec::new(),
            severity: Vec::new(),
        };
        config.resolve_levels();
        config
    }

    /// The config that governs files in `dir`: the nearest `phaselint.toml`,
    /// or `pyproject.toml` with a `[tool.phaselint]` table, walking up.
    pub fn discover(dir: &Path) -> Result<Self, ConfigError> {
        Config::discover_with(dir, &mut read_from_disk)
    }

    /// As `discover`, reading each candidate through `read`: the bytes of
    /// that path if a file is there, `None` if not (`phaselint diff --git`
    /// reads them from a git revision instead of the disk).
    pub fn discover_with(dir: &Path, read: &mut ConfigReader<'_>) -> Result<Self, ConfigError> {
        let mut current = Some(dir);
        while let Some(dir) = current {
            let candidate = dir.join("phaselint.toml");
            if let Some(bytes) = read(&candidate)? {
                return Config::load_text(&candidate, &text(&candidate, bytes)?);
            }
            let pyproject = dir.join("pyproject.toml");
            if let Some(bytes) = read(&pyproject)?
                && let Some(config) =
                    Config::load_pyproject_text(&pyproject, &text(&pyproject, bytes)?)?
            {
                return Ok(config);
            }
            current = dir.parent();
        }
        Ok(Config::defaults(dir))
    }

    /// Loads a config file named explicitly (`--config`).
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        if path.file_name().is_some_and(|n| n == "pyproject.toml") {
            return Config::load_pyproject(path)?.ok_or_else(|| ConfigError::Invalid {
                path: path.to_path_buf(),
                message: "has no [tool.phaselint] table".into(),
            });
        }
        Config::load_text(path, &read(path)?)
    }

    fn load_text(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| invalid(path, text, "", e))?;
        Config::from_file(path, file, "")
    }

    fn load_pyproject(path: &Path) -> Result<Option<Self>, ConfigError> {
        Config::load_pyproject_text(path, &read(path)?)
    }

    fn load_pyproject_text(path: &Path, text: &str) -> Result<Option<Self>, ConfigError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| invalid(path, text, "", e))?;
        let Some(section) = table.get("tool").and_then(|t| t.get("phaselint")) else {
            return Ok(None);
        };
        let file = ConfigFile::deserialize(section.clone())
            .map_err(|e| invalid(path, text, "tool.phaselint", e))?;
        Config::from_file(path, file, "tool.phaselint.").map(Some)
    }

    fn from_file(path: &Path, file: ConfigFile, prefix: &str) -> Result<Self, ConfigError> {
        let root = path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let bad = |key: &str, message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: format!("`{prefix}{key}`: {message}"),
        };
        let mut config = Config::defaults(&root);
        config.path = Some(path.to_path_buf());
        if let Some(include) = &file.include {
            config.include =
                globs(include.iter().map(String::as_str)).map_err(|m| bad("include", m))?;
        }
        if let Some(exclude) = &file.exclude {
            config.exclude =
                globs(exclude.iter().map(String::as_str)).map_err(|m| bad("exclude", m))?;
        }
        if let Some(select) = file.select {
            check_selectors(&select).map_err(|m| bad("select", m))?;
            config.select = Some(select);
        }
        if let Some(ignore) = file.ignore {
            check_selectors(&ignore).map_err(|m| bad("ignore", m))?;
            config.ignore = ignore;
        }
        for (code, level) in file.severity.unwrap_or_default() {
            let parsed = parse_level(&level).map_err(|m| bad(&format!("severity.{code}"), m))?;
            check_code(&code).map_err(|m| bad(&format!("severity.{code}"), m))?;
            config.severity.push((code, parsed));
        }
        for (pattern, codes) in file.per_file_ignores.unwrap_or_default() {
            let key = format!("per-file-ignores.\"{pattern}\"");
            let set = globs(std::iter::once(pattern.as_str())).map_err(|m| bad(&key, m))?;
            check_selectors(&codes).map_err(|m| bad(&key, m))?;
            config.per_file_ignores.push((set, codes));
        }
        if let Some(value) = &file.long_running_threshold {
            config.base.long_running_threshold =
                duration_value(value).map_err(|m| bad("long_running_threshold", m))?;
        }
        if let Some(value) = &file.max_clock_skew {
            let skew = duration_value(value).map_err(|m| bad("max_clock_skew", m))?;
            if skew > MAX_CLOCK_SKEW_LIMIT {
                return Err(bad(
                    "max_clock_skew",
                    format!(
                        "{} is more than a clock may be off; at most \"1h\" (a larger skew lets a timestamp from the future count as fresh)",
                        duration::format_seconds(skew)
                    ),
                ));
            }
            config.base.max_clock_skew = skew;
        }
        if let Some(trust) = file.trust_context_approvals {
            config.base.trust_context_approvals = trust;
        }
        if let Some(dialect) = file.dialect {
            config.base.dialect = dialect;
        }
        config.resolve_levels();
        Ok(config)
    }

    /// Applies command-line selections on top of the file's.
    pub fn apply(&mut self, overrides: &Overrides) -> Result<(), String> {
        if let Some(select) = &overrides.select {
            check_selectors(select).map_err(|m| format!("--select: {m}"))?;
            self.select = Some(select.clone());
        }
        check_selectors(&overrides.ignore).map_err(|m| format!("--ignore: {m}"))?;
        self.ignore.extend(overrides.ignore.iter().cloned());
        for (code, level) in &overrides.severity {
            check_code(code).map_err(|m| format!("--severity {code}: {m}"))?;
            let level = parse_level(level).map_err(|m| format!("--severity {code}: {m}"))?;
            self.severity.push((code.clone(), level));
        }
        self.resolve_levels();
        Ok(())
    }

    fn resolve_levels(&mut self) {
        for rule in RULES {
            let selected = match &self.select {
                Some(selectors) => most_specific(rule.code.as_str(), selectors),
                None => rule.default_enabled.then_some(0),
            };
            let ignored = most_specific(rule.code.as_str(), &self.ignore);
            let enabled = match (selected, ignored) {
                (Some(s), Some(i)) => s > i,
                (Some(_), None) => true,
                _ => false,
            };
            let mut level = if enabled {
                RuleLevel::Default
            } else {
                RuleLevel::Off
            };
            for (code, overridden) in &self.severity {
                if code.eq_ignore_ascii_case(rule.code.as_str()) {
                    level = overridden.map_or(RuleLevel::Off, RuleLevel::Set);
                }
            }
            if rule.always_on {
                level = RuleLevel::Set(Severity::Error);
            }
            self.base.levels.insert(rule.code.as_str(), level);
        }
    }

    /// The settings for one file, with its per-file ignores applied.
    pub fn settings_for(&self, file: &Path) -> Settings {
        let relative = file.strip_prefix(&self.root).unwrap_or(file);
        let mut settings = self.base.clone();
        for (set, codes) in &self.per_file_ignores {
            if set.is_match(relative) || set.is_match(file) {
                for rule in RULES {
                    if !rule.always_on && most_specific(rule.code.as_str(), codes).is_some() {
                        settings.levels.insert(rule.code.as_str(), RuleLevel::Off);
                    }
                }
            }
        }
        settings
    }

    /// Whether a walked file is a contract by the include/exclude globs.
    pub fn includes(&self, file: &Path) -> bool {
        let relative = file.strip_prefix(&self.root).unwrap_or(file);
        let matches = |set: &GlobSet| set.is_match(relative) || set.is_match(file);
        matches(&self.include) && !matches(&self.exclude)
    }

    pub fn settings(&self) -> &Settings {
        &self.base
    }
}

fn read(path: &Path) -> Result<String, ConfigError> {
    text(
        path,
        crate::input::read_file(path, crate::input::Bound::Config)?,
    )
}

/// `discover`'s reader: the file's bytes when `path` is a file on disk.
pub fn read_from_disk(path: &Path) -> Result<Option<Vec<u8>>, ConfigError> {
    if !path.is_file() {
        return Ok(None);
    }
    Ok(Some(crate::input::read_file(
        path,
        crate::input::Bound::Config,
    )?))
}

fn text(path: &Path, bytes: Vec<u8>) -> Result<String, ConfigError> {
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
];

fn invalid(path: &Path, text: &str, table: &str, error: toml::de::Error) -> ConfigError {
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

fn globs<'a>(patterns: impl Iterator<Item = &'a str>) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        builder.add(Glob::new(pattern).map_err(|e| format!("invalid glob `{pattern}`: {e}"))?);
    }
    builder.build().map_err(|e| e.to_string())
}

/// The length of the longest selector that matches `code` (`ALL` matches
/// everything, with length 0), so `ignore = ["C"]` + `select = ["C203"]`
/// keeps C203.
fn most_specific(code: &str, selectors: &[String]) -> Option<usize> {
    selectors
        .iter()
        .filter_map(|s| {
            if s.eq_ignore_ascii_case("ALL") {
                Some(0)
            } else if code.len() >= s.len() && code[..s.len()].eq_ignore_ascii_case(s) {
                Some(s.len())
            } else {
                None
            }
        })
        .max()
}

fn check_selectors(selectors: &[String]) -> Result<(), String> {
    for selector in selectors {
        if selector.eq_ignore_ascii_case("ALL") {
            continue;
        }
        if !RULES
            .iter()
            .any(|r| most_specific(r.code.as_str(), std::slice::from_ref(selector)).is_some())
        {
            return Err(
                match crate::suggest::closest(selector, RULES.iter().map(|r| r.code.as_str())) {
                    Some(code) => format!("`{selector}` matches no rule; did you mean `{code}`?"),
                    None => format!("`{selector}` matches no rule (see `phaselint rule`)"),
                },
            );
        }
    }
    Ok(())
}

fn check_code(code: &str) -> Result<(), String> {
    if crate::rules::rule(code).is_some() {
        Ok(())
    } else {
        Err(format!(
            "`{code}` is not a rule code (see `phaselint rule`)"
        ))
    }
}

fn parse_level(level: &str) -> Result<Option<Severity>, String> {
    match level {
        "error" => Ok(Some(Severity::Error)),
        "warning" => Ok(Some(Severity::Warning)),
        "info" => Ok(Some(Severity::Info)),
        "off" => Ok(None),
        other => Err(format!(
            "`{other}` is not a level; use error, warning, info or off"
        )),
    }
}

fn duration_value(value: &toml::Value) -> Result<u64, String> {
    match value {
        toml::Value::Integer(i) if *i >= 0 => Ok(*i as u64),
        toml::Value::String(s) => duration::parse_seconds(s).ok_or_else(|| {
            format!("`{s}` is not a duration; write e.g. \"90s\", \"15m\", \"2h\" or \"1d\"")
        }),
        other => Err(format!(
            "expected a duration such as \"15m\", found {}",
            other.type_str()
        )),
    }
}
