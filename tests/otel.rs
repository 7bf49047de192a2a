//! `phaselint resume-check`'s OpenTelemetry span (REQ-10-009), sent to a
//! real collector: rotel (PyPI `rotel`, an OTLP collector in Rust), started
//! here on a free loopback port with a Python span processor that writes
//! every span it receives to a file. `.ci/run` installs it and sets
//! `ROTEL` to its `rotel-agent`; without it these tests say why they skip
//! (and fail under `CI=true`). The collector's failures (a refused port, a
//! port that never answers) and the request's headers, which rotel does
//! not show its processors, are tested with plain listeners here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/resume_cases.rs"]
mod resume_cases;
#[path = "support/tools.rs"]
mod tools;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// The parent span every run is given.
const PARENT_SPAN: &str = "b7ad6b7169203331";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    /// Wall clock before the process started and after it ended.
    started: u64,
    ended: u64,
    took: Duration,
}

fn unix_nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64
}

/// The binary in `dir` with exactly the OpenTelemetry variables `env`.
fn run(dir: &Path, args: &[String], env: &[(&str, String)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_phaselint"));
    command.args(args).current_dir(dir).stdin(Stdio::null());
    for name in phaselint_otlp::VARIABLES {
        command.env_remove(name);
    }
    command.envs(env.iter().map(|(k, v)| (k, v)));
    let started = SystemTime::now();
    let clock = Instant::now();
    let output = command.output().unwrap();
    let took = clock.elapsed();
    Run {
        code: output.status.code().unwrap(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        started: unix_nanos(started),
        ended: unix_nanos(SystemTime::now()),
        took,
    }
}

/// A trace id no other run of this test process uses.
fn fresh_trace_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(1);
    format!(
        "{:016x}{:016x}",
        u64::from(std::process::id()) | 0x5000_0000_0000_0000,
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/resume-cases")
        .join(name)
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A loopback port nothing listens on (bound, then released).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The `rotel-agent` to run: `ROTEL`, else `rotel-agent` or `rotel` on
/// PATH.
fn rotel_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ROTEL").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| [dir.join("rotel-agent"), dir.join("rotel")])
        .find(|candidate| candidate.is_file())
}

/// The processor rotel loads: every span, with its resource and scope, as
/// one JSON line in `OUT`.
const PROCESSOR: &str = r#"
import json

OUT = __OUT__

def _attributes(attributes):
    return {a.key: a.value.value for a in attributes}

def process_spans(resource_spans):
    resource = _attributes(resource_spans.resource.attributes) if resource_spans.resource else {}
    lines = []
    for scope_spans in resource_spans.scope_spans:
        scope = scope_spans.scope
        for span in scope_spans.spans:
            lines.append(json.dumps({
                "resource": resource,
                "scope": None if scope is None else {"name": scope.name, "version": scope.version},
                "name": span.name,
                "trace_id": span.trace_id.hex(),
                "span_id": span.span_id.hex(),
                "parent_span_id": span.parent_span_id.hex(),
                "trace_state": span.trace_state,
                "kind": str(span.kind),
                "start_time_unix_nano": span.start_time_unix_nano,
                "end_time_unix_nano": span.end_time_unix_nano,
                "attributes": _attributes(span.attributes),
                "events": [
                    {"name": e.name, "time_unix_nano": e.time_unix_nano, "attributes": _attributes(e.attributes)}
                    for e in span.events
                ],
                "status": None if span.status is None else {"code": str(span.status.code), "message": span.status.message},
            }, sort_keys=True))
    with open(OUT, "a") as out:
        for line in lines:
            out.write(line + "\n")
"#;

/// rotel on a free loopback port, writing what it receives to a file.
struct Rotel {
    child: Child,
    http_port: u16,
    received: PathBuf,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Rotel {
    /// The collector, or `None` (with the reason printed) when rotel is
    /// not installed; under `CI=true` its absence fails the test.
    fn start() -> Option<Rotel> {
        let Some(binary) = rotel_binary() else {
            tools::missing(
                "rotel is not installed (set ROTEL to its rotel-agent, or put it on PATH: `pip install --pre rotel`)",
            );
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let received = dir.path().join("received.jsonl");
        let processor = dir.path().join("write_spans.py");
        let out = serde_json::to_string(&received.to_string_lossy()).unwrap();
        std::fs::write(&processor, PROCESSOR.replace("__OUT__", &out)).unwrap();
        let log = dir.path().join("rotel.log");
        let (http_port, grpc_port) = (free_port(), free_port());
        let child = Command::new(&binary)
            .arg("start")
            .args(["--otlp-http-endpoint", &format!("127.0.0.1:{http_port}")])
            .args(["--otlp-grpc-endpoint", &format!("127.0.0.1:{grpc_port}")])
            .args(["--exporter", "blackhole"])
            .arg("--otlp-with-trace-processor")
            .arg(&processor)
            .arg("--pid-file")
            .arg(dir.path().join("rotel.pid"))
            .arg("--log-file")
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::from(std::fs::File::create(&log).unwrap()))
            .stderr(Stdio::from(
                std::fs::File::create(dir.path().join("rotel.err")).unwrap(),
            ))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let mut rotel = Rotel {
            child,
            http_port,
            received,
            log,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", http_port)).is_err() {
            if let Some(status) = rotel.child.try_wait().unwrap() {
                panic!("rotel ended ({status}) before listening:\n{}", rotel.logs());
            }
            assert!(
                Instant::now() < deadline,
                "rotel is not listening on {http_port} after 30 s:\n{}",
                rotel.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(rotel)
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.http_port)
    }

    fn logs(&self) -> String {
        let err = self.log.with_file_name("rotel.err");
        format!(
            "{}{}",
            std::fs::read_to_string(&self.log).unwrap_or_default(),
            std::fs::read_to_string(err).unwrap_or_default()
        )
    }

    /// Every span received in `trace_id`, once at least one arrived (the
    /// processor may run after rotel answered).
    fn spans_of(&self, trace_id: &str) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let spans: Vec<Value> = std::fs::read_to_string(&self.received)
                .unwrap_or_default()
                .lines()
                .map(|line| serde_json::from_str::<Value>(line).unwrap())
                .filter(|span| span["trace_id"] == trace_id)
                .collect();
            if !spans.is_empty() {
                // A second span of the same trace would have come with the first.
                std::thread::sleep(Duration::from_millis(100));
                return std::fs::read_to_string(&self.received)
                    .unwrap_or_default()
                    .lines()
                    .map(|line| serde_json::from_str::<Value>(line).unwrap())
                    .filter(|span| span["trace_id"] == trace_id)
                    .collect();
            }
            assert!(
                Instant::now() < deadline,
                "rotel received no span of trace {trace_id} in 20 s:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Rotel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The run's variables: endpoint, protocol, parent, service and resource.
fn exporting(endpoint: &str, protocol: &str, trace_id: &str) -> Vec<(&'static str, String)> {
    vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.to_string()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol.to_string()),
        ("OTEL_EXPORTER_OTLP_TIMEOUT", "5000".to_string()),
        ("OTEL_SERVICE_NAME", "orchestrator".to_string()),
        (
            "OTEL_RESOURCE_ATTRIBUTES",
            "service.name=ignored,deployment.environment=ci%20test,team=platform".to_string(),
        ),
        ("TRACEPARENT", format!("00-{trace_id}-{PARENT_SPAN}-01")),
        ("TRACESTATE", "phaselint=test,congo=t61rcWkgMzE".to_string()),
    ]
}

/// The resume time of the case folders, in nanoseconds.
const NOW_NANOS: u64 = 1_772_366_400_000_000_000;

/// Checks the span rotel received for `exported` against the run's own
/// JSON report; `kind` is the check's kind.
fn assert_span_matches_report(span: &Value, exported: &Run, trace_id: &str, kind: &str) {
    let report: Value = serde_json::from_str(&exported.stdout).unwrap();
    assert_eq!(span["name"], "phaselint.resume_check");
    assert_eq!(span["trace_id"], trace_id);
    assert_eq!(span["parent_span_id"], PARENT_SPAN);
    assert_eq!(span["trace_state"], "phaselint=test,congo=t61rcWkgMzE");
    assert_ne!(span["span_id"], PARENT_SPAN);
    assert_eq!(span["span_id"].as_str().unwrap().len(), 16);
    assert_eq!(
        span["resource"],
        json!({"service.name": "orchestrator", "deployment.environment": "ci test", "team": "platform"})
    );
    assert_eq!(span["scope"]["name"], "phaselint");
    // The span lasts the check, inside the process's wall-clock time.
    let (start, end) = (
        span["start_time_unix_nano"].as_u64().unwrap(),
        span["end_time_unix_nano"].as_u64().unwrap(),
    );
    assert!(
        exported.started <= start && start <= end && end <= exported.ended,
        "{} <= {start} <= {end} <= {}",
        exported.started,
        exported.ended
    );
    let attributes = &span["attributes"];
    assert_eq!(attributes["phaselint.resume_check.kind"], kind);
    assert_eq!(
        attributes["phaselint.resume_check.exit_code"],
        exported.code
    );
    match report["decision"].as_str() {
        Some(decision) => {
            assert_eq!(attributes["phaselint.resume_check.decision"], decision);
            assert_eq!(
                attributes["phaselint.resume_check.passed"],
                report["passed"]
            );
            assert_eq!(span["status"]["code"], "0", "{span:#}");
        }
        None => {
            assert_eq!(attributes["phaselint.resume_check.decision"], "no_verdict");
            assert_eq!(attributes["phaselint.resume_check.error"], report["error"]);
            assert_eq!(span["status"]["code"], "2", "{span:#}");
            assert_eq!(span["status"]["message"], report["error"]);
        }
    }
    if let Some(id) = report["checkpoint_id"].as_str() {
        assert_eq!(attributes["checkpoint.id"], id);
    }
    // Every event, every attribute, as the JSON report carries them, at
    // the report's `now`.
    let expected: Vec<Value> = report["events"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|event| {
            assert_eq!(event["timestamp"], resume_cases::NOW);
            json!({
                "name": event["name"],
                "time_unix_nano": NOW_NANOS,
                "attributes": event["attributes"],
            })
        })
        .collect();
    assert_eq!(span["events"], Value::Array(expected), "{span:#}");
}

/// The contract cases, each through both encodings: a fresh resume, a
/// stale blocked one (with an unknown age, left out of its event), a
/// denied one, and a contract with errors (no verdict).
#[test]
fn each_resume_check_exports_one_span_with_the_reports_events_to_rotel() {
    let Some(rotel) = Rotel::start() else { return };
    let mut printed = Vec::new();
    for name in [
        "fresh-context-resumes",
        "stale-blocking-field-blocks",
        "unstamped-field-is-missing-provenance-and-stale-with-unknown-age",
        "missing-approval-is-denied",
        "contract-with-errors-gives-no-verdict-with-the-diagnostics",
    ] {
        let folder = case(name);
        resume_cases::date_harness_requests_before_their_grants(&folder);
        let args = resume_cases::case_args(&folder, None).unwrap();
        let alone = run(&folder, &args, &[]);
        for protocol in ["http/protobuf", "http/json"] {
            let trace_id = fresh_trace_id();
            let exported = run(
                &folder,
                &args,
                &exporting(&rotel.endpoint(), protocol, &trace_id),
            );
            assert_eq!(exported.code, alone.code, "{name} {protocol}");
            assert_eq!(exported.stdout, alone.stdout, "{name} {protocol}");
            assert_eq!(exported.stderr, alone.stderr, "{name} {protocol}");
            let spans = rotel.spans_of(&trace_id);
            assert_eq!(spans.len(), 1, "{name} {protocol}: {spans:#?}");
            assert_span_matches_report(&spans[0], &exported, &trace_id, "contract");
            if !spans[0]["events"].as_array().unwrap().is_empty() {
                printed.push(format!("{name} ({protocol}):\n{:#}", spans[0]));
            }
        }
    }
    // What the collector received, for the record.
    println!("{}", printed.join("\n"));
}

/// Without TRACEPARENT, the span starts a new trace with random ids; an
/// invalid one is ignored with a warning and changes nothing else.
#[test]
fn without_a_valid_traceparent_the_span_starts_a_new_trace() {
    let Some(rotel) = Rotel::start() else { return };
    let folder = case("fresh-context-resumes");
    let args = resume_cases::case_args(&folder, None).unwrap();
    let alone = run(&folder, &args, &[]);
    let service = |name: &str| ("OTEL_SERVICE_NAME", name.to_string());
    let mut traces = Vec::new();
    for (tag, traceparent) in [
        ("none-1", None),
        ("none-2", None),
        ("bad", Some("00-xyz-01")),
    ] {
        let mut env = vec![
            ("OTEL_EXPORTER_OTLP_ENDPOINT", rotel.endpoint()),
            service(tag),
        ];
        if let Some(traceparent) = traceparent {
            env.push(("TRACEPARENT", traceparent.to_string()));
        }
        let exported = run(&folder, &args, &env);
        assert_eq!(
            (exported.code, &exported.stdout),
            (alone.code, &alone.stdout)
        );
        if traceparent.is_some() {
            assert_eq!(exported.stderr.lines().count(), 1, "{}", exported.stderr);
            assert!(
                exported
                    .stderr
                    .starts_with("phaselint: warning: TRACEPARENT `00-xyz-01` is ignored"),
                "{}",
                exported.stderr
            );
        } else {
            assert_eq!(exported.stderr, "");
        }
        // Found by its service name, since its trace id is new.
        let deadline = Instant::now() + Duration::from_secs(20);
        let span = loop {
            let found = std::fs::read_to_string(&rotel.received)
                .unwrap_or_default()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .find(|s| s["resource"]["service.name"] == tag);
            if let Some(span) = found {
                break span;
            }
            assert!(
                Instant::now() < deadline,
                "no span for {tag}:\n{}",
                rotel.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        assert_eq!(span["parent_span_id"], "", "{span:#}");
        let trace_id = span["trace_id"].as_str().unwrap().to_string();
        assert_eq!(trace_id.len(), 32);
        assert_ne!(trace_id, "0".repeat(32));
        traces.push(trace_id);
    }
    traces.sort();
    traces.dedup();
    assert_eq!(traces.len(), 3, "every run has its own trace id");
}

/// The other kinds of check export a span too, with the decision as
/// attributes and no events (their reports have none).
#[test]
fn handoff_manifest_and_harness_checks_export_their_decision() {
    let Some(rotel) = Rotel::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("fixtures/handoff/skill-example.md"),
        dir.path().join("handoff.md"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join(".harness")).unwrap();
    std::fs::write(
        dir.path().join(".harness/config.json"),
        r#"{"checkpoints": {"enabled": true, "types": [{"name": "plan-approved", "description": "Approve the plan"}]}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("manifest.json"),
        r#"{"checkpoint_created": false, "checkpoint": {"id": "ckpt-7", "type": "file_backup",
            "created_at": "2026-03-01T11:30:00Z", "scope": {"files": ["app.py"]},
            "restore_command": "cp .checkpoints/ckpt-7/app.py app.py", "expiry": "24h"},
            "pre_mutation_state": {"hash": "sha256:00", "summary": "before"},
            "evidence_anchors": ["ckpt-7"], "mutation_plan": "rewrite"}"#,
    )
    .unwrap();
    let now = ["--now".to_string(), resume_cases::NOW.to_string()];
    let json = ["--format".to_string(), "json".to_string()];
    let strings = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    for (kind, args) in [
        (
            "handoff",
            strings(&["resume-check", "--handoff", "handoff.md"]),
        ),
        (
            "manifest",
            strings(&["resume-check", "--manifest", "manifest.json", "--no-config"]),
        ),
        (
            "harness",
            strings(&[
                "resume-check",
                "--harness-dir",
                ".harness",
                "--checkpoint",
                "plan-approved",
            ]),
        ),
        (
            "harness",
            strings(&[
                "resume-check",
                "--harness-dir",
                "nowhere",
                "--checkpoint",
                "plan-approved",
            ]),
        ),
    ] {
        let args: Vec<String> = args
            .into_iter()
            .chain(now.clone())
            .chain(json.clone())
            .collect();
        let alone = run(dir.path(), &args, &[]);
        let trace_id = fresh_trace_id();
        let exported = run(
            dir.path(),
            &args,
            &exporting(&rotel.endpoint(), "http/protobuf", &trace_id),
        );
        assert_eq!(
            (exported.code, &exported.stdout, &exported.stderr),
            (alone.code, &alone.stdout, &alone.stderr),
            "{kind} {args:?}"
        );
        let spans = rotel.spans_of(&trace_id);
        assert_eq!(spans.len(), 1, "{kind}");
        assert_span_matches_report(&spans[0], &exported, &trace_id, kind);
        assert_eq!(spans[0]["events"], json!([]), "{kind}");
    }
}

/// The arguments of a fresh resume from its case folder.
fn fresh_resume() -> (PathBuf, Vec<String>) {
    let folder = case("fresh-context-resumes");
    let args = resume_cases::case_args(&folder, None).unwrap();
    (folder, args)
}

/// A collector that is not there, or never answers, costs at most the
/// timeout and one warning: the verdict, exit code and stdout are those of
/// a run without telemetry. (A bound on the run's time, not a benchmark.)
#[test]
fn a_refused_or_silent_collector_changes_nothing_but_one_warning() {
    let (folder, args) = fresh_resume();
    let alone = run(&folder, &args, &[]);
    assert_eq!(alone.stderr, "");
    let refused = free_port();
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    for (port, says) in [(refused, "cannot connect"), (silent_port, "no answer")] {
        for protocol in ["http/protobuf", "http/json"] {
            let env = vec![
                (
                    "OTEL_EXPORTER_OTLP_ENDPOINT",
                    format!("http://127.0.0.1:{port}"),
                ),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol.to_string()),
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "300".to_string()),
            ];
            let exported = run(&folder, &args, &env);
            assert_eq!(
                (exported.code, &exported.stdout),
                (alone.code, &alone.stdout)
            );
            assert_eq!(exported.stderr.lines().count(), 1, "{}", exported.stderr);
            let warning = format!(
                "phaselint: warning: could not export the resume check's span to http://127.0.0.1:{port}/v1/traces: "
            );
            assert!(exported.stderr.starts_with(&warning), "{}", exported.stderr);
            assert!(exported.stderr.contains(says), "{}", exported.stderr);
            assert!(
                exported.took < Duration::from_secs(10),
                "{:?}",
                exported.took
            );
        }
    }
    drop(silent);
}

/// A hostile TRACEPARENT (any length, any bytes) is one bounded warning:
/// its start and the reason, never the whole value on stderr.
#[test]
fn a_huge_traceparent_is_one_short_warning() {
    let (folder, args) = fresh_resume();
    let alone = run(&folder, &args, &[]);
    let refused = free_port();
    let env = vec![
        (
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{refused}"),
        ),
        ("OTEL_EXPORTER_OTLP_TIMEOUT", "300".to_string()),
        (
            "TRACEPARENT",
            format!("00-{}\u{1b}[2J", "0".repeat(100_000)),
        ),
    ];
    let exported = run(&folder, &args, &env);
    assert_eq!(
        (exported.code, &exported.stdout),
        (alone.code, &alone.stdout)
    );
    let first = exported.stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("phaselint: warning: TRACEPARENT `00-000"),
        "{first}"
    );
    assert!(first.contains("characters ...]"), "{first}");
    assert!(first.ends_with("the span starts a new trace"), "{first}");
    assert!(first.len() < 1200, "{}", first.len());
    assert!(!exported.stderr.contains('\u{1b}'));
}

/// A collector's error answer is one warning with its status line.
#[test]
fn an_error_answer_is_one_warning_with_the_status() {
    let (folder, args) = fresh_resume();
    let alone = run(&folder, &args, &[]);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let _ = read_request(&mut stream);
        stream
            .write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 16\r\n\r\nno such receiver")
            .unwrap();
    });
    let exported = run(
        &folder,
        &args,
        &[(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            format!("http://127.0.0.1:{port}/x"),
        )],
    );
    server.join().unwrap();
    assert_eq!(
        (exported.code, &exported.stdout),
        (alone.code, &alone.stdout)
    );
    assert_eq!(
        exported.stderr,
        format!(
            "phaselint: warning: could not export the resume check's span to http://127.0.0.1:{port}/x: the collector answered `HTTP/1.1 400 Bad Request`: no such receiver\n"
        )
    );
}

/// One HTTP request as it arrived: head and body.
fn read_request(stream: &mut TcpStream) -> (String, Vec<u8>) {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let n = stream.read(&mut buffer).unwrap();
        assert!(n > 0, "the request ended early");
        bytes.extend_from_slice(&buffer[..n]);
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
            let length: usize = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap())
                })
                .unwrap();
            if bytes.len() >= end + 4 + length {
                return (head, bytes[end + 4..end + 4 + length].to_vec());
            }
        }
    }
}

/// The headers of OTEL_EXPORTER_OTLP_HEADERS arrive (rotel does not show
/// them to its processors, so a listener here reads the request), on the
/// traces endpoint's path as given, with the encoding's content type.
#[test]
fn the_configured_headers_path_and_content_type_arrive() {
    let (folder, args) = fresh_resume();
    for (protocol, content_type) in [
        ("http/protobuf", "application/x-protobuf"),
        ("http/json", "application/json"),
    ] {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let request = read_request(&mut stream);
            stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
                .unwrap();
            request
        });
        let run = run(
            &folder,
            &args,
            &[
                (
                    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                    format!("http://127.0.0.1:{port}/custom/v1/traces"),
                ),
                ("OTEL_EXPORTER_OTLP_HEADERS", "ignored=1".to_string()),
                (
                    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                    "api-key=secret%20one,x-tenant=a%2Cb".to_string(),
                ),
                ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", protocol.to_string()),
            ],
        );
        assert_eq!(run.stderr, "");
        let (head, body) = server.join().unwrap();
        let lines: Vec<&str> = head.lines().collect();
        assert_eq!(lines[0], "POST /custom/v1/traces HTTP/1.1");
        assert!(lines.contains(&"api-key: secret one"), "{head}");
        assert!(lines.contains(&"x-tenant: a,b"), "{head}");
        assert!(!head.contains("ignored"), "{head}");
        assert!(
            lines.contains(&format!("Content-Type: {content_type}").as_str()),
            "{head}"
        );
        if protocol == "http/json" {
            let sent: Value = serde_json::from_slice(&body).unwrap();
            let span = &sent["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
            assert_eq!(span["name"], "phaselint.resume_check");
            assert_eq!(span["events"][0]["timeUnixNano"], NOW_NANOS.to_string());
        }
    }
}

/// Commands other than resume-check never export, and neither does a
/// resume check with the SDK disabled or a gRPC protocol (which warns).
#[test]
fn nothing_else_exports() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let endpoint = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let with = |extra: &[(&'static str, &str)]| {
        let mut env = vec![("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.clone())];
        env.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
        env
    };
    let contract = "fixtures/resume/contracts/pipeline.contract.yaml".to_string();
    let lint = run(&repo(), &["lint".into(), contract.clone()], &with(&[]));
    assert_eq!(lint.code, 0, "{}", lint.stderr);
    let checkpoints = run(
        &repo(),
        &["checkpoints".into(), "--contract".into(), contract],
        &with(&[]),
    );
    assert_eq!(checkpoints.code, 0, "{}", checkpoints.stderr);
    let (folder, args) = fresh_resume();
    let disabled = run(&folder, &args, &with(&[("OTEL_SDK_DISABLED", "true")]));
    assert_eq!((disabled.code, disabled.stderr.as_str()), (0, ""));
    let grpc = run(
        &folder,
        &args,
        &with(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]),
    );
    assert_eq!(grpc.code, 0);
    assert_eq!(
        grpc.stderr,
        "phaselint: warning: OTEL_EXPORTER_OTLP_PROTOCOL `grpc` is not supported, so the resume check's span is not exported: phaselint exports over OTLP/HTTP, `http/protobuf` (the default) or `http/json`\n"
    );
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("something connected to the collector: {other:?}"),
    }
}

/// `--format contextcore` prints ContextCore's model, which has no events;
/// the span still carries the report's events, as a JSON run shows them.
#[test]
fn a_contextcore_run_exports_the_same_events_as_a_json_run() {
    let Some(rotel) = Rotel::start() else { return };
    let folder = case("stale-blocking-field-blocks");
    let json_args = resume_cases::case_args(&folder, None).unwrap();
    let as_json = run(&folder, &json_args, &[]);
    let args = resume_cases::case_args(&folder, Some("contextcore")).unwrap();
    let alone = run(&folder, &args, &[]);
    let trace_id = fresh_trace_id();
    let exported = run(
        &folder,
        &args,
        &exporting(&rotel.endpoint(), "http/protobuf", &trace_id),
    );
    assert_eq!(
        (exported.code, &exported.stdout, &exported.stderr),
        (alone.code, &alone.stdout, &alone.stderr)
    );
    let spans = rotel.spans_of(&trace_id);
    assert_eq!(spans.len(), 1);
    // The JSON run's report, with this run's exit code and clock.
    let reported = Run {
        stdout: as_json.stdout,
        ..exported
    };
    assert_span_matches_report(&spans[0], &reported, &trace_id, "contract");
}
