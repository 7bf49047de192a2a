//! `phaselint-bench run`: lint timings by contract size, in process and
//! as a process, over a tree of files, and the breakdown by stage.

use std::path::PathBuf;
use std::time::Duration;

use phaselint_bench::generate;
use phaselint_lint::config::Settings;
use phaselint_lint::graph::PhaseGraph;
use phaselint_lint::line_index::LineIndex;
use phaselint_lint::rules::{Check, RULES, Rule, RuleContext};
use phaselint_lint::syntax::{self, Limits};

use crate::figures::{
    findings, growth, load_average, mb_per_s, ms, parse_and_analyze, ratio, runs_for, time_median,
    time_median_after,
};
use crate::flags::{USAGE, value};
use crate::process::{
    TempDir, path_str, peak_rss_kib, spawn, spawn_interleaved, spawn_median, statuses, write,
};

pub(crate) struct RunOptions {
    sizes: Vec<usize>,
    runs: usize,
    topology: bool,
    real: PathBuf,
    phaselint: PathBuf,
    tree_files: usize,
}

pub(crate) fn run_command(args: &[String]) -> Result<(), String> {
    let mut options = RunOptions {
        sizes: vec![100, 1000, 5000, 13_000],
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

pub(crate) fn run(options: &RunOptions) -> Result<(), String> {
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
        // The whole-process figures and the breakdown take the size the
        // targets name (5,000 phases), or the largest below it; larger
        // sizes only show the growth.
        let fits = phases <= TARGET_PHASES || largest.is_none();
        if fits && largest.as_ref().is_none_or(|(n, _)| phases > *n) {
            largest = Some((phases, text));
        }
    }
    // Growth between each size of 1,000 phases or more and the next.
    let mut grown: Vec<&(usize, Duration, Duration)> =
        timings.iter().filter(|t| t.0 >= 1000).collect();
    grown.sort_by_key(|t| t.0);
    for pair in grown.windows(2) {
        let (small, large) = (pair[0].0, pair[1].0);
        progress(&format!("timing {small} and {large} phases side by side"));
        let small_text = generate::contract(small, options.topology);
        let large_text = generate::contract(large, options.topology);
        let runs = runs_for(large_text.len(), options.runs);
        let (analyze, parse) = growth(&small_text, &large_text, runs);
        emit!(
            "\nGrowth {small} -> {large} phases: analyze t{large}/t{small} = **{analyze:.2}** (parse alone: {parse:.2}; linear would be {:.2}; median of {runs} rounds, each timing both sizes back to back).",
            large as f64 / small as f64
        );
    }
    let at = |n: usize| timings.iter().find(|t| t.0 == n);

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

/// The contract size SPEC §8's targets name; the whole-process figures and
/// the breakdown take it (or the largest size below it). A generated
/// contract of 14,000 phases or more is over the 32 MiB input bound.
const TARGET_PHASES: usize = 5000;

/// Phases per file in the tree: about 700 lines, like the real contracts.
pub(crate) const TREE_PHASES: usize = 10;

/// A breakdown of `analyze` by stage (medians of `runs`): the default
/// rules and `--select ALL` apart, each shared analysis with the rules that
/// need it, every rule timed alone. The schema walk is not public, so it is
/// in the remainder.
pub(crate) fn stages(text: &str, runs: usize) -> Result<String, String> {
    let default = Settings::default();
    let all = Settings::all_rules();
    let total = time_median(runs, || phaselint_lint::analyze(text, &default));
    let total_all = time_median(runs, || phaselint_lint::analyze(text, &all));
    let analysis = phaselint_lint::analyze(text, &default);
    let line_index = time_median(runs, || LineIndex::new(text));
    let parse = time_median(runs, || syntax::parse(text, Limits::default()));
    let contract = analysis
        .shared_contract()
        .cloned()
        .ok_or("the generated contract did not load")?;
    let build = || PhaseGraph::build(contract.clone());
    let structure = time_median(runs, build);
    // The field analyses run on first use, each timed on a fresh graph.
    let availability = time_median_after(runs, build, |graph| graph.entry_presence(0).len());
    let liveness = time_median_after(runs, build, |graph| graph.exit_read_later(0).len());
    let graph = build();
    let _ = (graph.entry_presence(0), graph.exit_read_later(0));
    let lines = LineIndex::new(text);
    let run_rules = |context: &RuleContext<'_>, rules: &[&Rule]| {
        let mut found = phaselint_lint::findings::Findings::new(text, &lines, &default);
        for rule in rules {
            if let Some(Check::Contract(check)) = rule.check {
                check(context, &mut found);
            }
        }
        found.finish()
    };
    let (on, off): (Vec<&Rule>, Vec<&Rule>) = RULES
        .iter()
        .copied()
        .filter(|rule| matches!(rule.check, Some(Check::Contract(_))))
        .partition(|rule| rule.default_enabled);
    // The rules on by default together, each run on a fresh context, so
    // the lookups they share (built on first use) are counted once.
    let on_together = time_median(runs, || {
        run_rules(&RuleContext::new(text, &contract, &graph, &default), &on)
    });
    let context = RuleContext::new(text, &contract, &graph, &default);
    let _ = run_rules(&context, &on);
    let mut rule_times: Vec<(&Rule, Duration)> = on
        .iter()
        .chain(&off)
        .map(|&rule| (rule, time_median(runs, || run_rules(&context, &[rule]))))
        .collect();
    rule_times.sort_by_key(|r| std::cmp::Reverse(r.1));
    let off_alone: Duration = rule_times
        .iter()
        .filter(|(rule, _)| !rule.default_enabled)
        .map(|r| r.1)
        .sum();
    let rest = total.saturating_sub(line_index + parse + structure + availability + on_together);

    let mut s = String::new();
    let mut row = |what: &str, d: Duration| {
        s.push_str(&format!(
            "| {what} | {} | {:.0}% |\n",
            ms(d),
            100.0 * ratio(d, total)
        ));
    };
    row("**analyze, default rules, total**", total);
    row("line index", line_index);
    row("YAML parse (syntax::parse)", parse);
    row("phase graph structure (PhaseGraph::build)", structure);
    row("availability (G303; on by default)", availability);
    row(
        "rules on by default, together (with the lookups they share)",
        on_together,
    );
    for (rule, d) in rule_times.iter().filter(|r| r.0.default_enabled).take(5) {
        row(
            &format!("&nbsp;&nbsp;rule {} alone", rule.code.as_str()),
            *d,
        );
    }
    row(
        "remainder: schema walk, copy, filter, suppressions, sort",
        rest,
    );
    row("**analyze, `--select ALL`, total**", total_all);
    row("liveness (G304 only; off by default)", liveness);
    let codes: Vec<&str> = off.iter().map(|rule| rule.code.as_str()).collect();
    row(
        &format!("rules off by default ({}), alone", codes.join(", ")),
        off_alone,
    );
    Ok(format!(
        "| stage | time | share of the default analyze |\n|---|---:|---:|\n{s}"
    ))
}
