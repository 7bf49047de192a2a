//! `phaselint config [PATH]`: the configuration that applies to a path,
//! merged over every file it extends, with where each value came from.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use phaselint_lint::config::{Config, Origin, Setting};
use phaselint_lint::rules::RULES;
use phaselint_render::terminal::inline;

use crate::config_cache::overrides;
use crate::exit;
use crate::lint::absolute;
use crate::shared_args::{ConfigArgs, RuleLevels};

#[derive(clap::Args)]
pub struct ConfigCommandArgs {
    /// The file or directory whose configuration to show [default: the current directory].
    pub path: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ConfigFormat,
    #[command(flatten)]
    pub levels: RuleLevels,
    #[command(flatten)]
    pub configuration: ConfigArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConfigFormat {
    /// TOML-like lines, each with where its value came from.
    Text,
    /// One JSON object.
    Json,
}

pub fn run(args: &ConfigCommandArgs) -> u8 {
    match effective(args) {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes());
            exit::SUCCESS
        }
        Err(message) => {
            eprintln!("phaselint: error: {}", inline(&message));
            exit::NO_VERDICT
        }
    }
}

fn effective(args: &ConfigCommandArgs) -> Result<String, String> {
    let path = args.path.clone().unwrap_or_else(|| PathBuf::from("."));
    let target = absolute(&path);
    let is_dir = target.is_dir();
    if !is_dir && !target.is_file() {
        return Err(format!("{}: no such file or directory", path.display()));
    }
    let dir = if is_dir {
        target.clone()
    } else {
        target
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    };
    let mut config = if let Some(file) = &args.configuration.config {
        Config::load(file)
    } else if args.configuration.no_config {
        Ok(Config::defaults(&dir))
    } else {
        Config::discover(&dir)
    }
    .map_err(|e| e.to_string())?;
    config.apply(&overrides(&args.levels)?)?;
    let settings = if is_dir {
        config.settings().clone()
    } else {
        config.settings_for(&target)
    };
    // Every rule counts, `phaselint diff`'s D-codes included: their levels
    // come from the same configuration.
    let (on, off): (Vec<_>, Vec<_>) = RULES
        .iter()
        .partition(|r| settings.is_enabled(r.code.as_str()));
    let values = config.effective();
    Ok(match args.format {
        ConfigFormat::Text => text(&path, &config, &values, is_dir, &target, &on, &off),
        ConfigFormat::Json => {
            let json = serde_json::json!({
                "path": path,
                "sources": config.sources(),
                "settings": values.iter().map(|s| serde_json::json!({
                    "key": s.key,
                    "value": s.value,
                    "added": s.added,
                    "origin": match &s.origin {
                        Origin::Default => serde_json::json!({"kind": "default"}),
                        Origin::File { path, line, key } => serde_json::json!({"kind": "file", "path": path, "line": line, "key": key}),
                        Origin::CommandLine(option) => serde_json::json!({"kind": "command line", "option": option}),
                    },
                })).collect::<Vec<_>>(),
                "rules": {
                    "on": on.iter().map(|r| r.code).collect::<Vec<_>>(),
                    "off": off.iter().map(|r| r.code).collect::<Vec<_>>(),
                },
            });
            let mut text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
            text.push('\n');
            text
        }
    })
}

fn text(
    path: &Path,
    config: &Config,
    values: &[Setting],
    is_dir: bool,
    target: &Path,
    on: &[&phaselint_lint::rules::Rule],
    off: &[&phaselint_lint::rules::Rule],
) -> String {
    let mut out = format!(
        "# the configuration for {}\n",
        inline(&path.display().to_string())
    );
    match config.sources() {
        [] => out.push_str("# no configuration file: the defaults\n"),
        [nearest, extended @ ..] => {
            out.push_str(&format!("# read from {}", shown(nearest)));
            for file in extended {
                out.push_str(&format!(", which extends {}", shown(file)));
            }
            out.push('\n');
        }
    }
    let lines: Vec<(String, String)> = values
        .iter()
        .map(|setting| {
            let mut origin = match &setting.origin {
                Origin::Default => "default".to_string(),
                Origin::File { path, line, key } => format!("{}:{line} `{key}`", shown(path)),
                Origin::CommandLine(option) => format!("command line `{}`", inline(option)),
            };
            if !is_dir
                && setting.key.starts_with("per-file-ignores.")
                && !config.per_file_ignore_matches(&setting.key, target)
            {
                origin.push_str(" (does not match this file)");
            }
            (
                format!(
                    "{} = {}",
                    inline(&setting.key),
                    inline(&value_text(&setting.value))
                ),
                origin,
            )
        })
        .collect();
    let width = lines
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0)
        .min(60);
    for (line, origin) in lines {
        out.push_str(&format!("{line:<width$}  # {origin}\n"));
    }
    out.push_str(&format!(
        "# rules: {} on, {} off{}\n",
        on.len(),
        off.len(),
        if off.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                off.iter()
                    .map(|r| r.code.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    ));
    out
}

/// A configuration file as the user's shell names it: from the current
/// directory when it is below it.
fn shown(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let relative = path.strip_prefix(&cwd).unwrap_or(path);
    inline(&relative.display().to_string()).into_owned()
}

/// A value as TOML writes it inline (a basic string's escapes are JSON's).
fn value_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Array(items) => format!(
            "[{}]",
            items.iter().map(value_text).collect::<Vec<_>>().join(", ")
        ),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}
