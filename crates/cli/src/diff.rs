//! `phaselint diff OLD NEW`: read both contracts, ask `phaselint_lint::diff`
//! what the change does to runs paused under OLD, and print its findings
//! through lint's formats, located in NEW. The D-codes' levels and
//! selection come from the configuration that applies to NEW, found and
//! overridden as `lint` finds and overrides it (`lint.rs`'s code). Exit
//! codes as `lint`'s: 0 no error, 1 errors (or warnings past
//! `--max-warnings`), 3 no verdict (a file unreadable, a configuration
//! that does not load, or a contract with E-codes).

use std::path::{Path, PathBuf};

use phaselint_lint::config::Settings;
use phaselint_lint::input::{self, Bound};
use phaselint_lint::{DocumentKind, analyze_bytes};
use phaselint_render::terminal::{block, inline};
use phaselint_render::{Linted, Report};

use crate::lint::{ConfigCache, Output, absolute, exit_code, overrides};
use crate::{ColorChoice, ConfigArgs, Format, exit};

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The contract paused runs were started under; `-` reads standard input.
    pub old: PathBuf,
    /// The contract they will resume under; `-` reads standard input.
    pub new: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "full")]
    pub format: Format,
    /// When to colour the output (`auto`: on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    pub color: ColorChoice,
    /// Print the findings and nothing else (no summary).
    #[arg(long, short)]
    pub quiet: bool,
    /// Only report these codes or prefixes (replaces the config's `select`; `ALL` for every code).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub select: Option<Vec<String>>,
    /// Do not report these codes or prefixes (added to the config's `ignore`).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub ignore: Vec<String>,
    /// Set a code's level: CODE=error|warning|info|off. Repeatable.
    #[arg(long, value_name = "CODE=LEVEL")]
    pub severity: Vec<String>,
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

/// The bytes of `path`, or of standard input for `-`, within the contract bound.
fn read(path: &Path) -> Result<Vec<u8>, String> {
    let read = if path == Path::new("-") {
        input::read_stream(std::io::stdin().lock(), path, Bound::Contract)
    } else {
        input::read_file(path, Bound::Contract)
    };
    read.map_err(|e| e.to_string())
}

pub fn run(args: &DiffArgs) -> u8 {
    if args.old == Path::new("-") && args.new == Path::new("-") {
        return no_verdict("only one of OLD and NEW can be `-` (standard input)");
    }
    // The configuration NEW's findings are judged by, as `lint` would
    // find it for NEW (`-`: from the working directory). It sets the
    // D-codes' levels only: the contracts themselves are analyzed below
    // with default settings.
    let config = match overrides(args.select.as_ref(), &args.ignore, &args.severity)
        .and_then(|o| ConfigCache::new(&args.configuration, o).for_file(&absolute(&args.new)))
    {
        Ok(config) => config,
        Err(message) => return no_verdict(&message),
    };
    let levels = config.settings_for(&absolute(&args.new));
    if !phaselint_lint::diff::codes().any(|rule| levels.is_enabled(rule.code)) {
        eprintln!(
            "phaselint: warning: the configuration{} turns every D-code off, so no change can be reported; add \"D\" to `select` for `phaselint diff`",
            config.path.as_ref().map_or(String::new(), |p| format!(
                " ({})",
                inline(&p.display().to_string())
            ))
        );
    }
    // Analyzed as the resume check analyzes a contract: default settings,
    // so no configured level hides an E-code from the verdict.
    let settings = Settings::default();
    let mut analyses = Vec::with_capacity(2);
    for path in [&args.old, &args.new] {
        match read(path) {
            Ok(bytes) => analyses.push(analyze_bytes(&bytes, DocumentKind::Contract, &settings)),
            Err(message) => {
                return no_verdict(&format!(
                    "cannot read {}: {}",
                    inline(&path.display().to_string()),
                    inline(&message)
                ));
            }
        }
    }
    let (Some(mut new), Some(old)) = (analyses.pop(), analyses.pop()) else {
        return exit::NO_VERDICT;
    };
    let findings = match phaselint_lint::diff::diff_from(&old, &args.old, &new) {
        Ok(findings) => findings,
        Err(error) => {
            let side = match &error {
                phaselint_lint::diff::DiffError::ContractHasErrors { side, .. }
                | phaselint_lint::diff::DiffError::NotAContract { side } => *side,
            };
            let path = if side == "OLD" { &args.old } else { &args.new };
            return no_verdict(&format!(
                "{} ({}): {error}",
                side,
                inline(&path.display().to_string())
            ));
        }
    };
    new.diagnostics = levels.apply_levels(findings);
    new.hidden_errors.clear();
    new.keep_only_findings();
    let linted = [Linted {
        path: args.new.clone(),
        analysis: new,
    }];
    let mut report = Report::new(&linted, &[]);
    // SARIF's rule metadata: the D-codes this run could report.
    report.ran = Some(
        phaselint_lint::diff::codes()
            .filter(|rule| levels.is_enabled(rule.code))
            .map(|rule| rule.code)
            .collect(),
    );
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
