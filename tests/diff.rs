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
    // Lowered side effects: the opposite of D606.
    ("D606/pass.contract.yaml", &["D622", "D611"], 0),
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
    ("D622/fail-no-checkpoints.contract.yaml", &["D622"], 0),
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

/// A contract without checkpoint specs resumes from any checkpoint id with
/// nothing checked. Adding specs to one strands every run paused at an id
/// NEW does not declare (D601, once); dropping them strands none (D622).
#[test]
fn going_to_or_from_no_checkpoint_specs_is_judged_by_what_resume_check_does() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(repo().join(OLD)).unwrap();
    let (without, _) = base.split_once("checkpoint_integrity:").unwrap();
    let unchecked = dir.path().join("unchecked.contract.yaml");
    std::fs::write(&unchecked, without).unwrap();
    let unchecked = unchecked.to_str().unwrap();
    let base_path = repo().join(OLD);
    let base_path = base_path.to_str().unwrap();

    let introduced = phaselint(
        &repo(),
        &["diff", "--format", "concise", unchecked, base_path],
    );
    assert_eq!(introduced.code, 1, "{}", introduced.stdout);
    assert_eq!(codes(&introduced), ["D601"]);
    assert!(
        introduced
            .stdout
            .contains("OLD declares no checkpoint_integrity"),
        "{}",
        introduced.stdout
    );
    let dropped = phaselint(
        &repo(),
        &["diff", "--format", "concise", base_path, unchecked],
    );
    assert_eq!(dropped.code, 0, "{}", dropped.stdout);
    assert_eq!(codes(&dropped), ["D622"]);

    // The agreement: a run paused under OLD at an id NEW does not declare
    // resumes under OLD and is unknown under NEW.
    let at = |contract: &str, checkpoint: &str| {
        phaselint(
            &repo(),
            &[
                "resume-check",
                "--contract",
                contract,
                "--checkpoint",
                checkpoint,
                "--context",
                "fixtures/diff/pre_publish.context.json",
                "--now",
                "2026-03-01T12:00:00Z",
            ],
        )
        .code
    };
    assert_eq!(at(unchecked, "after_generate"), 0);
    assert_eq!(at(base_path, "after_generate"), 3);
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

/// The 25 versions of the real `artisan-pipeline` contract, in commit
/// order (`../shared/corpus/MANIFEST.md`, note 6), each with the folder
/// it is in: two are invalid (E003: keys the schema does not know).
const ARTISAN_HISTORY: &[(&str, &str)] = &[
    ("eafba2a1", "valid"),
    ("9cd4ee6b", "valid"),
    ("d246d654", "valid"),
    ("eb6c3063", "valid"),
    ("da8ecc3b", "valid"),
    ("58f6bfe9", "invalid"),
    ("3bf5e550", "valid"),
    ("dfe8f203", "valid"),
    ("0769774f", "valid"),
    ("20f72265", "valid"),
    ("dddb9c55", "valid"),
    ("31d80f94", "valid"),
    ("81d627d9", "valid"),
    ("783a8fa7", "valid"),
    ("9c966292", "valid"),
    ("368b3641", "valid"),
    ("1a69150a", "valid"),
    ("597f0ffb", "valid"),
    ("689a1155", "invalid"),
    ("464bf935", "valid"),
    ("af6a3709", "valid"),
    ("790053e9", "valid"),
    ("99cf25d3", "valid"),
    ("2e3c09f2", "valid"),
    ("ed6cc63c", "valid"),
];

fn artisan(version: &str) -> PathBuf {
    let (_, folder) = ARTISAN_HISTORY.iter().find(|(v, _)| *v == version).unwrap();
    repo().join(format!(
        "../shared/corpus/{folder}/artisan-pipeline.{version}.contract.yaml"
    ))
}

/// Each pair of consecutive versions (and the pair across each invalid
/// one), with the findings per code and the exit code of diffing the
/// versions with a checkpoint after every phase (`with_checkpoints`).
/// Every finding was read against the two files (the D611s also against
/// an independent count: a checkpoint's phase or the phase after it
/// changed); `integrate`, inserted after `implement` in 3bf5e550, is the
/// one D603.
/// OLD, NEW, the findings per code, the exit code.
type HistoryPair = (
    &'static str,
    &'static str,
    &'static [(&'static str, usize)],
    i32,
);

const ARTISAN_PAIRS: &[HistoryPair] = &[
    ("eafba2a1", "9cd4ee6b", &[("D611", 5)], 0),
    ("9cd4ee6b", "d246d654", &[("D611", 2)], 0),
    ("d246d654", "eb6c3063", &[("D611", 2)], 0),
    ("eb6c3063", "da8ecc3b", &[("D611", 5)], 0),
    ("da8ecc3b", "58f6bfe9", &[], 3),
    ("58f6bfe9", "3bf5e550", &[], 3),
    ("da8ecc3b", "3bf5e550", &[("D603", 1), ("D611", 6)], 1),
    ("3bf5e550", "dfe8f203", &[("D611", 3)], 0),
    ("dfe8f203", "0769774f", &[("D611", 4)], 0),
    ("0769774f", "20f72265", &[("D611", 4)], 0),
    ("20f72265", "dddb9c55", &[("D611", 2)], 0),
    ("dddb9c55", "31d80f94", &[("D611", 2)], 0),
    ("31d80f94", "81d627d9", &[("D611", 2)], 0),
    ("81d627d9", "783a8fa7", &[("D611", 1)], 0),
    ("783a8fa7", "9c966292", &[], 0),
    ("9c966292", "368b3641", &[("D611", 2)], 0),
    ("368b3641", "1a69150a", &[("D611", 2)], 0),
    ("1a69150a", "597f0ffb", &[("D611", 2)], 0),
    ("597f0ffb", "689a1155", &[], 3),
    ("689a1155", "464bf935", &[], 3),
    ("597f0ffb", "464bf935", &[("D611", 2)], 0),
    ("464bf935", "af6a3709", &[("D611", 2)], 0),
    ("af6a3709", "790053e9", &[("D611", 2)], 0),
    ("790053e9", "99cf25d3", &[], 0),
    ("99cf25d3", "2e3c09f2", &[("D611", 2)], 0),
    ("2e3c09f2", "ed6cc63c", &[], 0),
];

/// The contract with a checkpoint `after_<phase>` after each of its
/// phases: the real files declare no checkpoint, so no run can pause in
/// them and the real history has nothing for diff to report.
fn with_checkpoints(text: &str) -> String {
    let mut phases = Vec::new();
    let mut in_phases = false;
    for line in text.lines() {
        if line.trim_end() == "phases:" {
            in_phases = true;
            continue;
        }
        if in_phases && !line.starts_with(' ') && !line.trim().is_empty() && !line.starts_with('#')
        {
            in_phases = false;
        }
        if in_phases
            && let Some(name) = line.strip_prefix("  ").and_then(|l| l.strip_suffix(':'))
            && !name.starts_with([' ', '#', '-'])
        {
            phases.push(name.to_string());
        }
    }
    let mut out = text.trim_end().to_string();
    out.push_str("\ncheckpoint_integrity:\n");
    for phase in phases {
        out.push_str(&format!(
            "  - checkpoint_id: after_{phase}\n    phase: {phase}\n"
        ));
    }
    out
}

fn code_counts(run: &Run) -> Vec<(String, usize)> {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for code in codes(run) {
        *counts.entry(code).or_default() += 1;
    }
    counts.into_iter().collect()
}

/// The real history as written: no checkpoint, so nothing to report; a
/// pair with an invalid version is no verdict naming it and its E-code.
#[test]
fn the_artisan_pipeline_history_as_written_reports_nothing() {
    let mut failures = Vec::new();
    for &(old, new, _, _) in ARTISAN_PAIRS {
        let (old_path, new_path) = (artisan(old), artisan(new));
        let run = phaselint(
            &repo(),
            &[
                "diff",
                "--format",
                "concise",
                old_path.to_str().unwrap(),
                new_path.to_str().unwrap(),
            ],
        );
        let invalid = [old, new].into_iter().enumerate().find(|(_, v)| {
            ARTISAN_HISTORY
                .iter()
                .any(|(h, f)| h == v && *f == "invalid")
        });
        let ok = match invalid {
            Some((side, version)) => {
                run.code == 3
                    && run.stdout.is_empty()
                    && run
                        .stderr
                        .contains(&format!("{} (", if side == 0 { "OLD" } else { "NEW" }))
                    && run.stderr.contains(&format!("artisan-pipeline.{version}"))
                    && run.stderr.contains("E003")
            }
            None => run.code == 0 && codes(&run).is_empty(),
        };
        if !ok {
            failures.push(format!(
                "{old}→{new}: exit {}\n{}{}",
                run.code, run.stdout, run.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The real history with a checkpoint after every phase: the findings per
/// code of each pair, pinned after reading each against the two files.
#[test]
fn the_artisan_pipeline_history_with_checkpoints_pins_its_findings() {
    let dir = tempfile::tempdir().unwrap();
    for (version, _) in ARTISAN_HISTORY {
        let text = std::fs::read_to_string(artisan(version)).unwrap();
        std::fs::write(
            dir.path().join(format!("{version}.contract.yaml")),
            with_checkpoints(&text),
        )
        .unwrap();
    }
    let mut failures = Vec::new();
    for &(old, new, expected, exit) in ARTISAN_PAIRS {
        let run = phaselint(
            dir.path(),
            &[
                "diff",
                "--format",
                "concise",
                &format!("{old}.contract.yaml"),
                &format!("{new}.contract.yaml"),
            ],
        );
        let found = code_counts(&run);
        let expected: Vec<(String, usize)> = expected
            .iter()
            .map(|(c, n)| ((*c).to_string(), *n))
            .collect();
        if found != expected || run.code != exit {
            failures.push(format!(
                "{old}→{new}: expected {expected:?} exit {exit}, got {found:?} exit {}\n{}{}",
                run.code, run.stdout, run.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------
// The second adversarial review of diff's analysis (S1-S8, F1-F4): each
// case is run through both `phaselint diff OLD NEW` and `phaselint
// resume-check` on OLD and on NEW with one context, so a finding is
// checked against what the resume check really does.

/// One OLD/NEW pair, the checkpoint and context a paused run has, the
/// resume-check arguments the orchestrator passes, and what is expected.
struct Adversarial {
    name: &'static str,
    old: &'static str,
    new: &'static str,
    checkpoint: &'static str,
    context: &'static str,
    args: &'static [&'static str],
    /// `(code, a piece of its message)` each reported finding must match,
    /// in report order (no other finding).
    findings: &'static [(&'static str, &'static str)],
    diff_exit: i32,
    /// resume-check's exit code under OLD, then under NEW.
    resume: (i32, i32),
}

const FORK: &str = r#"schema_version: "0.2.0"
pipeline_id: fork
phases:
  plan:    { exit:  { required: [{ name: topic }] } }
  publish: { entry: { required: [{ name: approved_text }] } }
  review:  { entry: { required: [{ name: topic }] } }
graph_topology: { graph_id: fork, edges: [{ from: plan, to: publish }, { from: plan, to: review }] }
checkpoint_integrity: [{ checkpoint_id: after_plan, phase: plan }]
"#;

const FORK_IRREVERSIBLE: &str = r#"schema_version: "0.2.0"
pipeline_id: fork
phases:
  plan:    { exit:  { required: [{ name: topic }] } }
  publish: { side_effects: irreversible, entry: { required: [{ name: topic }] } }
  review:  { entry: { required: [{ name: topic }] } }
graph_topology: { graph_id: fork, edges: [{ from: plan, to: publish }, { from: plan, to: review }] }
checkpoint_integrity: [{ checkpoint_id: after_plan, phase: plan }]
"#;

const TYPED: &str = r#"schema_version: "0.2.0"
pipeline_id: typed
phases:
  intake: { entry: { required: [{ name: ticket, type: string }] }, exit: { required: [{ name: summary }] } }
  triage: { entry: { required: [{ name: summary }] }, exit: { required: [{ name: label }] } }
  act:    { entry: { required: [{ name: label }] } }
checkpoint_integrity: [{ checkpoint_id: after_triage, phase: triage }]
"#;

const GRADE: &str = r#"schema_version: "0.2.0"
pipeline_id: sev
phases:
  grade:   { exit: { required: [{ name: score }] } }
  publish: { entry: { required: [{ name: score, type: int, severity: warning, default: 0 }] } }
checkpoint_integrity: [{ checkpoint_id: pre_publish, phase: grade }]
"#;

const ADVISORY_EXIT: &str = r#"schema_version: "0.2.0"
pipeline_id: exit-sev
phases:
  generate: { exit:  { required: [{ name: draft }, { name: notes, severity: advisory }] } }
  publish:  { entry: { required: [{ name: draft }] } }
checkpoint_integrity: [{ checkpoint_id: pre_publish, phase: generate }]
"#;

const ADVISORY_INPUT: &str = r#"schema_version: "0.2.0"
pipeline_id: warn-input
phases:
  intake: { entry: { required: [{ name: ticket }, { name: hint, severity: advisory }] }, exit: { required: [{ name: summary }] } }
  act:    { entry: { required: [{ name: summary }] } }
checkpoint_integrity: [{ checkpoint_id: after_intake, phase: intake }]
"#;

const LOOP: &str = r#"schema_version: "0.2.0"
pipeline_id: loop
phases:
  draft:    { exit: { required: [{ name: answer }] } }
  critique: { entry: { required: [{ name: answer }] }, exit: { required: [{ name: answer }] } }
graph_topology: { graph_id: loop, edges: [{ from: draft, to: critique }, { from: critique, to: draft }] }
checkpoint_integrity: [{ checkpoint_id: after_draft, phase: draft }]
"#;

const UNKNOWN_TYPE: &str = r#"schema_version: "0.2.0"
pipeline_id: t
phases:
  generate: { exit:  { required: [{ name: tags, type: string }] } }
  publish:  { entry: { required: [{ name: tags, type: "str[]" }] } }
checkpoint_integrity: [{ checkpoint_id: pre_publish, phase: generate }]
"#;

const NESTED: &str = r#"schema_version: "0.2.0"
pipeline_id: nested
phases:
  generate: { exit:  { required: [{ name: report.text, type: string }] } }
  publish:  { entry: { required: [{ name: report.text, type: string }] } }
checkpoint_integrity: [{ checkpoint_id: pre_publish, phase: generate }]
"#;

const RISK: &str = r#"schema_version: "0.2.0"
pipeline_id: risk
phases:
  plan:    { exit:  { required: [{ name: topic }] } }
  publish: { entry: { required: [{ name: topic }] } }
checkpoint_integrity: [{ checkpoint_id: after_plan, phase: plan }]
"#;

const DUPLICATE_CHECKS: &str = r#"schema_version: "0.2.0"
pipeline_id: dup
phases:
  gen:     { exit:  { required: [{ name: draft }] } }
  publish: { entry: { required: [{ name: draft }] } }
checkpoint_integrity:
  - checkpoint_id: pre_publish
    phase: gen
    on_resume:
      staleness_checks:
        - { field: draft, max_age_seconds: 600, on_stale: advisory, recovery: fail }
        - { field: draft, max_age_seconds: 60, on_stale: blocking }
"#;

const TWO_IDS: &str = r#"schema_version: "0.2.0"
pipeline_id: ren
phases:
  a: { exit: { required: [{ name: x }] } }
  b: { entry: { required: [{ name: x }] } }
checkpoint_integrity: [{ checkpoint_id: one, phase: a }, { checkpoint_id: two, phase: a }]
"#;

/// A run paused at `pre_publish` of `fixtures/diff/base.contract.yaml`
/// whose `draft_answer` is an hour old (stale at 600 s).
const STALE_DRAFT: &str = r#"{"retrieved_context": "passages", "draft_answer": "A first draft.", "_cc_propagation": {"retrieved_context": {"origin_phase": "retrieve", "set_at": "2026-03-01T11:50:00Z", "value_hash": "0a1b2c3d"}, "draft_answer": {"origin_phase": "generate", "set_at": "2026-03-01T11:00:00Z", "value_hash": "5f607182"}}}"#;

fn base_with(from: &str, to: &str) -> &'static str {
    let base = std::fs::read_to_string(repo().join(OLD)).unwrap();
    assert!(base.contains(from), "{from}");
    Box::leak(base.replacen(from, to, 1).into_boxed_str())
}

/// OLD checks `items.*.id`: `*` matches every item of a list and every
/// value of a mapping, so `items` may be either.
const WILDCARD: &str = r#"schema_version: "0.2.0"
pipeline_id: p
phases:
  plan: { exit: { required: [{ name: plan_text }] } }
  act:  { entry: { required: [{ name: items.*.id, type: string }] } }
checkpoint_integrity: [{ checkpoint_id: after_plan, phase: plan }]
"#;

fn adversarial_cases() -> Vec<Adversarial> {
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    vec![
        Adversarial {
            name: "round 3: a wildcard child lets the parent be a list or a mapping (a list held)",
            old: WILDCARD,
            new: leak(WILDCARD.replace(
                "{ name: items.*.id, type: string }",
                "{ name: items, type: dict }",
            )),
            checkpoint: "after_plan",
            context: r#"{"plan_text":"x","items":[{"id":"a"}]}"#,
            args: &[],
            findings: &[
                ("D605", "field `items`, checked on entry to `act` when resuming from checkpoint `after_plan`, must now be `dict` (blocking), but OLD held runs paused there to no single type for it"),
                ("D611", "target digest changed"),
            ],
            diff_exit: 1,
            resume: (0, 1),
        },
        Adversarial {
            name: "round 3: a wildcard child lets the parent be a list or a mapping (a mapping held)",
            old: WILDCARD,
            new: leak(WILDCARD.replace(
                "{ name: items.*.id, type: string }",
                "{ name: items, type: list }",
            )),
            checkpoint: "after_plan",
            context: r#"{"plan_text":"x","items":{"k":{"id":"a"}}}"#,
            args: &[],
            findings: &[
                ("D605", "must now be `list` (blocking), but OLD held runs paused there to no single type for it"),
                ("D611", "target digest changed"),
            ],
            diff_exit: 1,
            resume: (0, 1),
        },
        Adversarial {
            name: "S1: --next-phase reads one branch's entry, not its sibling's",
            old: FORK,
            new: leak(FORK.replace(
                "review:  { entry: { required: [{ name: topic }] } }",
                "review:  { entry: { required: [{ name: topic }, { name: approved_text }] } }",
            )),
            checkpoint: "after_plan",
            context: r#"{"topic":"t"}"#,
            args: &["--next-phase", "review"],
            findings: &[
                ("D604", "phase `review`, resumed into from checkpoint `after_plan`, requires `approved_text`"),
                ("D611", "target digest changed"),
            ],
            diff_exit: 1,
            resume: (0, 1),
        },
        Adversarial {
            name: "S2: an approval newly required on one branch",
            old: FORK_IRREVERSIBLE,
            new: leak(FORK_IRREVERSIBLE.replace(
                "phase: plan }",
                "phase: plan, on_resume: { approval_required: true, approval_policy: orchestrator } }",
            )),
            checkpoint: "after_plan",
            context: r#"{"topic":"t"}"#,
            args: &["--next-phase", "review"],
            findings: &[
                ("D611", "target digest changed"),
                ("D613", "asks for `orchestrator` on a resume into `review` under NEW where OLD asked for no approval"),
            ],
            diff_exit: 0,
            resume: (0, 2),
        },
        Adversarial {
            name: "S3: a type OLD declared on an upstream entry field",
            old: TYPED,
            new: leak(TYPED.replace(
                "act:    { entry: { required: [{ name: label }] } }",
                "act:    { entry: { required: [{ name: label }, { name: ticket, type: list }] } }",
            )),
            checkpoint: "after_triage",
            context: r#"{"ticket":"T-1","summary":"s","label":"bug"}"#,
            args: &[],
            findings: &[
                ("D605", "field `ticket`, checked on entry to `act` when resuming from checkpoint `after_triage`, changed type from `string` to `list`"),
                ("D611", "target digest changed"),
            ],
            diff_exit: 1,
            resume: (0, 1),
        },
        Adversarial {
            name: "S4: a typed warning field raised to blocking",
            old: GRADE,
            new: leak(GRADE.replace("severity: warning", "severity: blocking")),
            checkpoint: "pre_publish",
            context: r#"{"score":"high"}"#,
            args: &[],
            findings: &[
                ("D605", "must now be `int` (blocking), but OLD held runs paused there to no single type for it"),
                ("D611", "target digest changed"),
            ],
            diff_exit: 1,
            resume: (0, 1),
        },
        Adversarial {
            name: "S5: an advisory exit field is not produced for sure",
            old: ADVISORY_EXIT,
            new: leak(ADVISORY_EXIT.replace(
                "publish:  { entry: { required: [{ name: draft }] } }",
                "publish:  { entry: { required: [{ name: draft }, { name: notes }] } }",
            )),
            checkpoint: "pre_publish",
            context: r#"{"draft":"d"}"#,
            args: &[],
            findings: &[
                ("D604", "requires `notes` on entry (blocking)"),
                ("D611", "target digest changed"),
            ],
            diff_exit: 1,
            resume: (0, 1),
        },
        Adversarial {
            name: "S5: an advisory entry field of the first phase is not given for sure",
            old: ADVISORY_INPUT,
            new: leak(ADVISORY_INPUT.replace(
                "act:    { entry: { required: [{ name: summary }] } }",
                "act:    { entry: { required: [{ name: summary }, { name: hint }] } }",
            )),
            checkpoint: "after_intake",
            context: r#"{"ticket":"T-1","summary":"s"}"#,
            args: &[],
            findings: &[
                ("D604", "requires `hint` on entry (blocking)"),
                ("D611", "target digest changed"),
            ],
            diff_exit: 1,
            resume: (0, 1),
        },
        Adversarial {
            name: "S6: a phase no entry reaches holds nothing",
            old: LOOP,
            new: leak(LOOP.replace(
                "critique: { entry: { required: [{ name: answer }] }",
                "critique: { entry: { required: [{ name: answer }, { name: never_produced }] }",
            )),
            checkpoint: "after_draft",
            context: r#"{"answer":"a"}"#,
            args: &[],
            findings: &[
                ("D604", "requires `never_produced` on entry (blocking)"),
                ("D611", "target digest changed"),
            ],
            diff_exit: 1,
            resume: (0, 1),
        },
        Adversarial {
            name: "S7: a type the check does not know hides no other",
            old: UNKNOWN_TYPE,
            new: leak(UNKNOWN_TYPE.replace("type: \"str[]\"", "type: list")),
            checkpoint: "pre_publish",
            context: r#"{"tags":"a,b"}"#,
            args: &[],
            findings: &[
                ("D605", "changed type from `string` to `list`"),
                ("D611", "target digest changed"),
            ],
            diff_exit: 1,
            resume: (0, 1),
        },
        Adversarial {
            name: "S8: a recovery replaced by log_and_continue",
            old: base_with("", ""),
            new: base_with("recovery: re_generate", "recovery: log_and_continue"),
            checkpoint: "pre_publish",
            context: STALE_DRAFT,
            args: &["--recover-with", "cp fresh.json \"$PHASELINT_CONTEXT\""],
            findings: &[
                ("D611", "target digest changed"),
                ("D612", "no longer recovers a stale `draft_answer` (recovery `log_and_continue`)"),
            ],
            diff_exit: 0,
            resume: (0, 1),
        },
        Adversarial {
            name: "S8: a recovery removed",
            old: base_with("", ""),
            new: base_with("          recovery: re_generate\n", ""),
            checkpoint: "pre_publish",
            context: STALE_DRAFT,
            args: &["--recover-with", "cp fresh.json \"$PHASELINT_CONTEXT\""],
            findings: &[
                ("D611", "target digest changed"),
                ("D612", "no longer recovers a stale `draft_answer` (no recovery)"),
            ],
            diff_exit: 0,
            resume: (0, 1),
        },
        Adversarial {
            name: "F1: a parent of a field OLD checked is held, as a mapping",
            old: NESTED,
            new: leak(NESTED.replace(
                "publish:  { entry: { required: [{ name: report.text, type: string }] } }",
                "publish:  { entry: { required: [{ name: report.text, type: string }, { name: report, type: dict }] } }",
            )),
            checkpoint: "pre_publish",
            context: r#"{"report":{"text":"hi"}}"#,
            args: &[],
            findings: &[("D611", "target digest changed")],
            diff_exit: 0,
            resume: (0, 0),
        },
        Adversarial {
            name: "F2: risk_class raised where OLD asked no approval",
            old: RISK,
            new: leak(RISK.replace("publish: {", "publish: { risk_class: high,")),
            checkpoint: "after_plan",
            context: r#"{"topic":"t"}"#,
            args: &[],
            findings: &[
                ("D606", "raised risk_class from `low` to `high`: OLD asked no approval on this branch, so a run paused there resumes into the riskier phase without anyone having approved that risk"),
                ("D611", "target digest changed"),
            ],
            diff_exit: 1,
            resume: (0, 0),
        },
        Adversarial {
            name: "F2: risk_class raised where OLD asked an approval",
            old: leak(RISK.replace(
                "phase: plan }",
                "phase: plan, on_resume: { approval_required: true, approval_policy: orchestrator } }",
            )),
            new: leak(
                RISK.replace(
                    "phase: plan }",
                    "phase: plan, on_resume: { approval_required: true, approval_policy: orchestrator } }",
                )
                .replace("publish: {", "publish: { risk_class: high,"),
            ),
            checkpoint: "after_plan",
            context: r#"{"topic":"t"}"#,
            args: &[],
            findings: &[
                ("D606", "raised risk_class from `low` to `high`: the approval a run paused there got under OLD is void (D611), and it must be approved again for the riskier step"),
                ("D611", "target digest changed"),
            ],
            diff_exit: 1,
            // No approval presented: denied on both sides.
            resume: (2, 2),
        },
        Adversarial {
            name: "S3: a NEW type equal to OLD's upstream declaration is no change",
            old: TYPED,
            new: leak(TYPED.replace(
                "act:    { entry: { required: [{ name: label }] } }",
                "act:    { entry: { required: [{ name: label }, { name: ticket, type: string }] } }",
            )),
            checkpoint: "after_triage",
            context: r#"{"ticket":"T-1","summary":"s","label":"bug"}"#,
            args: &[],
            findings: &[("D611", "target digest changed")],
            diff_exit: 0,
            resume: (0, 0),
        },
        Adversarial {
            name: "F3: duplicate checks reordered, and advisory+fail to blocking+fail, change nothing",
            old: DUPLICATE_CHECKS,
            new: leak(
                DUPLICATE_CHECKS
                    .replace(
                        "{ field: draft, max_age_seconds: 600, on_stale: advisory, recovery: fail }",
                        "{ field: draft, max_age_seconds: 60, on_stale: blocking, recovery: fail }",
                    )
                    .replace(
                        "{ field: draft, max_age_seconds: 60, on_stale: blocking }",
                        "{ field: draft, max_age_seconds: 600, on_stale: blocking }",
                    ),
            ),
            checkpoint: "pre_publish",
            context: r#"{"draft":"d"}"#,
            args: &[],
            findings: &[("D611", "target digest changed")],
            diff_exit: 0,
            resume: (0, 0),
        },
        Adversarial {
            name: "F4: two OLD ids of one shape are removed, not both renamed",
            old: TWO_IDS,
            new: leak(TWO_IDS.replace(
                "[{ checkpoint_id: one, phase: a }, { checkpoint_id: two, phase: a }]",
                "[{ checkpoint_id: three, phase: a }]",
            )),
            checkpoint: "one",
            context: r#"{"x":1}"#,
            args: &[],
            findings: &[
                ("D601", "checkpoint `one` is removed"),
                ("D601", "checkpoint `two` is removed"),
            ],
            diff_exit: 1,
            resume: (0, 3),
        },
    ]
}

#[test]
fn adversarial_findings_agree_with_what_resume_check_does() {
    let mut failures = Vec::new();
    for case in adversarial_cases() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("old.contract.yaml"), case.old).unwrap();
        std::fs::write(dir.path().join("new.contract.yaml"), case.new).unwrap();
        let found = phaselint(
            dir.path(),
            &[
                "diff",
                "--no-config",
                "--format",
                "concise",
                "old.contract.yaml",
                "new.contract.yaml",
            ],
        );
        let lines: Vec<&str> = found
            .stdout
            .lines()
            .filter(|l| l.starts_with("new.contract.yaml:"))
            .collect();
        let matches = lines.len() == case.findings.len()
            && lines.iter().zip(case.findings).all(|(line, (code, text))| {
                line.contains(&format!(": {code} [")) && line.contains(text)
            });
        if !matches || found.code != case.diff_exit {
            failures.push(format!(
                "{}: diff exit {} (expected {}), findings:\n{}{}",
                case.name, found.code, case.diff_exit, found.stdout, found.stderr
            ));
        }
        let mut exits = Vec::new();
        for side in ["old", "new"] {
            // Each side's resume check gets the paused run's own context
            // (a recovery hook may rewrite it); `fresh.json` is what a
            // recovery writes: the same values, stamped just now.
            std::fs::write(dir.path().join("ctx.json"), case.context).unwrap();
            std::fs::write(
                dir.path().join("fresh.json"),
                case.context
                    .replace("2026-03-01T11:00:00Z", "2026-03-01T11:59:59Z"),
            )
            .unwrap();
            let contract = format!("{side}.contract.yaml");
            let mut args = vec![
                "resume-check",
                "--no-config",
                "--contract",
                &contract,
                "--checkpoint",
                case.checkpoint,
                "--context",
                "ctx.json",
                "--now",
                "2026-03-01T12:00:00Z",
                "--format",
                "json",
            ];
            args.extend(case.args);
            exits.push(phaselint(dir.path(), &args).code);
        }
        if exits != [case.resume.0, case.resume.1] {
            failures.push(format!(
                "{}: resume-check exits {exits:?}, expected {:?}",
                case.name, case.resume
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// F4: beside a D611, a loosened limit's help does not say "nothing to
/// do": the paused runs' approvals are void.
#[test]
fn a_loosened_limit_beside_a_void_approval_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.contract.yaml"), DUPLICATE_CHECKS).unwrap();
    std::fs::write(
        dir.path().join("new.contract.yaml"),
        DUPLICATE_CHECKS.replace("max_age_seconds: 60,", "max_age_seconds: 6000,"),
    )
    .unwrap();
    let found = phaselint(
        dir.path(),
        &[
            "diff",
            "--no-config",
            "--format",
            "concise",
            "old.contract.yaml",
            "new.contract.yaml",
        ],
    );
    assert_eq!(found.code, 0, "{}{}", found.stdout, found.stderr);
    assert!(found.stdout.contains(": D611 ["), "{}", found.stdout);
    let d622: Vec<&str> = found
        .stdout
        .lines()
        .filter(|l| l.contains(": D622 ["))
        .collect();
    assert_eq!(d622.len(), 1, "{}", found.stdout);
    assert!(d622[0].contains("lengthened from 60 to 600"), "{}", d622[0]);
    assert!(
        d622[0].contains("their approvals are void (D611)"),
        "{}",
        d622[0]
    );
    assert!(!d622[0].contains("nothing to do"), "{}", d622[0]);
}
