//! `phaselint`: the command-line front end. It parses arguments, finds
//! files and configuration, and renders what `phaselint_lint::analyze`
//! found; it does no analysis of its own.

mod adoption;
mod approve;
mod atomic_write;
mod config;
mod diff;
mod diff_git;
mod git;
mod graph;
mod harness;
#[cfg(test)]
mod help_texts;
mod lint;
mod operator;
mod queue;
mod resume;
mod rule;
mod stdout;
mod telemetry;
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// Exit codes, the same for every subcommand, so scripts can tell "no
/// verdict" from findings; a resume decision's own (2, denied, among them)
/// comes from `Decision::exit_code`.
pub mod exit {
    pub const SUCCESS: u8 = 0;
    pub const FINDINGS: u8 = 1;
    pub const NO_VERDICT: u8 = phaselint_lint::resume::NO_VERDICT_EXIT;
}

#[derive(Parser)]
#[command(
    name = "phaselint",
    version,
    about = "Linter for context contracts: phases, fields, propagation chains and checkpoints"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lint contracts: files, directories (walked, .gitignore respected) or `-` for stdin.
    Lint(LintArgs),
    /// Run the language server on stdin/stdout.
    Lsp,
    /// Will runs paused under OLD resume correctly under NEW? D6xx findings located in NEW; exit as `lint`.
    Diff(diff::DiffArgs),
    /// May a paused run resume from a checkpoint? Exit 0 resume, 1 blocked, 2 denied, 3 no verdict.
    ResumeCheck(resume::ResumeCheckArgs),
    /// Print (or write) an ApprovalRecord bound to a checkpoint's current digest;
    /// with --interactive, walk the checkpoints that wait for approval on a terminal.
    Approve(approve::ApproveArgs),
    /// List every checkpoint in graph order: its trigger, the approval it needs,
    /// where that approval stands and whether a resume from it blocks now. Exit 0 when listed.
    Checkpoints(queue::CheckpointsArgs),
    /// Print the combined hash of files, as a checkpoint manifest records it.
    ManifestHash(resume::ManifestHashArgs),
    /// A harness's named checkpoints: list them with their state, or fire one.
    Harness {
        #[command(subcommand)]
        command: harness::HarnessCommand,
    },
    /// Print the JSON Schema (draft 2020-12) of a document kind, for yaml-language-server and editors.
    Schema {
        /// The kind of document.
        #[arg(long, value_enum, default_value = "contract")]
        kind: KindArg,
    },
    /// Draw a contract's phase graph: checkpoints, side effects, risk and long-running phases, edge conditions and drops.
    Graph(graph::GraphArgs),
    /// Print the configuration that applies to a file or directory, merged over
    /// every file it extends, and where each value came from.
    Config(config::ConfigCommandArgs),
    /// Print a rule's page, or list every rule.
    Rule {
        /// A rule code such as C203; omit to list all rules.
        code: Option<String>,
    },
}

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

/// Hands the memory that dropped analyses freed back to the system. The
/// language server calls it on its analysis thread when a large document's
/// new analysis replaces the old one; glibc would otherwise keep the freed
/// pages in that thread's arena, and the server's resident memory at the
/// high-water mark of the largest document it ever analyzed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn release_freed_memory() {
    // SAFETY: `malloc_trim` is glibc's, takes a plain size and no pointers,
    // is thread-safe, and only returns pages that are already free.
    unsafe extern "C" {
        safe fn malloc_trim(pad: usize) -> std::ffi::c_int;
    }
    malloc_trim(0);
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_freed_memory() {}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() {
                exit::NO_VERDICT
            } else {
                exit::SUCCESS
            });
        }
    };
    let code = match cli.command {
        Command::Lint(args) => lint::run(&args),
        Command::ResumeCheck(args) => resume::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Approve(args) => approve::run(&args),
        Command::Checkpoints(args) => queue::run(&args),
        Command::ManifestHash(args) => resume::manifest_hash(&args),
        Command::Harness { command } => harness::run(&command),
        Command::Graph(args) => graph::run(&args),
        Command::Rule { code } => rule::run(code.as_deref()),
        Command::Config(args) => config::run(&args),
        Command::Schema { kind } => {
            let schema = phaselint_lint::json_schema::json_schema(kind.into());
            match serde_json::to_string_pretty(&schema) {
                Ok(text) => stdout::write_answer(&format!("{text}\n")),
                Err(e) => {
                    eprintln!("phaselint: error: {e}");
                    exit::NO_VERDICT
                }
            }
        }
        Command::Lsp => match phaselint_lsp::run_stdio(release_freed_memory) {
            Ok(true) => exit::SUCCESS,
            // The protocol's answer to `exit` without `shutdown`.
            Ok(false) => 1,
            Err(error) => {
                eprintln!("phaselint: error: cannot start the language server: {error}");
                exit::NO_VERDICT
            }
        },
    };
    ExitCode::from(code)
}
