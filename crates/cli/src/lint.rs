//! `phaselint lint`: find the files, pick each one's configuration, analyze
//! them on every core, render, and choose the exit code.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use phaselint_lint::config::Config;
use phaselint_lint::diagnostic::{Applicability, Severity};
use phaselint_lint::fix::{self, FixMode};
use phaselint_lint::input::{self, Bound};
use phaselint_lint::{Analysis, DocumentKind, analyze_bytes, analyze_file};

use crate::atomic_write::write_atomically;
use crate::config_cache::{ConfigCache, overrides};
use crate::shared_args::{ColorChoice, Format, LintArgs};
use crate::{adoption, exit};
use phaselint_render::terminal::{block, inline};
use phaselint_render::{self as output, Linted, Report, Unreadable, plural};

/// A path as a message shows it: a file named by a pull request may hold
/// control characters too.
fn shown(path: &Path) -> String {
    inline(&path.display().to_string()).into_owned()
}

/// One file to lint and where its bytes come from.
pub(crate) struct Target {
    /// The path shown in output and matched against configuration.
    pub(crate) path: PathBuf,
    stdin: bool,
    /// Found by walking a directory (rather than named): files of another
    /// contract kind are skipped instead of reported.
    pub(crate) walked: bool,
    /// What it is read as.
    kind: DocumentKind,
    pub(crate) config: Arc<Config>,
}

impl Target {
    /// A walked file of another contract kind that shares the suffix is
    /// skipped: neither reported, nor fixed, nor diffed. A named one is
    /// linted, as the user asked for it.
    pub(crate) fn skips(&self, other_kind: bool) -> bool {
        self.walked && other_kind
    }
}

/// One run over the paths. `main.rs` hands `--watch` to `watch::run`,
/// which lints with this file's parts (`collect`, `lint_all`).
pub fn run(args: &LintArgs) -> u8 {
    // The counts are a table, or JSON: a SARIF, GitLab or JUnit reader fed
    // a table would fail later, and less clearly.
    if args.statistics && !matches!(args.format, Format::Full | Format::Concise | Format::Json) {
        return usage_error(
            "--statistics prints a table (full, concise) or JSON (--format json); leave it out to get this format's report",
        );
    }
    let overrides = match overrides(&args.levels) {
        Ok(o) => o,
        Err(message) => return usage_error(&message),
    };
    let mut configs = ConfigCache::new(&args.configuration, overrides);
    let targets = match collect(args, &mut configs) {
        Ok(t) => t,
        Err(message) => return usage_error(&message),
    };
    let mut baselines =
        match adoption::Baselines::load(&args.adoption, targets.iter().map(|t| &*t.config)) {
            Ok(b) => b,
            Err(message) => return usage_error(&message),
        };
    let mut stdin_bytes = None;
    if targets.iter().any(|t| t.stdin) {
        match input::read_stream(std::io::stdin().lock(), Path::new("-"), Bound::Contract) {
            Ok(bytes) => stdin_bytes = Some(bytes),
            Err(error) => return usage_error(&error.to_string()),
        }
    }
    let mode = if args.unsafe_fixes {
        FixMode::Unsafe
    } else {
        FixMode::Safe
    };
    if args.fix && !args.diff && stdin_bytes.is_some() {
        return usage_error(
            "--fix rewrites files and cannot be used with standard input; use --diff",
        );
    }
    if args.adoption.add_suppressions && stdin_bytes.is_some() {
        return usage_error(
            "--add-suppressions rewrites files and cannot be used with standard input",
        );
    }
    let models = if args.fix || args.diff {
        Models::Keep
    } else if targets.len() == 1 {
        Models::LeaveToExit
    } else {
        Models::Drop
    };
    let mut results = lint_all(&targets, stdin_bytes.as_deref(), models);
    if args.diff {
        return print_diff(args, &targets, &results, mode);
    }
    if args.fix {
        match fix_all(&targets, &mut results, mode) {
            Ok(done) => {
                if done.fixes > 0 && !args.quiet {
                    eprintln!(
                        "phaselint: fixed {} in {}",
                        plural(done.fixes, "finding", "findings"),
                        plural(done.files, "file", "files")
                    );
                }
                for (path, id) in done.changed_digests {
                    eprintln!(
                        "phaselint: warning: the fixes changed checkpoint `{}` in {}: approvals bound to its old target digest no longer hold (run `phaselint approve` again)",
                        inline(&id),
                        shown(&path)
                    );
                }
            }
            Err(message) => return usage_error(&message),
        }
    }
    let mut suppressing = adoption::Suppressing::new(args.quiet);
    if args.adoption.add_suppressions {
        for (target, result) in targets.iter().zip(results.iter_mut()) {
            let Ok((analysis, other_kind)) = result else {
                continue;
            };
            if target.skips(*other_kind) {
                continue;
            }
            let settings = target.config.settings_for(&absolute(&target.path));
            if let Some(edited) = suppressing.file(&target.path, &settings, analysis) {
                *result = Ok(checked(edited, Models::Drop));
            }
        }
    }
    let mut unreadable = Vec::new();
    let mut skipped = 0;
    let mut linted = Vec::with_capacity(results.len());
    for (target, result) in targets.iter().zip(results) {
        match result {
            Err(message) => {
                eprintln!(
                    "phaselint: error: cannot read {}: {}",
                    shown(&target.path),
                    inline(&message)
                );
                unreadable.push(Unreadable {
                    path: target.path.clone(),
                    reason: message,
                });
            }
            Ok((mut analysis, other_kind)) => {
                if target.skips(other_kind) {
                    skipped += 1;
                    if args.verbose {
                        eprintln!(
                            "phaselint: note: skipped {}: not a context contract (its root has none of schema_version, pipeline_id, phases, checkpoint_integrity)",
                            shown(&target.path)
                        );
                    }
                    continue;
                }
                analysis.keep_only_findings();
                baselines.apply(&target.path, &target.config, &mut analysis);
                linted.push(Linted {
                    path: target.path.clone(),
                    analysis,
                });
            }
        }
    }
    linted.sort_by(|a, b| a.path.cmp(&b.path));
    let suppressed = !args.adoption.add_suppressions || suppressing.finish();
    let baselined = match baselines.finish(args.quiet) {
        Ok(outcome) => outcome,
        Err(message) => return usage_error(&message),
    };
    if args.verbose {
        for (file, fixed) in &baselined.fixed {
            eprintln!(
                "phaselint: note: fixed since {}: {} {} in {}{}",
                shown(file),
                plural(fixed.count, "finding", "findings"),
                inline(&fixed.code),
                inline(&fixed.path),
                if fixed.text.is_empty() {
                    String::new()
                } else {
                    format!(" (`{}`)", inline(&fixed.text))
                }
            );
        }
    }

    let mut report = Report::new(&linted, &unreadable);
    report.baseline = baselined.counts;
    report.skipped = skipped;
    // The machine formats keep stdout to themselves: the baseline's lines
    // go to stderr, and so does what the summary would say of a walk
    // whose every file was skipped.
    if !args.quiet && !matches!(args.format, Format::Full | Format::Concise) {
        for line in report.baseline.iter().flat_map(|b| b.lines()) {
            eprintln!("phaselint: {}", inline(&line));
        }
        if let Some(note) = output::nothing_checked(&report).filter(|_| skipped > 0) {
            eprintln!("phaselint: note: {note}");
        }
    }
    // The rules enabled for any file linted: only SARIF lists them, and
    // each file's settings are built once, not once per rule.
    if args.format == Format::Sarif {
        let rules = phaselint_lint::rules::RULES;
        let mut enabled = vec![false; rules.len()];
        for target in &targets {
            if enabled.iter().all(|&e| e) {
                break;
            }
            let settings = target.config.settings_for(&absolute(&target.path));
            for (on, rule) in enabled.iter_mut().zip(rules) {
                *on |= settings.is_enabled(rule.code.as_str());
            }
        }
        report.ran = Some(
            rules
                .iter()
                .zip(&enabled)
                // D-codes are `phaselint diff`'s: lint never reports them.
                .filter(|&(rule, &on)| on && rule.family != phaselint_lint::rules::Family::Diff)
                .map(|(rule, _)| rule.code.as_str())
                .collect(),
        );
    }
    report.working_dir = std::env::current_dir().ok();
    report.max_warnings = args.max_warnings;
    let output = Output {
        format: args.format,
        statistics: args.statistics,
        color: args.color,
        quiet: args.quiet,
        file: args.output_file.as_deref(),
    };
    if let Err(code) = output.print(&report) {
        return code;
    }
    if !unreadable.is_empty() || !suppressed {
        return exit::NO_VERDICT;
    }
    exit_code(&report, args.exit_zero, args.max_warnings)
}

/// Where and how a report is printed: shared by `lint` and `diff`.
pub(crate) struct Output<'a> {
    pub format: Format,
    pub statistics: bool,
    pub color: ColorChoice,
    pub quiet: bool,
    /// `--output-file`: written whole or not at all, never coloured.
    pub file: Option<&'a Path>,
}

impl Output<'_> {
    /// Prints `report`; `Err(exit code)` when it cannot be written.
    pub(crate) fn print(&self, report: &Report<'_>) -> Result<(), u8> {
        let style = output::Style {
            // A report file is read later, by tools or in an editor: never
            // coloured, whatever --color says of the terminal.
            color: self.file.is_none()
                && match self.color {
                    ColorChoice::Always => true,
                    ColorChoice::Never => false,
                    ColorChoice::Auto => {
                        std::io::stdout().is_terminal()
                            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    }
                },
            summary: !self.quiet,
        };
        let printed = match self.file {
            Some(path) => crate::atomic_write::create_output(path)
                .map_err(|e| {
                    std::io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display()))
                })
                .and_then(|file| {
                    output::write(report, self.format.into(), self.statistics, style, file)
                }),
            None => output::write(
                report,
                self.format.into(),
                self.statistics,
                style,
                std::io::stdout().lock(),
            ),
        };
        if let Err(e) = crate::stdout::delivered(printed) {
            eprintln!(
                "phaselint: error: cannot write output: {}",
                inline(&e.to_string())
            );
            return Err(exit::NO_VERDICT);
        }
        Ok(())
    }
}

/// The exit code of a report whose files were all read: 1 for an error,
/// or for more warnings than `--max-warnings`; 0 otherwise, or with
/// `--exit-zero` (unless a file could not be parsed: E001, E007).
pub(crate) fn exit_code(report: &Report<'_>, exit_zero: bool, max_warnings: Option<usize>) -> u8 {
    // A file that could not be parsed (E001, E007) was not checked at all:
    // --exit-zero waives findings, never a file that got no verdict.
    if exit_zero && !report.files.iter().any(|f| f.analysis.is_unreadable()) {
        return exit::SUCCESS;
    }
    let count = |severity| {
        report
            .diagnostics()
            .filter(|(_, d)| d.severity == severity)
            .count()
    };
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    if errors > 0 {
        return exit::FINDINGS;
    }
    if let Some(max) = max_warnings
        && warnings > max
    {
        eprintln!(
            "phaselint: {} exceed{} --max-warnings {max}",
            plural(warnings, "warning", "warnings"),
            if warnings == 1 { "s" } else { "" }
        );
        return exit::FINDINGS;
    }
    exit::SUCCESS
}

/// `--diff`: what the fixes would change, as a unified diff per file; exit
/// 1 when there is something to fix, and nothing is written.
fn print_diff(
    args: &LintArgs,
    targets: &[Target],
    results: &[Result<(Analysis, bool), String>],
    mode: FixMode,
) -> u8 {
    let mut out = String::new();
    let (mut fixes, mut files, mut unreadable, mut held_back) = (0, 0, 0, 0);
    for (target, result) in targets.iter().zip(results) {
        let analysis = match result {
            Ok((analysis, other_kind)) if !target.skips(*other_kind) => analysis,
            Ok(_) => continue,
            Err(message) => {
                eprintln!(
                    "phaselint: error: cannot read {}: {}",
                    shown(&target.path),
                    inline(message)
                );
                unreadable += 1;
                continue;
            }
        };
        if mode == FixMode::Safe {
            held_back += analysis
                .diagnostics
                .iter()
                .filter(|d| {
                    d.fix
                        .as_ref()
                        .is_some_and(|f| f.applicability == Applicability::Unsafe)
                })
                .count();
        }
        let settings = target.config.settings_for(&absolute(&target.path));
        let Some(fixed) = fix::fix(analysis, &settings, mode) else {
            continue;
        };
        let name = shown(&target.path);
        let diff = similar::TextDiff::from_lines(analysis.source.as_str(), fixed.text.as_str());
        // The source's own lines, shown as every other text from a
        // contract is: a raw ESC in a comment is `\u{1b}` here too (line
        // breaks, CRLF ones included, and tabs stay).
        out.push_str(&block(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(&name, &name)
                .to_string(),
        ));
        fixes += fixed.applied;
        files += 1;
        for id in fixed.changed_digests {
            eprintln!(
                "phaselint: warning: these fixes would change checkpoint `{}` in {name}: approvals bound to its old target digest would no longer hold",
                inline(&id)
            );
        }
    }
    let written = match &args.output_file {
        Some(path) => crate::atomic_write::create_output(path)
            .and_then(|mut file| std::io::Write::write_all(&mut file, out.as_bytes())),
        None => std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes()),
    };
    if let Err(e) = crate::stdout::delivered(written) {
        eprintln!(
            "phaselint: error: cannot write output: {}",
            inline(&e.to_string())
        );
        return exit::NO_VERDICT;
    }
    if !args.quiet {
        let guesses = plural(held_back, "did-you-mean fix", "did-you-mean fixes");
        match (fixes, held_back) {
            (0, 0) => eprintln!("phaselint: nothing to fix"),
            (0, _) => eprintln!("phaselint: no safe fixes; {guesses} with --unsafe-fixes"),
            (_, held_back) => eprintln!(
                "phaselint: would fix {} in {}{}",
                plural(fixes, "finding", "findings"),
                plural(files, "file", "files"),
                if held_back > 0 {
                    format!("; {guesses} more with --unsafe-fixes")
                } else {
                    String::new()
                }
            ),
        }
    }
    if unreadable > 0 {
        exit::NO_VERDICT
    } else if fixes > 0 {
        exit::FINDINGS
    } else {
        exit::SUCCESS
    }
}

fn usage_error(message: &str) -> u8 {
    eprintln!("phaselint: error: {}", block(message));
    exit::NO_VERDICT
}

pub(crate) fn absolute(path: &Path) -> PathBuf {
    phaselint_lint::walk::absolute(path)
}

pub(crate) fn collect(args: &LintArgs, configs: &mut ConfigCache) -> Result<Vec<Target>, String> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut targets = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let shown = args
                .stdin_filename
                .clone()
                .unwrap_or_else(|| PathBuf::from("-"));
            let config = configs.for_file(&absolute(&shown))?;
            let kind = args
                .kind
                .map_or_else(|| DocumentKind::of_path(&shown), Into::into);
            targets.push(Target {
                path: shown,
                stdin: true,
                walked: false,
                kind,
                config,
            });
        } else if path.is_dir() {
            let before = targets.len();
            for file in phaselint_lint::walk::files(&path) {
                let file = file.map_err(|e| e.to_string())?;
                // `phaselint lint .` shows `pipelines/a.contract.yaml`, not `./pipelines/…`.
                let file = match file.strip_prefix(".") {
                    Ok(relative) if !relative.as_os_str().is_empty() => relative.to_path_buf(),
                    _ => file,
                };
                let config = configs.for_file(&file)?;
                let kind = DocumentKind::of_path(&file);
                if phaselint_lint::walk::selects(&config, &file) {
                    targets.push(Target {
                        path: file,
                        stdin: false,
                        walked: true,
                        kind,
                        config,
                    });
                }
            }
            if targets.len() == before {
                eprintln!(
                    "phaselint: warning: no contract files found under {}; phaselint lints `*.contract.yaml` by default, see `include`",
                    shown(&path)
                );
            }
        } else {
            // Named files are linted whatever their name; a missing one is
            // reported as unreadable when its turn comes.
            let config = configs.for_file(&path)?;
            let kind = args
                .kind
                .map_or_else(|| DocumentKind::of_path(&path), Into::into);
            targets.push(Target {
                path,
                stdin: false,
                walked: false,
                kind,
                config,
            });
        }
    }
    Ok(targets)
}

/// What `--fix` did.
struct FixedFiles {
    fixes: usize,
    files: usize,
    /// Files and checkpoints whose target digest the fixes changed.
    changed_digests: Vec<(PathBuf, String)>,
}

/// Applies each file's fixes, writes it back atomically, and replaces its
/// analysis with that of the fixed text.
fn fix_all(
    targets: &[Target],
    results: &mut [Result<(Analysis, bool), String>],
    mode: FixMode,
) -> Result<FixedFiles, String> {
    let mut done = FixedFiles {
        fixes: 0,
        files: 0,
        changed_digests: Vec::new(),
    };
    for (target, result) in targets.iter().zip(results.iter_mut()) {
        let Ok((analysis, other_kind)) = result else {
            continue;
        };
        if target.skips(*other_kind) {
            continue;
        }
        let settings = target.config.settings_for(&absolute(&target.path));
        let Some(fixed) = fix::fix(analysis, &settings, mode) else {
            continue;
        };
        write_atomically(&target.path, fixed.text.as_bytes())
            .map_err(|e| format!("cannot write the fixes to {}: {e}", target.path.display()))?;
        done.fixes += fixed.applied;
        done.files += 1;
        done.changed_digests.extend(
            fixed
                .changed_digests
                .into_iter()
                .map(|id| (target.path.clone(), id)),
        );
        *result = Ok(checked(fixed.analysis, Models::Keep));
    }
    Ok(done)
}

/// What becomes of a file's model once its findings are known.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Models {
    /// `--fix` and `--diff` edit through it.
    Keep,
    /// Freed at once, so a walk over many files holds one model a core.
    Drop,
    /// The one file of a run that ends with it: the process's exit returns
    /// the memory at once, where freeing a 5,000-phase model piece by piece
    /// took about 5% of the whole lint (BENCHMARKS.md, issue 27). Never in
    /// `--watch`, which runs on.
    LeaveToExit,
}

/// An analysis with whether the file is another kind of contract, its
/// model kept, dropped or left to the exit as `models` says.
fn checked(mut analysis: Analysis, models: Models) -> (Analysis, bool) {
    let other_kind = phaselint_lint::walk::is_other_kind(&analysis);
    match models {
        Models::Keep => {}
        Models::Drop => analysis.keep_only_findings(),
        Models::LeaveToExit => std::mem::forget(analysis.take_model()),
    }
    (analysis, other_kind)
}

/// Why a file whose analysis panicked (a bug) is reported as not linted
/// rather than silently passing.
const NOT_LINTED: &str = "internal error while linting this file";

/// Analyzes every target, spreading the files over the machine's cores.
/// Each result carries whether the file is another kind of contract (its
/// root has none of the context-contract keys), decided before the model is
/// dropped.
pub(crate) fn lint_all(
    targets: &[Target],
    stdin: Option<&[u8]>,
    models: Models,
) -> Vec<Result<(Analysis, bool), String>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(targets.len().max(1));
    let next = AtomicUsize::new(0);
    let lint_one = |target: &Target| -> Result<(Analysis, bool), String> {
        let settings = target.config.settings_for(&absolute(&target.path));
        let analysis = if target.stdin {
            analyze_bytes(stdin.unwrap_or_default(), target.kind, &settings)
        } else {
            analyze_file(&target.path, target.kind, &settings).map_err(|e| e.reason())?
        };
        Ok(checked(analysis, models))
    };
    if workers == 1 {
        // One file (or one core) is analyzed on this thread: a spawned one
        // would allocate from an arena of its own, which glibc grows a page
        // or two at a time (a 12 MB contract took 5,400 `mprotect` calls).
        return targets
            .iter()
            .map(|target| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| lint_one(target)))
                    .unwrap_or_else(|_| Err(NOT_LINTED.to_string()))
            })
            .collect();
    }
    let mut slots: Vec<Option<Result<(Analysis, bool), String>>> =
        (0..targets.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(target) = targets.get(i) else { break };
                        done.push((i, lint_one(target)));
                    }
                    done
                })
            })
            .collect();
        for handle in handles {
            match handle.join() {
                Ok(done) => {
                    for (i, result) in done {
                        slots[i] = Some(result);
                    }
                }
                Err(_) => {
                    // A panic in the analyzer is a bug; the files it held are
                    // reported as not linted rather than silently passing.
                }
            }
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.unwrap_or_else(|| Err(NOT_LINTED.to_string())))
        .collect()
}
