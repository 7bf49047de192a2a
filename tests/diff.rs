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
