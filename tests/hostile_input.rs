//! Hostile input through the real binary (docs/reliability.md): inputs over
//! their bounds, things that are not regular files, graphs and lines built
//! to make an analysis quadratic, and output targets that are not files.
//! Each test stands for a fault an attack on phaselint once found.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

#[path = "support/generate.rs"]
mod generate;
use generate::{cycle_contract, quadratic};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pipeline() -> String {
    repo()
        .join("fixtures/resume/contracts/pipeline.contract.yaml")
        .to_string_lossy()
        .into_owned()
}

/// Runs phaselint and waits at most `deadline` for it: a run still going
/// then is killed and the test fails, so an input that blocks or never
/// ends is a failure rather than a hung test run. `limit_kib` caps the
/// process's address space (ulimit -v) where a memory blow-up would
/// otherwise take the machine.
fn run(
    dir: &Path,
    args: &[&str],
    stdin: Option<&[u8]>,
    deadline: Duration,
    limit_kib: Option<u64>,
) -> Output {
    let binary = env!("CARGO_BIN_EXE_phaselint");
    let mut command = match limit_kib {
        Some(limit) => {
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg(format!("ulimit -v {limit} && exec \"$0\" \"$@\""))
                .arg(binary)
                .args(args);
            c
        }
        None => {
            let mut c = Command::new(binary);
            c.args(args);
            c
        }
    };
    let mut child = command
        .current_dir(dir)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        // A writer thread: the child may stop reading early, and must not
        // block the deadline below.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    // Read both pipes while waiting, so a child with much to say never
    // blocks on a full pipe.
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`phaselint {}` was still running after {deadline:?}",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

const QUICK: Duration = Duration::from_secs(20);

fn code(output: &Output) -> i32 {
    output.status.code().unwrap_or_else(|| {
        panic!(
            "killed by a signal: {:?}\n{}",
            output.status,
            stderr(output)
        )
    })
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// A file of `size` bytes that takes no disk space (a sparse file).
fn sparse(dir: &Path, name: &str, size: u64) -> String {
    let path = dir.join(name);
    std::fs::File::create(&path).unwrap().set_len(size).unwrap();
    path.to_string_lossy().into_owned()
}

#[cfg(unix)]
fn fifo(dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    let made = Command::new("mkfifo").arg(&path).status().unwrap();
    assert!(made.success());
    path.to_string_lossy().into_owned()
}

const MIB: u64 = 1024 * 1024;

/// An address-space cap (ulimit -v, KiB) of 8 times the 32 MiB input bound
/// plus 64 MiB for what the program itself maps (code, libraries, stacks).
const EIGHT_TIMES_THE_BOUND_KIB: u64 = 8 * 32 * 1024 + 64 * 1024;

#[test]
fn a_cycle_through_thousands_of_phases_and_fields_lints_in_bounded_memory() {
    // 20,000 phases in one cycle reading 100,000 fields: the old fixpoint
    // kept sets as wide as all fields for every phase (availability and
    // liveness: 750 MB) and aborted under this cap, which the solver's
    // windows keep well inside.
    let dir = temp();
    let file = dir.path().join("cycle.contract.yaml");
    std::fs::write(&file, cycle_contract(20_000, 5)).unwrap();
    let out = run(
        dir.path(),
        &[
            "lint",
            "--no-config",
            "--format",
            "concise",
            "--select",
            "ALL",
            file.to_str().unwrap(),
        ],
        None,
        Duration::from_secs(180),
        Some(500 * 1024),
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).ends_with("All checks passed (1 file).\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn inputs_over_their_bounds_are_refused_naming_the_bound() {
    let dir = temp();
    let d = dir.path();
    // A contract over 32 MiB is E007, read no further than its size.
    let big = sparse(d, "big.contract.yaml", 33 * MIB);
    let out = run(
        d,
        &["lint", "--no-config", "--format", "concise", &big],
        None,
        QUICK,
        None,
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("file is 34603008 bytes, over the limit of 33554432 bytes (32 MiB)"),
        "{}",
        stdout(&out)
    );
    // Standard input over the same bound: no verdict.
    let endless = vec![b'#'; 33 * MIB as usize];
    let out = run(
        d,
        &["lint", "--no-config", "-"],
        Some(&endless),
        QUICK,
        None,
    );
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains(
            "cannot read standard input: it is larger than the limit of 33554432 bytes (32 MiB)"
        ),
        "{}",
        stderr(&out)
    );
    // A configuration over 4 MiB.
    let config = sparse(d, "phaselint.toml", 5 * MIB);
    let out = run(
        d,
        &["lint", "--config", &config, &pipeline()],
        None,
        QUICK,
        None,
    );
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains(
            "phaselint.toml`: it is 5242880 bytes, larger than the limit of 4194304 bytes (4 MiB)"
        ),
        "{}",
        stderr(&out)
    );
    // A context, an approvals file and a harness grant over theirs.
    let context = sparse(d, "ctx.json", 33 * MIB);
    let out = run(
        d,
        &[
            "resume-check",
            "--no-config",
            "--contract",
            &pipeline(),
            "--checkpoint",
            "after_retrieve",
            "--context",
            &context,
        ],
        None,
        QUICK,
        None,
    );
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("cannot read the context `"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("larger than the limit of 33554432 bytes (32 MiB)"));
    let ctx = d.join("ok.json");
    std::fs::write(&ctx, "{}").unwrap();
    let approvals = sparse(d, "approvals.json", 33 * MIB);
    let out = run(
        d,
        &[
            "resume-check",
            "--no-config",
            "--contract",
            &pipeline(),
            "--checkpoint",
            "after_generate",
            "--context",
            ctx.to_str().unwrap(),
            "--approvals",
            &approvals,
        ],
        None,
        QUICK,
        None,
    );
    assert_eq!(code(&out), 3);
    // Named for its own bound, not for what all of them hold together.
    assert!(
        stderr(&out).contains("cannot read the approvals file `")
            && stderr(&out).contains("larger than the limit of 1048576 bytes (1 MiB)"),
        "{}",
        stderr(&out)
    );
    let harness = d.join("harness");
    std::fs::create_dir(&harness).unwrap();
    // The request first: a grant counts only as the answer to it.
    std::fs::write(harness.join("checkpoint-after_generate.md"), "approve?\n").unwrap();
    sparse(&harness, "checkpoint-after_generate.md.granted", 2 * MIB);
    let out = run(
        d,
        &[
            "resume-check",
            "--no-config",
            "--contract",
            &pipeline(),
            "--checkpoint",
            "after_generate",
            "--context",
            ctx.to_str().unwrap(),
            "--harness-dir",
            harness.to_str().unwrap(),
        ],
        None,
        QUICK,
        None,
    );
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("cannot read the harness grant")
            && stderr(&out).contains("larger than the limit of 1048576 bytes (1 MiB)"),
        "{}",
        stderr(&out)
    );
}

/// Every `--approvals` file within its 1 MiB, but all of them together
/// over 4 MiB, or over 1,000 records: no verdict, naming the file that
/// crosses the bound (each record is judged and reported, so they are
/// bounded in number as well as in bytes).
#[test]
fn approvals_are_bounded_together_in_bytes_and_records() {
    let dir = temp();
    let d = dir.path();
    std::fs::write(d.join("ctx.json"), "{}").unwrap();
    let record = r#"{"approved_by": "ana", "approved_at": "2026-03-01T11:00:00Z", "policy": "human", "checkpoint_id": "after_generate"}"#;
    let records = |n: usize| format!("[{}]", vec![record; n].join(","));
    let check = |approvals: &[&str]| {
        let mut args = vec![
            "resume-check".to_string(),
            "--no-config".into(),
            "--contract".into(),
            pipeline(),
            "--checkpoint".into(),
            "after_generate".into(),
            "--context".into(),
            "ctx.json".into(),
            "--now".into(),
            "2026-03-01T12:00:00Z".into(),
        ];
        for file in approvals {
            args.extend(["--approvals".to_string(), file.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(d, &args, None, QUICK, None)
    };
    // Five files of 0.9 MiB: 4.5 MiB together.
    let padded = format!("{}{}", records(1), " ".repeat(900 * 1024));
    let files: Vec<String> = (1..=5).map(|i| format!("padded{i}.json")).collect();
    for file in &files {
        std::fs::write(d.join(file), &padded).unwrap();
    }
    let names: Vec<&str> = files.iter().map(String::as_str).collect();
    let out = check(&names[..4]);
    assert_ne!(
        code(&out),
        3,
        "four files are within the bound: {}",
        stderr(&out)
    );
    let out = check(&names);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "cannot read the approvals file `padded5.json`: the --approvals files hold more than 4194304 bytes (4 MiB) together"
        ),
        "{}",
        stderr(&out)
    );
    // 600 and 401 records: 1,001 together.
    std::fs::write(d.join("six-hundred.json"), records(600)).unwrap();
    std::fs::write(d.join("four-hundred-one.json"), records(401)).unwrap();
    std::fs::write(d.join("four-hundred.json"), records(400)).unwrap();
    let out = check(&["six-hundred.json", "four-hundred.json"]);
    assert_ne!(
        code(&out),
        3,
        "1,000 records are within the bound: {}",
        stderr(&out)
    );
    let out = check(&["six-hundred.json", "four-hundred-one.json"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "cannot read the approvals file `four-hundred-one.json`: the --approvals files hold more than 1000 approval records together"
        ),
        "{}",
        stderr(&out)
    );
    // The context's records count with the files': 600 and 401 again.
    let context = format!(
        r#"{{"_cc_checkpoint_approvals": {{"after_generate": {}}}}}"#,
        records(600)
    );
    std::fs::write(d.join("ctx.json"), context).unwrap();
    let out = check(&["four-hundred.json"]);
    assert_ne!(
        code(&out),
        3,
        "1,000 records are within the bound: {}",
        stderr(&out)
    );
    let out = check(&["four-hundred-one.json"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("more than 1000 approval records were presented for one checkpoint (the context's and every --approvals file's together)"),
        "{}",
        stderr(&out)
    );
}

/// Contexts within their 32 MiB whose values would take 50 to 100 times
/// that once read (tiny mappings, one-digit list items), in JSON and YAML:
/// refused, under an address-space cap of 8 times the bound plus what the
/// program itself maps.
#[cfg(unix)]
#[test]
fn a_context_that_would_exhaust_memory_once_read_is_refused_within_its_bound() {
    let dir = temp();
    let d = dir.path();
    let fill = |unit: &str, open: &str, close: &str| {
        let count = (32 * MIB as usize - open.len() - close.len()) / unit.len();
        let mut text = String::with_capacity(32 * MIB as usize);
        text.push_str(open);
        for _ in 0..count {
            text.push_str(unit);
        }
        text.truncate(text.trim_end_matches(',').len());
        text.push_str(close);
        text
    };
    let shapes = [
        ("maps.json", fill("{},", "{\"a\": [", "]}")),
        ("digits.json", fill("0,", "{\"a\": [", "]}")),
        ("maps.yaml", fill("- {}\n", "a:\n", "")),
        ("digits.yaml", fill("- 0\n", "a:\n", "")),
    ];
    for (name, text) in &shapes {
        assert!(text.len() as u64 <= 32 * MIB, "{name}");
        std::fs::write(d.join(name), text).unwrap();
        let out = run(
            d,
            &[
                "resume-check",
                "--no-config",
                "--contract",
                &pipeline(),
                "--checkpoint",
                "after_generate",
                "--context",
                name,
                "--now",
                "2026-03-01T12:00:00Z",
            ],
            None,
            QUICK,
            Some(EIGHT_TIMES_THE_BOUND_KIB),
        );
        assert_eq!(code(&out), 3, "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("in memory once read"),
            "{name}: {}",
            stderr(&out)
        );
    }
}

/// Contracts at the 32 MiB bound in the shapes that cost most per byte: a
/// finding on each of 199,000 phases, two million empty phases, a JSON
/// contract (one flow mapping the YAML scanner once held whole as tokens),
/// and a next phase whose entry fields are one flow list. `lint`, `graph`,
/// `resume-check` and `approve` each load them, or refuse them naming the
/// bound, under an address-space cap of 8 times the bound plus what the
/// program itself maps (before the contract bounds they took 0.4 to 2 GB).
#[cfg(unix)]
#[test]
fn contracts_at_their_bound_are_read_within_eight_times_it() {
    let dir = temp();
    let d = dir.path();
    let bound = 32 * MIB as usize;
    let fill = |head: &str, count: usize, item: &dyn Fn(usize) -> String, tail: &str| {
        let mut text = String::with_capacity(bound);
        text.push_str(head);
        for i in 0..count {
            let next = item(i);
            if text.len() + next.len() + tail.len() > bound {
                break;
            }
            text.push_str(&next);
        }
        text.push_str(tail);
        while text.len() + 80 <= bound {
            text.push_str(&format!("# {}\n", "x".repeat(77)));
        }
        text
    };
    let checkpoint = "checkpoint_integrity:\n  - {checkpoint_id: c0, phase: p0}\n";
    let findings = fill(
        "schema_version: '1'\npipeline_id: big\nphases:\n",
        199_000,
        &|i| format!("  p{i:06}: {{entry: {{required: [{{name: m{i:06}}}]}}}}\n"),
        "",
    );
    let empty = fill(
        "schema_version: '1'\npipeline_id: big\nphases:\n",
        usize::MAX,
        &|i| format!("  p{i:07}: {{}}\n"),
        "",
    );
    let json = {
        let mut text = fill(
            "{\"schema_version\": \"1\", \"pipeline_id\": \"big\", \"checkpoint_integrity\": [{\"checkpoint_id\": \"c0\", \"phase\": \"p0\"}], \"phases\": {\"p0\": {}",
            usize::MAX,
            &|i| {
                format!(
                    ", \"q{i:07}\": {{\"entry\": {{\"required\": [{{\"name\": \"f{i:07}\"}}]}}}}"
                )
            },
            "}}",
        );
        // No comments in JSON: the padding is spaces.
        text.truncate(text.find("}}\n#").map_or(text.len(), |at| at + 2));
        text
    };
    let flow_fields = fill(
        &format!(
            "schema_version: '1'\npipeline_id: big\n{checkpoint}phases:\n  p0: {{}}\n  p1:\n    entry:\n      required: ["
        ),
        usize::MAX,
        &|i| {
            if i < 900_000 {
                format!("{{name: f{i:07}}}, ")
            } else {
                " ".into()
            }
        },
        "{name: f}]\n",
    );
    std::fs::write(d.join("findings.yaml"), &findings).unwrap();
    std::fs::write(d.join("empty.yaml"), &empty).unwrap();
    std::fs::write(d.join("contract.json"), &json).unwrap();
    std::fs::write(d.join("flow.yaml"), &flow_fields).unwrap();
    std::fs::write(d.join("ctx.json"), "{}").unwrap();
    let cap = Some(EIGHT_TIMES_THE_BOUND_KIB);
    let resume = |contract: &str| -> Vec<String> {
        [
            "resume-check",
            "--no-config",
            "--contract",
            contract,
            "--checkpoint",
            "c0",
            "--context",
            "ctx.json",
        ]
        .map(String::from)
        .to_vec()
    };
    let approve = |contract: &str| -> Vec<String> {
        [
            "approve",
            "--no-config",
            "--contract",
            contract,
            "--checkpoint",
            "c0",
            "--by",
            "x",
            "--policy",
            "human",
        ]
        .map(String::from)
        .to_vec()
    };
    let words = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let cases: Vec<(Vec<String>, i32, &str)> = vec![
        (
            words(&["lint", "--no-config", "--format", "sarif", "findings.yaml"]),
            1,
            "",
        ),
        (
            words(&["graph", "--no-config", "--findings", "findings.yaml"]),
            0,
            "",
        ),
        (
            words(&["graph", "--no-config", "empty.yaml"]),
            3,
            "more than 3000000 YAML nodes",
        ),
        (resume("empty.yaml"), 3, "more than 3000000 YAML nodes"),
        (
            words(&["graph", "--no-config", "contract.json"]),
            3,
            "cannot load this file as a contract",
        ),
        (
            approve("contract.json"),
            3,
            "cannot load this file as a contract",
        ),
        (resume("flow.yaml"), 3, "in memory once read"),
        (approve("flow.yaml"), 3, "in memory once read"),
    ];
    for text in [&findings, &empty, &json, &flow_fields] {
        assert!(
            text.len() <= bound && text.len() + 100 > bound,
            "{}",
            text.len()
        );
    }
    for (args, expected, says) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // Only a guard against a hang: a debug build reading 32 MiB took
        // 31 to 44 s on a loaded two-core machine, past `QUICK`.
        let out = run(d, &args, None, Duration::from_secs(180), cap);
        assert_eq!(code(&out), expected, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
}

#[cfg(unix)]
#[test]
fn what_is_not_a_regular_file_is_refused_without_waiting() {
    let dir = temp();
    let d = dir.path();
    let pipe = fifo(d, "pipe");
    let not_a_file = |out: &Output, what: &str| {
        assert_eq!(code(out), 3, "{}", stderr(out));
        assert!(
            stderr(out).contains(&format!("{what}, not a regular file")),
            "{}",
            stderr(out)
        );
    };
    // A FIFO with no writer as the contract, the configuration, the context,
    // an approvals file and a harness grant; a device as each of them.
    for (special, what) in [
        (pipe.as_str(), "a FIFO"),
        ("/dev/zero", "a character device"),
    ] {
        let out = run(d, &["lint", "--no-config", special], None, QUICK, None);
        not_a_file(&out, what);
        let out = run(
            d,
            &["lint", "--config", special, &pipeline()],
            None,
            QUICK,
            None,
        );
        not_a_file(&out, what);
        let base = ["resume-check", "--no-config", "--contract"];
        let out = run(
            d,
            &[
                &base[..],
                &[special, "--checkpoint", "x", "--context", &pipeline()],
            ]
            .concat(),
            None,
            QUICK,
            None,
        );
        not_a_file(&out, what);
        let out = run(
            d,
            &[
                &base[..],
                &[
                    &pipeline(),
                    "--checkpoint",
                    "after_retrieve",
                    "--context",
                    special,
                ],
            ]
            .concat(),
            None,
            QUICK,
            None,
        );
        not_a_file(&out, what);
        let ctx = d.join("ok.json");
        std::fs::write(&ctx, "{}").unwrap();
        let out = run(
            d,
            &[
                &base[..],
                &[
                    &pipeline(),
                    "--checkpoint",
                    "after_generate",
                    "--context",
                    ctx.to_str().unwrap(),
                    "--approvals",
                    special,
                ],
            ]
            .concat(),
            None,
            QUICK,
            None,
        );
        not_a_file(&out, what);
    }
    let harness = d.join("harness");
    std::fs::create_dir(&harness).unwrap();
    std::fs::write(harness.join("checkpoint-after_generate.md"), "approve?\n").unwrap();
    fifo(&harness, "checkpoint-after_generate.md.granted");
    let ctx = d.join("ok.json");
    let out = run(
        d,
        &[
            "resume-check",
            "--no-config",
            "--contract",
            &pipeline(),
            "--checkpoint",
            "after_generate",
            "--context",
            ctx.to_str().unwrap(),
            "--harness-dir",
            harness.to_str().unwrap(),
        ],
        None,
        QUICK,
        None,
    );
    not_a_file(&out, "a FIFO");
}

#[cfg(unix)]
#[test]
fn output_is_never_written_through_a_link_or_over_a_non_file() {
    let dir = temp();
    let d = dir.path();
    let precious = d.join("precious.txt");
    std::fs::write(&precious, "keep me").unwrap();
    let link = d.join("approval.json");
    std::os::unix::fs::symlink(&precious, &link).unwrap();
    let pipe = fifo(d, "pipe.json");
    let approve = |output: &str| {
        run(
            d,
            &[
                "approve",
                "--no-config",
                "--contract",
                &pipeline(),
                "--checkpoint",
                "after_generate",
                "--by",
                "ana",
                "--policy",
                "human",
                "--now",
                "2026-03-01T12:00:00Z",
                "--output",
                output,
            ],
            None,
            QUICK,
            None,
        )
    };
    let out = approve(link.to_str().unwrap());
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("it is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me");
    let out = approve(&pipe);
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("it is a FIFO, not a regular file"),
        "{}",
        stderr(&out)
    );
    {
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&pipe)
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }
    // A regular file, or none, is written.
    let out = approve(d.join("fresh.json").to_str().unwrap());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // --fix does not write through a link to a contract either.
    let contract = d.join("real.contract.yaml");
    std::fs::write(
        &contract,
        "schema_version: '1'\npipeline_id: p\nphases:\n  a:\n    risk_class: HIGH\n",
    )
    .unwrap();
    let linked = d.join("linked.contract.yaml");
    std::os::unix::fs::symlink(&contract, &linked).unwrap();
    let out = run(
        d,
        &["lint", "--no-config", "--fix", linked.to_str().unwrap()],
        None,
        QUICK,
        None,
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&contract).unwrap().contains("HIGH"));
}

#[test]
fn a_hundred_thousand_findings_on_one_line_do_not_make_output_quadratic() {
    // 200,000 unknown keys on one 2 MB line. Counting every column from
    // the start of its line took minutes; each finding's snippet in the
    // full format printed the whole line.
    let dir = temp();
    let keys: Vec<String> = (0..200_000).map(|i| format!("k{i}: 1")).collect();
    let file = dir.path().join("line.contract.yaml");
    let text = format!(
        "{{schema_version: '1', pipeline_id: p, phases: {{a: {{}}}}, {}}}\n",
        keys.join(", ")
    );
    let last_column = text.find("k199999:").unwrap() + 1;
    std::fs::write(&file, text).unwrap();
    for format in ["concise", "json", "full"] {
        let out = run(
            dir.path(),
            &[
                "lint",
                "--no-config",
                "--format",
                format,
                file.to_str().unwrap(),
            ],
            None,
            Duration::from_secs(120),
            None,
        );
        assert_eq!(code(&out), 1);
        let text = stdout(&out);
        let last = format!("k{}", 199_999);
        assert!(text.contains(&last), "{format}");
        if format == "full" {
            // Each snippet shows a window of the line, not all 2 MB of it.
            let longest = text.lines().map(str::len).max().unwrap();
            assert!(longest < 1_000, "a {longest}-byte output line");
            assert!(
                text.contains(&format!(":1:{last_column}")),
                "the true column is kept"
            );
        }
    }
}

/// Past 200,000 findings a file's findings are no longer kept: the first
/// 200,000 in file order are listed, then one E007 says how many more
/// there are and where the first of them is (202,000 G303s: two entry
/// fields no phase produces on each of 101,000 phases).
#[test]
fn findings_past_the_bound_are_counted_not_kept() {
    let dir = temp();
    let phases: String = (0..101_000)
        .map(|i| format!("  p{i}: {{entry: {{required: [{{name: a{i}}}, {{name: b{i}}}]}}}}\n"))
        .collect();
    let file = dir.path().join("many.contract.yaml");
    std::fs::write(
        &file,
        format!("schema_version: '1'\npipeline_id: p\nphases:\n{phases}"),
    )
    .unwrap();
    let out = run(
        dir.path(),
        &[
            "lint",
            "--no-config",
            "--format",
            "concise",
            file.to_str().unwrap(),
        ],
        None,
        Duration::from_secs(120),
        None,
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches(" G303 ").count(), 200_000);
    let note: Vec<&str> = text.lines().filter(|l| l.contains(" E007 ")).collect();
    assert_eq!(note.len(), 1, "{note:?}");
    assert!(
        note[0].contains("many.contract.yaml:100005:39: E007 [error] the file has more findings than phaselint keeps per file (200000, or 64 MiB of their text): 1998 more from here on are not listed; help: fix the findings listed first"),
        "{}",
        note[0]
    );
}

#[test]
fn wildcard_entry_fields_over_a_large_context_stay_bounded() {
    // `big.*.*` listed five times against 2,000,000 values under 50,000
    // long keys: the old check built a path string (the key again) for
    // every value, for every listing, and aborted under this cap.
    let dir = temp();
    let d = dir.path();
    let field = "        - name: big.*.*\n          type: int\n";
    let contract = format!(
        "schema_version: '1'\npipeline_id: w\nphases:\n  a:\n    exit:\n      required:\n        - name: big\n  b:\n    entry:\n      required:\n{}checkpoint_integrity:\n  - checkpoint_id: cp\n    phase: a\n",
        field.repeat(5)
    );
    std::fs::write(d.join("w.contract.yaml"), contract).unwrap();
    let row = format!("[{}]", vec!["7"; 40].join(","));
    let key = "x".repeat(200);
    let rows: Vec<String> = (0..50_000).map(|i| format!("\"{key}{i}\":{row}")).collect();
    std::fs::write(
        d.join("ctx.json"),
        format!("{{\"big\":{{{}}}}}", rows.join(",")),
    )
    .unwrap();
    let out = run(
        d,
        &[
            "resume-check",
            "--no-config",
            "--contract",
            "w.contract.yaml",
            "--checkpoint",
            "cp",
            "--context",
            "ctx.json",
            "--now",
            "2026-03-01T12:00:00Z",
            "--format",
            "json",
        ],
        None,
        Duration::from_secs(120),
        Some(400 * 1024),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let results = report["entry_revalidation"]["field_results"]
        .as_array()
        .unwrap();
    assert_eq!(results.len(), 5);
    assert!(
        results
            .iter()
            .all(|r| r["status"] == "propagated" && r["type_checked"] == true)
    );
}

#[test]
fn shapes_built_to_be_quadratic_stay_linear() {
    // Each took tens of seconds to minutes with the old code, or printed
    // gigabytes; the deadline only catches a return of that.
    let dir = temp();
    let d = dir.path();
    let lint = |name: &str, text: String, extra: &[&str]| {
        let file = d.join(format!("{name}.contract.yaml"));
        std::fs::write(&file, text).unwrap();
        let file = file.to_string_lossy().into_owned();
        let mut args = vec!["lint", "--no-config", "--format", "concise"];
        args.extend_from_slice(extra);
        args.push(&file);
        run(d, &args, None, Duration::from_secs(60), None)
    };
    // A help line lists ten phases, not 16,000.
    let out = lint(
        "unknown",
        quadratic::unknown_phases(16_000),
        &["--select", "R101"],
    );
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 16_001);
    // One line with a help naming ten phases: hundreds of bytes, not 16,000 names.
    assert!(text.len() < 16_000 * 500, "{} bytes of output", text.len());
    let out = lint(
        "sources",
        quadratic::misspelled_sources(16_000),
        &["--select", "R107"],
    );
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out).matches(" R107 ").count(), 16_000);
    // Past 100 distinct wildcard names: E007, and no graph analysis.
    let out = lint("wildcards", quadratic::wildcards(16_000), &[]);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("more than 100 distinct field names with a `*` segment"),
        "{}",
        stdout(&out)
    );
    let out = lint(
        "two-way",
        quadratic::two_way_chain(32_000),
        &["--select", "G303"],
    );
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert_eq!(stdout(&out).matches(" G303 ").count(), 1);
    let out = lint(
        "chains",
        quadratic::far_chains(32_000),
        &["--select", "G307,G308"],
    );
    assert_eq!(code(&out), 0);
    let out = lint("markers", quadratic::repeated_markers(400_000), &[]);
    assert_eq!(code(&out), 0);
    let out = lint(
        "fixes",
        quadratic::many_safe_fixes(128_000),
        &["--fix", "--select", "S002"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("fixed 128000 findings"),
        "{}",
        stderr(&out)
    );
}
