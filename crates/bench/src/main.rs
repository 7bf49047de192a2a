//! `phaselint-bench`: generates contracts and measures phaselint against
//! the targets in BENCHMARKS.md. Not a timed test: it prints figures, it
//! never fails on them.
//!
//! ```text
//! phaselint-bench generate --phases N [--topology] [--seed S]
//! phaselint-bench parse-only FILE
//! phaselint-bench run [--sizes 100,1000,5000,13000] [--runs K] [--topology]
//!                     [--real PATH] [--phaselint PATH] [--tree-files N]
//! phaselint-bench lsp [--real PATH] [--phases N] [--phaselint PATH] [--workspace N]
//! phaselint-bench otel [--runs K] [--phaselint PATH] [--rotel PATH]
//! phaselint-bench diff [--phases N] [--runs K] [--topology] [--phaselint PATH]
//! phaselint-bench python PYTHON [ARGS...]
//! ```

mod figures;
mod flags;
mod otel;
mod process;
mod run;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use figures::{load_average, median, ms, ratio};
use flags::{USAGE, value};
use phaselint_bench::generate;
use phaselint_lint::config::Settings;
use phaselint_lint::syntax::{self, Limits};
use process::{TempDir, path_str, spawn_interleaved, statuses, write};
use run::run_command;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("generate") => generate_command(&args[1..]),
        Some("run") => run_command(&args[1..]),
        Some("parse-only") => parse_only_command(&args[1..]),
        Some("lsp") => lsp_command(&args[1..]),
        Some("otel") => otel::command(&args[1..]),
        Some("diff") => diff_command(&args[1..]),
        Some("python") => python_command(&args[1..]),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(format!("expected a subcommand\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("phaselint-bench: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `phaselint-bench python PYTHON [ARGS...]`: the Python API's benchmark,
/// a Python script because what it measures is Python calling phaselint.
fn python_command(args: &[String]) -> Result<(), String> {
    let Some((python, rest)) = args.split_first() else {
        return Err(format!(
            "python needs the interpreter to run with\n\n{USAGE}"
        ));
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python_api.py");
    let status = Command::new(python)
        .arg(&script)
        .args(rest)
        .status()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} exited with {status}", script.display()))
    }
}

fn generate_command(args: &[String]) -> Result<(), String> {
    let mut phases: Option<usize> = None;
    let mut topology = false;
    let mut seed: Option<u64> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--phases" => phases = Some(value(args, &mut i, "--phases")?),
            "--topology" => topology = true,
            "--seed" => seed = Some(value(args, &mut i, "--seed")?),
            other => return Err(format!("generate: unknown argument `{other}`\n\n{USAGE}")),
        }
        i += 1;
    }
    let phases = phases.ok_or("generate: --phases N is required")?;
    let text = match seed {
        Some(seed) => generate::contract_seeded(phases, topology, seed),
        None => generate::contract(phases, topology),
    };
    use std::io::Write as _;
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| format!("writing stdout: {e}"))
}

/// Reads and parses one file, as a process: what `phaselint lint` costs
/// at least, with the same process start, file read and memory faults.
fn parse_only_command(args: &[String]) -> Result<(), String> {
    let [file] = args else {
        return Err(format!("parse-only takes one FILE\n\n{USAGE}"));
    };
    let text = std::fs::read_to_string(file).map_err(|e| format!("reading {file}: {e}"))?;
    match syntax::parse(&text, Limits::default()) {
        Ok(tree) => {
            drop(std::hint::black_box(tree));
            Ok(())
        }
        Err(e) => Err(format!("{file}: {e:?}")),
    }
}

/// The language-server targets of BENCHMARKS.md: latency on a real contract and
/// on a generated one, against the parse time of the same text, and memory.
fn lsp_command(args: &[String]) -> Result<(), String> {
    let mut real = PathBuf::from("../shared/corpus/valid/artisan-pipeline.ed6cc63c.contract.yaml");
    let mut phaselint = PathBuf::from("target/release/phaselint");
    let mut phases = 5000;
    let mut workspace_files = 1000;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--real" => real = value(args, &mut i, "--real")?,
            "--phaselint" => phaselint = value(args, &mut i, "--phaselint")?,
            "--phases" => phases = value(args, &mut i, "--phases")?,
            "--workspace" => workspace_files = value(args, &mut i, "--workspace")?,
            other => return Err(format!("unknown option {other}\n\n{USAGE}")),
        }
        i += 1;
    }
    println!(
        "| document | lines | edits | p50 | p95 | parse alone (in process, after each edit) | latency / parse (median of pairs) | server RSS after | server peak RSS |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut documents = Vec::new();
    match std::fs::read_to_string(&real) {
        Ok(text) => documents.push((format!("real contract ({})", real.display()), text, 200)),
        Err(e) => eprintln!(
            "phaselint-bench: skipping the real contract: {}: {e}",
            real.display()
        ),
    }
    documents.push((
        format!("generated, {phases} phases"),
        generate::contract(phases, false),
        20,
    ));
    let mut opening = Vec::new();
    for (label, text, edits) in documents {
        eprintln!("phaselint-bench: lsp: {label}, {edits} edits");
        let figures = phaselint_bench::lsp::measure(&phaselint, &text, edits, || {
            let started = Instant::now();
            drop(std::hint::black_box(syntax::parse(
                &text,
                Limits::default(),
            )));
            started.elapsed()
        })?;
        let kib = |k: Option<u64>| {
            k.map_or_else(
                || "n/a".to_string(),
                |k| format!("{:.1} MiB", k as f64 / 1024.0),
            )
        };
        println!(
            "| {label} | {} | {} | {} | {} | {} | {:.2}x | {} | {} |",
            text.lines().count(),
            figures.edits,
            ms(figures.p50),
            ms(figures.p95),
            ms(figures.reference),
            figures.ratio,
            kib(figures.rss_kib),
            kib(figures.peak_rss_kib),
        );
        // The analysis the server runs on open, alone and in this process.
        let mut analyses: Vec<Duration> = (0..figures.opens)
            .map(|_| {
                let started = Instant::now();
                drop(std::hint::black_box(phaselint_lint::analyze(
                    &text,
                    &Settings::default(),
                )));
                started.elapsed()
            })
            .collect();
        analyses.sort();
        opening.push((
            label,
            figures.opens,
            figures.open_p50,
            analyses[analyses.len() / 2],
        ));
    }
    println!();
    println!(
        "| document | opens | didOpen → diagnostics (p50, client-side) | analysis alone (p50, in process) | difference |"
    );
    println!("|---|---|---|---|---|");
    for (label, opens, open, analysis) in opening {
        println!(
            "| {label} | {opens} | {} | {} | {} |",
            ms(open),
            ms(analysis),
            ms(open.saturating_sub(analysis))
        );
    }
    if workspace_files > 0 {
        match std::fs::read_to_string(&real) {
            Ok(text) => lsp_workspace(&phaselint, &text, workspace_files)?,
            Err(e) => eprintln!(
                "phaselint-bench: skipping the workspace: {}: {e}",
                real.display()
            ),
        }
    }
    Ok(())
}

/// The real contract opened in a workspace of `files` copies of it, each
/// with its first phase renamed so that the last one's name says the
/// index is complete.
fn lsp_workspace(phaselint: &Path, text: &str, files: usize) -> Result<(), String> {
    let dir = TempDir::new("lsp-workspace")?;
    let phase = text
        .split_once("\nphases:\n")
        .and_then(|(_, rest)| {
            rest.lines()
                .find(|l| l.starts_with("  ") && !l.trim_start().starts_with('#'))
        })
        .and_then(|l| l.trim().strip_suffix(':'))
        .ok_or("the real contract has no phase to rename")?
        .to_string();
    for i in 0..files {
        let copy = text.replacen(&format!("  {phase}:"), &format!("  ws{i:05}_{phase}:"), 1);
        write(&dir.0.join(format!("c{i:05}.contract.yaml")), &copy)?;
    }
    let open = dir.0.join("open.contract.yaml");
    let last = format!("ws{:05}_{phase}", files - 1);
    let rounds = 5;
    eprintln!("phaselint-bench: lsp: a workspace of {files} contracts, {rounds} rounds");
    let figures =
        phaselint_bench::lsp::measure_workspace(phaselint, &dir.0, &open, text, &last, rounds)?;
    let kib = |k: Option<u64>| {
        k.map_or_else(
            || "n/a".to_string(),
            |k| format!("{:.1} MiB", k as f64 / 1024.0),
        )
    };
    println!();
    println!(
        "| workspace | rounds | didOpen → first diagnostics, no workspace (p50) | with the workspace (p50) | whole workspace indexed (p50, from `initialized`) | server RSS once indexed | server peak RSS |"
    );
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {files} copies of the real contract | {} | {} | {} | {} | {} | {} |",
        figures.rounds,
        ms(figures.without_workspace_p50),
        ms(figures.with_workspace_p50),
        ms(figures.indexed_p50),
        kib(figures.rss_kib),
        kib(figures.peak_rss_kib),
    );
    Ok(())
}

/// Issue 23's target: diffing two generated contracts costs at most 2.5x
/// linting one of them. Each round lints OLD and diffs OLD with each NEW,
/// alternately, so every figure sees the same conditions.
fn diff_command(args: &[String]) -> Result<(), String> {
    let mut phases = 5000;
    let mut runs = 7;
    let mut topology = false;
    let mut phaselint = PathBuf::from("target/release/phaselint");
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--phases" => phases = value(args, &mut i, "--phases")?,
            "--runs" => runs = value::<usize>(args, &mut i, "--runs")?.max(1),
            "--topology" => topology = true,
            "--phaselint" => phaselint = value(args, &mut i, "--phaselint")?,
            other => return Err(format!("diff: unknown argument `{other}`\n\n{USAGE}")),
        }
        i += 1;
    }
    let old = generate::contract(phases, topology);
    let news = [
        ("OLD itself", old.clone()),
        (
            "every checkpoint renamed",
            old.replace("checkpoint_id: after_", "checkpoint_id: renamed_after_"),
        ),
        (
            "another seed",
            generate::contract_seeded(phases, topology, 0x0d1f_f5ee_d000_0002),
        ),
    ];
    let settings = Settings::default();
    // As `phaselint diff` reads the two contracts.
    let diff_once = |new: &str| {
        let old = phaselint_lint::analyze_contract_for_resume(old.as_bytes(), &settings);
        let new = phaselint_lint::analyze_contract_for_resume(new.as_bytes(), &settings);
        phaselint_lint::diff::diff(&old, &new).map(|findings| findings.len())
    };
    let mut lint = Vec::with_capacity(runs);
    let mut diffs: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); news.len()];
    // The comparison alone, once both analyses are made (and their
    // resume facts read, as the first diff reads them).
    let old_analysis = phaselint_lint::analyze_contract_for_resume(old.as_bytes(), &settings);
    let new_analyses: Vec<_> = news
        .iter()
        .map(|(_, new)| phaselint_lint::analyze_contract_for_resume(new.as_bytes(), &settings))
        .collect();
    let mut alone: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); news.len()];
    let mut found = vec![String::new(); news.len()];
    for round in 0..runs {
        eprintln!("phaselint-bench: diff: round {}/{runs}", round + 1);
        let start = Instant::now();
        drop(std::hint::black_box(phaselint_lint::analyze(
            &old, &settings,
        )));
        lint.push(start.elapsed());
        for (k, (_, new)) in news.iter().enumerate() {
            let start = Instant::now();
            let result = std::hint::black_box(diff_once(new));
            diffs[k].push(start.elapsed());
            let start = Instant::now();
            drop(std::hint::black_box(phaselint_lint::diff::diff(
                &old_analysis,
                &new_analyses[k],
            )));
            alone[k].push(start.elapsed());
            found[k] = match result {
                Ok(n) => format!("{n} findings"),
                Err(e) => format!("no diff: {e}"),
            };
        }
    }
    let lint = median(lint);
    println!(
        "Generated contracts of {phases} phases{} ({} lines); medians of {runs} rounds.\n",
        if topology { " with graph_topology" } else { "" },
        old.lines().count()
    );
    println!(
        "| NEW | findings | lint OLD (in process) | diff OLD NEW (in process) | diff / lint | the comparison alone (analyses made) |"
    );
    println!("|---|---|---|---|---|---|");
    for (k, (label, _)) in news.iter().enumerate() {
        let diff = median(std::mem::take(&mut diffs[k]));
        println!(
            "| {label} | {} | {} | {} | {:.2}x | {} |",
            found[k],
            ms(lint),
            ms(diff),
            ratio(diff, lint),
            ms(median(std::mem::take(&mut alone[k])))
        );
    }
    if !phaselint.exists() {
        eprintln!(
            "phaselint-bench: diff: {} not found, whole processes left out",
            phaselint.display()
        );
        return Ok(());
    }
    let dir = std::env::temp_dir().join(format!("phaselint-bench-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let old_path = dir.join("old.contract.yaml");
    write(&old_path, &old)?;
    println!();
    println!(
        "| NEW | `phaselint lint OLD` (median) | `phaselint diff OLD NEW` (median) | diff / lint (median of pairs) | exit codes (lint; diff) |"
    );
    println!("|---|---|---|---|---|");
    for (k, (label, new)) in news.iter().enumerate() {
        let new_path = dir.join(format!("new{k}.contract.yaml"));
        write(&new_path, new)?;
        let (old_str, new_str) = (path_str(&old_path)?, path_str(&new_path)?);
        let lint_args = ["lint", "--format", "concise", old_str];
        let diff_args = ["diff", "--format", "concise", old_str, new_str];
        let (diff, lint, pair_ratio) =
            spawn_interleaved((&phaselint, &diff_args), (&phaselint, &lint_args), runs)?;
        println!(
            "| {label} | {} | {} | {pair_ratio:.2}x | {}; {} |",
            ms(lint.median),
            ms(diff.median),
            statuses(&lint.statuses),
            statuses(&diff.statuses)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("\n*Load average at end: {}.*", load_average());
    Ok(())
}
