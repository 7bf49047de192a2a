//! `phaselint-bench otel`: what exporting the resume check's span costs a
//! whole `phaselint resume-check` process. The same check (the pipeline
//! fixture's `after_retrieve` with a stale context: one resume event and
//! three stale-field events) runs with no endpoint, with a live rotel
//! collector over `http/protobuf` and `http/json`, and with an endpoint
//! nothing listens on, in rounds, each round running every variant once
//! back to back, so all see the same machine state. rotel is optional:
//! without it the live variants are left out, and the report says so.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::figures::{median, ms, ratio};
use crate::flags::value;

const ARGS: &[&str] = &[
    "resume-check",
    "--contract",
    "fixtures/resume/contracts/pipeline.contract.yaml",
    "--context",
    "fixtures/resume/contexts/stale.json",
    "--checkpoint",
    "after_retrieve",
    "--now",
    "2026-03-01T12:00:00Z",
    "--format",
    "json",
];

pub fn command(args: &[String]) -> Result<(), String> {
    let mut phaselint = PathBuf::from("target/release/phaselint");
    let mut rotel = std::env::var_os("ROTEL").map(PathBuf::from);
    let mut runs: usize = 50;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--phaselint" => phaselint = value(args, &mut i, "--phaselint")?,
            "--rotel" => rotel = Some(value(args, &mut i, "--rotel")?),
            "--runs" => runs = value(args, &mut i, "--runs")?,
            other => return Err(format!("otel: unknown option {other}")),
        }
        i += 1;
    }
    if !phaselint.is_file() {
        return Err(format!("{} not found (--phaselint)", phaselint.display()));
    }
    let runs = runs.max(5);
    let collector = match rotel.filter(|p| p.is_file()) {
        Some(binary) => Some(Rotel::start(&binary)?),
        None => None,
    };
    let refused = format!("http://127.0.0.1:{}", free_port()?);
    let mut variants: Vec<(String, Vec<(&str, String)>)> = vec![
        ("no endpoint".into(), vec![]),
        (
            "endpoint refused (nothing listening)".into(),
            vec![("OTEL_EXPORTER_OTLP_ENDPOINT", refused)],
        ),
    ];
    if let Some(rotel) = &collector {
        for protocol in ["http/protobuf", "http/json"] {
            variants.push((
                format!("live rotel, {protocol}"),
                vec![
                    ("OTEL_EXPORTER_OTLP_ENDPOINT", rotel.endpoint()),
                    ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol.to_string()),
                ],
            ));
        }
    }
    eprintln!(
        "phaselint-bench otel: {} rounds of {} variants",
        runs,
        variants.len()
    );
    // One warm-up round, untimed.
    for (_, env) in &variants {
        spawn(&phaselint, env)?;
    }
    let mut walls: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    let mut warnings = vec![0usize; variants.len()];
    for _ in 0..runs {
        for (v, (_, env)) in variants.iter().enumerate() {
            let (wall, warned) = spawn(&phaselint, env)?;
            walls[v].push(wall);
            warnings[v] += usize::from(warned);
        }
    }
    let baseline: Vec<Duration> = walls[0].clone();
    let mut out = String::new();
    out.push_str(&format!(
        "`phaselint resume-check` (pipeline fixture, stale context: 4 events), whole process, {runs} rounds, variants interleaved; binary `{}`\n\n",
        phaselint.display()
    ));
    out.push_str("| variant | median | p95 | min | median of per-round difference to no endpoint | runs that warned |\n|---|---|---|---|---|---|\n");
    for (v, (label, _)) in variants.iter().enumerate() {
        let samples = &walls[v];
        let differences: Vec<f64> = samples
            .iter()
            .zip(&baseline)
            .map(|(a, b)| (a.as_secs_f64() - b.as_secs_f64()) * 1000.0)
            .collect();
        let difference = if v == 0 {
            "—".to_string()
        } else {
            let mut sorted = differences.clone();
            sorted.sort_by(f64::total_cmp);
            format!(
                "{:+.2} ms (x{:.2})",
                sorted[sorted.len() / 2],
                ratio(median(samples.clone()), median(baseline.clone()))
            )
        };
        out.push_str(&format!(
            "| {label} | {} | {} | {} | {difference} | {}/{runs} |\n",
            ms(median(samples.clone())),
            ms(percentile(samples, 95)),
            ms(samples.iter().copied().min().unwrap_or_default()),
            warnings[v],
        ));
    }
    if collector.is_none() {
        out.push_str("\nrotel not found (ROTEL or --rotel, the `rotel-agent` of PyPI's `rotel`): the live-collector variants were left out.\n");
    }
    print!("{out}");
    Ok(())
}

fn percentile(samples: &[Duration], p: usize) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let at = (sorted.len() * p).div_ceil(100).saturating_sub(1);
    sorted.get(at).copied().unwrap_or_default()
}

/// One run: its wall time, and whether it printed a warning.
fn spawn(phaselint: &Path, env: &[(&str, String)]) -> Result<(Duration, bool), String> {
    let mut command = Command::new(phaselint);
    command
        .args(ARGS)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for name in phaselint_otlp::VARIABLES {
        command.env_remove(name);
    }
    command.envs(env.iter().map(|(k, v)| (k, v)));
    let start = Instant::now();
    let output = command
        .output()
        .map_err(|e| format!("running {}: {e}", phaselint.display()))?;
    let wall = start.elapsed();
    if output.status.code() != Some(1) {
        return Err(format!(
            "the stale check should block (exit 1), got {:?}: {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok((wall, !output.stderr.is_empty()))
}

fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free loopback port: {e}"))
}

/// rotel on free loopback ports, sending what it receives nowhere.
struct Rotel {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Rotel {
    fn start(binary: &Path) -> Result<Rotel, String> {
        let dir =
            std::env::temp_dir().join(format!("phaselint-bench-rotel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        let (port, grpc) = (free_port()?, free_port()?);
        let child = Command::new(binary)
            .arg("start")
            .args(["--otlp-http-endpoint", &format!("127.0.0.1:{port}")])
            .args(["--otlp-grpc-endpoint", &format!("127.0.0.1:{grpc}")])
            .args(["--exporter", "blackhole"])
            .arg("--pid-file")
            .arg(dir.join("rotel.pid"))
            .arg("--log-file")
            .arg(dir.join("rotel.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", binary.display()))?;
        let mut rotel = Rotel { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline || rotel.child.try_wait().ok().flatten().is_some() {
                return Err("rotel did not start listening within 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        eprintln!("phaselint-bench otel: rotel listening on 127.0.0.1:{port}");
        Ok(rotel)
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Rotel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
