//! `phaselint resume-check`: read the contract, the context and the
//! approvals, run the recovery hook and ask the operator when told to,
//! and render the verdict of `phaselint_lint::resume::check`. The checks
//! themselves live in the lint crate; this file does the I/O.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use phaselint_lint::config::Settings;
use phaselint_lint::input::{self, Bound};
use phaselint_lint::resume::{self, ApprovalQuestion, Operator, Recoverer, ResumeReport, request};

mod answer;
mod args;
mod hook;
mod inputs;
mod manifest_hash;

use crate::shared_args::ConfigArgs;
pub(crate) use answer::{Verdict, answer, no_verdict};
pub(crate) use args::mode;
pub use args::{QuestionArg, ResumeCheckArgs, ResumeFormat};
use hook::Hook;
pub(crate) use hook::{last_line, stop_hook};
pub use inputs::NoVerdict;
use inputs::read_state;
pub(crate) use inputs::{load_contract, parse_now, read_approvals, read_document};
pub use manifest_hash::{ManifestHashArgs, manifest_hash};

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
