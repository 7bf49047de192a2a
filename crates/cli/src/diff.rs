//! `phaselint diff OLD NEW`: read both contracts, ask `phaselint_lint::diff`
//! what the change does to runs paused under OLD, and print its findings
//! through lint's formats, located in NEW. Exit codes as `lint`'s: 0 no
//! error, 1 errors, 3 no verdict (a file unreadable, or with E-codes).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use phaselint_lint::analyze_contract_for_resume;
use phaselint_lint::config::Settings;
use phaselint_lint::diagnostic::Severity;
use phaselint_lint::input::{self, Bound};
use phaselint_render::terminal::{block, inline};
use phaselint_render::{self as output, Linted, Report};

use crate::{ColorChoice, Format, exit};

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
    // Analyzed as the resume check analyzes a contract: default settings,
    // so no configured level hides an E-code from the verdict.
    let settings = Settings::default();
    let mut analyses = Vec::with_capacity(2);
    for path in [&args.old, &args.new] {
        match read(path) {
            Ok(bytes) => analyses.push(analyze_contract_for_resume(&bytes, &settings)),
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
    let findings = match phaselint_lint::diff::diff(&old, &new) {
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
    new.diagnostics = findings;
    new.hidden_errors.clear();
    new.keep_only_findings();
    let linted = [Linted {
        path: args.new.clone(),
        analysis: new,
    }];
    let mut report = Report::new(&linted, &[]);
    report.ran = phaselint_lint::diff::DIFF_CODES
        .iter()
        .map(|c| c.code)
        .collect();
    report.working_dir = std::env::current_dir().ok();
    let style = output::Style {
        color: match args.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        },
        summary: !args.quiet,
    };
    let printed = output::write(
        &report,
        args.format.into(),
        false,
        style,
        std::io::stdout().lock(),
    );
    if let Err(e) = printed
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        return no_verdict(&format!("cannot write output: {}", inline(&e.to_string())));
    }
    let errors = report
        .diagnostics()
        .any(|(_, d)| d.severity == Severity::Error);
    if errors {
        exit::FINDINGS
    } else {
        exit::SUCCESS
    }
}
