//! `phaselint resume-check`: read the contract, the context and the
//! approvals, run the recovery hook and ask the operator when told to,
//! and render the verdict of `phaselint_lint::resume::check`. The checks
//! themselves live in the lint crate; this file does the I/O.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::ValueEnum;
use phaselint_lint::config::Settings;
use phaselint_lint::input::{self, Bound};
use phaselint_lint::resume::{
    self, ApprovalQuestion, Mode, Operator, Recoverer, ResumeReport, request,
};

use crate::exit;

mod hook;
mod inputs;
mod manifest_hash;

use crate::{ClockArgs, ConfigArgs};
use hook::Hook;
pub(crate) use hook::{last_line, stop_hook};
pub use inputs::NoVerdict;
use inputs::read_state;
pub(crate) use inputs::{load_contract, parse_now, read_approvals, read_document};
pub use manifest_hash::{ManifestHashArgs, manifest_hash};

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
    #[arg(long, value_enum, default_value = "human")]
    pub format: ResumeFormat,
    #[command(flatten)]
    pub configuration: ConfigArgs,
}

/// Runs the check; with an OTLP endpoint configured, exports its span
/// once the answer is printed (`telemetry.rs`). Without one, no
/// telemetry code runs beyond reading whether an endpoint is set.
pub fn run(args: &ResumeCheckArgs) -> u8 {
    let Some(recording) = crate::telemetry::Recording::start() else {
        return check_and_answer(args);
    };
    let code = check_and_answer(args);
    recording.finish(args, code);
    code
}

fn check_and_answer(args: &ResumeCheckArgs) -> u8 {
    // An option of another kind of check would be silently ignored: the
    // caller believes it asked for something it did not get.
    let misplaced = [
        (
            "--root",
            args.root.is_some() && args.manifest.is_none(),
            "--manifest",
        ),
        (
            "--for",
            args.question.is_some() && args.manifest.is_none(),
            "--manifest",
        ),
        (
            "--state",
            args.state.is_some() && args.manifest.is_none(),
            "--manifest",
        ),
        (
            "--max-handoff-age",
            args.max_handoff_age.is_some() && args.handoff.is_none(),
            "--handoff",
        ),
    ];
    if args.format == ResumeFormat::Contextcore
        && let Some(kind) = [
            (args.handoff.is_some(), "handoff"),
            (args.manifest.is_some(), "manifest"),
        ]
        .into_iter()
        .find_map(|(given, kind)| given.then_some(kind))
    {
        return no_verdict(
            args,
            &format!(
                "--format contextcore prints a contract checkpoint's CheckpointResumeResult (ContextCore REQ-10-012); a {kind} check has none: use --format json or human"
            ),
        );
    }
    if let Some((option, _, kind)) = misplaced.iter().find(|(_, wrong, _)| *wrong) {
        return no_verdict(
            args,
            &format!(
                "{option} applies only to a {kind} check; leave it out, or check with {kind} FILE"
            ),
        );
    }
    if let Some(manifest) = &args.manifest {
        return answer(args, check_manifest(args, manifest), |report, out| {
            phaselint_render::manifest_human(report, &manifest.display().to_string(), out)
        });
    }
    if let Some(handoff) = &args.handoff {
        return answer(args, check_handoff(args, handoff), |report, out| {
            phaselint_render::handoff_human(report, &handoff.display().to_string(), out)
        });
    }
    if let (Some(dir), None) = (&args.harness_dir, &args.contract) {
        return crate::harness::resume_check(args, dir);
    }
    if args.consume {
        return no_verdict(
            args,
            "--consume applies only to a harness check (--harness-dir without --contract); leave it out",
        );
    }
    let shown = |path: &Option<PathBuf>| {
        path.as_ref()
            .map_or_else(String::new, |p| p.display().to_string())
    };
    let (contract, context) = (shown(&args.contract), shown(&args.context));
    if args.format == ResumeFormat::Contextcore {
        let result = check(args).and_then(|report| {
            resume::contextcore::CheckpointResumeResult::try_from(&report)
                .map(|result| ContextCoreResult(result, report))
                .map_err(NoVerdict)
        });
        return answer(args, result, |_, _| Ok(()));
    }
    answer(args, check(args), |report, out| {
        phaselint_render::resume_human(
            report,
            &contract,
            &context,
            args.recover_with.is_some(),
            out,
        )
    })
}

/// No verdict: the reason on stderr (and as JSON on stdout with
/// `--format json`), exit 3.
pub(crate) fn no_verdict(args: &ResumeCheckArgs, message: &str) -> u8 {
    crate::telemetry::record_no_verdict(message);
    eprintln!(
        "phaselint: error: {}",
        phaselint_render::terminal::block(message)
    );
    eprintln!("phaselint: no resume verdict (exit 3): the run must not resume");
    if args.format == ResumeFormat::Json {
        /// The no-verdict answer, its keys in the documented order.
        #[derive(serde::Serialize)]
        struct NoVerdictJson<'a> {
            version: u32,
            decision: Option<&'a str>,
            error: &'a str,
        }
        let answer = NoVerdictJson {
            version: 1,
            decision: None,
            error: message,
        };
        let mut out = std::io::stdout().lock();
        let _ = phaselint_render::write_json_pretty(&mut out, &answer).and_then(|()| writeln!(out));
    }
    exit::NO_VERDICT
}

/// Prints a verdict (JSON or human) and returns its exit code; a failure
/// to reach one is exit 3 with the reason, in JSON too.
pub(crate) fn answer<R: serde::Serialize + Verdict>(
    args: &ResumeCheckArgs,
    report: Result<R, NoVerdict>,
    human: impl FnOnce(&R, &mut std::io::StdoutLock<'_>) -> std::io::Result<()>,
) -> u8 {
    match report {
        Ok(report) => {
            crate::telemetry::record_report(|| report.telemetry());
            let mut out = std::io::stdout().lock();
            let printed = match args.format {
                ResumeFormat::Json | ResumeFormat::Contextcore => {
                    phaselint_render::write_json_pretty(&mut out, &report)
                        .and_then(|()| writeln!(out))
                }
                ResumeFormat::Human => human(&report, &mut out),
            };
            if let Err(e) = printed
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                eprintln!("phaselint: error: cannot write output: {e}");
                return exit::NO_VERDICT;
            }
            report.decision().exit_code()
        }
        Err(NoVerdict(message)) => no_verdict(args, &message),
    }
}

/// `--format contextcore`: ContextCore's model of the result, which has no
/// decision, with the report it came from (its decision gives the exit
/// code, its events the telemetry).
struct ContextCoreResult(resume::contextcore::CheckpointResumeResult, ResumeReport);

impl serde::Serialize for ContextCoreResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl Verdict for ContextCoreResult {
    fn decision(&self) -> resume::Decision {
        self.1.decision
    }

    fn telemetry(&self) -> Option<serde_json::Value> {
        serde_json::to_value(&self.1).ok()
    }
}

/// What every resume check's report says: its decision.
pub(crate) trait Verdict {
    fn decision(&self) -> resume::Decision;

    /// The report as `--format json` prints it, for the exported span.
    fn telemetry(&self) -> Option<serde_json::Value>
    where
        Self: serde::Serialize + Sized,
    {
        serde_json::to_value(self).ok()
    }
}

impl Verdict for ResumeReport {
    fn decision(&self) -> resume::Decision {
        self.decision
    }
}

impl Verdict for resume::ManifestReport {
    fn decision(&self) -> resume::Decision {
        self.decision
    }
}

impl Verdict for resume::HandoffReport {
    fn decision(&self) -> resume::Decision {
        self.decision
    }
}

/// Reads the handoff (and whether its checkpoint signal is still there),
/// and checks it in the library.
fn check_handoff(args: &ResumeCheckArgs, path: &Path) -> Result<resume::HandoffReport, NoVerdict> {
    let now = parse_now(args.clock.now.as_deref())?;
    let max_age = match &args.max_handoff_age {
        None => None,
        Some(text) => Some(phaselint_lint::duration::parse_seconds(text).ok_or_else(|| {
            NoVerdict(format!(
                "--max-handoff-age `{text}` is not a duration such as `90s`, `15m`, `2h`, `1d` or whole seconds"
            ))
        })?),
    };
    let settings = settings_here(&args.configuration)?;
    // The file where it is: every spelling of it (from inside its folder,
    // through a link, with `..`) is read, and looked beside, as one file.
    let resolved = std::fs::canonicalize(path)
        .map_err(|e| format!("cannot read the handoff `{}`: {e}", path.display()))?;
    let bytes = input::read_file(&resolved, Bound::Document).map_err(|e| {
        format!(
            "cannot read the handoff `{}`: {}",
            path.display(),
            e.reason()
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "cannot read the handoff `{}`: it is not UTF-8 (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    // Whether the checkpoint signal is still there, beside the handoff
    // where it is and where it was named (a `.tina/phase-N/handoff.md`
    // that is a link to elsewhere still has its signal); a link or
    // anything else at that path counts as there (fail closed).
    let unfinished_signal = [path, resolved.as_path()]
        .into_iter()
        .filter_map(resume::unfinished_signal_for)
        .find(|signal| signal.symlink_metadata().is_ok())
        .map(|signal| signal.display().to_string());
    let folder_phase = [path, resolved.as_path()]
        .into_iter()
        .find_map(resume::tina_phase_of)
        .map(|(_, phase)| phase);
    let input = resume::HandoffInput {
        now,
        max_age,
        max_clock_skew: settings.max_clock_skew,
        mode: mode(args.mode),
        unfinished_signal,
        folder_phase,
    };
    resume::check_handoff(&text, &input)
        .map_err(|e| NoVerdict(format!("cannot read the handoff `{}`: {e}", path.display())))
}

/// Reads the manifest and checks it, and the files it names, in the
/// library. A malformed manifest is no verdict, with every problem.
fn check_manifest(
    args: &ResumeCheckArgs,
    path: &Path,
) -> Result<resume::ManifestReport, NoVerdict> {
    let now = parse_now(args.clock.now.as_deref())?;
    let settings = settings_here(&args.configuration)?;
    let document = request::read_text(path, "manifest", Bound::Document)?;
    let manifest = resume::read_manifest(&document.text, document.format)
        .map_err(|e| format!("cannot read the manifest {}: {e}", document.shown))?;
    let root = args.root.clone().unwrap_or_else(|| PathBuf::from("."));
    if !root.is_dir() {
        return Err(NoVerdict(format!(
            "--root `{}` is not a directory",
            root.display()
        )));
    }
    // Held open for the whole check: every scope path is walked from it.
    let files = resume::DiskFiles::open(&root)?;
    let state = match &args.state {
        Some(state) => Some(read_state(state)?),
        None => None,
    };
    let input = resume::ManifestInput {
        now,
        max_clock_skew: settings.max_clock_skew,
        mode: mode(args.mode),
        question: match args.question {
            None | Some(QuestionArg::Mutate) => resume::Question::Mutate,
            Some(QuestionArg::Rollback) => resume::Question::Rollback,
        },
        state,
    };
    let git = crate::git::GitCli::at(&root);
    resume::check_manifest(&manifest, &files, &git, &input).map_err(|error| match error {
        resume::NoManifestVerdict::Malformed(problems) => NoVerdict(format!(
            "the manifest {} is malformed:\n{}",
            document.shown,
            problems
                .iter()
                .map(|p| format!("  - {p}"))
                .collect::<Vec<_>>()
                .join("\n")
        )),
        resume::NoManifestVerdict::OverBound(message)
        | resume::NoManifestVerdict::Unchecked(message) => NoVerdict(format!(
            "the manifest {} cannot be checked: {message}",
            document.shown
        )),
    })
}

pub(crate) fn mode(mode: ModeArg) -> Mode {
    match mode {
        ModeArg::Strict => Mode::Strict,
        ModeArg::Permissive => Mode::Permissive,
        ModeArg::Audit => Mode::Audit,
    }
}

fn check(args: &ResumeCheckArgs) -> Result<ResumeReport, NoVerdict> {
    let now = parse_now(args.clock.now.as_deref())?;
    let (Some(contract), Some(checkpoint), Some(context_path)) =
        (&args.contract, &args.checkpoint, &args.context)
    else {
        return Err(NoVerdict(
            "resume-check needs --contract, --checkpoint and --context (or --handoff FILE)".into(),
        ));
    };
    let loaded = request::load_contract(
        contract,
        args.configuration.config.as_deref(),
        args.configuration.no_config,
    )?;
    let trust_source = request::trust_source(
        args.trust_context_approvals,
        &loaded.settings,
        loaded.config_file.as_deref(),
    );
    let (analysis, settings) = (&loaded.analysis, &loaded.settings);
    // Before any hook runs: a result the format cannot print is no verdict.
    if args.format == ResumeFormat::Contextcore
        && let Some(problem) = resume::contextcore::unrepresentable(analysis, checkpoint)
    {
        return Err(NoVerdict(problem));
    }
    let stdin_context = context_path.as_os_str() == "-";
    if args.recover_with.is_some() && stdin_context {
        return Err(NoVerdict(
            "--recover-with needs --context FILE: the hook updates that file, which is then re-read"
                .into(),
        ));
    }
    let context = read_document(context_path, "context", Bound::Document)?;
    let mut approvals = read_approvals(&args.approvals)?;
    if let Some(dir) = &args.harness_dir {
        approvals.extend(resume::harness_sources(
            &resume::DiskSentinels,
            dir,
            checkpoint,
            now,
            settings.max_clock_skew,
        )?);
    }
    let request = request::resume_request(
        &loaded,
        context,
        request::RequestOptions {
            checkpoint_id: checkpoint.clone(),
            now,
            mode: mode(args.mode),
            next_phase: args.next_phase.clone(),
            approvals,
            trust_context_approvals: args.trust_context_approvals,
        },
    );
    let mut hook = args.recover_with.as_ref().map(|command| Hook {
        command: command.clone(),
        context: context_path.clone(),
        timeout: Duration::from_secs(args.recover_timeout),
    });
    let mut terminal = TerminalOperator;
    let operator: Option<&mut dyn Operator> = if !args.interactive {
        None
    } else if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        Some(&mut terminal)
    } else {
        eprintln!(
            "phaselint: note: --interactive needs a terminal on standard input and error; nobody will be asked"
        );
        None
    };
    let mut report = resume::check(
        analysis,
        &request,
        hook.as_mut().map(|h| h as &mut dyn Recoverer),
        operator,
    )
    .map_err(|e| NoVerdict(e.to_string()))?;
    report.approval_status.trust_context_source = trust_source;
    Ok(report)
}

/// The settings of a handoff or manifest check: the configuration given,
/// none, or the one found from the current directory, never from the
/// folder of the handoff or manifest: the run being checked writes those
/// folders, and a `phaselint.toml` it left there must not set the clock
/// skew its own timestamps are judged with.
fn settings_here(configuration: &ConfigArgs) -> Result<Settings, NoVerdict> {
    use phaselint_lint::config::Config;
    let config = match (&configuration.config, configuration.no_config) {
        (Some(file), _) => Config::load(file),
        (None, true) => Ok(Config::defaults(Path::new("."))),
        (None, false) => Config::discover(
            &std::env::current_dir()
                .map_err(|e| NoVerdict(format!("cannot tell the current directory: {e}")))?,
        ),
    }
    .map_err(|e| NoVerdict(e.to_string()))?;
    Ok(request::resume_settings(config.settings()))
}

/// Asks on the terminal (standard error for prompts, standard input for
/// answers), with the keys and the second confirmation of `operator`.
struct TerminalOperator;

impl Operator for TerminalOperator {
    fn ask(&mut self, q: &ApprovalQuestion) -> Result<Option<String>, String> {
        eprintln!();
        if crate::operator::ask_about(q)? != crate::operator::Answer::Approve {
            return Ok(None);
        }
        let name = std::env::var("USER")
            .or_else(|_| std::env::var("USERNAME"))
            .unwrap_or_else(|_| "operator".into());
        Ok(Some(name))
    }
}
