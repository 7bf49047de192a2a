//! `phaselint resume-check` and `phaselint approve` through the real
//! binary, always with a fixed `--now`.
//!
//! Most scenarios are folders under `tests/resume-cases/` (contract,
//! context, arguments, expected exit code, report or output), all run by
//! `every_scenario_folder_gives_its_expected_report` at the end of this
//! file; its README says how a folder is laid out. The tests written here
//! are the ones a static folder cannot hold: `phaselint approve` itself,
//! recovery hooks whose effects on the file system are checked, a contract
//! edited between runs, symbolic links, a run without a terminal, and the
//! shared corpus beside the repository.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

#[path = "support/resume_cases.rs"]
mod resume_cases;
#[path = "support/tools.rs"]
mod tools;

use resume_cases::NOW;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture(relative: &str) -> PathBuf {
    repo().join("fixtures/resume").join(relative)
}

fn pipeline() -> String {
    fixture("contracts/pipeline.contract.yaml")
        .to_string_lossy()
        .into_owned()
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }

    /// Exit 3 with `needle` in the message, and never a report on stdout.
    fn assert_no_verdict(&self, needle: &str) {
        assert_eq!(
            self.code, 3,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        assert!(
            self.stderr.contains(needle),
            "expected `{needle}` in stderr:\n{}",
            self.stderr
        );
        assert!(
            self.stderr.contains("no resume verdict (exit 3)"),
            "{}",
            self.stderr
        );
        assert!(!self.stdout.contains("\"decision\": \"resume\""));
    }
}

fn phaselint_with(dir: &Path, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_phaselint"));
    command
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    if let Some(text) = stdin {
        // The binary may exit before reading (a usage error): ignore EPIPE.
        let _ = child.stdin.take().unwrap().write_all(text.as_bytes());
    }
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code().unwrap(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn phaselint(dir: &Path, args: &[&str]) -> Run {
    phaselint_with(dir, args, None, &[])
}

/// `resume-check` of the pipeline fixture, JSON output, `--now NOW`.
fn resume(dir: &Path, checkpoint: &str, context: &str, extra: &[&str]) -> Run {
    let contract = pipeline();
    let mut args = vec![
        "resume-check",
        "--contract",
        &contract,
        "--checkpoint",
        checkpoint,
        "--context",
        context,
        "--now",
        NOW,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    phaselint(dir, &args)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn fresh() -> Value {
    read_json(&fixture("contexts/fresh.json"))
}

fn stale() -> Value {
    read_json(&fixture("contexts/stale.json"))
}

fn stamp(context: &mut Value, field: &str, set_at: &str) {
    context["_cc_propagation"][field] = json!({
        "origin_phase": "retrieve",
        "set_at": set_at,
        "value_hash": "feedface",
    });
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(name), text).unwrap();
    name.to_string()
}

fn write_json(dir: &Path, name: &str, value: &Value) -> String {
    write(dir, name, &serde_json::to_string_pretty(value).unwrap())
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

// ---------------------------------------------------------------------------
// Recovery hooks whose effects on the file system are checked
// (REQ-10-008), each in a temporary directory
// ---------------------------------------------------------------------------

const LOG_ENV: &str = "echo \"$PHASELINT_CHECKPOINT $PHASELINT_PHASE $PHASELINT_FIELD $PHASELINT_STRATEGY $(basename \"$PHASELINT_CONTEXT\")\" >> hook.log";

#[test]
fn stale_advisory_field_is_listed_and_never_recovered() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "prompt.hash", "2026-03-01T11:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(
        dir.path(),
        "after_retrieve",
        &ctx,
        &["--recover-with", "echo ran >> hook.log"],
    );
    assert_eq!(run.code, 0);
    assert!(
        !dir.path().join("hook.log").exists(),
        "no recovery for advisory"
    );
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn recovery_fail_always_blocks_even_a_warning() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "policy.doc", "2026-03-01T09:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(
        dir.path(),
        "strict_guard",
        &ctx,
        &["--recover-with", "echo ran >> hook.log"],
    );
    assert_eq!(run.code, 1);
    assert!(
        !dir.path().join("hook.log").exists(),
        "`fail` is never recovered"
    );
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn recovery_hook_recovers_then_the_context_is_reread() {
    let dir = temp();
    let ctx = write_json(dir.path(), "ctx.json", &stale());
    let mut recovered = stale();
    stamp(&mut recovered, "index.snapshot", "2026-03-01T11:59:00Z");
    stamp(&mut recovered, "model.version", "2026-03-01T11:59:30Z");
    write_json(dir.path(), "recovered.json", &recovered);
    let hook = format!("{LOG_ENV}; cp recovered.json \"$PHASELINT_CONTEXT\"");
    let run = resume(
        dir.path(),
        "after_retrieve",
        &ctx,
        &["--recover-with", &hook],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hook.log")).unwrap(),
        "after_retrieve retrieve index.snapshot re_retrieve ctx.json\n\
         after_retrieve retrieve model.version re_generate ctx.json\n"
    );
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn nothing_a_hook_started_outlives_it_to_change_the_context() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "index.snapshot", "2026-03-01T08:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let before = std::fs::read_to_string(dir.path().join("ctx.json")).unwrap();
    // One hook hangs past the timeout, then would write; the other exits at
    // once and leaves a background job that would write a moment later.
    for hook in [
        "sleep 2; echo '{}' > \"$PHASELINT_CONTEXT\"",
        "(sleep 2; echo '{}' > \"$PHASELINT_CONTEXT\") & exit 3",
    ] {
        let run = resume(
            dir.path(),
            "after_retrieve",
            &ctx,
            &["--recover-with", hook, "--recover-timeout", "1"],
        );
        assert_eq!(run.code, 1, "{hook}: {}", run.stderr);
        assert_eq!(run.json()["recovery_attempts"][0]["recovered"], false);
    }
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ctx.json")).unwrap(),
        before,
        "a process the hook started wrote the context after the verdict"
    );
}

#[test]
fn recovery_hook_without_a_shell_cannot_start() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "index.snapshot", "2026-03-01T08:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let contract = pipeline();
    // No shell on PATH: the hook cannot even start. (A command the shell
    // cannot find is "not started" too: a case folder.)
    let run = phaselint_with(
        dir.path(),
        &[
            "resume-check",
            "--contract",
            &contract,
            "--checkpoint",
            "after_retrieve",
            "--context",
            &ctx,
            "--now",
            NOW,
            "--format",
            "json",
            "--recover-with",
            "refresh-index",
        ],
        None,
        &[("PATH", "/nonexistent")],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let attempt = &run.json()["recovery_attempts"][0];
    assert_eq!(attempt["outcome"], "not_started");
    assert!(
        attempt["detail"]
            .as_str()
            .unwrap()
            .starts_with("cannot start the hook")
    );
}

#[test]
fn recovery_that_leaves_a_broken_context_gives_no_verdict() {
    let dir = temp();
    let ctx = write_json(dir.path(), "ctx.json", &stale());
    let run = resume(
        dir.path(),
        "after_retrieve",
        &ctx,
        &[
            "--recover-with",
            "printf '{\"documents\": [' > \"$PHASELINT_CONTEXT\"",
        ],
    );
    run.assert_no_verdict("cannot re-read the context after recovery");
}

// ---------------------------------------------------------------------------
// A contract linted, or edited, between runs
// ---------------------------------------------------------------------------

#[test]
fn suppression_comments_cannot_hide_an_e_code_from_the_resume_check() {
    let dir = tempfile::tempdir().unwrap();
    // Without the comments this contract is E003 and E006; with them it
    // lints clean, and the misspelled `approval_requried` would otherwise
    // silently turn the approval gate off.
    let contract = dir.path().join("suppressed.contract.yaml");
    std::fs::write(
        &contract,
        "schema_version: '1'\npipeline_id: p\nphases:\n  a:\n    exit: { required: [{ name: f1 }] }\n  b:\n    entry: { required: [{ name: f1 }] }\ncheckpoint_integrity:\n  - checkpoint_id: cp\n    phase: a\n    on_resume:\n      staleness_checks:\n        - field: f1\n          max_age_seconds: 600\n          on_stale: blockign  # phaselint: disable=E006\n      approval_requried: true  # phaselint: disable=E003\n      approval_policy: human  # phaselint: disable=C202\n",
    )
    .unwrap();
    let lint = phaselint(dir.path(), &["lint", "suppressed.contract.yaml"]);
    assert_eq!(
        lint.code, 0,
        "the comments hide the errors from lint: {}",
        lint.stdout
    );
    std::fs::write(
        dir.path().join("context.json"),
        r#"{"f1": 1, "_cc_propagation": {"f1": {"origin_phase": "a", "set_at": "2026-03-01T11:59:00Z", "value_hash": "x"}}}"#,
    )
    .unwrap();
    let run = phaselint(
        dir.path(),
        &[
            "resume-check",
            "--contract",
            "suppressed.contract.yaml",
            "--checkpoint",
            "cp",
            "--context",
            "context.json",
            "--now",
            NOW,
        ],
    );
    run.assert_no_verdict("E003 unknown key `approval_requried` in `checkpoint_integrity[0].on_resume` (suppressed, but not for the resume check)");
    assert!(
        run.stderr
            .contains("E006 `blockign` is not a valid severity"),
        "{}",
        run.stderr
    );
}

/// An approval written with `--output` is a new file: it is created 0600,
/// readable by its owner only, whatever the umask would have given it
/// (0644 under the usual 022).
#[cfg(unix)]
#[test]
fn an_approval_written_to_a_new_file_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp();
    let contract = pipeline();
    let status = Command::new("sh")
        .arg("-c")
        .arg("umask 022 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_phaselint"))
        .args([
            "approve",
            "--no-config",
            "--contract",
            &contract,
            "--checkpoint",
            "after_generate",
            "--by",
            "ana",
            "--policy",
            "human",
            "--now",
            "2026-03-01T11:00:00Z",
            "--output",
            "approval.json",
        ])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0), "{status}");
    let metadata = std::fs::metadata(dir.path().join("approval.json")).unwrap();
    let mode = metadata.permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600, "the approval's mode is {mode:o}");
}

#[test]
fn editing_the_checkpoint_voids_its_approvals_but_editing_another_does_not() {
    let dir = temp();
    let original = std::fs::read_to_string(pipeline()).unwrap();
    write(dir.path(), "pipeline.contract.yaml", &original);
    let approve = phaselint(
        dir.path(),
        &[
            "approve",
            "--contract",
            "pipeline.contract.yaml",
            "--checkpoint",
            "after_generate",
            "--by",
            "ana",
            "--policy",
            "human",
            "--now",
            "2026-03-01T11:00:00Z",
            "--output",
            "approval.json",
        ],
    );
    assert_eq!(approve.code, 0, "{}", approve.stderr);
    let check = |dir: &Path| {
        phaselint(
            dir,
            &[
                "resume-check",
                "--contract",
                "pipeline.contract.yaml",
                "--checkpoint",
                "after_generate",
                "--context",
                &fixture("contexts/fresh.json").to_string_lossy(),
                "--approvals",
                "approval.json",
                "--now",
                NOW,
                "--format",
                "json",
            ],
        )
    };
    assert_eq!(check(dir.path()).code, 0);

    // Another checkpoint changes: the approval still binds.
    let other = original.replacen("max_age_seconds: 600", "max_age_seconds: 900", 1);
    assert_ne!(other, original);
    write(dir.path(), "pipeline.contract.yaml", &other);
    assert_eq!(check(dir.path()).code, 0);

    // This checkpoint's staleness budget is widened: no hidden widening.
    let widened = original.replacen("max_age_seconds: 43200", "max_age_seconds: 86400", 1);
    write(dir.path(), "pipeline.contract.yaml", &widened);
    let run = check(dir.path());
    assert_eq!(run.code, 2);
    assert!(
        run.json()["approval_status"]["candidates"][0]["problems"][0]
            .as_str()
            .unwrap()
            .contains("it approves a different or edited checkpoint")
    );

    // Its phase changes: also void.
    let phase = original.replacen(
        "        - name: draft\n  review:",
        "        - name: draft\n          type: str\n  review:",
        1,
    );
    assert_ne!(phase, original);
    write(dir.path(), "pipeline.contract.yaml", &phase);
    assert_eq!(check(dir.path()).code, 2);
}

/// The issue's deployment: an approval gate before a high-risk deploy.
const DEPLOY: &str = r#"schema_version: "0.2.0"
pipeline_id: deploys
phases:
  plan:
    exit:
      required:
        - name: plan.target_paths
          type: list
        - name: plan.diff
  approve_gate:
    entry:
      required:
        - name: plan.target_paths
  deploy_prod:
    risk_class: high
    entry:
      required:
        - name: plan.target_paths
        - name: plan.diff
  report: {}
checkpoint_integrity:
  - checkpoint_id: approve_deploy
    phase: approve_gate
    on_resume:
      approval_required: true
      approval_policy: human
"#;

/// Approves `approve_deploy` of `DEPLOY` (and its context), then returns a
/// resume check (with more arguments, if any) of the contract and context
/// as they are in `dir` then.
fn approved_deploy(dir: &Path) -> impl Fn(&[&str]) -> Run + '_ {
    write(dir, "deploy.contract.yaml", DEPLOY);
    write_json(
        dir,
        "context.json",
        &json!({"plan": {"target_paths": ["/srv/app"], "diff": "+ app.conf"}}),
    );
    let approve = phaselint(
        dir,
        &[
            "approve",
            "--contract",
            "deploy.contract.yaml",
            "--checkpoint",
            "approve_deploy",
            "--by",
            "ana",
            "--policy",
            "human",
            "--context",
            "context.json",
            "--now",
            "2026-03-01T11:00:00Z",
            "--output",
            "approval.json",
        ],
    );
    assert_eq!(approve.code, 0, "{}", approve.stderr);
    move |extra: &[&str]| {
        let mut args = vec![
            "resume-check",
            "--contract",
            "deploy.contract.yaml",
            "--checkpoint",
            "approve_deploy",
            "--context",
            "context.json",
            "--approvals",
            "approval.json",
            "--now",
            NOW,
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        phaselint(dir, &args)
    }
}

fn first_problem(run: &Run) -> String {
    run.json()["approval_status"]["candidates"][0]["problems"][0]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn an_approval_binds_the_phases_the_run_resumes_into() {
    let dir = temp();
    let check = approved_deploy(dir.path());
    let run = check(&[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let edits: [(&str, &str, &str); 4] = [
        // The next phase renamed and raised to critical: the contract lints
        // clean, and the approval was for `deploy_prod`.
        (
            "renamed",
            "  deploy_prod:\n    risk_class: high",
            "  drop_customer_tables:\n    risk_class: critical",
        ),
        // A phase inserted after the checkpoint: the run resumes into it.
        (
            "inserted",
            "  deploy_prod:\n",
            "  wipe_caches: {}\n  deploy_prod:\n",
        ),
        // The next phase becomes irreversible.
        (
            "irreversible",
            "    risk_class: high\n",
            "    risk_class: high\n    side_effects: irreversible\n",
        ),
        // Only its entry changes: a missing diff would no longer block.
        (
            "entry",
            "        - name: plan.diff\n  report",
            "        - name: plan.diff\n          severity: advisory\n  report",
        ),
    ];
    for (what, from, to) in edits {
        let edited = DEPLOY.replacen(from, to, 1);
        assert_ne!(edited, DEPLOY, "{what}");
        write(dir.path(), "deploy.contract.yaml", &edited);
        let lint = phaselint(
            dir.path(),
            &["lint", "--no-config", "--quiet", "deploy.contract.yaml"],
        );
        assert!(!lint.stdout.contains("error"), "{what}: {}", lint.stdout);
        let run = check(&[]);
        assert_eq!(run.code, 2, "{what}: {}", run.stdout);
        assert!(
            first_problem(&run).contains("or a resume into different phases"),
            "{what}: {}",
            first_problem(&run)
        );
        // The context did not change: bound to other phases, the record
        // says nothing about this context, and the report does not claim
        // it changed.
        let problems = &run.json()["approval_status"]["candidates"][0]["problems"];
        assert!(
            !problems.to_string().contains("the context changed"),
            "{what}: {problems}"
        );
    }
    write(dir.path(), "deploy.contract.yaml", DEPLOY);
    assert_eq!(check(&[]).code, 0);
}

#[test]
fn an_approval_bound_to_the_context_refuses_a_widened_one() {
    let dir = temp();
    let check = approved_deploy(dir.path());
    assert_eq!(check(&[]).code, 0);
    // Syndicate CB-002: the same approval for a wider target.
    write_json(
        dir.path(),
        "context.json",
        &json!({"plan": {"target_paths": ["/", "/etc"], "diff": "- everything"}}),
    );
    let run = check(&[]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        first_problem(&run).contains(
            "the context changed since the approval: `plan.diff`, `plan.target_paths` no longer hold what was approved"
        ),
        "{}",
        first_problem(&run)
    );
    // The run's own bookkeeping and fields no next phase reads may change.
    write_json(
        dir.path(),
        "context.json",
        &json!({
            "plan": {"target_paths": ["/srv/app"], "diff": "+ app.conf"},
            "notes": "anything",
            "_cc_propagation": {"plan.diff": {"origin_phase": "plan", "set_at": "2026-03-01T10:00:00Z"}}
        }),
    );
    assert_eq!(check(&[]).code, 0);
}

#[test]
fn next_phase_must_be_one_the_approval_covers() {
    let dir = temp();
    let check = approved_deploy(dir.path());
    assert_eq!(check(&[]).code, 0);
    let run = check(&["--next-phase", "report"]);
    run.assert_no_verdict(
        "`report` is not a phase the run can resume into from phase `approve_gate`: its successors are `deploy_prod`",
    );
}

#[test]
fn the_run_being_checked_cannot_set_the_clock_skew_of_its_own_files() {
    let dir = temp();
    let run_dir = dir.path().join("run");
    std::fs::create_dir_all(run_dir.join(".tina/phase-2")).unwrap();
    // What a run could leave beside the files it writes.
    write(&run_dir, "phaselint.toml", "max_clock_skew = \"1h\"\n");
    let handoff = std::fs::read_to_string(repo().join("fixtures/handoff/skill-example.md"))
        .unwrap()
        .replace("2026-01-26T10:30:00Z", "2026-03-01T12:45:00Z");
    write(&run_dir, ".tina/phase-2/handoff.md", &handoff);
    let check = |cwd: &Path, path: &str| {
        phaselint(
            cwd,
            &[
                "resume-check",
                "--handoff",
                path,
                "--now",
                NOW,
                "--format",
                "json",
            ],
        )
    };
    // From elsewhere, the handoff is 45 minutes in the future: past the
    // default 5 minutes, whatever its own folder says.
    let run = check(dir.path(), "run/.tina/phase-2/handoff.md");
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("in the future"), "{}", run.stdout);
    // Run from the folder, its configuration is the user's choice and counts.
    let run = check(&run_dir, ".tina/phase-2/handoff.md");
    assert_eq!(run.code, 0, "{}", run.stdout);
    // Over an hour is refused wherever it is read.
    write(&run_dir, "phaselint.toml", "max_clock_skew = \"48h\"\n");
    check(&run_dir, ".tina/phase-2/handoff.md").assert_no_verdict("`max_clock_skew`");

    // The same for a manifest the skill wrote 45 minutes "from now".
    write(&run_dir, "phaselint.toml", "max_clock_skew = \"1h\"\n");
    write(&run_dir, "a.txt", "a\n");
    std::fs::create_dir_all(run_dir.join(".checkpoints/ckpt-1")).unwrap();
    write(&run_dir, ".checkpoints/ckpt-1/a.txt", "a\n");
    let hash = phaselint(&run_dir, &["manifest-hash", "a.txt"]);
    assert_eq!(hash.code, 0, "{}", hash.stderr);
    let manifest = json!({
        "checkpoint_created": true,
        "checkpoint": {
            "id": "ckpt-1", "type": "file_backup", "created_at": "2026-03-01T12:45:00Z",
            "scope": {"files": ["a.txt"]}, "restore_command": "cp .checkpoints/ckpt-1/a.txt a.txt", "expiry": "1d"
        },
        "pre_mutation_state": {"hash": hash.stdout.trim(), "summary": "before"},
        "evidence_anchors": ["ckpt-1"]
    });
    write_json(&run_dir, "manifest.json", &manifest);
    let run = phaselint(
        dir.path(),
        &[
            "resume-check",
            "--manifest",
            "run/manifest.json",
            "--root",
            "run",
            "--now",
            NOW,
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("in the future"), "{}", run.stdout);
}

// ---------------------------------------------------------------------------
// `phaselint approve`
// ---------------------------------------------------------------------------

#[test]
fn approve_writes_the_record_bound_to_the_digest() {
    let run = phaselint(
        &repo(),
        &[
            "approve",
            "--contract",
            "fixtures/resume/contracts/pipeline.contract.yaml",
            "--checkpoint",
            "after_generate",
            "--by",
            "ana",
            "--policy",
            "human",
            "--notes",
            "Reviewed the draft.",
            "--now",
            "2026-03-01T11:00:00Z",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The committed fixture was written by this very command: the digest
    // definition is stable.
    assert_eq!(
        run.stdout,
        std::fs::read_to_string(fixture("approvals/after_generate.human.json")).unwrap()
    );
    insta::assert_snapshot!(run.stdout, @r#"
    {
      "approved_by": "ana",
      "approved_at": "2026-03-01T11:00:00Z",
      "policy": "human",
      "checkpoint_id": "after_generate",
      "stale_fields_acknowledged": [],
      "notes": "Reviewed the draft.",
      "target_digest": "a45d5132db38e2f57881aea69f144f2b29514e5fbf0b6c0cb957aa5b1ba147bc"
    }
    "#);
}

/// The second confirmation is for resuming *into* an irreversible phase
/// (`review` → `publish`), not for a checkpoint taken after one
/// (`after_publish`, whose act is done). Until issue 13 it was the other
/// way round.
#[test]
fn approving_a_resume_into_an_irreversible_phase_needs_confirmation() {
    let dir = temp();
    let args = |checkpoint: &'static str| {
        vec![
            "approve",
            "--contract",
            "fixtures/resume/contracts/pipeline.contract.yaml",
            "--checkpoint",
            checkpoint,
            "--by",
            "ana",
            "--policy",
            "human",
            "--now",
            "2026-03-01T11:00:00Z",
            "--context",
            "fixtures/resume/contexts/fresh.json",
        ]
    };
    // Without the context it resumes with, nothing binds what is approved.
    let mut unbound = args("review_by_human");
    unbound.truncate(unbound.len() - 2);
    let run = phaselint(&repo(), &unbound);
    assert_eq!(run.code, 3);
    insta::assert_snapshot!(run.stderr, @"phaselint: error: a resume from checkpoint `review_by_human` runs irreversible phase `publish`: approve it with the context it resumes with (--context FILE), so the approval covers those values and nothing wider");
    let run = phaselint(&repo(), &args("review_by_human"));
    assert_eq!(run.code, 3);
    // What would be approved is shown before the refusal (INV-OI-001).
    let (shown, refusal) = run.stderr.split_once("phaselint: error: ").unwrap();
    assert!(
        shown.contains("waits for approval: irreversible next phase, policy `human`")
            && shown.contains("`publish`: side effects irreversible, risk high")
            && shown.contains("reversibility: IRREVERSIBLE"),
        "{shown}"
    );
    insta::assert_snapshot!(refusal, @"a resume from checkpoint `review_by_human` runs irreversible phase `publish`; pass --confirm-irreversible to approve it (or run on a terminal to confirm interactively)");
    let output = dir.path().join("approval.json");
    let output = output.to_string_lossy();
    let mut confirmed = args("review_by_human");
    confirmed.extend_from_slice(&["--confirm-irreversible", "--output", &output]);
    let run = phaselint(&repo(), &confirmed);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    let record = read_json(dir.path().join("approval.json").as_path());
    assert_eq!(record["checkpoint_id"], "review_by_human");
    assert_eq!(record["policy"], "human");
    assert_eq!(
        record["context_field_digests"]
            .as_object()
            .map(|fields| fields.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["draft".to_string(), "review.verdict".to_string()])
    );
    // And the record lets the run resume into the irreversible phase.
    let run = resume(
        &repo(),
        "review_by_human",
        "fixtures/resume/contexts/fresh.json",
        &["--approvals", &output],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    // A checkpoint after the irreversible phase asks no confirmation.
    let run = phaselint(&repo(), &args("after_publish"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["checkpoint_id"], "after_publish");
}

#[test]
fn approve_refuses_what_could_never_be_valid() {
    let base = |extra: &[&str]| {
        let mut args = vec![
            "approve",
            "--contract",
            "fixtures/resume/contracts/pipeline.contract.yaml",
            "--now",
            "2026-03-01T11:00:00Z",
            "--by",
            "ana",
        ];
        args.extend_from_slice(extra);
        phaselint(&repo(), &args)
    };
    let run = base(&["--checkpoint", "draft_by_orchestrator", "--policy", "human"]);
    assert_eq!(run.code, 3);
    assert!(run.stderr.contains(
        "checkpoint `draft_by_orchestrator` has approval_policy `orchestrator`: an approval with --policy human cannot satisfy it"
    ), "{}", run.stderr);
    // Whatever the spec's policy, only a person approves resuming into an
    // irreversible phase.
    let run = base(&[
        "--checkpoint",
        "review_by_orchestrator",
        "--policy",
        "orchestrator",
    ]);
    assert_eq!(run.code, 3);
    assert!(run.stderr.contains(
        "a resume from checkpoint `review_by_orchestrator` runs irreversible phase `publish`: only a person may approve it (--policy human)"
    ), "{}", run.stderr);
    let run = base(&[
        "--checkpoint",
        "after_generate",
        "--policy",
        "human",
        "--ack",
        "drafts",
    ]);
    assert_eq!(run.code, 3);
    assert!(run.stderr.contains(
        "--ack `drafts` is not a staleness-checked field of checkpoint `after_generate`; its fields: `draft`"
    ));
    let run = base(&["--checkpoint", "nope", "--policy", "human"]);
    assert_eq!(run.code, 3);
    assert!(run.stderr.contains("unknown checkpoint `nope`"));
}

#[test]
fn approve_ack_of_a_blocking_field_warns_that_it_still_blocks() {
    // The next steps never propose it (the `next-steps-*` case folders), but
    // `approve --ack` of a blocking field records it, and warns that in
    // strict mode it will not unblock.
    let contract = pipeline();
    let approve = phaselint(
        &repo(),
        &[
            "approve",
            "--contract",
            &contract,
            "--checkpoint",
            "review_auto",
            "--by",
            "scheduler",
            "--policy",
            "orchestrator",
            "--ack",
            "draft",
            "--now",
            "2026-03-01T11:00:00Z",
        ],
    );
    assert_eq!(approve.code, 0, "{}", approve.stderr);
    assert_eq!(
        approve.json()["stale_fields_acknowledged"],
        json!(["draft"])
    );
    assert!(
        approve.stderr.contains(
            "warning: `draft` is a blocking staleness check of checkpoint `review_auto`: the approval records the acknowledgement, but if the field is stale it still blocks the resume"
        ),
        "{}",
        approve.stderr
    );
}

// ---------------------------------------------------------------------------
// Symbolic links, no terminal, the shared corpus
// ---------------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn harness_sentinels_that_are_links_are_no_verdict() {
    let dir = temp();
    for folder in ["pending", "granted", "linked"] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
    }
    std::os::unix::fs::symlink(
        "/nonexistent",
        dir.path().join("pending/checkpoint-after_generate.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        "/nonexistent",
        dir.path()
            .join("granted/checkpoint-after_generate.md.granted"),
    )
    .unwrap();
    // Beside its request, so the grant is the answer to read.
    for folder in ["granted", "linked"] {
        write(
            dir.path(),
            &format!("{folder}/checkpoint-after_generate.md"),
            "# approve?\n",
        );
    }
    // A link to a real, newer file: the harness writes its grants itself,
    // so a link is never one (it could stand for any file, for ever).
    write(dir.path(), "real-grant", "");
    std::os::unix::fs::symlink(
        dir.path().join("real-grant"),
        dir.path()
            .join("linked/checkpoint-after_generate.md.granted"),
    )
    .unwrap();
    let valid = read_json(&fixture("approvals/after_generate.human.json"));
    let file = write_json(dir.path(), "approval.json", &valid);
    let context = fixture("contexts/fresh.json").to_string_lossy().to_string();
    // A request whose file is a link (to nothing) is no verdict, never
    // "no request", even beside a valid approval.
    let run = resume(
        dir.path(),
        "after_generate",
        &context,
        &["--harness-dir", "pending", "--approvals", &file],
    );
    run.assert_no_verdict("cannot read the harness request");
    assert!(run.stderr.contains("symbolic link"), "{}", run.stderr);
    // A grant that is a link, dangling or not, is no verdict, not "no grant".
    for folder in ["granted", "linked"] {
        let run = resume(
            dir.path(),
            "after_generate",
            &context,
            &["--harness-dir", folder],
        );
        run.assert_no_verdict("cannot read the harness grant");
        assert!(run.stderr.contains("symbolic link"), "{}", run.stderr);
    }
}

#[test]
fn a_harness_grant_older_than_its_request_answers_an_earlier_one() {
    let dir = temp();
    std::fs::create_dir_all(dir.path().join("harness")).unwrap();
    let grant = dir
        .path()
        .join("harness/checkpoint-after_publish.md.granted");
    let request = dir.path().join("harness/checkpoint-after_publish.md");
    std::fs::write(&grant, "").unwrap();
    std::fs::write(&request, "# approve notifying?\n").unwrap();
    let date = |path: &Path, seconds: u64| {
        let time = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
        std::fs::File::options()
            .write(true)
            .open(path)
            .and_then(|file| file.set_modified(time))
            .unwrap();
    };
    let context = fixture("contexts/fresh.json").to_string_lossy().to_string();
    let check = || {
        resume(
            dir.path(),
            "after_publish",
            &context,
            &["--harness-dir", "harness"],
        )
    };
    // The run asked again after the grant: the old grant does not answer it.
    date(&grant, 1_767_225_600);
    date(&request, 1_767_225_660);
    let run = check();
    assert_eq!(run.code, 2, "{}", run.stdout);
    let status = &run.json()["approval_status"];
    assert_eq!(status["harness_pending"], true);
    assert!(
        status["candidates"][0]["problems"][0]
            .as_str()
            .unwrap()
            .contains("is older than the request"),
        "{status}"
    );
    // Granted after the request: one human approval.
    date(&grant, 1_767_225_720);
    assert_eq!(check().code, 0);
}

#[test]
fn interactive_without_a_terminal_is_a_denial() {
    let run = resume(
        &repo(),
        "after_generate",
        "fixtures/resume/contexts/fresh.json",
        &["--interactive"],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--interactive needs a terminal"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.json()["denial"]["checkpoint_pending"]["trust_state"],
        "unapproved"
    );
}

#[test]
fn req10_example_contract_when_present() {
    // The shared corpus lives beside the repository (`../shared/corpus`).
    let contract = repo().join("../shared/corpus/valid/req10-example.contract.yaml");
    if !contract.exists() {
        tools::missing(&format!(
            "{} is not there (the tests run beside ../shared)",
            contract.display()
        ));
        return;
    }
    let dir = temp();
    let ctx = write_json(
        dir.path(),
        "ctx.json",
        &json!({
            "retrieved_context": ["d1"],
            "rag": {"index_snapshot": "s1"},
            "model": {"version": "m1"},
            "prompt": {"template": {"hash": "h1"}},
            "_cc_propagation": {
                "rag.index_snapshot": {"origin_phase": "retrieve", "set_at": "2026-03-01T11:30:00Z", "value_hash": "a"},
                "model.version": {"origin_phase": "retrieve", "set_at": "2026-03-01T11:30:00Z", "value_hash": "b"},
                "prompt.template.hash": {"origin_phase": "generate", "set_at": "2026-03-01T11:30:00Z", "value_hash": "c"}
            }
        }),
    );
    let run = |checkpoint: &str| {
        phaselint(
            dir.path(),
            &[
                "resume-check",
                "--contract",
                contract.to_str().unwrap(),
                "--checkpoint",
                checkpoint,
                "--context",
                &ctx,
                "--now",
                NOW,
                "--format",
                "json",
            ],
        )
    };
    assert_eq!(run("post_retrieval").code, 0);
    let mut stale = read_json(&dir.path().join(&ctx));
    stamp(&mut stale, "rag.index_snapshot", "2026-03-01T09:00:00Z");
    write_json(dir.path(), &ctx, &stale);
    let blocked = run("post_retrieval");
    assert_eq!(blocked.code, 1);
    assert_eq!(
        blocked.json()["stale_fields"][0]["field"],
        "rag.index_snapshot"
    );
    let denied = run("post_generation");
    assert_eq!(denied.code, 2);
    assert_eq!(
        denied.json()["denial"]["required_policy"],
        "human_or_orchestrator"
    );
}

// ---------------------------------------------------------------------------
// Scenario folders (tests/resume-cases/, laid out as its README says): one
// folder per scenario, all run by one test that names every failing folder.
// ---------------------------------------------------------------------------

/// Whether `actual` has what `expected` lists; with `exact`, objects also
/// have no key that `expected` leaves out.
fn matches_expected(
    expected: &Value,
    actual: &Value,
    exact: bool,
    at: &str,
    problems: &mut Vec<String>,
) {
    match (expected, actual) {
        (Value::Object(expected), Value::Object(actual)) => {
            for (key, want) in expected {
                match actual.get(key) {
                    Some(got) => {
                        matches_expected(want, got, exact, &format!("{at}.{key}"), problems);
                    }
                    None => problems.push(format!("{at}.{key}: missing")),
                }
            }
            if exact {
                for (key, got) in actual.iter().filter(|(k, _)| !expected.contains_key(*k)) {
                    problems.push(format!("{at}.{key}: not in expected.json, got {got}"));
                }
            }
        }
        (Value::Array(expected), Value::Array(actual)) if expected.len() == actual.len() => {
            for (i, (want, got)) in expected.iter().zip(actual).enumerate() {
                matches_expected(want, got, exact, &format!("{at}[{i}]"), problems);
            }
        }
        _ if expected == actual => {}
        _ => problems.push(format!("{at}: expected {expected}, got {actual}")),
    }
}

/// Runs the case in `folder`; what differs from what the folder expects.
fn run_case(folder: &Path) -> Vec<String> {
    let read = |name: &str| std::fs::read_to_string(folder.join(name)).ok();
    let mut expected = match read("expected.json").map(|text| serde_json::from_str(&text)) {
        Some(Ok(Value::Object(expected))) => expected,
        _ => return vec!["expected.json is missing or not a JSON object".to_string()],
    };
    let args = match resume_cases::case_args(folder, None) {
        Ok(args) => args,
        Err(problem) => return vec![problem],
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();

    resume_cases::date_harness_requests_before_their_grants(folder);
    let before = resume_cases::files_under(folder);
    let run = phaselint_with(folder, &args, read("stdin").as_deref(), &[]);
    let mut problems = Vec::new();
    if resume_cases::files_under(folder) != before {
        problems.push("the run changed the folder's files".to_string());
    }
    match expected.remove("exit") {
        Some(exit) if exit == run.code => {}
        Some(exit) => problems.push(format!("exit code {}, expected {exit}", run.code)),
        None => problems.push(format!(
            "exit code {}; expected.json has no `exit`",
            run.code
        )),
    }
    match expected.remove("stderr") {
        None => {}
        Some(Value::String(whole)) if whole == run.stderr => {}
        Some(Value::String(_)) => problems.push("stderr is not expected.json's `stderr`".into()),
        Some(Value::Array(parts)) => {
            for part in &parts {
                if !part.as_str().is_some_and(|part| run.stderr.contains(part)) {
                    problems.push(format!("stderr lacks {part}"));
                }
            }
        }
        Some(other) => problems.push(format!("`stderr` is a string or a list, not {other}")),
    }
    if run.code == 3 {
        if !run.stderr.contains("no resume verdict (exit 3)") {
            problems.push("exit 3 without `no resume verdict (exit 3)` in stderr".into());
        }
        // No verdict, no report: nothing, or the JSON answer without a decision.
        let no_report = run.stdout.trim().is_empty()
            || serde_json::from_str::<Value>(&run.stdout).is_ok_and(|v| v["decision"].is_null());
        if !no_report {
            problems.push("exit 3, yet stdout holds a report".into());
        }
    }
    let exact = expected.remove("exact") == Some(Value::Bool(true));
    match read("expected.txt") {
        Some(_) if !expected.is_empty() => {
            problems.push("expected.txt holds the output, so expected.json lists no report".into());
        }
        Some(text) if text != run.stdout => {
            let pairs = text.lines().zip(run.stdout.lines());
            let line = pairs.take_while(|(want, got)| want == got).count();
            problems.push(format!(
                "stdout is not expected.txt from line {}: expected {:?}, got {:?}",
                line + 1,
                text.lines().nth(line),
                run.stdout.lines().nth(line)
            ));
        }
        Some(_) => {}
        None if expected.is_empty() => {}
        None => match serde_json::from_str(&run.stdout) {
            Ok(report) => {
                matches_expected(&Value::Object(expected), &report, exact, "", &mut problems);
            }
            Err(e) => problems.push(format!("stdout is not JSON: {e}")),
        },
    }
    if !problems.is_empty() {
        problems.push(format!(
            "arguments: {args:?}\nstdout:\n{}\nstderr:\n{}",
            run.stdout, run.stderr
        ));
    }
    problems
}

#[test]
fn every_scenario_folder_gives_its_expected_report() {
    let folders = resume_cases::case_folders();
    assert!(folders.len() >= 86, "{folders:?}");
    let failures: Vec<String> = folders
        .iter()
        .filter_map(|folder| {
            let problems = run_case(folder);
            let name = folder.file_name().unwrap().to_string_lossy();
            (!problems.is_empty())
                .then(|| format!("tests/resume-cases/{name}:\n  {}", problems.join("\n  ")))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} case folders failed:\n\n{}",
        failures.len(),
        folders.len(),
        failures.join("\n\n")
    );
}
