//! `--format sarif` against the official validator, the SARIF Multitool
//! (`@microsoft/sarif-multitool` from npm; `.ci/run` installs it and sets
//! `SARIF_MULTITOOL` to its binary), with GitHub's ingestion rules: the
//! log of every fixture must have no error. Skipped with a printed reason
//! when the validator is absent, except in CI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use phaselint_lint::rules::{Family, RULES};
use serde_json::Value;
use tools::missing;

#[path = "support/tools.rs"]
mod tools;

fn repo() -> PathBuf {
    std::path::absolute(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

fn sarif_of(args: &[&str]) -> String {
    let (code, log) = sarif_and_exit(args);
    assert!(code <= 1, "{code}: {log}");
    log
}

fn sarif_and_exit(args: &[&str]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args(["lint", "--no-config", "--format", "sarif"])
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
    )
}

/// A run where one named file does not exist: exit 3, and a log that says
/// so (a log with no results must not read as "all clear").
const WITH_A_MISSING_FILE: [&str; 2] = ["fixtures/valid", "fixtures/missing.contract.yaml"];

#[test]
fn a_file_that_cannot_be_read_makes_the_run_unsuccessful() {
    let (code, log) = sarif_and_exit(&WITH_A_MISSING_FILE);
    assert_eq!(code, 3);
    let log: Value = serde_json::from_str(&log).unwrap();
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false, "{invocation}");
    let notification = &invocation["toolExecutionNotifications"][0];
    assert_eq!(notification["level"], "error");
    assert!(
        notification["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("cannot read fixtures/missing.contract.yaml: "),
        "{notification}"
    );
    assert_eq!(
        notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "fixtures/missing.contract.yaml"
    );
    let clean: Value = serde_json::from_str(&sarif_of(&["fixtures/valid"])).unwrap();
    assert_eq!(
        clean["runs"][0]["invocations"],
        serde_json::json!([{"executionSuccessful": true}])
    );
}

#[test]
fn the_sarif_of_every_fixture_passes_the_official_validator() {
    let Some(validator) = std::env::var_os("SARIF_MULTITOOL").filter(|v| Path::new(v).exists())
    else {
        missing(
            "SARIF_MULTITOOL is not set (npm install @microsoft/sarif-multitool, then point it at the platform binary)",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let logs = [
        ("fixtures.sarif", sarif_of(&["fixtures/"])),
        ("missing.sarif", sarif_and_exit(&WITH_A_MISSING_FILE).1),
    ];
    for (name, text) in logs {
        let log = dir.path().join(name);
        std::fs::write(&log, text).unwrap();
        let output = Command::new(&validator)
            .arg("validate")
            .arg(&log)
            .args(["--rule-kind", "Sarif;Gh"])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(
            said.contains("Analysis completed successfully"),
            "{name}: {said}"
        );
        let problems: Vec<&str> = said
            .lines()
            .filter(|l| l.contains(": error ") || l.contains(": warning "))
            .collect();
        assert!(problems.is_empty(), "{name}: {}", problems.join("\n"));
    }
}

/// What the validator does not check: regions are the `json` format's
/// numbers, related locations and fixes are there, every rule that ran is
/// described with its page.
#[test]
fn results_carry_the_json_positions_related_locations_and_fixes() {
    let sarif: Value = serde_json::from_str(&sarif_of(&[
        "fixtures/R101/fail.contract.yaml",
        "fixtures/G303/fail.contract.yaml",
    ]))
    .unwrap();
    let json_out = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args([
            "lint",
            "--no-config",
            "--format",
            "json",
            "fixtures/R101/fail.contract.yaml",
            "fixtures/G303/fail.contract.yaml",
        ])
        .current_dir(repo())
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    let run = &sarif["runs"][0];
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "phaselint");
    // Every rule that ran: not the ones off by default (G304), nor the
    // D-codes, which only `phaselint diff` reports.
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(
        rules.len(),
        lint_rules().filter(|r| r.default_enabled).count()
    );
    assert!(!rules.iter().any(|r| {
        phaselint_lint::rules::rule(r["id"].as_str().unwrap())
            .is_some_and(|r| r.family == Family::Diff)
    }));
    assert!(!rules.iter().any(|r| r["id"] == "G304"));
    let everything: Value = serde_json::from_str(&sarif_of(&[
        "--select",
        "ALL",
        "fixtures/R101/fail.contract.yaml",
    ]))
    .unwrap();
    let all_rules = everything["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(all_rules.len(), lint_rules().count());
    let r101 = rules.iter().find(|r| r["id"] == "R101").unwrap();
    assert!(
        r101["helpUri"]
            .as_str()
            .unwrap()
            .ends_with("/rules/R101.md")
    );
    assert!(
        r101["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("## What it checks")
    );
    assert_eq!(r101["defaultConfiguration"]["level"], "error");
    let results = run["results"].as_array().unwrap();
    let diagnostics = json["diagnostics"].as_array().unwrap();
    assert_eq!(results.len(), diagnostics.len());
    for (result, d) in results.iter().zip(diagnostics) {
        assert_eq!(result["ruleId"], d["code"]);
        let region = &result["locations"][0]["physicalLocation"]["region"];
        assert_eq!(region["startLine"], d["start"]["line"]);
        assert_eq!(region["startColumn"], d["start"]["column"]);
        assert_eq!(region["endLine"], d["end"]["line"]);
        assert_eq!(region["endColumn"], d["end"]["column"]);
        let uri = &result["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(uri["uriBaseId"], "%SRCROOT%");
        assert_eq!(uri["uri"], d["path"]);
        let level = match d["severity"].as_str().unwrap() {
            "info" => "note",
            other => other,
        };
        assert_eq!(result["level"], level);
        assert_eq!(
            result["relatedLocations"].as_array().map_or(0, Vec::len),
            d["related"].as_array().unwrap().len()
        );
        assert_eq!(result["fixes"].is_array(), !d["fix"].is_null());
    }
    assert!(
        results.iter().any(|r| r["fixes"].is_array()),
        "R101's did-you-mean is a fix"
    );
    assert!(results.iter().any(|r| r["relatedLocations"].is_array()));
}

/// The rules `phaselint lint` can report, from the registry: every rule
/// but the D-codes.
fn lint_rules() -> impl Iterator<Item = &'static phaselint_lint::rules::Rule> {
    RULES.iter().copied().filter(|r| r.family != Family::Diff)
}

fn diff_rule_count() -> usize {
    RULES.iter().filter(|r| r.family == Family::Diff).count()
}

/// `phaselint diff --format sarif`: the D-codes as the driver's rules (the
/// ones the run enabled), and OLD's location as a related location in
/// OLD's own file; the log passes the official validator.
#[test]
fn the_sarif_of_a_diff_names_its_d_codes_and_old_as_a_related_artifact() {
    let diff = |extra: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_phaselint"))
            .args(["diff", "--no-config", "--format", "sarif"])
            .args(extra)
            .args([
                "fixtures/diff/base.contract.yaml",
                "fixtures/diff/D612/fail.contract.yaml",
            ])
            .current_dir(repo())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        String::from_utf8(output.stdout).unwrap()
    };
    let text = diff(&[]);
    let log: Value = serde_json::from_str(&text).unwrap();
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), diff_rule_count(), "{ids:?}");
    assert!(
        ids.iter()
            .all(|id| phaselint_lint::rules::rule(id).is_some_and(|r| r.family == Family::Diff)),
        "{ids:?}"
    );
    let d612 = rules.iter().find(|r| r["id"] == "D612").unwrap();
    assert_eq!(d612["name"], "staleness-tightened");
    assert_eq!(d612["defaultConfiguration"]["level"], "warning");
    assert!(
        d612["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("## What it checks")
    );
    let results = run["results"].as_array().unwrap();
    let result = results.iter().find(|r| r["ruleId"] == "D612").unwrap();
    assert_eq!(
        rules[result["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "D612"
    );
    let at = &result["locations"][0]["physicalLocation"];
    assert_eq!(
        at["artifactLocation"]["uri"],
        "fixtures/diff/D612/fail.contract.yaml"
    );
    let related = &result["relatedLocations"][0];
    let old = &related["physicalLocation"];
    assert_eq!(
        old["artifactLocation"]["uri"],
        "fixtures/diff/base.contract.yaml"
    );
    assert_eq!(old["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert_eq!(old["region"]["startLine"], 40);
    assert_eq!(old["region"]["startColumn"], 28);
    assert_eq!(related["message"]["text"], "max_age_seconds was 600");
    // A code turned off is neither reported nor described.
    let ignored: Value = serde_json::from_str(&diff(&["--ignore", "D611"])).unwrap();
    let run = &ignored["runs"][0];
    assert!(
        !run["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == "D611")
    );
    assert!(
        !run["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["ruleId"] == "D611")
    );

    let Some(validator) = std::env::var_os("SARIF_MULTITOOL").filter(|v| Path::new(v).exists())
    else {
        missing(
            "SARIF_MULTITOOL is not set (npm install @microsoft/sarif-multitool, then point it at the platform binary)",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("diff.sarif");
    std::fs::write(&path, text).unwrap();
    let output = Command::new(&validator)
        .arg("validate")
        .arg(&path)
        .args(["--rule-kind", "Sarif;Gh"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("Analysis completed successfully"), "{said}");
    let problems: Vec<&str> = said
        .lines()
        .filter(|l| l.contains(": error ") || l.contains(": warning "))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
