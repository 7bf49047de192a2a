//! `lint --baseline`, `--write-baseline` and `--add-suppressions`: the
//! options for turning phaselint on over a repository that already has
//! findings (docs/adoption.md). What a fingerprint is, what matches and
//! where a comment goes are `phaselint_lint::baseline`'s and
//! `add_suppressions`'s decisions; this reads and writes the files and
//! says what happened.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use phaselint_lint::add_suppressions::{Refusal, add_suppressions};
use phaselint_lint::baseline::{Baseline, Fixed, Matcher, path_key};
use phaselint_lint::config::{Config, Settings};
use phaselint_lint::input::{self, Bound, InputError};
use phaselint_lint::walk::absolute;
use phaselint_lint::{Analysis, baseline};
use phaselint_render::BaselineCounts;
use phaselint_render::terminal::inline;

use crate::atomic_write::{write_atomically, write_shared_atomically};

/// The adoption options of `phaselint lint`.
#[derive(clap::Args, Debug, Default)]
pub struct AdoptionArgs {
    /// Report only findings not recorded in this baseline file (see
    /// --write-baseline); recorded ones that no longer occur are counted
    /// as fixed [default: the configuration's `baseline`].
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Report every finding, even with a `baseline` in the configuration.
    #[arg(long, conflicts_with = "baseline")]
    pub no_baseline: bool,
    /// Record the findings of this run in FILE (JSON, rewritten whole, so
    /// fixed findings drop out; files not linted keep their entries), then
    /// report only what a baseline cannot hold (E001, E007).
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Add a `# phaselint: disable=CODE` comment for each finding a comment
    /// can silence, merged into the line's comment, checked to change
    /// nothing else; then report what is left. JSON files are skipped.
    #[arg(long, conflicts_with_all = ["baseline", "write_baseline", "fix", "diff"])]
    pub add_suppressions: bool,
}

/// One baseline file in use: where its paths are relative to, and what is
/// left of it to match.
struct InUse {
    shown: PathBuf,
    folder: PathBuf,
    matcher: Matcher,
}

/// The baseline files of one run, loaded before any file is linted so
/// that a bad one stops the run with exit 3.
pub(crate) struct Baselines {
    /// `--baseline`: for every file, whatever its configuration says.
    named: Option<PathBuf>,
    ignore_configured: bool,
    /// By absolute path.
    in_use: HashMap<PathBuf, InUse>,
    writing: Option<Writing>,
    hidden: usize,
}

/// `--write-baseline`: the file, its folder, what it held before, and
/// what this run records.
struct Writing {
    shown: PathBuf,
    folder: PathBuf,
    before: Option<Baseline>,
    recorded: Baseline,
    linted: BTreeSet<String>,
}

/// What the baselines did in a run.
pub(crate) struct Outcome {
    pub counts: Option<BaselineCounts>,
    pub fixed: Vec<(PathBuf, Fixed)>,
}

impl Baselines {
    /// Loads `--baseline`, or each baseline the configurations name, and
    /// the baseline `--write-baseline` will rewrite.
    pub(crate) fn load<'a>(
        args: &AdoptionArgs,
        configs: impl Iterator<Item = &'a Config>,
    ) -> Result<Baselines, String> {
        let mut baselines = Baselines {
            named: args.baseline.clone(),
            // --add-suppressions comments every finding it can.
            ignore_configured: args.no_baseline || args.add_suppressions,
            in_use: HashMap::new(),
            writing: None,
            hidden: 0,
        };
        if let Some(path) = &args.write_baseline {
            let before = match read(path) {
                Ok(baseline) => Some(baseline),
                Err(ReadError::Missing) => None,
                Err(ReadError::Other(message)) => {
                    return Err(format!(
                        "{message}; delete it to write a new baseline from scratch"
                    ));
                }
            };
            baselines.writing = Some(Writing {
                shown: path.clone(),
                folder: folder_of(path),
                before,
                recorded: Baseline::default(),
                linted: BTreeSet::new(),
            });
            return Ok(baselines);
        }
        let mut wanted: Vec<PathBuf> = Vec::new();
        if let Some(path) = &args.baseline {
            wanted.push(path.clone());
        } else if !baselines.ignore_configured {
            for config in configs {
                if let Some(path) = config.baseline() {
                    wanted.push(path.to_path_buf());
                }
            }
        }
        for path in wanted {
            let key = absolute(&path);
            if baselines.in_use.contains_key(&key) {
                continue;
            }
            let baseline = read(&path).map_err(|e| match e {
                ReadError::Missing => format!(
                    "cannot read the baseline `{}`: there is no such file; write it with `phaselint lint --write-baseline {}`",
                    shown(&path),
                    shown(&path)
                ),
                ReadError::Other(message) => message,
            })?;
            baselines.in_use.insert(
                key,
                InUse {
                    shown: path.clone(),
                    folder: folder_of(&path),
                    matcher: baseline.matcher(),
                },
            );
        }
        Ok(baselines)
    }

    /// Records or hides the findings of one linted file: under
    /// `--write-baseline` every finding a baseline can hold is recorded
    /// and left out of the report; otherwise those the file's baseline
    /// records are.
    pub(crate) fn apply(&mut self, path: &Path, config: &Config, analysis: &mut Analysis) {
        let file = absolute(path);
        if let Some(writing) = &mut self.writing {
            let key = path_key(&file, &writing.folder);
            writing.recorded.record(&key, analysis);
            writing.linted.insert(key);
            let before = analysis.diagnostics.len();
            analysis
                .diagnostics
                .retain(|d| !baseline::can_be_recorded(d.code));
            self.hidden += before - analysis.diagnostics.len();
            return;
        }
        let chosen = match &self.named {
            Some(named) => Some(absolute(named)),
            None if self.ignore_configured => None,
            None => config.baseline().map(absolute),
        };
        if let Some(in_use) = chosen.and_then(|c| self.in_use.get_mut(&c)) {
            let key = path_key(&file, &in_use.folder);
            self.hidden += in_use.matcher.hide(&key, analysis);
        }
    }

    /// Writes the baseline under `--write-baseline` and says what the
    /// baselines did.
    pub(crate) fn finish(self, quiet: bool) -> Result<Outcome, String> {
        if let Some(mut writing) = self.writing {
            let mut kept = 0;
            if let Some(before) = &writing.before {
                // Files this run did not lint keep their entries while
                // they exist.
                let folder = writing.folder.clone();
                let linted = &writing.linted;
                let recorded_before = writing.recorded.findings();
                writing.recorded.keep_from(before, |path| {
                    !linted.contains(path) && folder.join(path).is_file()
                });
                kept = writing.recorded.findings() - recorded_before;
            }
            write_shared_atomically(&writing.shown, writing.recorded.to_json().as_bytes())
                .map_err(|e| {
                    format!(
                        "cannot write the baseline to {}: {e}",
                        shown(&writing.shown)
                    )
                })?;
            if !quiet {
                let files = writing.recorded.paths().len();
                let was = writing
                    .before
                    .as_ref()
                    .map_or(String::new(), |b| format!(" (it held {})", b.findings()));
                let kept = if kept > 0 {
                    format!(", {kept} of them kept from files not linted in this run")
                } else {
                    String::new()
                };
                eprintln!(
                    "phaselint: wrote {} in {} to {}{was}{kept}",
                    phaselint_render::plural(writing.recorded.findings(), "finding", "findings"),
                    phaselint_render::plural(files, "file", "files"),
                    inline(&shown(&writing.shown)),
                );
            }
            return Ok(Outcome {
                counts: Some(BaselineCounts {
                    hidden: self.hidden,
                    fixed: 0,
                    file: shown(&writing.shown),
                }),
                fixed: Vec::new(),
            });
        }
        if self.in_use.is_empty() {
            return Ok(Outcome {
                counts: None,
                fixed: Vec::new(),
            });
        }
        let mut fixed = Vec::new();
        let mut files: Vec<&InUse> = self.in_use.values().collect();
        files.sort_by(|a, b| a.shown.cmp(&b.shown));
        for in_use in &files {
            let folder = &in_use.folder;
            for found in in_use.matcher.fixed(|path| !folder.join(path).exists()) {
                fixed.push((in_use.shown.clone(), found));
            }
        }
        let file = match files.as_slice() {
            [one] => shown(&one.shown),
            _ => "FILE".to_string(),
        };
        Ok(Outcome {
            counts: Some(BaselineCounts {
                hidden: self.hidden,
                fixed: fixed.iter().map(|(_, f)| f.count).sum(),
                file,
            }),
            fixed,
        })
    }
}

enum ReadError {
    Missing,
    Other(String),
}

fn read(path: &Path) -> Result<Baseline, ReadError> {
    let bytes = input::read_file(path, Bound::Document).map_err(|e| match &e {
        InputError::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => {
            ReadError::Missing
        }
        _ => ReadError::Other(format!(
            "cannot read the baseline `{}`: {}",
            shown(path),
            e.reason()
        )),
    })?;
    Baseline::parse(&bytes)
        .map_err(|e| ReadError::Other(format!("cannot use the baseline `{}`: {e}", shown(path))))
}

/// The folder a baseline's paths are relative to: its own.
fn folder_of(path: &Path) -> PathBuf {
    let file = absolute(path);
    file.parent().map_or(file.clone(), Path::to_path_buf)
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// `--add-suppressions` over the files of a run: what it wrote, and
/// whether a file was refused.
#[derive(Default)]
pub(crate) struct Suppressing {
    /// `--quiet`: no notes, no count.
    quiet: bool,
    comments: usize,
    findings: usize,
    files: usize,
    failed: usize,
}

impl Suppressing {
    pub(crate) fn new(quiet: bool) -> Self {
        Suppressing {
            quiet,
            ..Default::default()
        }
    }

    /// Adds the comments to one file and writes it; the analysis of the
    /// new text when it was written.
    pub(crate) fn file(
        &mut self,
        path: &Path,
        settings: &Settings,
        analysis: &Analysis,
    ) -> Option<Analysis> {
        let name = inline(&shown(path)).into_owned();
        match add_suppressions(analysis, settings) {
            Err(Refusal::Json | Refusal::Unloadable) if analysis.diagnostics.is_empty() => None,
            Err(refusal @ (Refusal::Json | Refusal::Unloadable)) => {
                if !self.quiet {
                    eprintln!("phaselint: note: skipped {name}: {refusal}");
                }
                None
            }
            Err(refusal @ Refusal::Changed(_)) => {
                eprintln!("phaselint: error: did not add suppressions to {name}: {refusal}");
                self.failed += 1;
                None
            }
            Ok(done) => {
                for skipped in done.skipped.iter().filter(|_| !self.quiet) {
                    eprintln!(
                        "phaselint: note: {name}:{}: {} not suppressed: {}",
                        skipped.line + 1,
                        skipped.code,
                        inline(&skipped.reason)
                    );
                }
                let (text, edited) = done.edited?;
                if let Err(e) = write_atomically(path, text.as_bytes()) {
                    eprintln!("phaselint: error: cannot write the suppressions to {name}: {e}");
                    self.failed += 1;
                    return None;
                }
                self.comments += done.comments;
                self.findings += done.findings;
                self.files += 1;
                Some(edited)
            }
        }
    }

    /// Says what was added; `false` when a file was refused or could not
    /// be written.
    pub(crate) fn finish(&self) -> bool {
        if !self.quiet {
            if self.comments == 0 {
                eprintln!("phaselint: no suppression comments to add");
            } else {
                eprintln!(
                    "phaselint: added {} in {}, silencing {}",
                    phaselint_render::plural(
                        self.comments,
                        "suppression comment",
                        "suppression comments"
                    ),
                    phaselint_render::plural(self.files, "file", "files"),
                    phaselint_render::plural(self.findings, "finding", "findings"),
                );
            }
        }
        self.failed == 0
    }
}
