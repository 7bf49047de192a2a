//! `phaselint lint --watch PATH...`: lint, then lint again what changed,
//! until Ctrl-C. File-system events come from `notify` (inotify, FSEvents,
//! ReadDirectoryChangesW); those that change a file (not the opens and
//! reads linting makes) are gathered until the file system is quiet for
//! `DEBOUNCE`, one batch per burst of saves; the analysis is `lint`'s own.
//!
//! A change to a contract re-analyzes that contract only; a change to a
//! configuration file (a `phaselint.toml`, a `pyproject.toml`, or a file one
//! of them extends) re-reads every configuration and re-analyzes
//! everything. The walk runs again on every batch, so a new contract joins
//! and a deleted one leaves the report.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use phaselint_lint::Analysis;
use phaselint_lint::diagnostic::Severity;
use phaselint_render::terminal::inline;
use phaselint_render::{Linted, Report, Unreadable, plural};

use crate::config_cache::{ConfigCache, overrides};
use crate::exit;
use crate::lint::{Models, Output, Target, absolute, collect, lint_all};
use crate::shared_args::{Format, LintArgs};

/// How long the file system must be quiet before a batch of changes is
/// linted: an editor's save (write, rename, chmod) is one batch.
const DEBOUNCE: Duration = Duration::from_millis(200);

enum Wake {
    Changed(Vec<PathBuf>),
    WatchError(String),
    Stop,
}

/// What one file's last analysis left: its findings and whether it is
/// another kind of contract, or why it could not be read.
type Outcome = Result<(Analysis, bool), String>;

pub fn run(args: &LintArgs) -> u8 {
    if let Some(message) = refused(args) {
        eprintln!("phaselint: error: {message}");
        return exit::NO_VERDICT;
    }
    let overrides = match overrides(&args.levels) {
        Ok(o) => o,
        Err(message) => return usage_error(&message),
    };
    let roots: Vec<PathBuf> = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let (sender, events) = mpsc::channel();
    let stop = sender.clone();
    if let Err(error) = ctrlc::set_handler(move || {
        let _ = stop.send(Wake::Stop);
    }) {
        return usage_error(&format!("cannot catch Ctrl-C: {error}"));
    }
    let to_loop = sender.clone();
    let mut watcher =
        match notify::recommended_watcher(move |result: notify::Result<notify::Event>| {
            let wake = match result {
                // Opening and reading a file (linting it) is an access event:
                // only what changes content or names counts, or each run
                // would start the next.
                Ok(event) if changes_files(&event.kind) => Wake::Changed(event.paths),
                Ok(_) => return,
                Err(error) => Wake::WatchError(error.to_string()),
            };
            let _ = to_loop.send(wake);
        }) {
            Ok(watcher) => watcher,
            Err(error) => return usage_error(&format!("cannot watch files: {error}")),
        };
    // Each folder watched, and whether with everything below it.
    let mut watched = BTreeMap::new();
    for root in &roots {
        let absolute_root = absolute(root);
        // A named file is watched through its folder: an editor that saves
        // by renaming a new file over it would end a watch on the file.
        let (dir, mode) = if absolute_root.is_dir() {
            (absolute_root, RecursiveMode::Recursive)
        } else {
            let Some(parent) = absolute_root.parent() else {
                continue;
            };
            (parent.to_path_buf(), RecursiveMode::NonRecursive)
        };
        if let Err(error) = watcher.watch(&dir, mode) {
            return usage_error(&format!("cannot watch {}: {error}", dir.display()));
        }
        watched.insert(dir, mode == RecursiveMode::Recursive);
    }

    let mut session = Session {
        args,
        overrides,
        roots: roots.len(),
        outcomes: BTreeMap::new(),
        config_files: BTreeSet::new(),
    };
    let clear = std::io::stdout().is_terminal();
    if let Err(message) = session.lint(None) {
        // The first run has no earlier report to keep showing: a broken
        // configuration is the same no-verdict as without --watch.
        return usage_error(&message);
    }
    session.watch_configs(&mut watcher, &mut watched);
    if session.print(false).is_err() {
        return exit::SUCCESS;
    }
    loop {
        let changed = match events.recv() {
            Ok(Wake::Changed(paths)) => paths,
            Ok(Wake::WatchError(message)) => {
                eprintln!("phaselint: warning: {}", inline(&message));
                continue;
            }
            Ok(Wake::Stop) | Err(_) => break,
        };
        // What arrives until the file system is quiet joins this batch
        // (an editor's save is a write, a rename, a chmod); Ctrl-C ends it.
        let mut changed = changed;
        let mut stopping = false;
        while let Ok(wake) = events.recv_timeout(DEBOUNCE) {
            match wake {
                Wake::Changed(more) => changed.extend(more),
                Wake::WatchError(message) => eprintln!("phaselint: warning: {}", inline(&message)),
                Wake::Stop => {
                    stopping = true;
                    break;
                }
            }
        }
        if stopping {
            break;
        }
        let rerun = if changed.iter().any(|p| session.is_config(p)) {
            Some(None)
        } else {
            let relevant = session.relevant(&changed);
            (!relevant.is_empty()).then_some(Some(relevant))
        };
        let Some(only) = rerun else { continue };
        let shown = match session.lint(only) {
            Ok(()) => {
                session.watch_configs(&mut watcher, &mut watched);
                session.print(clear)
            }
            Err(message) => {
                // Mid-edit, a configuration may be broken for a moment: say
                // so and keep watching; the next save runs again.
                if clear {
                    print!("\x1b[2J\x1b[H");
                }
                eprintln!("phaselint: error: {}", inline(&message));
                status(&format!(
                    "configuration error, nothing linted — {}",
                    session.watching()
                ))
            }
        };
        // Standard output closed (`| head`): nobody is reading any more.
        if shown.is_err() {
            break;
        }
    }
    drop(watcher);
    exit::SUCCESS
}

/// Whether an event changes a file's content or name (not its metadata,
/// and not an open or a read).
fn changes_files(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any => true,
        EventKind::Modify(modify) => !matches!(modify, notify::event::ModifyKind::Metadata(_)),
        EventKind::Access(_) | EventKind::Other => false,
    }
}

/// What `--watch` does not combine with, and why.
fn refused(args: &LintArgs) -> Option<String> {
    if args.fix || args.diff {
        return Some(
            "--watch cannot be used with --fix or --diff: rewriting files on every save fights the editor that saved them; run `phaselint lint --fix` once instead"
                .into(),
        );
    }
    if args.adoption.write_baseline.is_some() || args.adoption.add_suppressions {
        return Some(
            "--watch cannot be used with --write-baseline or --add-suppressions: they write files once; run them without --watch"
                .into(),
        );
    }
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        return Some("--watch watches files; standard input (`-`) cannot change".into());
    }
    let for_people = matches!(args.format, Format::Full | Format::Concise);
    if !for_people && args.output_file.is_none() {
        return Some(format!(
            "--watch prints a report after every change, for a person: use --format full or concise, or write each {} report to a file with --output-file",
            match args.format {
                Format::Json => "json",
                Format::Github => "github",
                Format::Sarif => "sarif",
                Format::Gitlab => "gitlab",
                Format::Junit => "junit",
                Format::Full | Format::Concise => "",
            }
        ));
    }
    None
}

struct Session<'a> {
    args: &'a LintArgs,
    overrides: phaselint_lint::config::Overrides,
    roots: usize,
    /// Each linted file's last outcome, by the path shown.
    outcomes: BTreeMap<PathBuf, (Target, Outcome)>,
    /// Every configuration file the last run read, extended ones included.
    config_files: BTreeSet<PathBuf>,
}

impl Session<'_> {
    /// Walks again and analyzes the files in `only` (absolute paths) and
    /// those new to the walk; `None`: everything, with every configuration
    /// read again.
    fn lint(&mut self, only: Option<BTreeSet<PathBuf>>) -> Result<(), String> {
        let mut configs = ConfigCache::new(&self.args.configuration, self.overrides.clone());
        let targets = collect(self.args, &mut configs)?;
        let mut previous = std::mem::take(&mut self.outcomes);
        let mut stale = Vec::new();
        for target in targets {
            let keep = match &only {
                Some(only) => !only.contains(&absolute(&target.path)),
                None => false,
            };
            match previous.remove(&target.path) {
                Some((_, outcome)) if keep => {
                    self.outcomes.insert(target.path.clone(), (target, outcome));
                }
                _ => stale.push(target),
            }
        }
        let mut results = lint_all(&stale, None, Models::Drop);
        // Read again on every run: a configuration or the baseline itself
        // may have changed since the last one.
        let mut baselines = crate::adoption::Baselines::load(
            &self.args.adoption,
            stale.iter().map(|t| &*t.config),
        )?;
        for (target, outcome) in stale.iter().zip(&mut results) {
            if let Ok((analysis, _)) = outcome {
                baselines.apply(&target.path, &target.config, analysis);
            }
        }
        for (target, outcome) in stale.into_iter().zip(results) {
            self.outcomes.insert(target.path.clone(), (target, outcome));
        }
        self.config_files = self
            .outcomes
            .values()
            .flat_map(|(target, _)| target.config.sources().iter().cloned())
            .collect();
        Ok(())
    }

    /// Whether a change to `path` changes a configuration.
    fn is_config(&self, path: &Path) -> bool {
        matches!(
            path.file_name().and_then(|n| n.to_str()),
            Some("phaselint.toml" | "pyproject.toml")
        ) || self.config_files.contains(path)
    }

    /// The changed paths that are, or may now be, files to lint.
    fn relevant(&self, changed: &[PathBuf]) -> BTreeSet<PathBuf> {
        let linted: BTreeSet<PathBuf> = self.outcomes.keys().map(|p| absolute(p)).collect();
        let mut configs = ConfigCache::new(&self.args.configuration, self.overrides.clone());
        changed
            .iter()
            .filter(|path| {
                linted.contains(*path)
                    || configs
                        .for_file(path)
                        .is_ok_and(|config| phaselint_lint::walk::selects(&config, path))
            })
            .cloned()
            .collect()
    }

    /// Watches the folders of configuration files outside the watched
    /// paths (a `pyproject.toml` above them, a file one extends).
    fn watch_configs(
        &self,
        watcher: &mut RecommendedWatcher,
        watched: &mut BTreeMap<PathBuf, bool>,
    ) {
        for file in &self.config_files {
            let Some(dir) = file.parent() else { continue };
            let covered = watched
                .iter()
                .any(|(w, recursive)| dir == w || (*recursive && dir.starts_with(w)));
            if covered {
                continue;
            }
            if watcher.watch(dir, RecursiveMode::NonRecursive).is_ok() {
                watched.insert(dir.to_path_buf(), false);
            }
        }
    }

    fn watching(&self) -> String {
        format!(
            "watching {} (Ctrl-C to stop)",
            plural(self.roots, "path", "paths")
        )
    }

    /// Prints the report of every file's last outcome and the status line;
    /// `Err` when standard output is gone.
    fn print(&mut self, clear: bool) -> std::io::Result<()> {
        // The report borrows one slice of `Linted`: the analyses move into
        // it for the printing and back into the cache after.
        let mut linted = Vec::new();
        let mut unreadable = Vec::new();
        let mut rest = Vec::new();
        for (path, (target, outcome)) in std::mem::take(&mut self.outcomes) {
            match outcome {
                Ok((analysis, other_kind)) if !target.skips(other_kind) => {
                    linted.push((target, other_kind, Linted { path, analysis }));
                }
                Err(reason) => {
                    unreadable.push(Unreadable {
                        path: path.clone(),
                        reason: reason.clone(),
                    });
                    rest.push((path, (target, Err(reason))));
                }
                skipped => rest.push((path, (target, skipped))),
            }
        }
        let (kept, files): (Vec<_>, Vec<Linted>) = linted
            .into_iter()
            .map(|(target, other_kind, file)| ((target, other_kind), file))
            .unzip();
        if clear {
            print!("\x1b[2J\x1b[H");
        }
        let mut report = Report::new(&files, &unreadable);
        report.working_dir = std::env::current_dir().ok();
        report.max_warnings = self.args.max_warnings;
        report.skipped = rest.len() - unreadable.len();
        let output = Output {
            format: self.args.format,
            statistics: self.args.statistics,
            color: self.args.color,
            quiet: self.args.quiet,
            file: self.args.output_file.as_deref(),
        };
        let _ = output.print(&report);
        let count = |severity| {
            report
                .diagnostics()
                .filter(|(_, d)| d.severity == severity)
                .count()
        };
        let mut counts = vec![
            plural(count(Severity::Error), "error", "errors"),
            plural(count(Severity::Warning), "warning", "warnings"),
        ];
        let infos = count(Severity::Info);
        if infos > 0 {
            counts.push(plural(infos, "info", "infos"));
        }
        if !unreadable.is_empty() {
            counts.push(format!("{} unreadable", unreadable.len()));
        }
        let shown = status(&format!(
            "{} in {} — {}",
            counts.join(", "),
            plural(files.len() + unreadable.len(), "file", "files"),
            self.watching()
        ));
        for ((target, other_kind), file) in kept.into_iter().zip(files) {
            self.outcomes
                .insert(file.path, (target, Ok((file.analysis, other_kind))));
        }
        self.outcomes.extend(rest);
        shown
    }
}

/// The one line after each run, on standard output: the time (UTC), the
/// counts, and what is watched.
/// `Err` when standard output is gone (a closed pipe): nobody is watching.
fn status(text: &str) -> std::io::Result<()> {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        % 86_400;
    let mut stdout = std::io::stdout().lock();
    writeln!(
        stdout,
        "[{:02}:{:02}:{:02} UTC] {text}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )?;
    stdout.flush()
}

fn usage_error(message: &str) -> u8 {
    eprintln!("phaselint: error: {}", inline(message));
    exit::NO_VERDICT
}
