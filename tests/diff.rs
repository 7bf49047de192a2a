//! `phaselint diff OLD NEW` through the real binary: for each D-code a
//! fixture pair that triggers it and one that does not, the codes each
//! pair reports and the exit code pinned (`fixtures/diff/`: every NEW is
//! compared with `base.contract.yaml`, the OLD of every pair).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "support/binary.rs"]
mod binary;
use binary::{Run, phaselint};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const OLD: &str = "fixtures/diff/base.contract.yaml";

fn diff(new: &str) -> Run {
    phaselint(&repo(), &["diff", "--format", "concise", OLD, new])
}

/// The codes a concise report lists, in order.
fn codes(run: &Run) -> Vec<String> {
    run.stdout
        .lines()
        .filter_map(|line| line.split(": ").nth(1))
        .filter_map(|rest| rest.split(' ').next())
        .map(str::to_string)
        .collect()
}

/// Each NEW of `fixtures/diff/CODE/`, the codes diffing it against the
/// base reports, and the exit code: 1 when an error is among them.
const CASES: &[(&str, &[&str], i32)] = &[
    ("D601/fail.contract.yaml", &["D601"], 1),
    ("D601/fail-renamed.contract.yaml", &["D601"], 1),
    ("D601/pass.contract.yaml", &["D611"], 0),
    // The renamed phase is also what `post_retrieval` resumes into.
    (
        "D602/fail.contract.yaml",
        &["D603", "D611", "D611", "D602"],
        1,
    ),
    ("D602/pass.contract.yaml", &["D611"], 0),
    ("D603/fail.contract.yaml", &["D603", "D611"], 1),
    ("D603/pass.contract.yaml", &["D621"], 0),
    // NEW produces `citations` before the checkpoint, OLD did not.
    ("D604/fail.contract.yaml", &["D604", "D611", "D611"], 1),
    ("D604/pass.contract.yaml", &["D611"], 0),
    ("D605/fail.contract.yaml", &["D605", "D611"], 1),
    ("D605/pass.contract.yaml", &["D611"], 0),
    // An irreversible next phase needs a person's approval (P401), so
    // the resume check now asks for one: D613 too.
    (
        "D606/fail.contract.yaml",
        &["D606", "D606", "D611", "D613"],
        1,
    ),
    ("D606/pass.contract.yaml", &["D611"], 0),
    ("D611/fail.contract.yaml", &["D611"], 0),
    ("D611/pass.contract.yaml", &[], 0),
    ("D612/fail.contract.yaml", &["D611", "D612"], 0),
    ("D612/pass.contract.yaml", &["D611", "D622"], 0),
    (
        "D612/fail-newly-checked.contract.yaml",
        &["D611", "D611", "D612"],
        0,
    ),
    ("D612/fail-recovery.contract.yaml", &["D611", "D612"], 0),
    ("D613/fail.contract.yaml", &["D611", "D613"], 0),
    ("D613/pass.contract.yaml", &["D611"], 0),
    ("D614/fail.contract.yaml", &["D614", "D611", "D611"], 0),
    ("D614/pass.contract.yaml", &[], 0),
    ("D621/fail.contract.yaml", &["D621"], 0),
    ("D621/pass.contract.yaml", &[], 0),
    ("D622/fail.contract.yaml", &["D611", "D622"], 0),
    (
        "D622/fail-unchecked.contract.yaml",
        &["D611", "D622", "D622"],
        0,
    ),
    ("D622/pass.contract.yaml", &["D611"], 0),
];

#[test]
fn each_fixture_pair_reports_its_codes_and_exit_code() {
    let mut failures = Vec::new();
    for &(new, expected, exit) in CASES {
        let run = diff(&format!("fixtures/diff/{new}"));
        let found = codes(&run);
        if found != expected || run.code != exit {
            failures.push(format!(
                "{new}: expected {expected:?} exit {exit}, got {found:?} exit {}\n{}{}",
                run.code, run.stdout, run.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_fixture_is_a_case_and_every_code_has_a_failing_and_a_passing_pair() {
    let mut listed: Vec<String> = Vec::new();
    for dir in std::fs::read_dir(repo().join("fixtures/diff")).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let code = dir.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&dir).unwrap() {
            let name = file.unwrap().file_name().to_string_lossy().into_owned();
            listed.push(format!("{code}/{name}"));
        }
        let fails = CASES.iter().any(|(new, found, _)| {
            new.starts_with(&format!("{code}/fail")) && found.contains(&code.as_str())
        });
        let passes = CASES.iter().any(|(new, found, _)| {
            *new == format!("{code}/pass.contract.yaml") && !found.contains(&code.as_str())
        });
        assert!(
            fails && passes,
            "{code}: needs a failing and a passing pair"
        );
    }
    listed.sort();
    let mut cases: Vec<String> = CASES.iter().map(|(n, _, _)| (*n).to_string()).collect();
    cases.sort();
    assert_eq!(listed, cases);
}

#[test]
fn a_contract_diffed_with_itself_reports_nothing() {
    let run = diff(OLD);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(codes(&run).is_empty(), "{}", run.stdout);
}

#[test]
fn the_new_contract_can_come_from_standard_input() {
    let text = std::fs::read(repo().join("fixtures/diff/D601/fail.contract.yaml")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args(["diff", "--format", "concise", OLD, "-"])
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.starts_with("-:"), "{stdout}");
    assert!(
        stdout.contains("D601 [error] checkpoint `pre_publish` is removed"),
        "{stdout}"
    );
}

#[test]
fn both_sides_on_standard_input_is_no_verdict() {
    let run = phaselint(&repo(), &["diff", "-", "-"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("only one of OLD and NEW"),
        "{}",
        run.stderr
    );
}

/// As the resume check refuses one: a contract with an E-code gets no
/// verdict, naming the side, the file and the code.
#[test]
fn a_contract_with_schema_errors_is_no_verdict_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.contract.yaml");
    let base = std::fs::read_to_string(repo().join(OLD)).unwrap();
    std::fs::write(
        &broken,
        base.replace("side_effects: reversible", "side_effects: maybe"),
    )
    .unwrap();
    let broken = broken.to_str().unwrap();
    let old = repo().join(OLD);
    let old = old.to_str().unwrap();
    for (args, side) in [([old, broken], "NEW"), ([broken, old], "OLD")] {
        let run = phaselint(dir.path(), &["diff", args[0], args[1]]);
        assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        assert!(
            run.stderr.contains(&format!("{side} (")) && run.stderr.contains("E006"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn an_unreadable_file_is_no_verdict() {
    let run = phaselint(
        &repo(),
        &["diff", OLD, "fixtures/diff/no-such.contract.yaml"],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("cannot read"), "{}", run.stderr);
}

/// Every format renders the findings, and the exit code does not depend
/// on the format.
#[test]
fn every_format_renders_the_findings() {
    for format in [
        "full", "concise", "json", "github", "sarif", "gitlab", "junit",
    ] {
        let run = phaselint(
            &repo(),
            &[
                "diff",
                "--format",
                format,
                "--color",
                "never",
                OLD,
                "fixtures/diff/D603/fail.contract.yaml",
            ],
        );
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        assert!(run.stdout.contains("D603"), "{format}: {}", run.stdout);
    }
}

/// What `resume-check` says of the run paused at `pre_publish` (the
/// context `fixtures/diff/pre_publish.context.json`) under `contract`: its
/// exit code, and the checkpoint's phase and the phases it resumes into
/// when it gave a report.
fn resume_check(contract: &str) -> (i32, Option<(String, Vec<String>)>) {
    let run = phaselint(
        &repo(),
        &[
            "resume-check",
            "--contract",
            contract,
            "--checkpoint",
            "pre_publish",
            "--context",
            "fixtures/diff/pre_publish.context.json",
            "--now",
            "2026-03-01T12:00:00Z",
            "--format",
            "json",
        ],
    );
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let route = report["phase"].as_str().map(|phase| {
        let next = report["entry_revalidation"]["phases"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.as_str().map(str::to_string))
            .collect();
        (phase.to_string(), next)
    });
    (run.code, route)
}

/// Resume-check agreement: for each error-level finding about
/// `pre_publish`, the run paused there resumes under OLD, and under NEW
/// is refused (exit 3 or 2) or re-routed (another phase, or other phases
/// to resume into), as the finding says.
#[test]
fn each_error_finding_is_a_run_that_resume_check_refuses_or_reroutes() {
    let (old_code, old_route) = resume_check(OLD);
    assert_eq!(old_code, 0, "the paused run resumes under OLD");
    let old_route = old_route.unwrap();
    assert_eq!(
        old_route,
        ("generate".to_string(), vec!["publish".to_string()])
    );
    for (new, code, expected_exit) in [
        ("D601/fail.contract.yaml", "D601", 3),
        ("D601/fail-renamed.contract.yaml", "D601", 3),
        ("D602/fail.contract.yaml", "D602", 0),
        ("D603/fail.contract.yaml", "D603", 0),
        ("D606/fail.contract.yaml", "D606", 2),
    ] {
        let new = format!("fixtures/diff/{new}");
        let found = diff(&new);
        assert!(
            found.stdout.contains(&format!(": {code} [error]")),
            "{new}: {}",
            found.stdout
        );
        let (exit, route) = resume_check(&new);
        assert_eq!(exit, expected_exit, "{new}");
        if exit == 0 {
            assert_ne!(route.as_ref(), Some(&old_route), "{new} is not re-routed");
        }
    }
}

// ---------------------------------------------------------------------
// D604, D605, D621, D622 (issue 23: the remaining codes), the real
// artisan-pipeline history, and their resume-check agreement.
// ---------------------------------------------------------------------

/// D604 and D605 agree with the resume check: the run paused at
/// `pre_publish` resumes under OLD and is blocked under NEW, on the very
/// field the finding names; their passing pairs resume.
#[test]
fn entry_findings_are_runs_that_resume_check_blocks() {
    for (new, code, field) in [
        ("D604/fail.contract.yaml", "D604", "citations"),
        ("D605/fail.contract.yaml", "D605", "draft_answer"),
    ] {
        let new = format!("fixtures/diff/{new}");
        let found = diff(&new);
        assert!(
            found
                .stdout
                .lines()
                .any(|l| l.contains(&format!(": {code} [error]"))
                    && l.contains(&format!("`{field}`"))),
            "{new}: {}",
            found.stdout
        );
        let run = phaselint(
            &repo(),
            &[
                "resume-check",
                "--contract",
                &new,
                "--checkpoint",
                "pre_publish",
                "--context",
                "fixtures/diff/pre_publish.context.json",
                "--now",
                "2026-03-01T12:00:00Z",
                "--format",
                "json",
            ],
        );
        assert_eq!(run.code, 1, "{new}: {}{}", run.stdout, run.stderr);
        let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let failed: Vec<&str> = report["entry_revalidation"]["field_results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["status"] == "failed")
            .filter_map(|r| r["field"].as_str())
            .collect();
        assert_eq!(failed, [field], "{new}");
    }
    for new in ["D604/pass.contract.yaml", "D605/pass.contract.yaml"] {
        let (exit, _) = resume_check(&format!("fixtures/diff/{new}"));
        assert_eq!(exit, 0, "{new}");
    }
}
