//! `--format junit` against a JUnit XSD: the Jenkins/Surefire schema
//! (`junit-10.xsd`, MIT, Gregory Boissinot) that pytest tests its own
//! JUnit XML against. `.ci/run` takes it from pytest's source distribution
//! on PyPI, sets `JUNIT_XSD` to it and installs Python's `xmlschema`, the
//! validator pytest uses. Skipped with a printed reason when either is
//! absent, except in CI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/binary.rs"]
mod binary;
#[path = "support/tools.rs"]
mod tools;

use std::path::{Path, PathBuf};
use std::process::Command;

use binary::phaselint;
use serde_json::Value;
use tools::{missing, pipe};

fn repo() -> PathBuf {
    std::path::absolute(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

/// Validates `xml` against the XSD and reads it back with a real XML
/// parser: `{suite name: {"tests", "failures", "cases": [names],
/// "failed": [failure types], "out": system-out}}`. `None`, with the
/// reason printed, when the XSD or `xmlschema` is missing (never in CI).
fn validated(xml: &str) -> Option<Value> {
    const SCRIPT: &str = r#"
import json, sys
try:
    import xmlschema
except ImportError:
    print("missing"); sys.exit(0)
from xml.etree import ElementTree
xml = sys.stdin.read()
xmlschema.XMLSchema(sys.argv[1]).validate(xml)
root = ElementTree.fromstring(xml)
suites = {}
for suite in root.findall("testsuite"):
    suites[suite.get("name")] = {
        "tests": int(suite.get("tests")),
        "failures": int(suite.get("failures")),
        "cases": [case.get("name") for case in suite.findall("testcase")],
        "failed": [f.get("type") for f in suite.iter("failure")],
        "out": suite.findtext("system-out"),
    }
print(json.dumps(suites))
"#;
    let xsd = std::env::var_os("JUNIT_XSD").filter(|p| Path::new(p).is_file());
    let reason = match &xsd {
        None => {
            "JUNIT_XSD does not name a file (pytest's sdist has testing/example_scripts/junit-10.xsd)"
        }
        Some(_) => "python3 with xmlschema is not installed (pip install xmlschema)",
    };
    let outcome = xsd.and_then(|xsd| {
        let run = pipe(Command::new("python3").args(["-c", SCRIPT]).arg(xsd), xml)?;
        if run.stdout.trim() == "missing" {
            return None;
        }
        assert!(
            run.ok,
            "the JUnit XML does not validate:\n{}\n{xml}",
            run.stderr
        );
        Some(serde_json::from_str(&run.stdout).unwrap())
    });
    if outcome.is_none() {
        missing(reason);
    }
    outcome
}

/// `phaselint lint --no-config --format junit ARGS` in `dir`.
fn junit_in(dir: &Path, args: &[&str]) -> binary::Run {
    phaselint(
        dir,
        &[&["lint", "--no-config", "--format", "junit"], args].concat(),
    )
}

/// The findings of `json`, per path: (severity, code).
fn findings(args: &[&str]) -> Vec<(String, String, String)> {
    let run = phaselint(
        &repo(),
        &[&["lint", "--no-config", "--format", "json"], args].concat(),
    );
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_owned(),
                d["severity"].as_str().unwrap().to_owned(),
                d["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn every_fixture_gives_a_suite_with_a_failure_per_error() {
    let run = junit_in(&repo(), &["fixtures/"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let Some(suites) = validated(&run.stdout) else {
        return;
    };
    let suites = suites.as_object().unwrap();
    let findings = findings(&["fixtures/"]);
    let files: std::collections::BTreeSet<&str> = findings.iter().map(|f| f.0.as_str()).collect();
    let clean = suites
        .get("fixtures/valid/linear-rag.contract.yaml")
        .unwrap();
    assert_eq!(clean["cases"], serde_json::json!(["phaselint"]));
    assert_eq!(clean["failures"], 0);
    let mut failures = 0;
    for (name, suite) in suites {
        let errors: Vec<&str> = findings
            .iter()
            .filter(|f| f.0 == *name && f.1 == "error")
            .map(|f| f.2.as_str())
            .collect();
        let failed: Vec<&str> = suite["failed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(failed, errors, "{name}");
        assert_eq!(suite["failures"], errors.len(), "{name}");
        assert_eq!(suite["tests"], errors.len().max(1), "{name}");
        // Warnings and infos that do not fail are still shown.
        let others = findings.iter().filter(|f| f.0 == *name && f.1 != "error");
        for (_, severity, code) in others {
            let out = suite["out"].as_str().unwrap_or_default();
            assert!(
                out.contains(&format!("{code} [{severity}]")),
                "{name}: {out}"
            );
        }
        failures += errors.len();
    }
    let errors = findings.iter().filter(|f| f.1 == "error").count();
    assert!(errors > 0);
    assert_eq!(failures, errors);
    assert!(files.iter().all(|f| suites.contains_key(*f)));
}

#[test]
fn warnings_past_max_warnings_fail_and_the_ones_within_do_not() {
    let file = "fixtures/G303/fail.contract.yaml";
    let warnings = findings(&[file])
        .iter()
        .filter(|f| f.1 == "warning")
        .count();
    assert!(warnings >= 1);
    let junit = |max: usize| {
        let run = junit_in(&repo(), &["--max-warnings", &max.to_string(), file]);
        validated(&run.stdout).map(|suites| suites[file].clone())
    };
    let Some(strict) = junit(0) else {
        return;
    };
    let Some(lenient) = junit(warnings) else {
        return;
    };
    let failed = |suite: &Value| suite["failures"].as_u64().unwrap() as usize;
    assert_eq!(failed(&strict), failed(&lenient) + warnings);
    assert!(lenient["out"].as_str().unwrap().contains("[warning]"));
}

#[test]
fn markup_and_control_characters_from_a_contract_stay_valid_xml() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("x.contract.yaml"),
        "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\n  b:\n    entry:\n      required:\n        - name: \"<b>&\\\"]]>\\x01\\u0008\"\n",
    )
    .unwrap();
    let run = junit_in(dir.path(), &["x.contract.yaml"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("&lt;b&gt;&amp;"), "{}", run.stdout);
    let Some(suites) = validated(&run.stdout) else {
        return;
    };
    assert_eq!(suites["x.contract.yaml"]["failed"][0], "G303");
}

#[test]
fn a_file_that_cannot_be_read_is_an_error_testcase() {
    let run = junit_in(
        &repo(),
        &[
            "fixtures/valid/linear-rag.contract.yaml",
            "fixtures/missing.contract.yaml",
        ],
    );
    assert_eq!(run.code, 3);
    assert!(
        run.stdout
            .contains(r#"<testsuites name="phaselint" tests="2" failures="0" errors="1">"#),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(r#"<error type="unreadable" message="cannot read the file: "#),
        "{}",
        run.stdout
    );
    let Some(suites) = validated(&run.stdout) else {
        return;
    };
    assert_eq!(
        suites["fixtures/missing.contract.yaml"]["cases"],
        serde_json::json!(["phaselint"])
    );
}
