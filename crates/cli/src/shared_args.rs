//! The arguments that more than one subcommand takes (where configuration
//! comes from, the clock, rule levels, output format and colour, the kind
//! of document) and `lint`'s own, which `watch.rs` reads too: apart from
//! `main.rs`, which dispatches to the subcommands, so they import these
//! without importing the dispatcher.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::adoption;

/// `--format`: the renderers' formats, as the command line names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Source snippets with labels.
    Full,
    /// One line per finding: `path:line:col: CODE message`.
    Concise,
    /// Versioned, stable JSON.
    Json,
    /// GitHub Actions workflow commands.
    Github,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF consumers.
    Sarif,
    /// GitLab Code Quality JSON, for merge request widgets.
    Gitlab,
    /// JUnit XML, for CI test reports: a testsuite per file.
    Junit,
}

impl From<Format> for phaselint_render::Format {
    fn from(format: Format) -> Self {
        match format {
            Format::Full => phaselint_render::Format::Full,
            Format::Concise => phaselint_render::Format::Concise,
            Format::Json => phaselint_render::Format::Json,
            Format::Github => phaselint_render::Format::Github,
            Format::Sarif => phaselint_render::Format::Sarif,
            Format::Gitlab => phaselint_render::Format::Gitlab,
            Format::Junit => phaselint_render::Format::Junit,
        }
    }
}

/// When output is coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    Always,
    Never,
}

/// Where configuration comes from; shared by every subcommand that reads it.
#[derive(clap::Args, Debug, Default)]
pub struct ConfigArgs {
    /// Use this configuration file instead of discovering one.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Ignore every configuration file.
    #[arg(long)]
    pub no_config: bool,
}

/// The configuration that applies to `path`: the file given, none, or the
/// one found by walking up from the file's directory.
pub(crate) fn config_beside(
    path: &std::path::Path,
    config: Option<&std::path::Path>,
    no_config: bool,
) -> Result<phaselint_lint::config::Config, String> {
    phaselint_lint::resume::request::config_beside(path, config, no_config)
}

/// The time a resume decision is made at; shared by `resume-check` and `approve`.
#[derive(clap::Args, Debug, Default)]
pub struct ClockArgs {
    /// The time to use, RFC 3339 with `Z` or an offset [default: the clock].
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
}

/// The kinds of document `lint` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// A context contract (YAML).
    Contract,
    /// A harness config with named checkpoints (JSON or YAML).
    Harness,
}

impl From<KindArg> for phaselint_lint::DocumentKind {
    fn from(kind: KindArg) -> Self {
        match kind {
            KindArg::Contract => phaselint_lint::DocumentKind::Contract,
            KindArg::Harness => phaselint_lint::DocumentKind::Harness,
        }
    }
}

/// Which codes are reported and at which level, on top of the
/// configuration: `lint`'s and `diff`'s options alike.
#[derive(clap::Args)]
pub struct RuleLevels {
    /// Only report these codes or prefixes (replaces the config's `select`; `ALL` for every rule).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub select: Option<Vec<String>>,
    /// Do not report these codes or prefixes (added to the config's `ignore`).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub ignore: Vec<String>,
    /// Set a rule's level: CODE=error|warning|info|off. Repeatable.
    #[arg(long, value_name = "CODE=LEVEL")]
    pub severity: Vec<String>,
}

#[derive(clap::Args)]
pub struct LintArgs {
    /// Files or directories to lint; `-` reads standard input. Defaults to the current directory.
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "full")]
    pub format: Format,
    /// When to colour the output (`auto`: on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    pub color: ColorChoice,
    #[command(flatten)]
    pub levels: RuleLevels,
    #[command(flatten)]
    pub configuration: ConfigArgs,
    /// The name to report and to match configuration against for `-`.
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<PathBuf>,
    /// Read the named files (and `-`) as this kind of document [default: a
    /// `.harness/config.json` is a harness config, anything else a contract].
    #[arg(long, value_enum, value_name = "KIND")]
    pub kind: Option<KindArg>,
    /// Exit 1 when there are more than N warnings.
    #[arg(long, value_name = "N")]
    pub max_warnings: Option<usize>,
    /// Print how many findings each rule made instead of the findings.
    #[arg(long)]
    pub statistics: bool,
    /// Apply safe fixes in place (atomically; never to a file that does not parse).
    #[arg(long)]
    pub fix: bool,
    /// With --fix or --diff, apply unsafe fixes too (the did-you-mean suggestions).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff and write nothing; exit 1 when there is something to fix.
    #[arg(long)]
    pub diff: bool,
    /// Print the findings and nothing else (no summary, no notes).
    #[arg(long, short)]
    pub quiet: bool,
    /// Exit 0 even when there are findings (a file that cannot be parsed still exits 1, one that cannot be read 3).
    #[arg(long)]
    pub exit_zero: bool,
    /// Write the report to FILE instead of standard output (never coloured).
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Say which walked files were skipped and why, and which baselined findings were fixed.
    #[arg(long, short)]
    pub verbose: bool,
    #[command(flatten)]
    pub adoption: adoption::AdoptionArgs,
    /// Lint, then lint again what changes, until Ctrl-C: a contract's change
    /// re-lints it, a configuration's change everything. Not with --fix or
    /// --diff; a machine --format needs --output-file.
    #[arg(long)]
    pub watch: bool,
}
