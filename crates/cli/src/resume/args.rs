//! `phaselint resume-check`'s arguments, shared with the harness and
//! telemetry.

use std::path::PathBuf;

use clap::ValueEnum;
use phaselint_lint::resume::Mode;

use crate::shared_args::{ClockArgs, ConfigArgs};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// A blocking failure blocks (exit 1); a missing approval denies (exit 2).
    Strict,
    /// Blocking failures are reported and the run may resume; a missing approval still denies.
    Permissive,
    /// Everything is reported; nothing blocks, approval included.
    Audit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum QuestionArg {
    /// May the mutation proceed? The checkpoint is in place and nothing changed since.
    Mutate,
    /// Is the checkpoint still a valid rollback point? Its stash or backups are intact.
    Rollback,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ResumeFormat {
    /// What was checked, what failed and what to do next.
    Human,
    /// The same report as versioned JSON, for tools.
    Json,
    /// A contract checkpoint's result exactly as ContextCore's CheckpointResumeResult
    /// (REQ-10-012) serializes it, nothing else; the decision is the exit code.
    Contextcore,
}

#[derive(clap::Args)]
#[command(override_usage = "\
phaselint resume-check --contract <FILE> --checkpoint <ID> --context <FILE|-> [OPTIONS]   # a contract's checkpoint
       phaselint resume-check --handoff <FILE> [--max-handoff-age <DURATION>] [OPTIONS]          # a team handoff
       phaselint resume-check --manifest <FILE> [--root <DIR>] [--for <QUESTION>] [OPTIONS]      # a checkpoint manifest
       phaselint resume-check --harness-dir <DIR> --checkpoint <NAME> [--consume] [OPTIONS]      # a harness's start-up check")]
pub struct ResumeCheckArgs {
    /// The contract the run follows.
    #[arg(long, value_name = "FILE", required_unless_present_any = ["handoff", "manifest", "harness_dir"])]
    pub contract: Option<PathBuf>,
    /// The checkpoint the run paused at.
    #[arg(long, value_name = "ID", required_unless_present_any = ["handoff", "manifest"])]
    pub checkpoint: Option<String>,
    /// The context to resume with, JSON or YAML; `-` reads standard input.
    #[arg(long, value_name = "FILE|-", required_unless_present_any = ["handoff", "manifest", "harness_dir"])]
    pub context: Option<PathBuf>,
    /// Check a team handoff (Markdown) instead of a contract's checkpoint.
    #[arg(long, value_name = "FILE",
          conflicts_with_all = ["contract", "checkpoint", "context", "next_phase", "approvals",
                                "harness_dir", "recover_with", "interactive",
                                "trust_context_approvals", "manifest"])]
    pub handoff: Option<PathBuf>,
    /// Check a checkpoint manifest (JSON or YAML): may the mutation proceed, or
    /// is it still a valid rollback point (--for)?
    #[arg(long, value_name = "FILE",
          conflicts_with_all = ["contract", "checkpoint", "context", "next_phase", "approvals",
                                "harness_dir", "recover_with", "interactive",
                                "trust_context_approvals"])]
    pub manifest: Option<PathBuf>,
    /// The directory a manifest's scope paths are relative to, in the git
    /// repository a `git_stash` was taken in [default: .].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The manifest's question: `mutate`, may the mutation proceed (the checkpoint is in
    /// place and the live state is the checkpointed one), or `rollback`, is the checkpoint
    /// still a valid rollback point (whatever the live files are now) [default: mutate].
    #[arg(long = "for", value_name = "QUESTION", value_enum)]
    pub question: Option<QuestionArg>,
    /// The state (JSON or YAML) a `state_snapshot` or `database_savepoint` manifest's
    /// hash is recomputed over: the live state for `--for mutate`, the snapshot to
    /// restore for `--for rollback`.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// A handoff older than this is stale (`90s`, `15m`, `2h`, `1d` or seconds).
    #[arg(long, value_name = "DURATION", requires = "handoff")]
    pub max_handoff_age: Option<String>,
    #[command(flatten)]
    pub clock: ClockArgs,
    /// How failures count: `strict` blocks on them, `permissive` reports them and
    /// resumes, `audit` reports everything and blocks nothing.
    #[arg(long, value_enum, default_value = "strict")]
    pub mode: ModeArg,
    /// The phase the run resumes into [default: the graph successors of the checkpoint's phase].
    #[arg(long, value_name = "NAME")]
    pub next_phase: Option<String>,
    /// A file with one ApprovalRecord or a list of them (JSON or YAML). Repeatable.
    #[arg(long, value_name = "FILE")]
    pub approvals: Vec<PathBuf>,
    /// A harness directory holding `checkpoint-<id>.md` requests and `.md.granted` grants;
    /// without --contract, the harness's own start-up check from its `config.json`.
    #[arg(long, value_name = "DIR")]
    pub harness_dir: Option<PathBuf>,
    /// With --harness-dir and no --contract: once granted, remove the request and its
    /// grant as the harness's start-up does (both or neither, even across a crash).
    #[arg(long, requires = "harness_dir")]
    pub consume: bool,
    /// Run CMD (with `sh -c`) to recover each stale blocking/warning field, then re-read the context.
    #[arg(long, value_name = "CMD")]
    pub recover_with: Option<String>,
    /// Seconds one recovery attempt may take before it is killed.
    #[arg(long, value_name = "SECONDS", default_value_t = 120,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub recover_timeout: u64,
    /// Ask the operator for a missing human approval (only on a terminal).
    #[arg(long)]
    pub interactive: bool,
    /// Only the orchestrator writes the context store: let an approval read from the
    /// context satisfy a `human` policy (never a resume into an irreversible phase).
    #[arg(long)]
    pub trust_context_approvals: bool,
    /// The report's form: for a person, versioned JSON, or ContextCore's own result.
    #[arg(long, value_enum, default_value = "human")]
    pub format: ResumeFormat,
    #[command(flatten)]
    pub configuration: ConfigArgs,
}

pub(crate) fn mode(mode: ModeArg) -> Mode {
    match mode {
        ModeArg::Strict => Mode::Strict,
        ModeArg::Permissive => Mode::Permissive,
        ModeArg::Audit => Mode::Audit,
    }
}
