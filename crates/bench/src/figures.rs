//! How the benchmark measures and shows its figures: medians of timed
//! runs, milliseconds, ratios, throughput, the machine's load.

use std::time::{Duration, Instant};

use phaselint_lint::config::Settings;
use phaselint_lint::diagnostic::Severity;
use phaselint_lint::syntax::{self, Limits};

pub(crate) fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

/// Runs `f` `runs` times and returns the median.
pub(crate) fn time_median<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let samples = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .collect();
    median(samples)
}

/// Runs `setup` then `f` on what it made, `runs` times, and returns the
/// median of `f` alone: for a stage that needs a fresh input each time (a
/// graph whose analyses are cached once solved).
pub(crate) fn time_median_after<S, T>(
    runs: usize,
    mut setup: impl FnMut() -> S,
    mut f: impl FnMut(&S) -> T,
) -> Duration {
    let samples = (0..runs)
        .map(|_| {
            let input = setup();
            let start = Instant::now();
            std::hint::black_box(f(&input));
            let elapsed = start.elapsed();
            drop(input);
            elapsed
        })
        .collect();
    median(samples)
}

/// Parse and analyze medians, interleaved so both see the same conditions.
pub(crate) fn parse_and_analyze(text: &str, runs: usize) -> (Duration, Duration) {
    let settings = Settings::default();
    let mut parse = Vec::with_capacity(runs);
    let mut analyze = Vec::with_capacity(runs);
    for _ in 0..runs {
        parse.push(timed(|| syntax::parse(text, Limits::default())));
        analyze.push(timed(|| phaselint_lint::analyze(text, &settings)));
    }
    (median(parse), median(analyze))
}

/// How long `f` takes; what it made is dropped after the time is taken,
/// as a caller would drop it.
fn timed<T>(f: impl FnOnce() -> T) -> Duration {
    let start = Instant::now();
    let made = f();
    let elapsed = start.elapsed();
    drop(std::hint::black_box(made));
    elapsed
}

/// How much longer a larger text takes than a smaller one, to analyze and
/// to parse alone: the median of per-round ratios, each round timing both
/// texts back to back. Ratios of medians taken a size at a time swung from
/// 5.05 to 6.71 between consecutive runs of one binary, because the
/// machine's speed drifts between them.
pub(crate) fn growth(small: &str, large: &str, runs: usize) -> (f64, f64) {
    let settings = Settings::default();
    let analyze = |text: &str| timed(|| phaselint_lint::analyze(text, &settings));
    let parse = |text: &str| timed(|| syntax::parse(text, Limits::default()));
    let mut analyze_ratios = Vec::with_capacity(runs);
    let mut parse_ratios = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (small_analyze, large_analyze) = (analyze(small), analyze(large));
        let (small_parse, large_parse) = (parse(small), parse(large));
        analyze_ratios.push(ratio(large_analyze, small_analyze));
        parse_ratios.push(ratio(large_parse, small_parse));
    }
    (median_of(analyze_ratios), median_of(parse_ratios))
}

fn median_of(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or_default()
}

/// Runs for an input: at least `runs`, more for small inputs (noisier).
pub(crate) fn runs_for(bytes: usize, runs: usize) -> usize {
    match bytes {
        0..=100_000 => runs.max(200),
        100_001..=1_000_000 => runs.max(30),
        _ => runs,
    }
}

pub(crate) fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", d.as_secs_f64())
    }
}

pub(crate) fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-12)
}

pub(crate) fn mb_per_s(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64().max(1e-12)
}

pub(crate) fn findings(text: &str) -> String {
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

/// The 1, 5 and 15 minute load averages, to show whether something else ran.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_string())
}
