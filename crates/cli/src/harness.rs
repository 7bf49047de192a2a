//! A harness's named checkpoints without a contract: the start-up check
//! (`resume-check --harness-dir DIR --checkpoint NAME [--consume]`),
//! `harness status` and `harness fire`. This file reads the harness config
//! and does the writes and the hook run; the protocol, the journal and the
//! verdicts live in `phaselint_lint::resume`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::{Subcommand, ValueEnum};
use phaselint_lint::config::Settings;
use phaselint_lint::model::HarnessConfig;
use phaselint_lint::resume::{
    self, DiskSentinels, EntryKind, FireRefusal, HarnessInput, HarnessReport, HookRun,
    SentinelFile, SentinelFiles, SentinelStore,
};

use crate::exit;
use crate::resume::{NoVerdict, ResumeCheckArgs, ResumeFormat, Verdict};

/// Where a harness keeps its state when no directory is named.
const DEFAULT_DIR: &str = ".harness";

/// The seconds a grant may be dated after now and still answer its
/// request: a harness check reads no phaselint configuration, so this is
/// `max_clock_skew`'s default (5m).
const MAX_CLOCK_SKEW: u64 = 5 * 60;

#[derive(Subcommand)]
pub enum HarnessCommand {
    /// List every declared checkpoint with its trigger, state (none, pending, granted, fired) and file times.
    Status {
        /// The harness directory, holding `config.json`.
        #[arg(value_name = "DIR", default_value = DEFAULT_DIR)]
        dir: PathBuf,
        /// The list's form: a table for a person, or versioned JSON for a harness UI.
        #[arg(long, value_enum, default_value = "table")]
        format: StatusFormat,
        /// The time grants are judged at, RFC 3339 [default: the clock].
        #[arg(long, value_name = "RFC3339")]
        now: Option<String>,
    },
    /// Take a checkpoint: write its request `checkpoint-NAME.md` and `.checkpoint-NAME.fired`, then run `hooks/on-checkpoint-fired.sh`. Exit 1 when it was already fired this mission or its request is pending.
    Fire {
        /// A checkpoint name declared in `checkpoints.types`.
        name: String,
        /// The harness directory, holding `config.json`.
        #[arg(long, value_name = "DIR", default_value = DEFAULT_DIR)]
        harness_dir: PathBuf,
        /// The time written into the request, RFC 3339 [default: the clock].
        #[arg(long, value_name = "RFC3339")]
        now: Option<String>,
        /// Seconds the hook may take before it is killed.
        #[arg(long, value_name = "SECONDS", default_value_t = 120,
              value_parser = clap::value_parser!(u64).range(1..))]
        hook_timeout: u64,
        /// The report's form, as for `resume-check --format`.
        #[arg(long, value_enum, default_value = "human")]
        format: ResumeFormat,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StatusFormat {
    /// One row per checkpoint.
    Table,
    /// What a harness UI shows, as versioned JSON.
    Json,
}

/// The harness config in `dir`, read as a harness document: a file that
/// does not load (an E-code) is no verdict, with every finding.
fn load_config(dir: &Path) -> Result<HarnessConfig, NoVerdict> {
    let path = dir.join("config.json");
    let analysis = phaselint_lint::analyze_file(
        &path,
        phaselint_lint::DocumentKind::Harness,
        &Settings::default(),
    )
    .map_err(|e| {
        format!(
            "cannot read the harness config `{}`: {}",
            path.display(),
            e.reason()
        )
    })?;
    let errors: Vec<String> = resume::first_findings(
        resume::contract_errors(&analysis)
            .iter()
            .map(|e| format!("  {}:{e}", path.display())),
    );
    if !errors.is_empty() {
        return Err(NoVerdict(format!(
            "the harness config `{}` has errors (E-codes), so its checkpoints cannot be read:\n{}",
            path.display(),
            errors.join("\n")
        )));
    }
    analysis.into_harness().ok_or_else(|| {
        NoVerdict(format!(
            "the harness config `{}` could not be read as one",
            path.display()
        ))
    })
}

impl Verdict for HarnessReport {
    fn decision(&self) -> resume::Decision {
        self.decision
    }
}

/// `resume-check --harness-dir DIR --checkpoint NAME` without a contract.
pub fn resume_check(args: &ResumeCheckArgs, dir: &Path) -> u8 {
    // Options of a contract check would be silently ignored here.
    let contract_only = [
        ("--context", args.context.is_some()),
        ("--next-phase", args.next_phase.is_some()),
        ("--approvals", !args.approvals.is_empty()),
        ("--recover-with", args.recover_with.is_some()),
        ("--interactive", args.interactive),
        ("--trust-context-approvals", args.trust_context_approvals),
        ("--config", args.configuration.config.is_some()),
        ("--no-config", args.configuration.no_config),
        ("--root", args.root.is_some()),
        ("--max-handoff-age", args.max_handoff_age.is_some()),
    ];
    if let Some((option, _)) = contract_only.iter().find(|(_, given)| *given) {
        return crate::resume::no_verdict(
            args,
            &format!(
                "{option} does not apply to a harness check (--harness-dir without --contract), which answers from the harness's config and files alone; leave it out, or give --contract for a contract's checkpoint"
            ),
        );
    }
    crate::resume::answer(args, check(args, dir), |report, out| {
        phaselint_render::harness_human(report, out)
    })
}

fn check(args: &ResumeCheckArgs, dir: &Path) -> Result<HarnessReport, NoVerdict> {
    let now = crate::resume::parse_now(args.clock.now.as_deref())?;
    let Some(name) = &args.checkpoint else {
        return Err(NoVerdict("a harness check needs --checkpoint NAME".into()));
    };
    if !dir.is_dir() {
        return Err(NoVerdict(format!(
            "--harness-dir `{}` is not a directory",
            dir.display()
        )));
    }
    let config = load_config(dir)?;
    let input = HarnessInput {
        now,
        mode: crate::resume::mode(args.mode),
        max_clock_skew: MAX_CLOCK_SKEW,
    };
    // The name first: nothing is written for a name the config does not
    // declare.
    resume::find_checkpoint(&config, name)?;
    let store = DiskStore;
    let recovered = if args.consume {
        resume::recover_consume(&store, dir, name)?
    } else {
        None
    };
    let mut report = resume::check_harness(&config, &store, dir, name, &input)?;
    report.recovered = recovered.map(|r| r.describe().to_string());
    if args.consume && report.state == resume::SentinelState::Granted {
        resume::consume(&store, dir, name)?;
        report.mark_consumed();
    }
    Ok(report)
}

/// `phaselint harness status|fire`.
pub fn run(command: &HarnessCommand) -> u8 {
    match command {
        HarnessCommand::Status { dir, format, now } => status(dir, *format, now.as_deref()),
        HarnessCommand::Fire {
            name,
            harness_dir,
            now,
            hook_timeout,
            format,
        } => fire(name, harness_dir, now.as_deref(), *hook_timeout, *format),
    }
}

fn error(message: &str) -> u8 {
    eprintln!(
        "phaselint: error: {}",
        phaselint_render::terminal::block(message)
    );
    exit::NO_VERDICT
}

fn print(
    json: bool,
    value: &impl serde::Serialize,
    human: impl FnOnce(&mut std::io::StdoutLock<'_>) -> std::io::Result<()>,
) -> Result<(), u8> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let printed = if json {
        phaselint_render::write_json_pretty(&mut out, value).and_then(|()| writeln!(out))
    } else {
        human(&mut out)
    };
    crate::stdout::delivered(printed).map_err(|e| error(&format!("cannot write output: {e}")))
}

fn status(dir: &Path, format: StatusFormat, now: Option<&str>) -> u8 {
    let listed = crate::resume::parse_now(now).and_then(|now| {
        if !dir.is_dir() {
            return Err(NoVerdict(format!(
                "the harness directory `{}` is not a directory",
                dir.display()
            )));
        }
        let config = load_config(dir)?;
        let input = HarnessInput {
            now,
            mode: resume::Mode::Strict,
            max_clock_skew: MAX_CLOCK_SKEW,
        };
        Ok(resume::harness_status(&config, &DiskStore, dir, &input))
    });
    let status = match listed {
        Ok(status) => status,
        Err(NoVerdict(message)) => return error(&message),
    };
    if let Err(code) = print(format == StatusFormat::Json, &status, |out| {
        phaselint_render::harness_status_human(&status, out)
    }) {
        return code;
    }
    if status.has_errors() {
        eprintln!(
            "phaselint: error: the files of some checkpoints cannot be read (see their rows): no state is given for them"
        );
        return exit::NO_VERDICT;
    }
    exit::SUCCESS
}

fn fire(name: &str, dir: &Path, now: Option<&str>, hook_timeout: u64, format: ResumeFormat) -> u8 {
    let prepared = crate::resume::parse_now(now).and_then(|now| {
        if !dir.is_dir() {
            return Err(NoVerdict(format!(
                "the harness directory `{}` is not a directory",
                dir.display()
            )));
        }
        let config = load_config(dir)?;
        if !config.checkpoints_enabled() {
            return Err(NoVerdict(format!(
                "the harness config `{}` does not set `checkpoints.enabled: true`, so the harness would neither pause at a fired checkpoint nor wait for its grant; enable checkpoints first",
                dir.join("config.json").display()
            )));
        }
        let checkpoint = resume::find_checkpoint(&config, name)?.clone();
        Ok((now, checkpoint))
    });
    let (now, checkpoint) = match prepared {
        Ok(prepared) => prepared,
        Err(NoVerdict(message)) => return error(&message),
    };
    let mut report = match resume::fire(&DiskStore, &checkpoint, dir, name, now) {
        Ok(report) => report,
        Err(FireRefusal::Refused(message)) => {
            eprintln!(
                "phaselint: refused: {}",
                phaselint_render::terminal::block(&message)
            );
            return exit::FINDINGS;
        }
        Err(FireRefusal::NoVerdict(message)) => return error(&message),
    };
    report.hook = run_hook(
        dir,
        name,
        &report.trigger,
        Duration::from_secs(hook_timeout),
    );
    if let Some(hook) = &report.hook
        && hook.outcome != "succeeded"
    {
        eprintln!(
            "phaselint: warning: the hook {} {}; the checkpoint is fired all the same (a hook's failure does not undo it)",
            phaselint_render::terminal::inline(&hook.path),
            phaselint_render::terminal::inline(&hook.detail)
        );
    }
    match print(format == ResumeFormat::Json, &report, |out| {
        phaselint_render::harness_fire_human(&report, out)
    }) {
        Ok(()) => exit::SUCCESS,
        Err(code) => code,
    }
}

/// Runs `<dir>/hooks/on-checkpoint-fired.sh` when there is one, as the
/// harness runs its hooks: with `CHECKPOINT_NAME`, `TRIGGER`,
/// `PROJECT_DIR` (the harness directory's parent) and `STATE_DIR` (the
/// harness directory), in the project directory, killed with everything
/// it started after `timeout`.
fn run_hook(dir: &Path, name: &str, trigger: &str, timeout: Duration) -> Option<HookRun> {
    let hook = dir.join("hooks").join("on-checkpoint-fired.sh");
    if std::fs::symlink_metadata(&hook).is_err() {
        return None;
    }
    let path = hook.display().to_string();
    let run = |outcome, exit_code, detail: String| {
        Some(HookRun {
            path: path.clone(),
            outcome,
            exit_code,
            detail,
        })
    };
    let state_dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let project_dir = state_dir
        .parent()
        .map_or_else(|| state_dir.clone(), Path::to_path_buf);
    let mut command = Command::new(std::path::absolute(&hook).unwrap_or(hook.clone()));
    command
        .env("CHECKPOINT_NAME", name)
        .env("TRIGGER", trigger)
        .env("PROJECT_DIR", &project_dir)
        .env("STATE_DIR", &state_dir)
        .current_dir(&project_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return run(
                "not_started",
                None,
                format!("could not be started ({e}): make it executable (chmod +x)"),
            );
        }
        Err(e) => return run("not_started", None, format!("could not be started: {e}")),
    };
    let (sender, receiver) = mpsc::channel();
    if let Some(mut stderr) = child.stderr.take() {
        std::thread::spawn(move || {
            let mut buffer = Vec::new();
            let _ = (&mut stderr).take(64 * 1024).read_to_end(&mut buffer);
            let _ = sender.send(buffer);
        });
    }
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                crate::resume::stop_hook(&mut child);
                return run(
                    "timed_out",
                    None,
                    format!(
                        "did not finish within {} s and was killed",
                        timeout.as_secs()
                    ),
                );
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => {
                crate::resume::stop_hook(&mut child);
                return run("failed", None, format!("cannot wait for it: {e}"));
            }
        }
    };
    crate::resume::stop_hook(&mut child);
    let said = receiver
        .recv_timeout(Duration::from_millis(500))
        .ok()
        .and_then(|b| crate::resume::last_line(&b))
        .map_or(String::new(), |s| format!(": {s}"));
    match status.code() {
        Some(0) => run("succeeded", Some(0), format!("exited 0{said}")),
        Some(code) => run("failed", Some(code), format!("exited {code}{said}")),
        None => run("failed", None, format!("was killed by a signal{said}")),
    }
}

/// The harness directory on disk: read through the bounded, link-refusing
/// reader, written complete-or-not-at-all, each change synced with its
/// directory so a crash keeps the journal's order.
struct DiskStore;

fn sync_dir_of(path: &Path) {
    // Durability of the order of renames across a power loss; a failure
    // here leaves the order to the file system, which a later --consume
    // still repairs.
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
        && let Ok(dir) = std::fs::File::open(parent)
    {
        let _ = dir.sync_all();
    }
}

impl SentinelFiles for DiskStore {
    fn is_dir(&self, path: &Path) -> bool {
        DiskSentinels.is_dir(path)
    }

    fn read(&self, path: &Path) -> Result<Option<SentinelFile>, String> {
        DiskSentinels.read(path)
    }

    fn kind(&self, path: &Path) -> Result<EntryKind, String> {
        DiskSentinels.kind(path)
    }
}

impl SentinelStore for DiskStore {
    fn create_new(&self, path: &Path, bytes: &[u8]) -> Result<bool, String> {
        let created = crate::atomic_write::write_new(path, bytes)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        sync_dir_of(path);
        Ok(created)
    }

    fn create_dir(&self, path: &Path) -> Result<bool, String> {
        match std::fs::create_dir(path) {
            Ok(()) => {
                sync_dir_of(path);
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(format!("cannot create `{}`: {e}", path.display())),
        }
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<(), String> {
        std::fs::rename(from, to).map_err(|e| {
            format!(
                "cannot move `{}` to `{}`: {e}",
                from.display(),
                to.display()
            )
        })?;
        sync_dir_of(to);
        sync_dir_of(from);
        Ok(())
    }

    fn remove_file(&self, path: &Path) -> Result<(), String> {
        std::fs::remove_file(path)
            .map_err(|e| format!("cannot remove `{}`: {e}", path.display()))?;
        sync_dir_of(path);
        Ok(())
    }

    fn remove_dir(&self, path: &Path) -> Result<(), String> {
        std::fs::remove_dir(path)
            .map_err(|e| format!("cannot remove `{}`: {e}", path.display()))?;
        sync_dir_of(path);
        Ok(())
    }
}
