//! `phaselint graph`: reads one contract, asks the library for its phase
//! graph and prints it in the format asked for.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use phaselint_lint::diagnostic::Severity;
use phaselint_lint::input::{self, Bound};
use phaselint_lint::{DocumentKind, analyze_vec, graph_export};
use phaselint_render::graph::GraphFormat;

use crate::exit;
use crate::shared_args::{ConfigArgs, config_beside};

#[derive(clap::Args, Debug)]
pub struct GraphArgs {
    /// The contract, or `-` for standard input.
    pub file: PathBuf,
    /// `dot` for Graphviz (`dot -Tsvg`), `mermaid` for a flowchart GitHub renders in Markdown, `json` for tools.
    #[arg(long, value_enum, default_value = "dot")]
    pub format: GraphFormatArg,
    /// Show the lint findings on the phases and edges they point at.
    #[arg(long)]
    pub findings: bool,
    #[command(flatten)]
    pub configuration: ConfigArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GraphFormatArg {
    Dot,
    Mermaid,
    Json,
}

impl From<GraphFormatArg> for GraphFormat {
    fn from(format: GraphFormatArg) -> Self {
        match format {
            GraphFormatArg::Dot => GraphFormat::Dot,
            GraphFormatArg::Mermaid => GraphFormat::Mermaid,
            GraphFormatArg::Json => GraphFormat::Json,
        }
    }
}

pub fn run(args: &GraphArgs) -> u8 {
    match draw(args) {
        Ok(()) => exit::SUCCESS,
        Err(message) => {
            // The message quotes the contract (a finding's message) and
            // the path as given: shown without their control characters.
            eprintln!(
                "phaselint: error: {}",
                phaselint_render::terminal::inline(&message)
            );
            exit::NO_VERDICT
        }
    }
}

/// Reads the contract and writes its graph to standard output as it is
/// laid out (never held whole: a contract at the size bound draws hundreds
/// of megabytes).
fn draw(args: &GraphArgs) -> Result<(), String> {
    let stdin = args.file.as_os_str() == "-";
    // Configuration is looked up beside the file, or from here for stdin.
    let beside = if stdin { Path::new("./-") } else { &args.file };
    let config = config_beside(
        beside,
        args.configuration.config.as_deref(),
        args.configuration.no_config,
    )?;
    let settings = config.settings_for(&std::path::absolute(beside).unwrap_or_default());
    let shown = if stdin {
        "standard input".to_string()
    } else {
        format!("`{}`", args.file.display())
    };
    let bytes = if stdin {
        input::read_stream(std::io::stdin().lock(), &args.file, Bound::Contract)
    } else {
        input::read_file(&args.file, Bound::Contract)
    }
    .map_err(|e| format!("cannot read {shown}: {}", e.reason()))?;
    let analysis = analyze_vec(bytes, DocumentKind::Contract, &settings);
    let errors = |schema: bool| {
        analysis
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error && d.code.is_schema_error() == schema)
            .count()
    };
    let (schema_errors, other_errors) = (errors(true), errors(false));
    let Some(graph) = graph_export::export(&analysis, &settings, args.findings) else {
        let why = analysis.diagnostics.first().map_or(String::new(), |d| {
            let at = analysis.line_index.position(
                &analysis.source,
                d.span.start,
                phaselint_lint::line_index::ColumnUnit::Chars,
            );
            format!(
                " ({} at {}:{}: {})",
                d.code,
                at.line + 1,
                at.column + 1,
                d.message
            )
        });
        return Err(format!(
            "{shown} cannot be read as a contract{why}, so it has no graph to draw"
        ));
    };
    if !analysis.is_context_contract() {
        return Err(format!(
            "{shown} is not a context contract (its root has none of schema_version, pipeline_id, phases, checkpoint_integrity), so it has no phase graph"
        ));
    }
    let shown = phaselint_render::terminal::inline(&shown);
    if schema_errors > 0 {
        eprintln!(
            "phaselint: warning: {shown} has {} in its format (`phaselint lint` lists them): the graph shows only what could be read",
            phaselint_render::plural(schema_errors, "error", "errors")
        );
    } else if other_errors > 0 && !args.findings {
        eprintln!(
            "phaselint: note: {shown} has {} (`--findings` draws them on the graph, `phaselint lint` explains them)",
            phaselint_render::plural(other_errors, "error", "errors")
        );
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = phaselint_render::graph::write(&graph, args.format.into(), &mut out)
        .and_then(|()| std::io::Write::flush(&mut out));
    crate::stdout::delivered(written).map_err(|e| format!("cannot write output: {e}"))
}
