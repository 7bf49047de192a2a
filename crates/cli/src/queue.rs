//! `phaselint checkpoints`: the operator's queue — every checkpoint of a
//! contract in graph order, with its trigger category, the approval it
//! needs, where its approval stands and whether a resume from it would be
//! refused now. The judging is `phaselint_lint::resume::queue`'s; this file
//! reads the inputs and prints.

use std::io::Write;
use std::path::PathBuf;

use phaselint_lint::input::Bound;
use phaselint_lint::resume::{self, Queue, QueueRequest};
use phaselint_render::terminal::block;

use crate::exit;
use crate::resume::{NoVerdict, load_contract, parse_now, read_approvals, read_document};
use crate::shared_args::{ClockArgs, ConfigArgs};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum QueueFormat {
    /// A table for the operator.
    Human,
    /// The same queue as versioned JSON, for tools.
    Json,
}

#[derive(clap::Args)]
pub struct CheckpointsArgs {
    /// The contract the run follows.
    #[arg(long, value_name = "FILE")]
    pub contract: PathBuf,
    /// The context the run would resume with (JSON or YAML; `-` reads standard input).
    /// Without it nothing is listed as approved, and whether a resume blocks is unknown.
    #[arg(long, value_name = "FILE|-")]
    pub context: Option<PathBuf>,
    /// A file with one ApprovalRecord or a list of them (JSON or YAML). Repeatable.
    #[arg(long, value_name = "FILE")]
    pub approvals: Vec<PathBuf>,
    /// A harness directory holding `checkpoint-<id>.md` requests and `.md.granted` grants.
    #[arg(long, value_name = "DIR")]
    pub harness_dir: Option<PathBuf>,
    /// Only the orchestrator writes the context store: let an approval read from the
    /// context satisfy a `human` policy (never a resume into an irreversible phase).
    #[arg(long)]
    pub trust_context_approvals: bool,
    #[command(flatten)]
    pub clock: ClockArgs,
    /// The queue's form: a table for the operator, or versioned JSON for tools.
    #[arg(long, value_enum, default_value = "human")]
    pub format: QueueFormat,
    #[command(flatten)]
    pub configuration: ConfigArgs,
}

/// Lists the queue: exit 0 when it could be listed, whatever waits in
/// it; 3 when an input cannot be read.
pub fn run(args: &CheckpointsArgs) -> u8 {
    let queue = match list(args) {
        Ok(queue) => queue,
        Err(NoVerdict(message)) => {
            eprintln!("phaselint: error: {}", block(&message));
            return exit::NO_VERDICT;
        }
    };
    let mut out = std::io::stdout().lock();
    let printed = match args.format {
        QueueFormat::Json => {
            phaselint_render::write_json_pretty(&mut out, &queue).and_then(|()| writeln!(out))
        }
        QueueFormat::Human => phaselint_render::queue_human(
            &queue,
            &args.contract.display().to_string(),
            args.context
                .as_ref()
                .map(|c| c.display().to_string())
                .as_deref(),
            &mut out,
        ),
    };
    match crate::stdout::delivered(printed) {
        Err(e) => {
            eprintln!("phaselint: error: cannot write output: {e}");
            exit::NO_VERDICT
        }
        Ok(()) => exit::SUCCESS,
    }
}

/// Reads the inputs and judges the queue in the library.
pub(crate) fn list(args: &CheckpointsArgs) -> Result<Queue, NoVerdict> {
    let now = parse_now(args.clock.now.as_deref())?;
    let (analysis, settings) = load_contract(
        &args.contract,
        args.configuration.config.as_deref(),
        args.configuration.no_config,
    )?;
    let context = match &args.context {
        Some(path) => Some(read_document(path, "context", Bound::Document)?),
        None => None,
    };
    let approvals = read_approvals(&args.approvals)?;
    judge(
        &analysis,
        QueueRequest {
            context,
            approvals,
            now,
            max_clock_skew: settings.max_clock_skew,
            trust_context_approvals: args.trust_context_approvals
                || settings.trust_context_approvals,
        },
        args.harness_dir.as_deref(),
    )
}

/// The queue of `analysis`, with each checkpoint's harness sentinels read
/// from `harness_dir`.
pub(crate) fn judge(
    analysis: &phaselint_lint::Analysis,
    request: QueueRequest,
    harness_dir: Option<&std::path::Path>,
) -> Result<Queue, NoVerdict> {
    if let Some(dir) = harness_dir
        && !dir.is_dir()
    {
        return Err(NoVerdict(format!(
            "--harness-dir `{}` is not a directory",
            dir.display()
        )));
    }
    let (now, max_clock_skew) = (request.now, request.max_clock_skew);
    let mut harness = |checkpoint: &str| match harness_dir {
        None => Ok(Vec::new()),
        Some(dir) => {
            resume::harness_sources(&resume::DiskSentinels, dir, checkpoint, now, max_clock_skew)
        }
    };
    resume::queue(analysis, request, &mut harness).map_err(|e| NoVerdict(e.to_string()))
}
