//! `phaselint schema`: the JSON Schema generated from the format tables,
//! checked with a real validator (Python's `jsonschema`, draft 2020-12;
//! `.ci/run` installs it from PyPI): every contract of `valid/` in the
//! shared corpus validates, and every `invalid/` contract whose fault is a
//! schema error (E003–E006) is rejected. YAML is turned into JSON by
//! phaselint's own YAML 1.2 reader, as the linter reads it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use phaselint_lint::resume::{DocumentFormat, parse_document};
use tools::{missing, pipe};

#[path = "support/tools.rs"]
mod tools;

fn repo() -> PathBuf {
    std::path::absolute(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

fn schema(kind: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args(["schema", "--kind", kind])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    String::from_utf8(output.stdout).unwrap()
}

/// Validates each document against `schema` with Python's `jsonschema`;
/// `None` when it is not installed. One verdict per document: the first
/// error's message, or `None` when it validates.
fn validate(schema: &str, documents: &[serde_json::Value]) -> Option<Vec<Option<String>>> {
    const SCRIPT: &str = r#"
import json, sys
try:
    import jsonschema
except ImportError:
    print("missing"); sys.exit(0)
data = json.load(sys.stdin)
jsonschema.Draft202012Validator.check_schema(data["schema"])
validator = jsonschema.Draft202012Validator(data["schema"])
out = []
for document in data["documents"]:
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    out.append(errors[0].message if errors else None)
print(json.dumps(out))
"#;
    let input = serde_json::json!({
        "schema": serde_json::from_str::<serde_json::Value>(schema).unwrap(),
        "documents": documents,
    });
    let run = pipe(
        Command::new("python3").args(["-c", SCRIPT]),
        &input.to_string(),
    )?;
    if run.stdout.trim() == "missing" {
        return None;
    }
    Some(
        serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr)),
    )
}

/// `validate`, or the printed reason it cannot run (never in CI).
fn validate_or_skip(schema: &str, documents: &[serde_json::Value]) -> Option<Vec<Option<String>>> {
    let verdicts = validate(schema, documents);
    if verdicts.is_none() {
        missing("python3 with jsonschema is not installed (pip install jsonschema)");
    }
    verdicts
}

fn documents(dir: &Path) -> Vec<(String, serde_json::Value)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let value = parse_document(&text, DocumentFormat::Yaml)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_name().unwrap().to_string_lossy().into_owned(), value)
        })
        .collect()
}

#[test]
fn the_schema_accepts_the_valid_corpus_and_rejects_its_schema_faults() {
    let corpus = repo().join("../shared/corpus");
    if !corpus.is_dir() {
        missing("../shared/corpus is not beside the repository");
        return;
    }
    let schema = schema("contract");
    let valid = documents(&corpus.join("valid"));
    let invalid = documents(&corpus.join("invalid"));
    let values: Vec<serde_json::Value> = valid
        .iter()
        .chain(&invalid)
        .map(|(_, v)| v.clone())
        .collect();
    let Some(verdicts) = validate_or_skip(&schema, &values) else {
        return;
    };
    assert!(valid.len() >= 20, "{}", valid.len());
    for ((name, _), verdict) in valid.iter().zip(&verdicts) {
        assert_eq!(verdict, &None, "valid/{name} is rejected");
    }
    assert_eq!(invalid.len(), 6);
    for ((name, _), verdict) in invalid.iter().zip(&verdicts[valid.len()..]) {
        assert!(
            verdict.is_some(),
            "invalid/{name} (a schema fault) validates"
        );
    }
}

#[test]
fn the_fixtures_schema_faults_are_rejected_and_the_clean_fixtures_accepted() {
    let schema = schema("contract");
    let read = |relative: &str| {
        let text = std::fs::read_to_string(repo().join("fixtures").join(relative)).unwrap();
        parse_document(&text, DocumentFormat::Yaml).unwrap()
    };
    let faults = [
        "E003/fail.contract.yaml",
        "E004/fail.contract.yaml",
        "E005/fail.contract.yaml",
        "E006/fail.contract.yaml",
    ];
    let clean = [
        "E003/pass.contract.yaml",
        "E006/pass.contract.yaml",
        "S002/fail.contract.yaml",
        "G305/fail.contract.yaml",
    ];
    let values: Vec<serde_json::Value> = faults.iter().chain(&clean).map(|f| read(f)).collect();
    let Some(verdicts) = validate_or_skip(&schema, &values) else {
        return;
    };
    for (fixture, verdict) in faults.iter().zip(&verdicts) {
        assert!(verdict.is_some(), "{fixture} validates");
    }
    // S002 (`BLOCKING`) is a warning: the schema accepts any case.
    for (fixture, verdict) in clean.iter().zip(&verdicts[faults.len()..]) {
        assert_eq!(verdict, &None, "{fixture}");
    }
    // And the harness schema leaves the harness's own keys alone.
    let harness = schema_harness_accepts(
        r#"{"version": 2, "checkpoints": {"types": [{"name": "a", "triggerOn": "pre-done", "extra": 1}]}}"#,
    );
    assert_eq!(harness, Some(vec![None]));
}

fn schema_harness_accepts(document: &str) -> Option<Vec<Option<String>>> {
    validate(
        &schema("harness"),
        &[serde_json::from_str(document).unwrap()],
    )
}
