//! The operator's queue through the real binary: `phaselint checkpoints`
//! (graph order, trigger category, policy, approval state, whether a
//! resume blocks now; exit 0 whatever waits), and `phaselint approve
//! --interactive` walking it on a real pseudo-terminal (script(1)): what is
//! shown before each question, the keys `y`, `n`, `d`, `?`, and the second,
//! different confirmation of an irreversible resume.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/binary.rs"]
mod binary;
#[path = "support/tools.rs"]
mod tools;

use std::path::Path;
use std::process::Command;

use binary::phaselint;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tools::{missing, pipe};

/// Three checkpoints, declared out of graph order: a rise in risk class,
/// a high-risk operation and an irreversible deploy.
const CONTRACT: &str = r#"schema_version: "0.2.0"
pipeline_id: release-train
phases:
  stage:
    side_effects: reversible
    risk_class: high
    entry:
      required:
        - name: artifact
    exit:
      required:
        - name: staged_url
  deploy:
    side_effects: irreversible
    risk_class: critical
    entry:
      required:
        - name: artifact
        - name: staged_url
  plan:
    exit:
      required:
        - name: release_plan
  build:
    risk_class: medium
    entry:
      required:
        - name: release_plan
    exit:
      required:
        - name: artifact
graph_topology:
  graph_id: release
  nodes:
    plan: {}
    build: {}
    stage: {}
    deploy: {}
  edges:
    - {from: plan, to: build}
    - {from: build, to: stage}
    - {from: stage, to: deploy}
checkpoint_integrity:
  - checkpoint_id: after_stage
    phase: stage
    on_resume:
      approval_required: true
      approval_policy: human
  - checkpoint_id: after_plan
    phase: plan
    on_resume:
      approval_required: true
      approval_policy: human_or_orchestrator
  - checkpoint_id: after_build
    phase: build
    on_resume:
      approval_required: true
      approval_policy: human
"#;

const CONTEXT: &str =
    r#"{"release_plan": "v2", "artifact": "app:2", "staged_url": "https://staging"}"#;
const NOW: &str = "2026-03-01T12:00:00Z";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("release.contract.yaml"), CONTRACT).unwrap();
    std::fs::write(dir.path().join("ctx.json"), CONTEXT).unwrap();
    dir
}

fn queue(dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "checkpoints",
        "--no-config",
        "--contract",
        "release.contract.yaml",
        "--now",
        NOW,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let run = phaselint(dir, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn column(queue: &Value, key: &str) -> Vec<Value> {
    queue["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i[key].clone())
        .collect()
}

#[test]
fn the_queue_lists_every_checkpoint_in_graph_order_and_exits_0_with_work_pending() {
    let dir = project();
    let listed = queue(dir.path(), &[]);
    assert_eq!(
        column(&listed, "checkpoint_id"),
        ["after_plan", "after_build", "after_stage"]
    );
    assert_eq!(
        column(&listed, "trigger"),
        [
            "risk_class_transition",
            "high_risk_operation",
            "irreversible_next_phase"
        ]
    );
    assert_eq!(
        column(&listed, "required_policy"),
        ["human_or_orchestrator", "human", "human"]
    );
    assert_eq!(
        column(&listed, "approval_state"),
        ["unapproved", "unapproved", "unapproved"]
    );
    // Without a context, whether a resume blocks is not known.
    assert_eq!(
        column(&listed, "blocks_now"),
        [Value::Null, Value::Null, Value::Null]
    );
    assert_eq!(listed["pending"], 3);
    let listed = queue(dir.path(), &["--context", "ctx.json"]);
    assert_eq!(column(&listed, "blocks_now"), [true, true, true]);
    assert_eq!(column(&listed, "decision"), ["denied", "denied", "denied"]);

    let human = phaselint(
        dir.path(),
        &[
            "checkpoints",
            "--no-config",
            "--contract",
            "release.contract.yaml",
            "--now",
            NOW,
        ],
    );
    assert_eq!(human.code, 0);
    assert!(
        human
            .stdout
            .contains("3 of 3 checkpoints wait for an operator"),
        "{}",
        human.stdout
    );
}

/// The denial names the category that makes the resume wait.
#[test]
fn the_denial_names_its_trigger_category() {
    let dir = project();
    for (checkpoint, category) in [
        ("after_plan", "risk_class_transition"),
        ("after_build", "high_risk_operation"),
        ("after_stage", "irreversible_next_phase"),
    ] {
        let run = phaselint(
            dir.path(),
            &[
                "resume-check",
                "--no-config",
                "--contract",
                "release.contract.yaml",
                "--checkpoint",
                checkpoint,
                "--context",
                "ctx.json",
                "--now",
                NOW,
                "--format",
                "json",
            ],
        );
        assert_eq!(run.code, 2, "{}", run.stderr);
        let report: Value = serde_json::from_str(&run.stdout).unwrap();
        let pending = &report["denial"]["checkpoint_pending"];
        assert_eq!(pending["checkpoint_type"], category, "{checkpoint}");
        assert_eq!(pending["trust_state"], "unapproved");
    }
}

/// The queue says "approved" only where the resume check grants: an
/// approval bound to the context is only "recorded" without one, and no
/// longer holds once the context it was given for changes.
#[test]
fn the_queue_never_says_approved_where_the_resume_check_denies() {
    let dir = project();
    let approve = phaselint(
        dir.path(),
        &[
            "approve",
            "--no-config",
            "--contract",
            "release.contract.yaml",
            "--checkpoint",
            "after_build",
            "--by",
            "ana",
            "--policy",
            "human",
            "--context",
            "ctx.json",
            "--now",
            NOW,
            "--output",
            "approvals.json",
        ],
    );
    assert_eq!(approve.code, 0, "{}", approve.stderr);
    let with = ["--approvals", "approvals.json"];
    assert_eq!(
        column(&queue(dir.path(), &with), "approval_state")[1],
        "recorded"
    );
    let with_context = ["--approvals", "approvals.json", "--context", "ctx.json"];
    let listed = queue(dir.path(), &with_context);
    assert_eq!(
        column(&listed, "approval_state"),
        ["unapproved", "approved", "unapproved"]
    );
    assert_eq!(column(&listed, "blocks_now"), [true, false, true]);
    // The run widens what `stage` gets: the approval no longer holds.
    std::fs::write(
        dir.path().join("ctx.json"),
        r#"{"release_plan": "v2", "artifact": "app:3", "staged_url": "https://staging"}"#,
    )
    .unwrap();
    let listed = queue(dir.path(), &with_context);
    assert_eq!(column(&listed, "approval_state")[1], "rejected");
    assert_eq!(column(&listed, "blocks_now")[1], true);
}

#[test]
fn approve_interactive_refuses_without_a_terminal() {
    let dir = project();
    let run = phaselint(
        dir.path(),
        &[
            "approve",
            "--no-config",
            "--interactive",
            "--contract",
            "release.contract.yaml",
            "--by",
            "ana",
            "--context",
            "ctx.json",
        ],
    );
    assert_eq!(run.code, 3);
    assert!(
        run.stderr.contains(
            "approve --interactive needs a terminal on standard input and standard error"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

/// Runs `approve --interactive` on a pseudo-terminal, typing `answers`;
/// `None` when script(1) is missing. The screen, with LF line ends.
fn walk(dir: &Path, answers: &str) -> Option<String> {
    let command = format!(
        "'{}' approve --no-config --interactive --contract release.contract.yaml --by ana --context ctx.json --now {NOW} --output approvals.json",
        env!("CARGO_BIN_EXE_phaselint")
    );
    let mut script = Command::new("script");
    script
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir);
    let Some(run) = pipe(&mut script, answers) else {
        missing("script (util-linux) is not installed");
        return None;
    };
    Some(run.stdout.replace("\r\n", "\n"))
}

fn approved(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("approvals.json")).unwrap_or_default();
    if text.is_empty() {
        return Vec::new();
    }
    serde_json::from_str::<Vec<Value>>(&text).unwrap()
}

#[cfg(unix)]
#[test]
fn approve_interactive_walks_the_queue_showing_each_checkpoint_before_asking() {
    let dir = project();
    // after_plan: help, detail, then approve. after_build: an unknown
    // answer, then deny. after_stage (irreversible): approve, but a second
    // `y` is not the second confirmation.
    let Some(screen) = walk(dir.path(), "?\nd\ny\nx\nn\ny\ny\n") else {
        return;
    };
    assert!(
        screen.contains("3 checkpoints wait for approval, in graph order:"),
        "{screen}"
    );
    let first = screen.find("[1/3] checkpoint `after_plan`").unwrap();
    let second = screen.find("[2/3] checkpoint `after_build`").unwrap();
    let third = screen.find("[3/3] checkpoint `after_stage`").unwrap();
    let prompt = "Approve this resume? [y]es [n]o [d]etail [?]help [q]uit: ";
    // Before the first question: the request, the scope, the reversibility.
    let asked = first + screen[first..].find(prompt).unwrap();
    let shown = &screen[first..asked];
    for part in [
        "waits for approval: risk-class transition, policy `human_or_orchestrator`",
        "request:       resume pipeline=release-train checkpoint=after_plan after=plan into=build",
        "`build`: side effects none, risk medium",
        "reversibility: no side effects ahead",
        "context:       bound, context digest ",
    ] {
        assert!(
            shown.contains(part),
            "{part:?} not shown before asking:\n{shown}"
        );
    }
    // `?` explains the keys; `d` shows the canonical form the digest binds.
    assert!(screen[first..second].contains("d  detail: show the full canonical form"));
    let detail = screen[first..second]
        .lines()
        // The typed answers are echoed before the program reads them, so
        // the prompt and what follows it share a line.
        .skip_while(|l| !l.contains("Canonical form (target_digest "))
        .nth(1)
        .unwrap();
    let digest = hex(&Sha256::digest(detail.as_bytes()));
    assert!(
        screen[first..second].contains(&format!("target digest: {digest}")),
        "the canonical form shown does not hash to the digest shown:\n{screen}"
    );
    assert!(
        screen[second..third].contains("`x` is not an answer"),
        "{screen}"
    );
    assert!(screen[second..third].contains("Denied: nothing recorded for `after_build`"));
    let last = &screen[third..];
    assert!(last.contains("reversibility: IRREVERSIBLE"), "{last}");
    assert!(
        last.contains("Second confirmation: resuming runs `deploy`, whose side effects cannot be undone. Type `yes` to approve it"),
        "{last}"
    );
    assert!(last.contains("Not confirmed."), "{last}");
    assert!(
        screen.contains("Approved 1, denied 2, skipped 0 of 3 waiting."),
        "{screen}"
    );
    // Only the first was recorded, with the digest that was shown.
    let records = approved(dir.path());
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["checkpoint_id"], "after_plan");
    assert_eq!(records[0]["policy"], "human");
    assert_eq!(records[0]["target_digest"], digest.as_str());

    // Again: what is on file no longer waits; `yes` in full confirms the
    // irreversible resume, even after `y`.
    let Some(screen) = walk(dir.path(), "y\ny\nyes\n") else {
        return;
    };
    assert!(
        screen.contains("2 checkpoints wait for approval"),
        "{screen}"
    );
    assert!(
        screen.contains("Approved 2, denied 0, skipped 0 of 2 waiting."),
        "{screen}"
    );
    let records = approved(dir.path());
    let ids: Vec<&Value> = records.iter().map(|r| &r["checkpoint_id"]).collect();
    assert_eq!(ids, ["after_plan", "after_build", "after_stage"]);
    // The queue is resolved: the resume check agrees for every checkpoint.
    let listed = queue(
        dir.path(),
        &["--context", "ctx.json", "--approvals", "approvals.json"],
    );
    assert_eq!(
        column(&listed, "approval_state"),
        ["approved", "approved", "approved"]
    );
    assert_eq!(listed["pending"], 0);
}

/// `approve` without --interactive, on a terminal, for an irreversible
/// resume: --confirm-irreversible does not skip the second, different
/// confirmation there.
#[cfg(unix)]
#[test]
fn confirm_irreversible_on_a_terminal_still_asks_the_second_confirmation() {
    let dir = project();
    let command = format!(
        "'{}' approve --no-config --contract release.contract.yaml --checkpoint after_stage --by ana --policy human --context ctx.json --now {NOW} --confirm-irreversible --output approvals.json",
        env!("CARGO_BIN_EXE_phaselint")
    );
    let run = |answer: &str| {
        let mut script = Command::new("script");
        script
            .args(["-qec", &command, "/dev/null"])
            .current_dir(dir.path());
        pipe(&mut script, answer).map(|r| r.stdout.replace("\r\n", "\n"))
    };
    let Some(screen) = run("y\n") else {
        missing("script (util-linux) is not installed");
        return;
    };
    assert!(screen.contains("reversibility: IRREVERSIBLE"), "{screen}");
    assert!(screen.contains("Second confirmation"), "{screen}");
    assert!(
        screen.contains("not confirmed: no approval written"),
        "{screen}"
    );
    assert!(!dir.path().join("approvals.json").exists());
    let Some(screen) = run("yes\n") else { return };
    assert!(
        screen.contains("wrote the approval of checkpoint `after_stage`"),
        "{screen}"
    );
    assert!(dir.path().join("approvals.json").exists());
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `resume-check --interactive` asks with the same keys: `d` shows the
/// detail and is no longer read as a decline.
#[cfg(unix)]
#[test]
fn resume_check_interactive_reads_d_as_detail_not_as_a_decline() {
    let dir = project();
    let command = format!(
        "'{}' resume-check --no-config --interactive --contract release.contract.yaml --checkpoint after_build --context ctx.json --now {NOW}",
        env!("CARGO_BIN_EXE_phaselint")
    );
    let mut script = Command::new("script");
    script
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir.path());
    let Some(run) = pipe(&mut script, "d\ny\n") else {
        missing("script (util-linux) is not installed");
        return;
    };
    let screen = run.stdout.replace("\r\n", "\n");
    assert!(
        screen.contains("Canonical form (target_digest "),
        "{screen}"
    );
    assert!(screen.contains("Decision: RESUME (exit 0"), "{screen}");
    assert!(run.ok, "{screen}");
}

/// A checkpoint the resume check cannot judge with this context is
/// counted, keeps what the contract says of it, and never lets the queue
/// say that nothing waits.
#[test]
fn a_checkpoint_without_a_verdict_is_counted_and_keeps_what_the_contract_says() {
    let dir = project();
    std::fs::write(
        dir.path().join("broken.json"),
        r#"{"release_plan": "v2", "_cc_propagation": {"release_plan": {"set_at": 5}}}"#,
    )
    .unwrap();
    let listed = queue(dir.path(), &["--context", "broken.json"]);
    let count = listed["checkpoints"].as_array().unwrap().len();
    assert_eq!(listed["no_verdict"], count, "{listed}");
    for item in listed["checkpoints"].as_array().unwrap() {
        assert_eq!(item["approval_state"], "no_verdict", "{item}");
        assert!(item["required_policy"].is_string(), "{item}");
        assert!(item["trigger"].is_string(), "{item}");
        assert!(
            !item["resumes_into"].as_array().unwrap().is_empty(),
            "{item}"
        );
    }
    let run = phaselint(
        dir.path(),
        &[
            "checkpoints",
            "--no-config",
            "--contract",
            "release.contract.yaml",
            "--context",
            "broken.json",
            "--now",
            NOW,
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("cannot be checked"), "{}", run.stdout);
    assert!(
        !run.stdout.contains("No checkpoint waits"),
        "{}",
        run.stdout
    );
}
