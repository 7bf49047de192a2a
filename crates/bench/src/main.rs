//! `phaselint-bench`: generates contracts and measures phaselint against
//! the targets in BENCHMARKS.md. Not a timed test: it prints figures, it
//! never fails on them.
//!
//! ```text
//! phaselint-bench generate --phases N [--topology] [--seed S]
//! phaselint-bench parse-only FILE
//! phaselint-bench run [--sizes 100,1000,5000] [--runs K] [--topology]
//!                     [--real PATH] [--phaselint PATH] [--tree-files N]
//! phaselint-bench lsp [--real PATH] [--phases N] [--phaselint PATH] [--workspace N]
//! phaselint-bench otel [--runs K] [--phaselint PATH] [--rotel PATH]
//! phaselint-bench diff [--phases N] [--runs K] [--topology] [--phaselint PATH]
//! phaselint-bench python PYTHON [ARGS...]
//! ```

mod otel;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use phaselint_bench::generate;
use phaselint_lint::config::Settings;
use phaselint_lint::diagnostic::Severity;
use phaselint_lint::graph::PhaseGraph;
use phaselint_lint::line_index::LineIndex;
use phaselint_lint::rules::{RULES, RuleContext};
use phaselint_lint::syntax::{self, Limits};

const USAGE: &str = "\
usage:
  phaselint-bench generate --phases N [--topology] [--seed S]
      print a generated contract on stdout
  phaselint-bench run [--sizes 100,1000,5000] [--runs K] [--topology]
                      [--real PATH] [--phaselint PATH] [--tree-files N]
      measure and print a Markdown report on stdout (progress on stderr)
  phaselint-bench parse-only FILE
      read and parse FILE, nothing else (the whole-process parse floor)
  phaselint-bench lsp [--real PATH] [--phases N] [--phaselint PATH] [--workspace N]
      edit-to-diagnostics latency (p50/p95) and server memory of
      `phaselint lsp` on the real contract and a generated N-phase one
      (default 5000); then the real contract's first diagnostics when it
      is opened with a workspace of N copies of it (default 1000; 0 skips
      it), against no workspace, and how long indexing that workspace takes
  phaselint-bench otel [--runs K] [--phaselint PATH] [--rotel PATH]
      whole-process `resume-check` with no OTLP endpoint, a refused one and
      a live rotel collector (ROTEL or --rotel; left out when absent), side
      by side (default 50 rounds)
  phaselint-bench diff [--phases N] [--runs K] [--topology] [--phaselint PATH]
      `phaselint diff OLD NEW` of two generated N-phase contracts (default
      5000) against linting one of them, side by side in one run: in process
      (analysis of both and the diff, against one analysis) and, when the
      binary exists, as whole processes; for three NEWs: OLD itself, OLD with
      every checkpoint renamed (the rename matching's worst case) and a
      contract generated from another seed (default 7 rounds)
  phaselint-bench python PYTHON [ARGS...]
      the Python API's figures (`import phaselint`, resume_check in process
      against the command as a subprocess): runs crates/bench/python_api.py
      with PYTHON, the interpreter of a virtual environment that holds the
      wheel (`python_api.py --help` lists ARGS)

run options:
  --sizes       generated contract sizes in phases (default 100,1000,5000)
  --runs        runs per in-process measurement of the large sizes and
                spawns of the largest file (default 7; small inputs get more)
  --topology    generate the sizes with a graph_topology (diamonds)
  --real        a real contract (default
                ../shared/corpus/valid/artisan-pipeline.ed6cc63c.contract.yaml)
  --phaselint   the phaselint binary (default target/release/phaselint)
  --tree-files  files in the generated tree (default 10000; 0 skips it)
";

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

/// A flag's value, parsed.
fn value<T: std::str::FromStr>(args: &[String], i: &mut usize, flag: &str) -> Result<T, String> {
    *i += 1;
    let text = args
        .get(*i)
        .ok_or_else(|| format!("{flag} needs a value"))?;
    text.parse()
        .map_err(|_| format!("{flag}: `{text}` is not a valid value"))
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

struct RunOptions {
    sizes: Vec<usize>,
    runs: usize,
    topology: bool,
    real: PathBuf,
    phaselint: PathBuf,
    tree_files: usize,
}

fn run_command(args: &[String]) -> Result<(), String> {
    let mut options = RunOptions {
        sizes: vec![100, 1000, 5000],
        runs: 7,
        topology: false,
        real: PathBuf::from("../shared/corpus/valid/artisan-pipeline.ed6cc63c.contract.yaml"),
        phaselint: PathBuf::from("target/release/phaselint"),
        tree_files: 10_000,
    };
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--sizes" => {
                let text: String = value(args, &mut i, "--sizes")?;
                options.sizes = text
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .parse()
                            .map_err(|_| format!("--sizes: `{s}` is not a number"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--runs" => options.runs = value::<usize>(args, &mut i, "--runs")?.max(1),
            "--topology" => options.topology = true,
            "--real" => options.real = PathBuf::from(value::<String>(args, &mut i, "--real")?),
            "--phaselint" => {
                options.phaselint = PathBuf::from(value::<String>(args, &mut i, "--phaselint")?);
            }
            "--tree-files" => options.tree_files = value(args, &mut i, "--tree-files")?,
            other => return Err(format!("run: unknown argument `{other}`\n\n{USAGE}")),
        }
        i += 1;
    }
    run(&options)
}

// ---------------------------------------------------------------- timing --

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

/// Runs `f` `runs` times and returns the median.
fn time_median<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let samples = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .collect();
    median(samples)
}

/// Parse and analyze medians, interleaved so both see the same conditions.
fn parse_and_analyze(text: &str, runs: usize) -> (Duration, Duration) {
    let settings = Settings::default();
    let mut parse = Vec::with_capacity(runs);
    let mut analyze = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let tree = syntax::parse(text, Limits::default());
        parse.push(start.elapsed());
        drop(std::hint::black_box(tree));
        let start = Instant::now();
        let analysis = phaselint_lint::analyze(text, &settings);
        analyze.push(start.elapsed());
        drop(std::hint::black_box(analysis));
    }
    (median(parse), median(analyze))
}

/// Runs for an input: at least `runs`, more for small inputs (noisier).
fn runs_for(bytes: usize, runs: usize) -> usize {
    match bytes {
        0..=100_000 => runs.max(200),
        100_001..=1_000_000 => runs.max(30),
        _ => runs,
    }
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", d.as_secs_f64())
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-12)
}

fn mb_per_s(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64().max(1e-12)
}

fn findings(text: &str) -> String {
    let analysis = phaselint_lint::analyze(text, &Settings::default());
    let count = |s: Severity| {
        analysis
            .diagnostics
            .iter()
            .filter(|d| d.severity == s)
            .count()
    };
    format!(
        "{} / {} / {}",
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info)
    )
}

// ------------------------------------------------------------- processes --

/// Children's CPU time so far (user + system of reaped children), from
/// /proc/self/stat; `None` where that file is not readable.
fn children_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 16 and 17 of proc(5) (cutime, cstime); `rest` starts at field 3.
    let cutime: u64 = fields.get(13)?.parse().ok()?;
    let cstime: u64 = fields.get(14)?.parse().ok()?;
    let ticks = clock_ticks();
    Some(Duration::from_secs_f64((cutime + cstime) as f64 / ticks))
}

fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

struct Spawned {
    wall: Duration,
    cpu: Option<Duration>,
    status: Option<i32>,
}

/// One run of `program args`, output discarded.
fn spawn(program: &Path, args: &[&str]) -> Result<Spawned, String> {
    let cpu_before = children_cpu();
    let start = Instant::now();
    let status = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("running {}: {e}", program.display()))?;
    let wall = start.elapsed();
    let cpu = match (cpu_before, children_cpu()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    Ok(Spawned {
        wall,
        cpu,
        status: status.code(),
    })
}

struct ProcessFigures {
    median: Duration,
    min: Duration,
    cpu_median: Option<Duration>,
    statuses: Vec<i32>,
}

fn spawn_median(program: &Path, args: &[&str], runs: usize) -> Result<ProcessFigures, String> {
    let runs = (0..runs)
        .map(|_| spawn(program, args))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(figures(runs))
}

/// `a` and `b` run alternately `runs` times each: their figures, and the
/// median over the pairs of a's time over b's.
fn spawn_interleaved(
    a: (&Path, &[&str]),
    b: (&Path, &[&str]),
    runs: usize,
) -> Result<(ProcessFigures, ProcessFigures, f64), String> {
    let (mut first, mut second, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let x = spawn(a.0, a.1)?;
        let y = spawn(b.0, b.1)?;
        ratios.push(ratio(x.wall, y.wall));
        first.push(x);
        second.push(y);
    }
    ratios.sort_by(f64::total_cmp);
    let pair_ratio = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
    Ok((figures(first), figures(second), pair_ratio))
}

fn figures(runs: Vec<Spawned>) -> ProcessFigures {
    let mut statuses: Vec<i32> = Vec::new();
    for run in &runs {
        let code = run.status.unwrap_or(-1);
        if !statuses.contains(&code) {
            statuses.push(code);
        }
    }
    let walls: Vec<Duration> = runs.iter().map(|r| r.wall).collect();
    let cpus: Vec<Duration> = runs.iter().filter_map(|r| r.cpu).collect();
    ProcessFigures {
        min: walls.iter().copied().min().unwrap_or_default(),
        median: median(walls),
        cpu_median: (!cpus.is_empty()).then(|| median(cpus)),
        statuses,
    }
}

/// Peak resident set size of one run, in KiB: from `/usr/bin/time -v` when
/// present, else by polling /proc/<pid>/status for VmHWM.
fn peak_rss_kib(program: &Path, args: &[&str]) -> Result<(u64, &'static str), String> {
    let time = Path::new("/usr/bin/time");
    if time.exists() {
        let output = Command::new(time)
            .arg("-v")
            .arg(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("running /usr/bin/time: {e}"))?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if let Some(kib) = stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
            .and_then(|v| v.trim().parse().ok())
        {
            return Ok((kib, "/usr/bin/time -v"));
        }
    }
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("running {}: {e}", program.display()))?;
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_path)
            && let Some(kib) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        {
            peak = peak.max(kib);
        }
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => return Err(format!("waiting for {}: {e}", program.display())),
        }
    }
    if peak == 0 {
        return Err("neither /usr/bin/time nor /proc/<pid>/status gave a figure".to_string());
    }
    Ok((peak, "VmHWM polled from /proc/<pid>/status"))
}

/// A scratch directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> Result<TempDir, String> {
        let path =
            std::env::temp_dir().join(format!("phaselint-bench-{label}-{}", std::process::id()));
        if path.exists() {
            std::fs::remove_dir_all(&path)
                .map_err(|e| format!("clearing {}: {e}", path.display()))?;
        }
        std::fs::create_dir_all(&path).map_err(|e| format!("creating {}: {e}", path.display()))?;
        Ok(TempDir(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.0) {
            eprintln!(
                "phaselint-bench: could not remove {}: {e}",
                self.0.display()
            );
        }
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

fn path_str(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| format!("{} is not UTF-8", path.display()))
}

fn statuses(s: &[i32]) -> String {
    s.iter().map(i32::to_string).collect::<Vec<_>>().join(",")
}

// ------------------------------------------------------------------- run --

fn run(options: &RunOptions) -> Result<(), String> {
    let mut out = String::new();
    macro_rules! emit {
        ($($arg:tt)*) => {{ out.push_str(&format!($($arg)*)); out.push('\n'); }};
    }
    let progress = |what: &str| eprintln!("phaselint-bench: {what}");

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    emit!(
        "*{cores} cores; load average at start: {}.*\n",
        load_average()
    );

    // 1. Generated contracts, in process.
    emit!(
        "### Generated contracts, in process ({})\n",
        if options.topology {
            "with graph_topology"
        } else {
            "declaration order"
        }
    );
    emit!(
        "| phases | bytes | lines | findings E / W / I | parse (median) | parse MB/s | analyze (median) | analyze / parse | runs |"
    );
    emit!("|---:|---:|---:|:---:|---:|---:|---:|---:|---:|");
    let mut timings: Vec<(usize, Duration, Duration)> = Vec::new();
    let mut largest: Option<(usize, String)> = None;
    for &phases in &options.sizes {
        progress(&format!("generating and timing {phases} phases"));
        let text = generate::contract(phases, options.topology);
        let runs = runs_for(text.len(), options.runs);
        let (parse, analyze) = parse_and_analyze(&text, runs);
        emit!(
            "| {phases} | {} | {} | {} | {} | {:.1} | {} | {:.2}x | {runs} |",
            text.len(),
            text.lines().count(),
            findings(&text),
            ms(parse),
            mb_per_s(text.len(), parse),
            ms(analyze),
            ratio(analyze, parse),
        );
        timings.push((phases, parse, analyze));
        if largest.as_ref().is_none_or(|(n, _)| phases > *n) {
            largest = Some((phases, text));
        }
    }
    let at = |n: usize| timings.iter().find(|t| t.0 == n);
    if let (Some(t1), Some(t5)) = (at(1000), at(5000)) {
        emit!(
            "\nGrowth 1,000 -> 5,000 phases: analyze t5000/t1000 = **{:.2}** (parse alone: {:.2}; linear would be 5).",
            ratio(t5.2, t1.2),
            ratio(t5.1, t1.1)
        );
    }

    // 2. Where the time goes, for the largest size.
    if let Some((phases, text)) = &largest {
        progress(&format!("stage breakdown for {phases} phases"));
        let runs = options.runs.min(5);
        emit!("\n### Where the time goes ({phases} phases, median of {runs} runs per stage)\n");
        emit!("{}", stages(text, runs)?);
    }

    let binary = options.phaselint.exists().then_some(&options.phaselint);
    if binary.is_none() {
        emit!(
            "\n*Whole-process figures skipped: {} not found (build it with `cargo build --release -p phaselint-cli`).*",
            options.phaselint.display()
        );
    }

    // 3. The real contract.
    emit!("\n### A real contract\n");
    match std::fs::read_to_string(&options.real) {
        Err(e) => emit!("*Skipped: cannot read {} ({e}).*", options.real.display()),
        Ok(text) => {
            progress("timing the real contract");
            let runs = runs_for(text.len(), options.runs);
            let (parse, analyze) = parse_and_analyze(&text, runs);
            emit!(
                "`{}`: {} bytes, {} lines, findings E / W / I: {}.\n",
                options.real.display(),
                text.len(),
                text.lines().count(),
                findings(&text)
            );
            emit!("| what | median | runs |");
            emit!("|---|---:|---:|");
            emit!("| parse only, in process | {} | {runs} |", ms(parse));
            emit!("| analyze, in process | {} | {runs} |", ms(analyze));
            if let Some(binary) = binary {
                let file = path_str(&options.real)?;
                let version = spawn_median(binary, &["--version"], 30)?;
                let lint = spawn_median(binary, &["lint", "--format", "concise", file], 30)?;
                emit!(
                    "| `phaselint --version`, whole process (spawn floor) | {} | 30 |",
                    ms(version.median)
                );
                emit!(
                    "| `phaselint lint --format concise FILE`, whole process | **{}** (min {}, exit {}) | 30 |",
                    ms(lint.median),
                    ms(lint.min),
                    statuses(&lint.statuses)
                );
                match peak_rss_kib(binary, &["lint", "--format", "concise", file]) {
                    Ok((kib, how)) => emit!(
                        "| peak RSS of that process ({how}) | {:.1} MiB | 1 |",
                        kib as f64 / 1024.0
                    ),
                    Err(e) => emit!("| peak RSS | not measured: {e} | |"),
                }
            }
            emit!("\nWhere the in-process time goes (median of {runs} runs per stage):\n");
            emit!("{}", stages(&text, runs)?);
        }
    }

    // 4. The largest generated contract, whole process.
    if let (Some(binary), Some((phases, text))) = (binary, &largest) {
        progress(&format!("whole-process lint of {phases} phases"));
        emit!("\n### {phases}-phase generated contract, whole process\n");
        let dir = TempDir::new("large")?;
        let file = dir.0.join(format!("generated-{phases}.contract.yaml"));
        write(&file, text)?;
        let file_arg = path_str(&file)?;
        let runs = options.runs.max(9);
        let parse_same = at(*phases).map(|t| t.1).unwrap_or_default();
        let me = std::env::current_exe().map_err(|e| format!("locating phaselint-bench: {e}"))?;
        // Interleaved, so both see the same machine: on a shared VM the
        // speed drifts by tens of percent within a minute.
        let (lint, floor, pair_ratio) = spawn_interleaved(
            (binary, &["lint", "--format", "concise", file_arg]),
            (&me, &["parse-only", file_arg]),
            runs,
        )?;
        emit!("| what | figure |");
        emit!("|---|---:|");
        emit!(
            "| `phaselint lint --format concise FILE` (median of {runs}) | **{}** (min {}, exit {}) |",
            ms(lint.median),
            ms(lint.min),
            statuses(&lint.statuses)
        );
        emit!(
            "| parse only, same file, whole process (`phaselint-bench parse-only FILE`, median of {runs}, each run right after a lint run) | {} (min {}) |",
            ms(floor.median),
            ms(floor.min)
        );
        emit!(
            "| whole process / whole-process parse, median of the {runs} pairs | **{pair_ratio:.2}x** |"
        );
        emit!(
            "| parse only, same bytes, in process (from the table above) | {} |",
            ms(parse_same)
        );
        emit!(
            "| whole process / in-process parse | {:.2}x |",
            ratio(lint.median, parse_same)
        );
        match peak_rss_kib(binary, &["lint", "--format", "concise", file_arg]) {
            Ok((kib, how)) => emit!("| peak RSS ({how}) | {:.1} MiB |", kib as f64 / 1024.0),
            Err(e) => emit!("| peak RSS | not measured: {e} |"),
        }
    }

    // 5. A tree of real-size contracts.
    if let (Some(binary), true) = (binary, options.tree_files > 0) {
        let files = options.tree_files;
        progress(&format!("writing a tree of {files} contracts"));
        let dir = TempDir::new("tree")?;
        let mut bytes = 0usize;
        let mut lines = 0usize;
        for i in 0..files {
            let sub = dir.0.join(format!("team-{:03}", i / 100));
            if i % 100 == 0 {
                std::fs::create_dir_all(&sub)
                    .map_err(|e| format!("creating {}: {e}", sub.display()))?;
            }
            let text = generate::contract_seeded(TREE_PHASES, false, i as u64 + 1);
            bytes += text.len();
            lines += text.lines().count();
            write(&sub.join(format!("pipeline-{i:05}.contract.yaml")), &text)?;
        }
        progress("timing the tree");
        let dir_arg = path_str(&dir.0)?;
        let args = ["lint", "--format", "concise", dir_arg];
        // One untimed run warms the page cache the same way for every timed run.
        spawn(binary, &args)?;
        let lint = spawn_median(binary, &args, 3)?;
        emit!("\n### A tree of {files} real-size contracts, whole process\n");
        emit!(
            "{files} files of {TREE_PHASES} generated phases each (one seed per file): {:.1} MB, {} lines on average per file.\n",
            bytes as f64 / 1e6,
            lines / files
        );
        emit!("| what | figure |");
        emit!("|---|---:|");
        emit!(
            "| `phaselint lint --format concise DIR` (median of 3) | **{}** (exit {}) |",
            ms(lint.median),
            statuses(&lint.statuses)
        );
        emit!(
            "| files per second | **{:.0}** |",
            files as f64 / lint.median.as_secs_f64().max(1e-12)
        );
        if let Some(cpu) = lint.cpu_median {
            emit!(
                "| CPU time (user + sys) / wall time | {:.2} cores of {cores} |",
                ratio(cpu, lint.median)
            );
        }
        match peak_rss_kib(binary, &args) {
            Ok((kib, how)) => emit!("| peak RSS ({how}) | {:.1} MiB |", kib as f64 / 1024.0),
            Err(e) => emit!("| peak RSS | not measured: {e} |"),
        }
        progress("removing the tree");
    }

    emit!("\n*Load average at end: {}.*", load_average());
    print!("{out}");
    Ok(())
}

/// The 1, 5 and 15 minute load averages, to show whether something else ran.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_string())
}

/// Phases per file in the tree: about 700 lines, like the real contracts.
const TREE_PHASES: usize = 10;

/// A breakdown of `analyze` by stage (medians of `runs`), with every rule
/// timed alone. The schema walk is not public, so it is the remainder.
fn stages(text: &str, runs: usize) -> Result<String, String> {
    let settings = Settings::default();
    let total = time_median(runs, || phaselint_lint::analyze(text, &settings));
    let analysis = phaselint_lint::analyze(text, &settings);
    let line_index = time_median(runs, || LineIndex::new(text));
    let parse = time_median(runs, || syntax::parse(text, Limits::default()));
    let contract = analysis
        .shared_contract()
        .cloned()
        .ok_or("the generated contract did not load")?;
    // The field analyses run on first use; time them with the graph, so
    // the rules below are timed on answers already there.
    let build = || {
        let graph = PhaseGraph::build(contract.clone());
        let _ = graph.entry_presence(0);
        let _ = graph.exit_read_later(0);
        graph
    };
    let graph_time = time_median(runs, build);
    let graph = build();
    let context = RuleContext::new(text, &contract, &graph, &settings);
    let lines = LineIndex::new(text);
    let mut rule_times: Vec<(&str, Duration)> = RULES
        .iter()
        .filter_map(|rule| {
            let Some(phaselint_lint::rules::Check::Contract(check)) = rule.check else {
                return None;
            };
            let time = time_median(runs, || {
                let mut found = phaselint_lint::findings::Findings::new(text, &lines, &settings);
                check(&context, &mut found);
                found.finish()
            });
            Some((rule.code.as_str(), time))
        })
        .collect();
    let rules_total: Duration = rule_times.iter().map(|r| r.1).sum();
    rule_times.sort_by_key(|r| std::cmp::Reverse(r.1));
    let rest = total.saturating_sub(line_index + parse + graph_time + rules_total);

    let mut s = String::new();
    let mut row = |what: &str, d: Duration| {
        s.push_str(&format!(
            "| {what} | {} | {:.0}% |\n",
            ms(d),
            100.0 * ratio(d, total)
        ));
    };
    row("**analyze, total**", total);
    row("line index", line_index);
    row("YAML parse (syntax::parse)", parse);
    row(
        "graph and field analyses (PhaseGraph::build, availability, liveness)",
        graph_time,
    );
    row("rules (all model-level checks)", rules_total);
    for (code, d) in rule_times.iter().take(5) {
        row(&format!("&nbsp;&nbsp;rule {code}"), *d);
    }
    row(
        "remainder: schema walk, copy, filter, suppressions, sort",
        rest,
    );
    Ok(format!("| stage | time | share |\n|---|---:|---:|\n{s}"))
}
