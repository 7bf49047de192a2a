//! `phaselint lint`: find the files, pick each one's configuration, analyze
//! them on every core, render, and choose the exit code.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use phaselint_lint::config::{Config, Overrides};
use phaselint_lint::diagnostic::Severity;
use phaselint_lint::fix::apply_safe_fixes;
use phaselint_lint::input::{self, Bound};
use phaselint_lint::{Analysis, analyze_bytes, analyze_file};

use crate::atomic_write::write_atomically;
use crate::output::{self, Report};
use crate::{Format, LintArgs, exit};

/// One file to lint and where its bytes come from.
struct Target {
    /// The path shown in output and matched against configuration.
    path: PathBuf,
    stdin: bool,
    /// Found by walking a directory (rather than named): files of another
    /// contract kind are skipped instead of reported.
    walked: bool,
    config: Arc<Config>,
}

/// A linted file.
pub struct Linted {
    pub path: PathBuf,
    pub analysis: Analysis,
}

pub fn run(args: &LintArgs) -> u8 {
    let overrides = match overrides(args) {
        Ok(o) => o,
        Err(message) => return usage_error(&message),
    };
    let mut configs = ConfigCache::new(args, overrides);
    let targets = match collect(args, &mut configs) {
        Ok(t) => t,
        Err(message) => return usage_error(&message),
    };
    let mut stdin_bytes = None;
    if targets.iter().any(|t| t.stdin) {
        match input::read_stream(std::io::stdin().lock(), Path::new("-"), Bound::Contract) {
            Ok(bytes) => stdin_bytes = Some(bytes),
            Err(error) => return usage_error(&error.to_string()),
        }
    }

    if args.fix && stdin_bytes.is_some() {
        return usage_error("--fix rewrites files and cannot be used with standard input");
    }
    let mut results = lint_all(&targets, stdin_bytes.as_deref());
    if args.fix {
        match fix_all(&targets, &mut results) {
            Ok((fixes, files)) if fixes > 0 => eprintln!(
                "phaselint: fixed {fixes} finding{} in {files} file{}",
                if fixes == 1 { "" } else { "s" },
                if files == 1 { "" } else { "s" }
            ),
            Ok(_) => {}
            Err(message) => return usage_error(&message),
        }
    }
    let mut unreadable = 0;
    let mut linted = Vec::with_capacity(results.len());
    for (target, result) in targets.iter().zip(results) {
        match result {
            Err(message) => {
                eprintln!(
                    "phaselint: error: cannot read {}: {message}",
                    target.path.display()
                );
                unreadable += 1;
            }
            Ok((analysis, other_kind)) => {
                if target.walked && other_kind {
                    if args.verbose {
                        eprintln!(
                            "phaselint: note: skipped {}: not a context contract (its root has none of schema_version, pipeline_id, phases, checkpoint_integrity)",
                            target.path.display()
                        );
                    }
                    continue;
                }
                linted.push(Linted {
                    path: target.path.clone(),
                    analysis,
                });
            }
        }
    }
    linted.sort_by(|a, b| a.path.cmp(&b.path));

    let format = args.format.unwrap_or(if std::io::stdout().is_terminal() {
        Format::Full
    } else {
        Format::Concise
    });
    let report = Report::new(&linted, unreadable);
    let printed = if args.statistics {
        output::statistics(&report, format)
    } else {
        output::render(&report, format)
    };
    if let Err(e) = printed
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("phaselint: error: cannot write output: {e}");
        return exit::NO_VERDICT;
    }

    if unreadable > 0 {
        return exit::NO_VERDICT;
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
    if let Some(max) = args.max_warnings
        && warnings > max
    {
        eprintln!("phaselint: {warnings} warnings exceed --max-warnings {max}");
        return exit::FINDINGS;
    }
    exit::SUCCESS
}

fn usage_error(message: &str) -> u8 {
    eprintln!("phaselint: error: {message}");
    exit::NO_VERDICT
}

fn overrides(args: &LintArgs) -> Result<Overrides, String> {
    let severity = args
        .severity
        .iter()
        .map(|pair| {
            pair.split_once('=')
                .map(|(c, l)| (c.trim().to_string(), l.trim().to_string()))
                .ok_or_else(|| format!("--severity takes CODE=LEVEL, got `{pair}`"))
        })
        .collect::<Result<_, _>>()?;
    Ok(Overrides {
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        severity,
    })
}

/// Loads each directory's configuration once.
struct ConfigCache {
    fixed: Option<Result<Arc<Config>, String>>,
    by_dir: HashMap<PathBuf, Arc<Config>>,
    overrides: Overrides,
}

impl ConfigCache {
    fn new(args: &LintArgs, overrides: Overrides) -> Self {
        let fixed = if let Some(path) = &args.config {
            Some(
                Config::load(path)
                    .map_err(|e| e.to_string())
                    .and_then(|c| finish(c, &overrides)),
            )
        } else if args.no_config {
            let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
            Some(finish(Config::defaults(&cwd), &overrides))
        } else {
            None
        };
        ConfigCache {
            fixed,
            by_dir: HashMap::new(),
            overrides,
        }
    }

    fn for_file(&mut self, file: &Path) -> Result<Arc<Config>, String> {
        if let Some(fixed) = &self.fixed {
            return fixed.clone();
        }
        let dir = absolute(file.parent().unwrap_or(Path::new(".")));
        if let Some(config) = self.by_dir.get(&dir) {
            return Ok(config.clone());
        }
        let config = Config::discover(&dir).map_err(|e| e.to_string())?;
        let config = finish(config, &self.overrides)?;
        self.by_dir.insert(dir, config.clone());
        Ok(config)
    }
}

fn finish(mut config: Config, overrides: &Overrides) -> Result<Arc<Config>, String> {
    config.apply(overrides)?;
    Ok(Arc::new(config))
}

fn absolute(path: &Path) -> PathBuf {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn collect(args: &LintArgs, configs: &mut ConfigCache) -> Result<Vec<Target>, String> {
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
            targets.push(Target {
                path: shown,
                stdin: true,
                walked: false,
                config,
            });
        } else if path.is_dir() {
            let walker = ignore::WalkBuilder::new(&path)
                .require_git(false)
                .sort_by_file_path(|a, b| a.cmp(b))
                .build();
            for entry in walker {
                let entry = entry.map_err(|e| e.to_string())?;
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    continue;
                }
                let file = entry.into_path();
                // `phaselint lint .` shows `pipelines/a.contract.yaml`, not `./pipelines/…`.
                let file = match file.strip_prefix(".") {
                    Ok(relative) if !relative.as_os_str().is_empty() => relative.to_path_buf(),
                    _ => file,
                };
                let config = configs.for_file(&file)?;
                if config.includes(&absolute(&file)) {
                    targets.push(Target {
                        path: file,
                        stdin: false,
                        walked: true,
                        config,
                    });
                }
            }
        } else {
            // Named files are linted whatever their name; a missing one is
            // reported as unreadable when its turn comes.
            let config = configs.for_file(&path)?;
            targets.push(Target {
                path,
                stdin: false,
                walked: false,
                config,
            });
        }
    }
    Ok(targets)
}

/// Applies each file's safe fixes, writes it back atomically, and replaces
/// its analysis with that of the fixed text. Returns (fixes, files).
fn fix_all(
    targets: &[Target],
    results: &mut [Result<(Analysis, bool), String>],
) -> Result<(usize, usize), String> {
    let (mut fixes, mut files) = (0, 0);
    for (target, result) in targets.iter().zip(results.iter_mut()) {
        let Ok((analysis, _)) = result else { continue };
        let Some((text, applied)) = apply_safe_fixes(&analysis.source, &analysis.diagnostics)
        else {
            continue;
        };
        write_atomically(&target.path, text.as_bytes())
            .map_err(|e| format!("cannot write the fixes to {}: {e}", target.path.display()))?;
        let settings = target.config.settings_for(&absolute(&target.path));
        *result = Ok(checked(analyze_bytes(text.as_bytes(), &settings)));
        fixes += applied;
        files += 1;
    }
    Ok((fixes, files))
}

/// An analysis reduced to its findings, with whether the file is another
/// kind of contract.
fn checked(mut analysis: Analysis) -> (Analysis, bool) {
    let other_kind = !analysis.is_context_contract() && !analysis.is_unreadable();
    analysis.keep_only_findings();
    (analysis, other_kind)
}

/// Analyzes every target, spreading the files over the machine's cores.
/// Each result carries whether the file is another kind of contract (its
/// root has none of the context-contract keys), decided before the model is
/// dropped.
fn lint_all(targets: &[Target], stdin: Option<&[u8]>) -> Vec<Result<(Analysis, bool), String>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(targets.len().max(1));
    let next = AtomicUsize::new(0);
    let lint_one = |target: &Target| -> Result<(Analysis, bool), String> {
        let settings = target.config.settings_for(&absolute(&target.path));
        let analysis = if target.stdin {
            analyze_bytes(stdin.unwrap_or_default(), &settings)
        } else {
            analyze_file(&target.path, &settings).map_err(|e| e.reason())?
        };
        Ok(checked(analysis))
    };
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
        .map(|slot| {
            slot.unwrap_or_else(|| Err("internal error while linting this file".to_string()))
        })
        .collect()
}
