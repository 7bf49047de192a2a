//! `resume-check --format contextcore` against ContextCore's own models:
//! every scenario folder of `tests/resume-cases/` is run again with that
//! format, and what it prints must load with Pydantic v2 models written
//! here from ContextCore's texts (never from phaselint's output), each
//! `extra="forbid"`, and must be exactly what those models serialize (same
//! keys, same order, same values: `model_dump_json` of the loaded model
//! reads back as the output). `.ci/run` installs pydantic; without it the
//! test says why it is skipped, except in CI, where it fails.
//!
//! The same run with `--format json` must agree with it (same exit code,
//! same checkpoint, verdict and field lists), so the ContextCore result is
//! not only well-formed but the same verdict.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use tools::{missing, pipe};

#[path = "support/resume_cases.rs"]
mod resume_cases;
#[path = "support/tools.rs"]
mod tools;

/// The models, from ContextCore's texts:
///
/// - `CheckpointResumeResult` and `StalenessCheckResult`: REQ-10-012's
///   field lists (docs/design/requirements/REQ_CONCERN_10_CHECKPOINT_RECOVERY.md),
///   with REQ-10-004's types; `ApprovalRecord` and `ApprovalPolicy`:
///   REQ-10-006; `RecoveryStrategy`: REQ-10-007. Every model
///   `extra="forbid"` (REQ-10-001: "consistent with all contract models").
/// - `ContractValidationResult`, `FieldValidationResult` and
///   `QualityViolation`: Layer 1's models as declared in
///   `src/contextcore/contracts/propagation/validator.py`;
///   `ConstraintSeverity` and `PropagationStatus`:
///   `src/contextcore/contracts/types.py`.
///
/// Where the texts leave a type open: REQ-10-009 gives
/// `elapsed_seconds` as an int, and REQ-10-004 an infinite age to a field
/// with no provenance stamp, which JSON cannot carry (Pydantic writes a
/// float infinity as `null` and cannot read that back as a float), so it is
/// `Optional[int]`, `None` for an unknown age.
const MODELS: &str = r#"
import json, sys
from enum import Enum
from typing import Optional

try:
    import pydantic
    from pydantic import BaseModel, ConfigDict, Field
except ImportError:
    print("missing"); sys.exit(0)
if not pydantic.VERSION.startswith("2."):
    print("missing"); sys.exit(0)


# contracts/types.py
class ConstraintSeverity(str, Enum):
    BLOCKING = "blocking"
    WARNING = "warning"
    ADVISORY = "advisory"


class PropagationStatus(str, Enum):
    PROPAGATED = "propagated"
    DEFAULTED = "defaulted"
    PARTIAL = "partial"
    FAILED = "failed"


# REQ-10-007
class RecoveryStrategy(str, Enum):
    RE_RETRIEVE = "re_retrieve"
    RE_GENERATE = "re_generate"
    LOG_AND_CONTINUE = "log_and_continue"
    FAIL = "fail"


# REQ-10-006
class ApprovalPolicy(str, Enum):
    HUMAN = "human"
    ORCHESTRATOR = "orchestrator"
    HUMAN_OR_ORCHESTRATOR = "human_or_orchestrator"
    AUTO_IF_FRESH = "auto_if_fresh"


class ApprovalRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    approved_by: str
    approved_at: str
    policy: ApprovalPolicy
    checkpoint_id: str
    stale_fields_acknowledged: list[str]
    notes: Optional[str] = None


# contracts/propagation/validator.py (Layer 1)
class QualityViolation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    field: str
    metric: str
    actual: float
    threshold: float
    severity: ConstraintSeverity
    message: str = ""


class FieldValidationResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    field: str
    status: PropagationStatus
    severity: ConstraintSeverity
    message: str = ""
    default_applied: bool = False
    quality_violations: list[QualityViolation] = Field(default_factory=list)
    evaluation_satisfied: bool | None = None


class ContractValidationResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    passed: bool
    phase: str
    direction: str
    field_results: list[FieldValidationResult] = Field(default_factory=list)
    blocking_failures: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    propagation_status: PropagationStatus = PropagationStatus.PROPAGATED
    quality_violations: list[QualityViolation] = Field(default_factory=list)


# REQ-10-012
class StalenessCheckResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    field: str
    elapsed_seconds: Optional[int]
    max_age_seconds: int
    is_stale: bool
    severity: ConstraintSeverity
    recovery: RecoveryStrategy
    recovery_attempted: bool
    recovery_succeeded: bool


class CheckpointResumeResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    checkpoint_id: str
    phase: str
    passed: bool
    stale_fields: list[StalenessCheckResult]
    fresh_fields: list[str]
    missing_provenance: list[str]
    entry_revalidation: Optional[ContractValidationResult] = None
    approval_status: Optional[ApprovalRecord] = None


def ordered(text):
    """The JSON with every object as its list of (key, value) pairs, so
    two documents compare equal only with the same keys in the same order."""
    return json.loads(text, object_pairs_hook=list)


problems = {}
for case in json.load(sys.stdin):
    try:
        result = CheckpointResumeResult.model_validate_json(case["output"], strict=True)
    except pydantic.ValidationError as error:
        problems[case["name"]] = str(error)
        continue
    if ordered(result.model_dump_json()) != ordered(case["output"]):
        problems[case["name"]] = "not what the model serializes: " + result.model_dump_json()
print(json.dumps(problems))
"#;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn phaselint(dir: &Path, args: &[String], stdin: Option<&str>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args(args)
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
    if let Some(text) = stdin {
        let _ = child.stdin.take().unwrap().write_all(text.as_bytes());
    }
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code().unwrap(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The folder's arguments with `--format FORMAT` in place of any format.
fn case_args(folder: &Path, format: &str) -> Vec<String> {
    resume_cases::case_args(folder, Some(format)).unwrap()
}

/// What the ContextCore result and the JSON report of one run disagree on.
fn disagreements(result: &Value, report: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    for key in [
        "checkpoint_id",
        "phase",
        "passed",
        "fresh_fields",
        "missing_provenance",
    ] {
        if result[key] != report[key] {
            problems.push(format!(
                "{key}: {} here, {} in --format json",
                result[key], report[key]
            ));
        }
    }
    let stale = |value: &Value, keys: &[&str]| -> Vec<Value> {
        value["stale_fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| keys.iter().map(|k| s[*k].clone()).collect())
            .collect()
    };
    let keys = [
        "field",
        "elapsed_seconds",
        "max_age_seconds",
        "is_stale",
        "severity",
        "recovery",
        "recovery_attempted",
        "recovery_succeeded",
    ];
    if stale(result, &keys) != stale(report, &keys) {
        problems.push("stale_fields differ from --format json".into());
    }
    let entry = &report["entry_revalidation"];
    let revalidated = entry["performed"] == json!(true) && entry["phases"] != json!([]);
    match &result["entry_revalidation"] {
        Value::Null if !revalidated => {}
        Value::Null => problems.push("entry_revalidation is null, yet it ran".into()),
        ran if !revalidated => problems.push(format!("entry_revalidation {ran}, yet none ran")),
        ran => {
            if ran["passed"] != entry["passed"] {
                problems.push("entry_revalidation.passed differs".into());
            }
            let fields = |v: &Value, key: &str| -> Vec<Value> {
                v["field_results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| json!([r["field"], r["status"], r[key]]))
                    .collect()
            };
            if fields(ran, "severity") != fields(entry, "severity") {
                problems.push("entry_revalidation.field_results differ".into());
            }
        }
    }
    let approval = &report["approval_status"];
    let granting = if approval["granted"] == json!(true) {
        &approval["approval"]
    } else {
        &Value::Null
    };
    match (&result["approval_status"], granting) {
        (Value::Null, Value::Null) => {}
        (ours, record) if !record.is_null() && !ours.is_null() => {
            for key in [
                "approved_by",
                "approved_at",
                "policy",
                "checkpoint_id",
                "stale_fields_acknowledged",
                "notes",
            ] {
                if ours[key] != record[key] {
                    problems.push(format!("approval_status.{key} differs"));
                }
            }
        }
        (ours, record) => problems.push(format!(
            "approval_status {ours}, but --format json has the granting record {record}"
        )),
    }
    problems
}

#[test]
fn every_scenario_folder_prints_what_contextcores_models_serialize() {
    let folders = resume_cases::case_folders();
    assert!(folders.len() >= 86, "{folders:?}");

    let mut failures = Vec::new();
    let mut results = Vec::new();
    for folder in &folders {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        resume_cases::date_harness_requests_before_their_grants(folder);
        let stdin = std::fs::read_to_string(folder.join("stdin")).ok();
        let contextcore = phaselint(folder, &case_args(folder, "contextcore"), stdin.as_deref());
        let report = phaselint(folder, &case_args(folder, "json"), stdin.as_deref());
        let refused = contextcore
            .stderr
            .contains("--format contextcore cannot print checkpoint");
        if contextcore.code == 3 {
            if !contextcore.stdout.is_empty() {
                failures.push(format!(
                    "{name}: exit 3, yet stdout holds {}",
                    contextcore.stdout
                ));
            }
            if report.code != 3 && !refused {
                failures.push(format!(
                    "{name}: exit 3 here, {} in --format json:\n{}",
                    report.code, contextcore.stderr
                ));
            }
            continue;
        }
        if contextcore.code != report.code {
            failures.push(format!(
                "{name}: exit {} here, {} in --format json",
                contextcore.code, report.code
            ));
            continue;
        }
        let (Ok(result), Ok(json_report)) = (
            serde_json::from_str::<Value>(&contextcore.stdout),
            serde_json::from_str::<Value>(&report.stdout),
        ) else {
            failures.push(format!(
                "{name}: stdout is not JSON:\n{}",
                contextcore.stdout
            ));
            continue;
        };
        for problem in disagreements(&result, &json_report) {
            failures.push(format!("{name}: {problem}"));
        }
        results.push(json!({"name": name, "output": contextcore.stdout}));
    }
    // Every kind of result the models have parts for is among them.
    let printed: Vec<Value> = results
        .iter()
        .map(|r| serde_json::from_str(r["output"].as_str().unwrap()).unwrap())
        .collect();
    let some = |test: &dyn Fn(&Value) -> bool| printed.iter().any(test);
    assert!(some(&|r| r["approval_status"].is_object()));
    assert!(some(&|r| r["entry_revalidation"].is_object()));
    assert!(some(
        &|r| r["entry_revalidation"]["blocking_failures"] != json!([])
    ));
    assert!(some(&|r| r["stale_fields"][0]["elapsed_seconds"].is_null()));
    assert!(some(
        &|r| r["stale_fields"][0]["recovery_attempted"] == json!(true)
    ));
    assert!(some(&|r| r["phase"] == json!("")));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));

    let Some(run) = pipe(
        Command::new("python3").args(["-c", MODELS]),
        &Value::Array(results.clone()).to_string(),
    ) else {
        missing("python3 is not installed");
        return;
    };
    if run.stdout.trim() == "missing" {
        missing("python3 with pydantic 2 is not installed (pip install pydantic)");
        return;
    }
    let problems: serde_json::Map<String, Value> = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr));
    assert!(
        problems.is_empty(),
        "{} of {} results are not what ContextCore's models serialize:\n\n{}",
        problems.len(),
        results.len(),
        problems
            .iter()
            .map(|(name, problem)| format!(
                "tests/resume-cases/{name}:\n{}",
                problem.as_str().unwrap_or("")
            ))
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    println!("{} results load with ContextCore's models", results.len());
}

/// The models refuse what ContextCore would refuse: the test is not
/// vacuous. An extra key, a nested approval status of phaselint's own
/// shape, and an entry revalidation without `direction` are each rejected.
#[test]
fn the_models_refuse_phaselints_own_json_report() {
    let folder =
        repo().join("tests/resume-cases/approval-that-acknowledges-the-stale-field-resumes");
    let contextcore = phaselint(&folder, &case_args(&folder, "contextcore"), None);
    let report = phaselint(&folder, &case_args(&folder, "json"), None);
    assert_eq!(
        (contextcore.code, report.code),
        (0, 0),
        "{}",
        contextcore.stderr
    );
    let good: Value = serde_json::from_str(&contextcore.stdout).unwrap();
    let mut extra_key = good.clone();
    extra_key["decision"] = json!("resume");
    let mut nested_approval = good.clone();
    nested_approval["approval_status"] =
        serde_json::from_str::<Value>(&report.stdout).unwrap()["approval_status"].clone();
    let mut no_direction = good.clone();
    no_direction["entry_revalidation"]
        .as_object_mut()
        .unwrap()
        .remove("direction");
    let cases = json!([
        {"name": "good", "output": contextcore.stdout},
        {"name": "extra_key", "output": extra_key.to_string()},
        {"name": "nested_approval", "output": nested_approval.to_string()},
        {"name": "no_direction", "output": no_direction.to_string()},
        {"name": "json_report", "output": report.stdout},
    ]);
    let Some(run) = pipe(
        Command::new("python3").args(["-c", MODELS]),
        &cases.to_string(),
    ) else {
        missing("python3 is not installed");
        return;
    };
    if run.stdout.trim() == "missing" {
        missing("python3 with pydantic 2 is not installed (pip install pydantic)");
        return;
    }
    let problems: serde_json::Map<String, Value> = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr));
    let refused: Vec<&str> = problems.keys().map(String::as_str).collect();
    assert_eq!(
        refused,
        [
            "extra_key",
            "json_report",
            "nested_approval",
            "no_direction"
        ],
        "{problems:#?}"
    );
}

#[test]
fn contextcore_format_is_for_contract_checkpoints_only() {
    let dir = repo().join("fixtures/handoff");
    let run = phaselint(
        &dir,
        &[
            "resume-check".into(),
            "--handoff".into(),
            "skill-example.md".into(),
            "--format".into(),
            "contextcore".into(),
        ],
        None,
    );
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("--format contextcore prints a contract checkpoint's CheckpointResumeResult (ContextCore REQ-10-012); a handoff check has none"),
        "{}",
        run.stderr
    );
}
