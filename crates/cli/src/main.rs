//! `phaselint`: the command-line front end. It parses arguments, finds
//! files and configuration, and renders what `phaselint_lint::analyze`
//! found; it does no analysis of its own.

mod adoption;
mod approve;
mod atomic_write;
mod config;
mod config_cache;
mod diff;
mod diff_git;
mod exit;
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
mod shared_args;
mod stdout;
mod telemetry;
mod watch;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use shared_args::{KindArg, LintArgs};

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
        Command::Lint(args) if args.watch => watch::run(&args),
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
