//! `phaselint diff` as `lint` is configured and driven, through the real
//! binary: the D-codes' pages (`phaselint rule`), their levels and
//! selection from `phaselint.toml` (found from NEW's directory, or
//! `--config`, or none with `--no-config`) and the command line,
//! `--exit-zero`, `--max-warnings`, `--output-file`; and OLD's location as
//! a related location in OLD's own file, in every format (full and json
//! snapshotted).
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

fn fixture(name: &str) -> String {
    std::fs::read_to_string(repo().join("fixtures/diff").join(name)).unwrap()
}

/// A project in a temporary directory: `old.contract.yaml` (the base),
/// `new.contract.yaml` (`new`, a fixture under `fixtures/diff/`), and
/// `phaselint.toml` when `config` is given.
fn project(new: &str, config: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("old.contract.yaml"),
        fixture("base.contract.yaml"),
    )
    .unwrap();
    std::fs::write(dir.path().join("new.contract.yaml"), fixture(new)).unwrap();
    if let Some(config) = config {
        std::fs::write(dir.path().join("phaselint.toml"), config).unwrap();
    }
    dir
}

/// `phaselint diff --format concise [extra] old new` in `dir`.
fn diff_in(dir: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["diff", "--format", "concise"];
    args.extend_from_slice(extra);
    args.extend(["old.contract.yaml", "new.contract.yaml"]);
    phaselint(dir, &args)
}

/// `CODE severity` of each finding of a concise report, in order.
fn found(run: &Run) -> Vec<String> {
    run.stdout
        .lines()
        .filter_map(|line| line.split(": ").nth(1))
        .filter_map(|rest| {
            let mut words = rest.split(' ');
            let code = words.next()?;
            let level = words.next()?.trim_matches(['[', ']']);
            Some(format!("{code} {level}"))
        })
        .collect()
}

#[test]
fn rule_prints_a_d_code_page_and_lists_the_d_codes() {
    let page = phaselint(&repo(), &["rule", "D601"]);
    assert_eq!(page.code, 0, "{}", page.stderr);
    assert_eq!(
        page.stdout,
        std::fs::read_to_string(repo().join("rules/D601.md")).unwrap()
    );
    assert!(page.stdout.contains("Family: diff"), "{}", page.stdout);
    let by_name = phaselint(&repo(), &["rule", "staleness-tightened"]);
    assert!(by_name.stdout.starts_with("# D612: staleness-tightened"));
    let list = phaselint(&repo(), &["rule"]);
    assert!(
        list.stdout
            .lines()
            .any(|l| l.starts_with("D611   target-digest-changed") && l.contains(" warning ")),
        "{}",
        list.stdout
    );
}

/// The D612 pair reports D611 and D612, both warnings: exit 0 by default.
#[test]
fn the_default_levels_without_configuration() {
    let dir = project("D612/fail.contract.yaml", None);
    let run = diff_in(dir.path(), &[]);
    assert_eq!(found(&run), ["D611 warning", "D612 warning"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn phaselint_toml_beside_new_sets_levels_and_selection() {
    let dir = project(
        "D612/fail.contract.yaml",
        Some("ignore = [\"D611\"]\n\n[severity]\nD612 = \"error\"\n"),
    );
    let run = diff_in(dir.path(), &[]);
    assert_eq!(found(&run), ["D612 error"], "{}", run.stdout);
    assert_eq!(run.code, 1, "{}", run.stderr);

    // --no-config: the defaults again.
    let run = diff_in(dir.path(), &["--no-config"]);
    assert_eq!(found(&run), ["D611 warning", "D612 warning"]);
    assert_eq!(run.code, 0);

    // --config names another file.
    let other = dir.path().join("strict.toml");
    std::fs::write(&other, "[severity]\nD611 = \"error\"\n").unwrap();
    let run = diff_in(dir.path(), &["--config", other.to_str().unwrap()]);
    assert_eq!(found(&run), ["D611 error", "D612 warning"]);
    assert_eq!(run.code, 1);
}

/// The configuration is NEW's, found from NEW's directory up, as `lint`
/// finds a file's: one in a subdirectory applies to a NEW there, and its
/// `[per-file-ignores]` match NEW's path.
#[test]
fn the_configuration_is_found_from_new_s_directory() {
    let dir = project("D612/fail.contract.yaml", None);
    let sub = dir.path().join("pipelines");
    std::fs::create_dir(&sub).unwrap();
    std::fs::copy(
        dir.path().join("new.contract.yaml"),
        sub.join("new.contract.yaml"),
    )
    .unwrap();
    std::fs::write(
        sub.join("phaselint.toml"),
        "[per-file-ignores]\n\"new.contract.yaml\" = [\"D612\"]\n",
    )
    .unwrap();
    let run = phaselint(
        dir.path(),
        &[
            "diff",
            "--format",
            "concise",
            "old.contract.yaml",
            "pipelines/new.contract.yaml",
        ],
    );
    assert_eq!(found(&run), ["D611 warning"], "{}", run.stderr);
    // The same NEW at the top, beside no configuration: both.
    assert_eq!(found(&diff_in(dir.path(), &[])).len(), 2);
}

#[test]
fn select_ignore_and_severity_on_the_command_line() {
    let dir = project("D606/fail.contract.yaml", None);
    let run = diff_in(dir.path(), &[]);
    assert_eq!(
        found(&run),
        ["D606 error", "D606 error", "D611 warning", "D613 warning"]
    );
    assert_eq!(run.code, 1);

    let run = diff_in(dir.path(), &["--select", "D61"]);
    assert_eq!(found(&run), ["D611 warning", "D613 warning"]);
    assert_eq!(run.code, 0);

    let run = diff_in(dir.path(), &["--ignore", "D606,D613"]);
    assert_eq!(found(&run), ["D611 warning"]);

    let run = diff_in(
        dir.path(),
        &["--severity", "D606=warning", "--severity", "D611=off"],
    );
    assert_eq!(
        found(&run),
        ["D606 warning", "D606 warning", "D613 warning"]
    );
    assert_eq!(run.code, 0);

    // A code that is no rule is refused, as lint refuses it.
    let run = diff_in(dir.path(), &["--severity", "D699=error"]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(run.stderr.contains("D699"), "{}", run.stderr);
}

/// A project that selects only some lint families turns every D-code off:
/// diff says so instead of passing silently.
#[test]
fn a_selection_without_d_codes_is_warned_about() {
    let dir = project(
        "D601/fail.contract.yaml",
        Some("select = [\"E\", \"R\", \"C\", \"G\"]\n"),
    );
    let run = diff_in(dir.path(), &[]);
    assert!(found(&run).is_empty(), "{}", run.stdout);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr.contains("turns every D-code off") && run.stderr.contains("phaselint.toml"),
        "{}",
        run.stderr
    );
    // Nor does its SARIF describe rules it did not run (lint's among them).
    let sarif = phaselint(
        dir.path(),
        &[
            "diff",
            "--format",
            "sarif",
            "old.contract.yaml",
            "new.contract.yaml",
        ],
    );
    let log: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    assert_eq!(
        log["runs"][0]["tool"]["driver"]["rules"],
        serde_json::json!([])
    );
    let run = diff_in(dir.path(), &["--select", "D"]);
    assert_eq!(found(&run), ["D601 error"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

/// The configuration sets the D-codes' levels only: a contract with an
/// E-code is refused whatever it says of E-codes, as resume-check
/// refuses it.
#[test]
fn configuration_does_not_hide_an_e_code_from_the_refusal() {
    let dir = project(
        "D612/fail.contract.yaml",
        Some("ignore = [\"E\"]\n\n[severity]\nE006 = \"off\"\n"),
    );
    let new = fixture("D612/fail.contract.yaml").replace("on_stale: blocking", "on_stale: maybe");
    std::fs::write(dir.path().join("new.contract.yaml"), new).unwrap();
    let run = diff_in(dir.path(), &["--exit-zero"]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("E006"), "{}", run.stderr);
}

#[test]
fn an_invalid_configuration_is_no_verdict_naming_it() {
    let dir = project(
        "D612/fail.contract.yaml",
        Some("[severity]\nD612 = \"loud\"\n"),
    );
    let run = diff_in(dir.path(), &[]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(
        run.stderr.contains("phaselint.toml") && run.stderr.contains("severity.D612"),
        "{}",
        run.stderr
    );
}

#[test]
fn exit_zero_max_warnings_and_output_file() {
    let dir = project("D601/fail.contract.yaml", None);
    let run = diff_in(dir.path(), &["--exit-zero"]);
    assert_eq!(found(&run), ["D601 error"]);
    assert_eq!(run.code, 0);

    let dir = project("D612/fail.contract.yaml", None);
    let run = diff_in(dir.path(), &["--max-warnings", "1"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("2 warnings exceed --max-warnings 1"),
        "{}",
        run.stderr
    );
    assert_eq!(diff_in(dir.path(), &["--max-warnings", "2"]).code, 0);

    let report = dir.path().join("report.json");
    let run = phaselint(
        dir.path(),
        &[
            "diff",
            "--format",
            "json",
            "--output-file",
            report.to_str().unwrap(),
            "old.contract.yaml",
            "new.contract.yaml",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(json["diagnostics"].as_array().unwrap().len(), 2);
}

/// One finding (D612 of the D612 pair) in `format`, from the repository
/// root, OLD and NEW named as a user names them.
fn one_finding(format: &str) -> Run {
    phaselint(
        &repo(),
        &[
            "diff",
            "--no-config",
            "--select",
            "D612",
            "--color",
            "never",
            "--format",
            format,
            "fixtures/diff/base.contract.yaml",
            "fixtures/diff/D612/fail.contract.yaml",
        ],
    )
}

/// OLD's location is shown in OLD's own file: its snippet under its name
/// in `full`, its path in `json`.
#[test]
fn old_s_location_is_a_related_location_in_old_s_file() {
    let full = one_finding("full");
    assert_eq!(full.code, 0, "{}", full.stderr);
    insta::assert_snapshot!("full", full.stdout);
    let json = one_finding("json");
    insta::assert_snapshot!("json", json.stdout);
    let parsed: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let related = &parsed["diagnostics"][0]["related"][0];
    assert_eq!(related["path"], "fixtures/diff/base.contract.yaml");
    assert_eq!(related["start"]["line"], 40);
}

/// The one-line formats carry OLD's location as text.
#[test]
fn the_one_line_formats_name_old_s_location() {
    let note = "note: fixtures/diff/base.contract.yaml:40:28: max_age_seconds was 600";
    for format in ["concise", "github", "gitlab", "junit"] {
        let run = one_finding(format);
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        assert!(run.stdout.contains(note), "{format}: {}", run.stdout);
    }
}

/// OLD on standard input is shown as `-`, as lint shows standard input.
#[test]
fn old_from_standard_input_is_named_dash() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args([
            "diff",
            "--no-config",
            "--format",
            "json",
            "-",
            "fixtures/diff/D612/fail.contract.yaml",
        ])
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(fixture("base.contract.yaml").as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    for d in json["diagnostics"].as_array().unwrap() {
        assert_eq!(d["path"], "fixtures/diff/D612/fail.contract.yaml");
        assert_eq!(d["related"][0]["path"], "-", "{d}");
    }
}
