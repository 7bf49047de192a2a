//! `phaselint lint --watch` through the real binary: a run per change,
//! read from its piped output with a deadline on every read, and a clean
//! end on SIGINT.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// How long one run may take to show up: generous, for a loaded machine.
const DEADLINE: Duration = Duration::from_secs(60);

fn corpus(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/valid")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

struct Watching {
    child: Child,
    lines: Receiver<String>,
}

impl Watching {
    fn start(dir: &Path, args: &[&str]) -> Watching {
        let mut child = Command::new(env!("CARGO_BIN_EXE_phaselint"))
            .args(["lint", "--watch", "--format", "concise", "--quiet"])
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Watching { child, lines }
    }

    /// The findings of the next run and its status line.
    fn next_run(&self) -> (Vec<String>, String) {
        let deadline = Instant::now() + DEADLINE;
        let mut findings = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|e| {
                panic!("no status line within {DEADLINE:?} ({e}); read {findings:?}")
            });
            if line.contains("(Ctrl-C to stop)") {
                return (findings, line);
            }
            findings.push(line);
        }
    }

    /// Runs until one whose status line contains `wanted` (an editor's
    /// save may come as more than one batch).
    fn run_showing(&self, wanted: &str) -> (Vec<String>, String) {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let (findings, status) = self.next_run();
            if status.contains(wanted) {
                return (findings, status);
            }
            assert!(
                Instant::now() < deadline,
                "no run showed {wanted:?}; last: {status}"
            );
        }
    }

    fn interrupt(mut self) -> (std::process::ExitStatus, String) {
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).unwrap();
        rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
        let deadline = Instant::now() + DEADLINE;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "did not end on SIGINT");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut stderr).unwrap();
        (status, stderr)
    }
}

#[test]
fn a_running_watch_relints_edits_configuration_and_deletions_and_ends_on_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Clean under the default rules (its only finding, G304, is off by default).
    let clean = corpus("artisan-pipeline.9cd4ee6b.contract.yaml");
    let contract = root.join("pipelines/a.contract.yaml");
    std::fs::create_dir_all(contract.parent().unwrap()).unwrap();
    std::fs::write(&contract, &clean).unwrap();
    std::fs::write(root.join("notes.txt"), "not a contract\n").unwrap();

    let watching = Watching::start(root, &["."]);
    let (findings, status) = watching.next_run();
    assert!(findings.is_empty(), "{findings:?}");
    assert!(
        status.contains("0 errors, 0 warnings in 1 file — watching 1 path (Ctrl-C to stop)"),
        "{status}"
    );

    // A defect: the next run shows it.
    std::fs::write(&contract, format!("{clean}bogus_key: 1\n")).unwrap();
    let (findings, status) = watching.run_showing("1 error");
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("pipelines/a.contract.yaml:") && f.contains("E003")),
        "{findings:?}"
    );
    assert!(status.contains("1 error, 0 warnings in 1 file"), "{status}");

    // Fixed: clean again.
    std::fs::write(&contract, &clean).unwrap();
    let (findings, _) = watching.run_showing("0 errors, 0 warnings in 1 file");
    assert!(findings.is_empty(), "{findings:?}");

    // A configuration written: everything is linted again under it (G304
    // is on with every rule selected).
    std::fs::write(root.join("phaselint.toml"), "select = [\"ALL\"]\n").unwrap();
    let (findings, status) = watching.run_showing("infos");
    assert!(findings.iter().all(|f| f.contains("G304")), "{findings:?}");
    assert!(
        !findings.is_empty() && status.contains("0 errors"),
        "{status}"
    );

    // A new contract joins; a deleted one leaves the report.
    std::fs::write(
        root.join("pipelines/b.contract.yaml"),
        "schema_version: '1'\npipeline_id: b\nphases: {}\nbogus: 1\n",
    )
    .unwrap();
    let (findings, _) = watching.run_showing("in 2 files");
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("pipelines/b.contract.yaml:")),
        "{findings:?}"
    );
    std::fs::remove_file(&contract).unwrap();
    let (findings, status) = watching.run_showing("in 1 file");
    assert!(
        findings.iter().all(|f| !f.contains("a.contract.yaml")),
        "{findings:?}"
    );
    assert!(status.contains("1 error"), "{status}");

    let (status, stderr) = watching.interrupt();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn watch_refuses_what_it_cannot_do_on_every_save() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_phaselint"))
            .args(args)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    for (args, expected) in [
        (&["lint", "--watch", "--fix", "."][..], "--fix or --diff"),
        (&["lint", "--watch", "--diff", "."][..], "--fix or --diff"),
        (
            &["lint", "--watch", "--format", "sarif", "."][..],
            "--output-file",
        ),
        (&["lint", "--watch", "-"][..], "standard input"),
        (
            &["lint", "--watch", "--write-baseline", "b.json", "."][..],
            "--write-baseline or --add-suppressions",
        ),
        (
            &["lint", "--watch", "--add-suppressions", "."][..],
            "--write-baseline or --add-suppressions",
        ),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

/// A baseline applies under `--watch` as in a single run: what it records
/// stays hidden, a new finding shows.
#[test]
fn a_watch_hides_what_the_baseline_records() {
    let dir = tempfile::tempdir().unwrap();
    let contract = dir.path().join("a.contract.yaml");
    std::fs::write(&contract, corpus("artisan-pipeline.ed6cc63c.contract.yaml")).unwrap();
    let written = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args(["lint", "--write-baseline", "baseline.json", "."])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(written.status.code(), Some(0), "{written:?}");
    let watching = Watching::start(dir.path(), &["--baseline", "baseline.json", "."]);
    let (findings, status) = watching.next_run();
    assert!(findings.is_empty(), "{findings:?}");
    assert!(
        status.contains("0 errors, 0 warnings in 1 file"),
        "{status}"
    );
    let text = std::fs::read_to_string(&contract).unwrap();
    std::fs::write(
        &contract,
        text.replacen("\n  plan:\n", "\n  plan:\n    long_running: true\n", 1),
    )
    .unwrap();
    let (findings, _) = watching.run_showing("1 warning");
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0].contains("C203"), "{findings:?}");
    let (status, _) = watching.interrupt();
    assert_eq!(status.code(), Some(0));
}
