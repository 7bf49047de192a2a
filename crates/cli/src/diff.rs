//! `phaselint diff OLD NEW`: read both contracts, ask `phaselint_lint::diff`
//! what the change does to runs paused under OLD, and print its findings
//! through lint's formats, located in NEW. The D-codes' levels and
//! selection come from the configuration that applies to NEW, found and
//! overridden as `lint` finds and overrides it (`lint.rs`'s code); under
//! `--git`, from that configuration as it is at REV. Exit codes as
//! `lint`'s: 0 no error, 1 errors (or warnings past `--max-warnings`), 3
//! no verdict (a file unreadable, a configuration that does not load, a
//! contract with E-codes, or what `--git`/`--against` refuse).

use std::path::PathBuf;

use phaselint_lint::diff::DiffMode;
use phaselint_render::Report;
use phaselint_render::terminal::{block, inline};

use crate::config_cache::{ConfigCache, overrides};
use crate::exit;
use crate::lint::{Output, absolute, exit_code};
use crate::shared_args::{ColorChoice, ConfigArgs, Format, RuleLevels};

#[derive(clap::Args)]
pub struct DiffArgs {
    /// `OLD NEW`: the contract paused runs were started under and the one
    /// they will resume under (`-` reads one of them from standard input).
    /// With --against: NEW alone. With --git: the files to compare with
    /// their version at REV (none: every contract that differs from REV).
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Compare NEW with every older version runs may be paused under:
    /// a folder (its `*.contract.yaml` and `*.contract.yml` files, not
    /// sub-folders) or a file; repeat for more.
    #[arg(long, value_name = "DIR_OR_FILE")]
    pub against: Vec<PathBuf>,
    /// Compare each file with its version at this git revision (a branch,
    /// tag or commit), read through git; NEW is the file in the work tree.
    #[arg(long, value_name = "REV")]
    pub git: Option<String>,
    /// `resume`: every change that matters to a paused run; `approvals`:
    /// only what voids approvals recorded under OLD.
    #[arg(long, value_enum, default_value = "resume")]
    pub mode: crate::diff_git::ModeArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "full")]
    pub format: Format,
    /// When to colour the output (`auto`: on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    pub color: ColorChoice,
    /// Print the findings and nothing else (no summary).
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub levels: RuleLevels,
    /// The configuration for NEW's findings [default: found from NEW's directory up, as `lint` finds it].
    #[command(flatten)]
    pub configuration: ConfigArgs,
    /// Exit 1 when there are more than N warnings.
    #[arg(long, value_name = "N")]
    pub max_warnings: Option<usize>,
    /// Exit 0 even when there are findings (no verdict still exits 3).
    #[arg(long)]
    pub exit_zero: bool,
    /// Write the report to FILE instead of standard output (never coloured).
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
}

fn no_verdict(message: &str) -> u8 {
    eprintln!("phaselint: error: {}", block(message));
    exit::NO_VERDICT
}

pub fn run(args: &DiffArgs) -> u8 {
    let mode: DiffMode = args.mode.into();
    // The configuration each NEW's findings are judged by, as `lint`
    // would find it for that file (`-`: from the working directory). It
    // sets the D-codes' levels only: the contracts themselves are
    // analyzed with default settings (`diff_git.rs`), so no configured
    // level hides an E-code from the verdict.
    let mut configs = match overrides(&args.levels) {
        Ok(o) => ConfigCache::new(&args.configuration, o),
        Err(message) => return no_verdict(&message),
    };
    // What is compared, and how (`diff_git.rs`): OLD NEW, --against, --git.
    let (mut linted, git_side) =
        match crate::diff_git::Plan::of(&args.paths, &args.against, args.git.as_deref())
            .and_then(|plan| crate::diff_git::compare(&plan, mode, args.quiet))
        {
            Ok(compared) => compared,
            Err(message) => return no_verdict(&message),
        };
    // Under --git the base decides how a change is judged, as branch
    // protection is the base's: the configuration as it is at REV, unless
    // one is named (--config, --no-config). A pull request's own
    // `phaselint.toml` cannot turn its gate off.
    let from_revision = git_side
        .as_ref()
        .filter(|_| args.configuration.config.is_none() && !args.configuration.no_config);
    let mut at_revision = crate::diff_git::RevisionConfigs::default();
    let mut ran = std::collections::BTreeSet::new();
    let mut warned = std::collections::BTreeSet::new();
    for (index, file) in linted.iter_mut().enumerate() {
        let (config, judged_path) =
            match from_revision.and_then(|side| side.paths.get(index).map(|path| (side, path))) {
                Some((side, path)) => {
                    let found = at_revision.for_file(side, path, args.quiet).and_then(|c| {
                        let mut c = (*c).clone();
                        c.apply(&configs.overrides).map(|()| std::sync::Arc::new(c))
                    });
                    (found, side.top.join(path))
                }
                None => (
                    configs.for_file(&absolute(&file.path)),
                    absolute(&file.path),
                ),
            };
        let config = match config {
            Ok(config) => config,
            Err(message) => return no_verdict(&message),
        };
        let levels = config.settings_for(&judged_path);
        let enabled: Vec<&'static str> = mode
            .codes()
            .filter(|rule| levels.is_enabled(rule.code.as_str()))
            .map(|rule| rule.code.as_str())
            .collect();
        if enabled.is_empty() && warned.insert(config.path.clone()) {
            eprintln!(
                "phaselint: warning: the configuration{} turns every D-code off, so no change can be reported; add \"D\" to `select` for `phaselint diff`",
                config.path.as_ref().map_or(String::new(), |p| format!(
                    " ({})",
                    inline(&p.display().to_string())
                ))
            );
        }
        ran.extend(enabled);
        let findings = std::mem::take(&mut file.analysis.diagnostics);
        file.analysis.diagnostics = levels.apply_levels(findings);
    }
    if linted.is_empty()
        && matches!(args.format, Format::Full | Format::Concise)
        && args.output_file.is_none()
    {
        // "All checks passed (0 files)" would claim a check that never ran.
        if !args.quiet {
            return crate::stdout::write_answer("Nothing compared.\n");
        }
        return exit::SUCCESS;
    }
    let mut report = Report::new(&linted, &[]);
    // SARIF's rule metadata: the D-codes this run could report.
    report.ran = Some(ran.into_iter().collect());
    report.working_dir = std::env::current_dir().ok();
    report.max_warnings = args.max_warnings;
    let output = Output {
        format: args.format,
        statistics: false,
        color: args.color,
        quiet: args.quiet,
        file: args.output_file.as_deref(),
    };
    if let Err(code) = output.print(&report) {
        return code;
    }
    exit_code(&report, args.exit_zero, args.max_warnings)
}
