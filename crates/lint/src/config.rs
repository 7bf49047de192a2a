//! Configuration: `phaselint.toml` or `[tool.phaselint]` in
//! `pyproject.toml`, found by walking up from each file, resolved into the
//! `Settings` that one analysis runs with.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::diagnostic::Severity;
use crate::duration;
use crate::rules::RULES;
use crate::settings::RuleLevel;
pub use crate::settings::{Dialect, Settings};

mod chain;
mod effective;
mod file;
mod merge;
mod origin;

pub use file::ConfigError;
pub(crate) use file::ConfigReader;
use file::text;
use origin::list;
pub use origin::{Origin, Setting};

/// The most a clock may be off: a larger `max_clock_skew` would let a
/// timestamp from the future (a handoff dated 2125, a context stamped
/// ahead) count as fresh for as long as the skew.
pub(crate) const MAX_CLOCK_SKEW_LIMIT: u64 = 60 * 60;

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
                    (r.code, level)
                })
                .collect(),
            long_running_threshold: 15 * 60,
            max_clock_skew: 5 * 60,
            dialect: Dialect::Phaselint,
            trust_context_approvals: false,
        }
    }
}

/// What the user asked for on the command line, applied over the file's config.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub select: Option<Vec<String>>,
    pub ignore: Vec<String>,
    pub severity: Vec<(String, String)>,
}

/// A loaded configuration: the file found (or named) merged over every file
/// it extends, or the built-in defaults when there is none.
#[derive(Clone, Debug)]
pub struct Config {
    /// The file it came from; `None` for the built-in defaults.
    pub path: Option<PathBuf>,
    /// `path` and every file it extends, nearest first.
    sources: Vec<PathBuf>,
    base: Settings,
    include: Globs,
    exclude: Globs,
    per_file_ignores: Vec<(Globs, Vec<String>)>,
    /// `None`: the default rule set (every rule not off by default).
    select: Option<Vec<String>>,
    /// Added to `select`, or to the default rule set when there is none.
    extend_select: Vec<String>,
    ignore: Vec<String>,
    severity: Vec<(String, Option<Severity>)>,
    /// `baseline = "…"`, resolved against the folder of the file that set it.
    baseline: Option<PathBuf>,
    /// Where each effective value came from, for `phaselint config`.
    origins: Vec<Setting>,
}

/// A glob set and the folder its patterns are relative to: the folder of
/// the file that declared them, so an extended file's globs keep meaning
/// what they meant there.
#[derive(Clone, Debug)]
struct Globs {
    root: PathBuf,
    patterns: Vec<String>,
    set: GlobSet,
}

impl Globs {
    fn new(root: &Path, patterns: &[String]) -> Result<Self, String> {
        Ok(Globs {
            root: root.to_path_buf(),
            patterns: patterns.to_vec(),
            set: globs(patterns.iter().map(String::as_str))?,
        })
    }

    fn matches(&self, file: &Path) -> bool {
        let relative = file.strip_prefix(&self.root).unwrap_or(file);
        self.set.is_match(relative) || self.set.is_match(file)
    }
}

pub(crate) const DEFAULT_INCLUDE: &[&str] = &["**/*.contract.yaml", "**/*.contract.yml"];

impl Config {
    pub fn defaults(root: &Path) -> Self {
        let include: Vec<String> = DEFAULT_INCLUDE.iter().map(|s| s.to_string()).collect();
        let mut config = Config {
            path: None,
            sources: Vec::new(),
            base: Settings::default(),
            include: Globs::new(root, &include).unwrap_or_else(|_| Globs {
                root: root.to_path_buf(),
                patterns: Vec::new(),
                set: GlobSet::empty(),
            }),
            exclude: Globs {
                root: root.to_path_buf(),
                patterns: Vec::new(),
                set: GlobSet::empty(),
            },
            per_file_ignores: Vec::new(),
            select: None,
            extend_select: Vec::new(),
            ignore: Vec::new(),
            severity: Vec::new(),
            baseline: None,
            origins: Vec::new(),
        };
        config.resolve_levels();
        config
    }

    /// The config that governs files in `dir`: the nearest `phaselint.toml`,
    /// or `pyproject.toml` with a `[tool.phaselint]` table, walking up, with
    /// every file it extends.
    pub fn discover(dir: &Path) -> Result<Self, ConfigError> {
        Config::discover_with(dir, &mut read_from_disk)
    }

    /// As `discover`, reading each candidate, and each file it extends,
    /// through `read`: the bytes of that path if a file is there, `None` if
    /// not (`phaselint diff --git` reads them from a git revision instead of
    /// the disk).
    pub fn discover_with(dir: &Path, read: &mut ConfigReader<'_>) -> Result<Self, ConfigError> {
        let mut current = Some(dir);
        while let Some(dir) = current {
            let candidate = dir.join("phaselint.toml");
            if let Some(bytes) = read(&candidate)? {
                let layer = chain::Layer::parse(&candidate, text(&candidate, bytes)?)?;
                return Config::resolve(layer, read);
            }
            let pyproject = dir.join("pyproject.toml");
            if let Some(bytes) = read(&pyproject)?
                && let Some(layer) =
                    chain::Layer::parse_pyproject(&pyproject, text(&pyproject, bytes)?)?
            {
                return Config::resolve(layer, read);
            }
            current = dir.parent();
        }
        Ok(Config::defaults(dir))
    }

    /// Loads a config file named explicitly (`--config`), with every file
    /// it extends.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let bytes = crate::input::read_file(path, crate::input::Bound::Config)?;
        let layer = chain::Layer::from_bytes(path, bytes)?;
        Config::resolve(layer, &mut read_from_disk)
    }

    /// `first` merged over the chain of files it extends.
    fn resolve(first: chain::Layer, read: &mut ConfigReader<'_>) -> Result<Self, ConfigError> {
        let layers = chain::follow(first, read)?;
        let nearest = &layers[0];
        let mut config = Config::defaults(&nearest.root);
        config.path = Some(nearest.path.clone());
        config.sources = layers.iter().map(|l| l.path.clone()).collect();
        for layer in layers.iter().rev() {
            config.merge(layer)?;
        }
        config.resolve_levels();
        Ok(config)
    }

    /// Applies command-line selections on top of the file's.
    pub fn apply(&mut self, overrides: &Overrides) -> Result<(), String> {
        if let Some(select) = &overrides.select {
            check_selectors(select).map_err(|m| format!("--select: {m}"))?;
            self.select = Some(select.clone());
            self.extend_select.clear();
            self.clear_origins(&["select", "extend-select"]);
            self.set_origin(
                "select",
                list(select),
                Origin::CommandLine("--select".into()),
            );
        }
        check_selectors(&overrides.ignore).map_err(|m| format!("--ignore: {m}"))?;
        self.ignore.extend(overrides.ignore.iter().cloned());
        if !overrides.ignore.is_empty() {
            self.add_origin(
                "extend-ignore",
                list(&overrides.ignore),
                Origin::CommandLine("--ignore".into()),
            );
        }
        for (code, level) in &overrides.severity {
            check_code(code).map_err(|m| format!("--severity {code}: {m}"))?;
            let parsed = parse_level(level).map_err(|m| format!("--severity {code}: {m}"))?;
            self.severity.push((code.clone(), parsed));
            self.set_origin(
                &format!("severity.{code}"),
                serde_json::Value::from(level.as_str()),
                Origin::CommandLine(format!("--severity {code}={level}")),
            );
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
            let selected = selected.max(most_specific(rule.code.as_str(), &self.extend_select));
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
            self.base.levels.insert(rule.code, level);
        }
    }

    /// The settings for one file, with its per-file ignores applied.
    pub fn settings_for(&self, file: &Path) -> Settings {
        let mut settings = self.base.clone();
        for (globs, codes) in &self.per_file_ignores {
            if globs.matches(file) {
                for rule in RULES {
                    if !rule.always_on && most_specific(rule.code.as_str(), codes).is_some() {
                        settings.levels.insert(rule.code, RuleLevel::Off);
                    }
                }
            }
        }
        settings
    }

    /// Whether a walked file is a contract by the include/exclude globs.
    pub fn includes(&self, file: &Path) -> bool {
        self.include.matches(file) && !self.exclude.matches(file)
    }

    pub fn settings(&self) -> &Settings {
        &self.base
    }

    /// The baseline file this configuration names (`baseline = "…"`),
    /// relative paths resolved against the folder of the file that set it.
    pub fn baseline(&self) -> Option<&Path> {
        self.baseline.as_deref()
    }

    /// The files this configuration was read from: the one found or named,
    /// then each file it extends, in order. Empty for the defaults.
    pub fn sources(&self) -> &[PathBuf] {
        &self.sources
    }
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
