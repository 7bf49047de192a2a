//! Running phaselint as a process: spawned, timed, its CPU time and peak
//! memory read, in a scratch directory removed at the end.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::figures::{median, ratio};

/// Children's CPU time so far (user + system of reaped children), from
/// /proc/self/stat; `None` where that file is not readable.
pub(crate) fn children_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 16 and 17 of proc(5) (cutime, cstime); `rest` starts at field 3.
    let cutime: u64 = fields.get(13)?.parse().ok()?;
    let cstime: u64 = fields.get(14)?.parse().ok()?;
    let ticks = clock_ticks();
    Some(Duration::from_secs_f64((cutime + cstime) as f64 / ticks))
}

pub(crate) fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

pub(crate) struct Spawned {
    wall: Duration,
    cpu: Option<Duration>,
    status: Option<i32>,
}

/// One run of `program args`, output discarded.
pub(crate) fn spawn(program: &Path, args: &[&str]) -> Result<Spawned, String> {
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

pub(crate) struct ProcessFigures {
    pub(crate) median: Duration,
    pub(crate) min: Duration,
    pub(crate) cpu_median: Option<Duration>,
    pub(crate) statuses: Vec<i32>,
}

pub(crate) fn spawn_median(
    program: &Path,
    args: &[&str],
    runs: usize,
) -> Result<ProcessFigures, String> {
    let runs = (0..runs)
        .map(|_| spawn(program, args))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(figures(runs))
}

/// `a` and `b` run alternately `runs` times each: their figures, and the
/// median over the pairs of a's time over b's.
pub(crate) fn spawn_interleaved(
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

pub(crate) fn figures(runs: Vec<Spawned>) -> ProcessFigures {
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
pub(crate) fn peak_rss_kib(program: &Path, args: &[&str]) -> Result<(u64, &'static str), String> {
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
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(label: &str) -> Result<TempDir, String> {
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

pub(crate) fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

pub(crate) fn path_str(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| format!("{} is not UTF-8", path.display()))
}

pub(crate) fn statuses(s: &[i32]) -> String {
    s.iter().map(i32::to_string).collect::<Vec<_>>().join(",")
}
