//! `phaselint diff OLD NEW`: read both contracts, ask `phaselint_lint::diff`
//! what the change does to runs paused under OLD, and print its findings
//! through lint's formats, located in NEW. Exit codes as `lint`'s: 0 no
//! error, 1 errors, 3 no verdict (a file unreadable, or with E-codes).

use std::io::IsTerminal;
use std::path::PathBuf;

use phaselint_lint::diagnostic::Severity;
use phaselint_render::terminal::{block, inline};
use phaselint_render::{self as output, Report};

use crate::{ColorChoice, Format, exit};

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
}

fn no_verdict(message: &str) -> u8 {
    eprintln!("phaselint: error: {}", block(message));
    exit::NO_VERDICT
}

pub fn run(args: &DiffArgs) -> u8 {
    // What is compared, and how (`diff_git.rs`): OLD NEW, --against, --git.
    let mode = args.mode.into();
    let linted = match crate::diff_git::Plan::of(&args.paths, &args.against, args.git.as_deref())
        .and_then(|plan| crate::diff_git::compare(&plan, mode, args.quiet))
    {
        Ok(linted) => linted,
        Err(message) => return no_verdict(&message),
    };
    let mut report = Report::new(&linted, &[]);
    report.ran = mode
        .codes(phaselint_lint::diff::DIFF_CODES)
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
