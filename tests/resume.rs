//! `phaselint resume-check` and `phaselint approve` through the real
//! binary (SPEC §6), always with a fixed `--now`: staleness, recovery,
//! entry revalidation, approvals, modes, output, and fail-closed input
//! handling. JSON reports are snapshotted whole.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

const NOW: &str = "2026-03-01T12:00:00Z";

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

    fn decision(&self) -> String {
        self.json()["decision"]
            .as_str()
            .unwrap_or("null")
            .to_string()
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

fn remove(context: &mut Value, key: &str) {
    context.as_object_mut().unwrap().remove(key);
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
    name.to_string()
}

fn write_json(dir: &Path, name: &str, value: &Value) -> String {
    write(dir, name, &serde_json::to_string_pretty(value).unwrap())
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// An approval written by `phaselint approve` for the pipeline fixture.
fn approval(dir: &Path, checkpoint: &str, extra: &[&str]) -> Value {
    let contract = pipeline();
    let mut args = vec![
        "approve",
        "--contract",
        &contract,
        "--checkpoint",
        checkpoint,
        "--now",
        "2026-03-01T11:00:00Z",
    ];
    args.extend_from_slice(extra);
    let run = phaselint(dir, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

// ---------------------------------------------------------------------------
// 1-2. Staleness (SPEC §6 steps 1-2; REQ-10-016)
// ---------------------------------------------------------------------------

#[test]
fn fresh_context_resumes() {
    let run = resume(
        &repo(),
        "after_retrieve",
        "fixtures/resume/contexts/fresh.json",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn stale_blocking_field_blocks() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "index.snapshot", "2026-03-01T10:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "after_retrieve", &ctx, &[]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn stale_warning_field_passes_and_is_listed() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "model.version", "2026-02-27T12:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "after_retrieve", &ctx, &[]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!(run.stdout);
}

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
fn no_provenance_key_is_missing_provenance_neither_stale_nor_fresh() {
    let run = resume(
        &repo(),
        "after_retrieve",
        "fixtures/resume/contexts/no-provenance.yaml",
        &[],
    );
    assert_eq!(run.code, 0);
    let report = run.json();
    assert_eq!(report["stale_fields"], json!([]));
    assert_eq!(report["fresh_fields"], json!([]));
    assert_eq!(
        report["missing_provenance"],
        json!(["index.snapshot", "model.version", "prompt.hash"])
    );
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn unparseable_timestamp_is_stale_with_its_reason() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "index.snapshot", "last tuesday");
    stamp(&mut context, "model.version", "2026-03-01T11:30:00");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "after_retrieve", &ctx, &[]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn future_timestamp_beyond_clock_skew_is_stale() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "index.snapshot", "2026-03-01T12:10:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "after_retrieve", &ctx, &[]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn max_clock_skew_comes_from_the_config() {
    let dir = temp();
    let contract = write(
        dir.path(),
        "pipeline.contract.yaml",
        &std::fs::read_to_string(pipeline()).unwrap(),
    );
    write(dir.path(), "phaselint.toml", "max_clock_skew = \"15m\"\n");
    let mut context = fresh();
    stamp(&mut context, "index.snapshot", "2026-03-01T12:10:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "resume-check",
            "--contract",
            contract.as_str(),
            "--checkpoint",
            "after_retrieve",
            "--context",
            ctx.as_str(),
            "--now",
            NOW,
            "--format",
            "json",
        ];
        a.extend_from_slice(extra);
        a
    };
    let run = phaselint(dir.path(), &args(&[]));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["max_clock_skew_seconds"], 900);
    let run = phaselint(dir.path(), &args(&["--no-config"]));
    assert_eq!(run.code, 1, "the default skew is 5m");
}

#[test]
fn max_age_zero_is_always_stale() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "index.snapshot", NOW);
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "always_stale", &ctx, &[]);
    assert_eq!(run.code, 1);
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

// ---------------------------------------------------------------------------
// 1. Inputs: contract, checkpoint id, context sources
// ---------------------------------------------------------------------------

#[test]
fn contract_with_errors_gives_no_verdict_with_the_diagnostics() {
    let contract = fixture("contracts/broken.contract.yaml");
    let run = phaselint(
        &repo(),
        &[
            "resume-check",
            "--contract",
            "fixtures/resume/contracts/broken.contract.yaml",
            "--checkpoint",
            "after_retrieve",
            "--context",
            "fixtures/resume/contexts/fresh.json",
            "--now",
            NOW,
        ],
    );
    assert!(contract.exists());
    run.assert_no_verdict("has errors (E-codes); a checkpoint of a contract with errors can be neither resumed nor approved");
    insta::assert_snapshot!(run.stderr, @r"
    phaselint: error: the contract `fixtures/resume/contracts/broken.contract.yaml` has errors (E-codes); a checkpoint of a contract with errors can be neither resumed nor approved:
      fixtures/resume/contracts/broken.contract.yaml:6:5: E003 unknown key `exits` in `phases.retrieve`
      fixtures/resume/contracts/broken.contract.yaml:16:21: E006 `sometimes` is not a valid severity for `checkpoint_integrity[0].on_resume.staleness_checks[0].on_stale`
    phaselint: no resume verdict (exit 3): the run must not resume
    ");
}

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

#[test]
fn unknown_checkpoint_lists_the_known_ids() {
    let run = resume(
        &repo(),
        "after_retreive",
        "fixtures/resume/contexts/fresh.json",
        &[],
    );
    run.assert_no_verdict(
        "unknown checkpoint `after_retreive`; checkpoints: `after_retrieve`, `after_generate`, `review_auto`, `review_by_human`, `review_by_orchestrator`, `after_publish`, `strict_guard`, `always_stale`, `no_revalidate`, `bare`, `no_checks`, `after_notify`",
    );
    // JSON consumers get a JSON answer too.
    assert_eq!(run.json()["decision"], Value::Null);
    assert!(
        run.json()["error"]
            .as_str()
            .unwrap()
            .contains("after_retreive")
    );
}

#[test]
fn contract_without_checkpoints_gives_no_verdict() {
    let run = phaselint(
        &repo(),
        &[
            "resume-check",
            "--contract",
            "fixtures/resume/contracts/no-checkpoints.contract.yaml",
            "--checkpoint",
            "anything",
            "--context",
            "fixtures/resume/contexts/fresh.json",
            "--now",
            NOW,
        ],
    );
    run.assert_no_verdict("unknown checkpoint `anything`; the contract declares no checkpoints");
}

#[test]
fn unreadable_contract_gives_no_verdict() {
    let run = phaselint(
        &repo(),
        &[
            "resume-check",
            "--contract",
            "fixtures/resume/contracts/missing.contract.yaml",
            "--checkpoint",
            "x",
            "--context",
            "fixtures/resume/contexts/fresh.json",
            "--now",
            NOW,
        ],
    );
    run.assert_no_verdict(
        "cannot read the contract `fixtures/resume/contracts/missing.contract.yaml`",
    );
}

#[test]
fn context_from_stdin_as_yaml() {
    let contract = pipeline();
    let yaml = std::fs::read_to_string(fixture("contexts/no-provenance.yaml")).unwrap();
    let run = phaselint_with(
        &repo(),
        &[
            "resume-check",
            "--contract",
            &contract,
            "--checkpoint",
            "after_retrieve",
            "--context",
            "-",
            "--now",
            NOW,
            "--format",
            "json",
        ],
        Some(&yaml),
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.json()["missing_provenance"].as_array().unwrap().len(),
        3
    );
    assert_eq!(run.json()["entry_revalidation"]["passed"], true);
}

#[test]
fn context_from_stdin_as_json() {
    let contract = pipeline();
    let text = serde_json::to_string(&stale()).unwrap();
    let run = phaselint_with(
        &repo(),
        &[
            "resume-check",
            "--contract",
            &contract,
            "--checkpoint",
            "after_retrieve",
            "--context",
            "-",
            "--now",
            NOW,
            "--format",
            "json",
        ],
        Some(&text),
        &[],
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.decision(), "blocked");
}

#[test]
fn unparseable_now_gives_no_verdict() {
    let contract = pipeline();
    let run = phaselint(
        &repo(),
        &[
            "resume-check",
            "--contract",
            &contract,
            "--checkpoint",
            "after_retrieve",
            "--context",
            "fixtures/resume/contexts/fresh.json",
            "--now",
            "tomorrow",
        ],
    );
    run.assert_no_verdict("--now `tomorrow` is not an RFC 3339 timestamp");
}

// ---------------------------------------------------------------------------
// 3. Entry revalidation (SPEC §6 step 4)
// ---------------------------------------------------------------------------

#[test]
fn entry_blocking_field_missing_blocks() {
    let dir = temp();
    let mut context = fresh();
    remove(&mut context, "documents");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "after_retrieve", &ctx, &[]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn entry_warning_is_defaulted_and_advisory_noted() {
    let dir = temp();
    let mut context = fresh();
    remove(&mut context, "token_budget");
    context["style_hint"] = Value::Null;
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "after_retrieve", &ctx, &[]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn entry_declared_types_are_checked() {
    let dir = temp();
    let mut context = fresh();
    context["documents"] = json!("doc-1");
    context["index"]["snapshot"] = json!(42);
    context["token_budget"] = json!(12.5);
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "after_retrieve", &ctx, &[]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn next_phase_overrides_the_graph_successors() {
    let dir = temp();
    let mut context = fresh();
    remove(&mut context, "draft");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(
        dir.path(),
        "after_retrieve",
        &ctx,
        &["--next-phase", "review"],
    );
    assert_eq!(run.code, 1);
    let entry = &run.json()["entry_revalidation"];
    assert_eq!(entry["phase"], "review");
    assert_eq!(entry["next_phase_source"], "next_phase");
    assert_eq!(entry["field_results"][0]["field"], "draft");
    assert_eq!(entry["field_results"][0]["status"], "failed");
}

#[test]
fn unknown_next_phase_gives_no_verdict() {
    let run = resume(
        &repo(),
        "after_retrieve",
        "fixtures/resume/contexts/fresh.json",
        &["--next-phase", "genrate"],
    );
    run.assert_no_verdict(
        "next phase `genrate` is not a declared phase; phases: `retrieve`, `generate`, `review`, `publish`, `notify`",
    );
}

#[test]
fn revalidate_entry_false_skips_the_entry_check() {
    let dir = temp();
    let mut context = fresh();
    remove(&mut context, "documents");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "no_revalidate", &ctx, &[]);
    assert_eq!(run.code, 0);
    let entry = &run.json()["entry_revalidation"];
    assert_eq!(entry["performed"], false);
    assert_eq!(entry["field_results"], json!([]));
}

#[test]
fn every_graph_successor_is_revalidated() {
    let dir = temp();
    let ctx = write_json(
        dir.path(),
        "ctx.json",
        &json!({"topic": "tides", "outline_seed": ["not", "a", "mapping"]}),
    );
    let contract = fixture("contracts/branches.contract.yaml");
    let run = phaselint(
        dir.path(),
        &[
            "resume-check",
            "--contract",
            contract.to_str().unwrap(),
            "--checkpoint",
            "after_plan",
            "--context",
            &ctx,
            "--now",
            NOW,
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn checkpoint_without_on_resume_uses_the_defaults() {
    let run = resume(&repo(), "bare", "fixtures/resume/contexts/fresh.json", &[]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn empty_staleness_checks_pass_trivially() {
    let run = resume(
        &repo(),
        "no_checks",
        "fixtures/resume/contexts/no-provenance.yaml",
        &[],
    );
    assert_eq!(run.code, 0);
    let report = run.json();
    assert_eq!(report["staleness_checks"], json!([]));
    assert_eq!(report["missing_provenance"], json!([]));
    assert_eq!(report["passed"], true);
}

#[test]
fn last_phase_has_nothing_to_revalidate() {
    let run = resume(
        &repo(),
        "after_notify",
        "fixtures/resume/contexts/fresh.json",
        &[],
    );
    assert_eq!(run.code, 0);
    let entry = &run.json()["entry_revalidation"];
    assert_eq!(entry["performed"], true);
    assert_eq!(entry["phases"], json!([]));
    assert_eq!(entry["next_phase_source"], "none");
    assert!(entry["reason"].as_str().unwrap().contains("no successor"));
}

// ---------------------------------------------------------------------------
// 4. Recovery hook (SPEC §6 step 3; REQ-10-008)
// ---------------------------------------------------------------------------

const LOG_ENV: &str = "echo \"$PHASELINT_CHECKPOINT $PHASELINT_PHASE $PHASELINT_FIELD $PHASELINT_STRATEGY $(basename \"$PHASELINT_CONTEXT\")\" >> hook.log";

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
fn recovery_hook_failure_is_recorded_and_blocks() {
    let dir = temp();
    let ctx = write_json(dir.path(), "ctx.json", &stale());
    let hook = "echo 'index service unavailable' >&2; exit 4";
    let run = resume(
        dir.path(),
        "after_retrieve",
        &ctx,
        &["--recover-with", hook],
    );
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn recovery_hook_that_hangs_is_killed_and_recorded() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "index.snapshot", "2026-03-01T08:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(
        dir.path(),
        "after_retrieve",
        &ctx,
        &["--recover-with", "sleep 30", "--recover-timeout", "1"],
    );
    assert_eq!(run.code, 1);
    let attempt = &run.json()["recovery_attempts"][0];
    assert_eq!(attempt["outcome"], "timed_out");
    assert_eq!(
        attempt["detail"],
        "did not finish within 1 s and was killed"
    );
    assert_eq!(attempt["recovered"], false);
    assert_eq!(run.json()["stale_fields"][0]["recovery_attempted"], true);
    assert_eq!(run.json()["stale_fields"][0]["recovery_succeeded"], false);
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
fn recovery_hook_that_cannot_start_is_recorded() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "index.snapshot", "2026-03-01T08:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let contract = pipeline();
    // No shell on PATH: the hook cannot even start.
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
    // A command the shell cannot find is "not started" too.
    let run = resume(
        dir.path(),
        "after_retrieve",
        &ctx,
        &["--recover-with", "phaselint-no-such-hook-command"],
    );
    assert_eq!(run.code, 1);
    let attempt = &run.json()["recovery_attempts"][0];
    assert_eq!(attempt["outcome"], "not_started");
    assert_eq!(attempt["exit_code"], Value::Null);
}

#[test]
fn recovery_hook_success_without_a_fresh_field_is_not_recovered() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "index.snapshot", "2026-03-01T08:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(
        dir.path(),
        "after_retrieve",
        &ctx,
        &["--recover-with", "true"],
    );
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn recovery_needs_a_context_file_to_reread() {
    let contract = pipeline();
    let run = phaselint_with(
        &repo(),
        &[
            "resume-check",
            "--contract",
            &contract,
            "--checkpoint",
            "after_retrieve",
            "--context",
            "-",
            "--now",
            NOW,
            "--recover-with",
            "true",
        ],
        Some("{}"),
        &[],
    );
    run.assert_no_verdict("--recover-with needs --context FILE");
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
// 5. Approvals (SPEC §6 step 5)
// ---------------------------------------------------------------------------

#[test]
fn missing_approval_is_denied_with_a_denial_object() {
    let run = resume(
        &repo(),
        "after_generate",
        "fixtures/resume/contexts/fresh.json",
        &[],
    );
    assert_eq!(run.code, 2);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn valid_approval_file_resumes() {
    let run = resume(
        &repo(),
        "after_generate",
        "fixtures/resume/contexts/fresh.json",
        &[
            "--approvals",
            "fixtures/resume/approvals/after_generate.human.json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn approval_of_the_wrong_kind_of_approver_is_denied() {
    let dir = temp();
    let mut record = approval(
        dir.path(),
        "review_by_orchestrator",
        &["--by", "scheduler", "--policy", "orchestrator"],
    );
    record["checkpoint_id"] = json!("review_by_human");
    // Re-bind it to review_by_human's digest, so only the policy is wrong.
    let good = approval(
        dir.path(),
        "review_by_human",
        &["--by", "ana", "--policy", "human"],
    );
    record["target_digest"] = good["target_digest"].clone();
    let file = write_json(dir.path(), "approval.json", &record);
    let run = resume(
        dir.path(),
        "review_by_human",
        &fixture("contexts/fresh.json").to_string_lossy(),
        &["--approvals", &file],
    );
    assert_eq!(run.code, 2);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn approval_with_the_wrong_digest_is_denied() {
    let dir = temp();
    let mut record = read_json(&fixture("approvals/after_generate.human.json"));
    record["target_digest"] =
        json!("1111111111111111111111111111111111111111111111111111111111111111");
    let file = write_json(dir.path(), "approval.json", &record);
    let run = resume(
        dir.path(),
        "after_generate",
        &fixture("contexts/fresh.json").to_string_lossy(),
        &["--approvals", &file],
    );
    assert_eq!(run.code, 2);
    insta::assert_snapshot!(run.stdout);
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

#[test]
fn approval_must_acknowledge_every_stale_field() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "draft", "2026-02-28T12:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let plain = approval(
        dir.path(),
        "after_generate",
        &["--by", "ana", "--policy", "human"],
    );
    let file = write_json(dir.path(), "plain.json", &plain);
    let run = resume(dir.path(), "after_generate", &ctx, &["--approvals", &file]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!(run.stdout);

    let acked = approval(
        dir.path(),
        "after_generate",
        &["--by", "ana", "--policy", "human", "--ack", "draft"],
    );
    let file = write_json(dir.path(), "acked.json", &acked);
    let run = resume(dir.path(), "after_generate", &ctx, &["--approvals", &file]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["approval_status"]["approval"], acked);
}

#[test]
fn approval_dated_after_now_is_denied() {
    let dir = temp();
    let mut record = read_json(&fixture("approvals/after_generate.human.json"));
    record["approved_at"] = json!("2026-03-01T12:30:00+00:00");
    let file = write_json(dir.path(), "approval.json", &record);
    let run = resume(
        dir.path(),
        "after_generate",
        &fixture("contexts/fresh.json").to_string_lossy(),
        &["--approvals", &file],
    );
    assert_eq!(run.code, 2);
    let problems = &run.json()["approval_status"]["candidates"][0]["problems"];
    assert_eq!(
        problems,
        &json!([
            "approved_at 2026-03-01T12:30:00+00:00 is after the resume time 2026-03-01T12:00:00Z"
        ])
    );
}

#[test]
fn approval_for_another_checkpoint_is_denied() {
    let dir = temp();
    let record = approval(
        dir.path(),
        "after_publish",
        &["--by", "ana", "--policy", "human", "--confirm-irreversible"],
    );
    let file = write_json(dir.path(), "approval.yaml", &record);
    let run = resume(
        dir.path(),
        "after_generate",
        &fixture("contexts/fresh.json").to_string_lossy(),
        &["--approvals", &file],
    );
    assert_eq!(run.code, 2);
    let problems = run.json()["approval_status"]["candidates"][0]["problems"].clone();
    assert_eq!(problems.as_array().unwrap().len(), 2, "{problems}");
    assert_eq!(
        problems[0],
        "it approves checkpoint `after_publish`, not `after_generate`"
    );
}

#[test]
fn approval_in_the_context_key_resumes() {
    let dir = temp();
    let mut context = fresh();
    let record = read_json(&fixture("approvals/after_generate.human.json"));
    context["_cc_checkpoint_approvals"] = json!({ "after_generate": [record] });
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "after_generate", &ctx, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let status = &run.json()["approval_status"];
    assert_eq!(status["candidates"][0]["source"], "context");
    assert_eq!(
        status["candidates"][0]["location"],
        "_cc_checkpoint_approvals.after_generate"
    );
}

#[test]
fn empty_harness_grant_is_one_human_approval() {
    let dir = temp();
    write(
        dir.path(),
        "harness/checkpoint-review_by_human.md",
        "# Review before publishing\n",
    );
    write(
        dir.path(),
        "harness/checkpoint-review_by_human.md.granted",
        "",
    );
    let run = resume(
        dir.path(),
        "review_by_human",
        &fixture("contexts/fresh.json").to_string_lossy(),
        &["--harness-dir", "harness"],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn pending_harness_request_is_a_denial() {
    let dir = temp();
    write(
        dir.path(),
        "harness/checkpoint-after_generate.md",
        "# Waiting for a person\n",
    );
    let valid = read_json(&fixture("approvals/after_generate.human.json"));
    let file = write_json(dir.path(), "approval.json", &valid);
    let run = resume(
        dir.path(),
        "after_generate",
        &fixture("contexts/fresh.json").to_string_lossy(),
        &[
            "--harness-dir",
            "harness",
            // Even with a valid approval elsewhere: the harness is still asking.
            "--approvals",
            &file,
        ],
    );
    assert_eq!(run.code, 2);
    let report = run.json();
    assert_eq!(report["approval_status"]["harness_pending"], true);
    assert_eq!(
        report["denial"]["checkpoint_pending"]["trust_state"],
        "pending"
    );
    insta::assert_snapshot!(run.stdout);
}

#[cfg(unix)]
#[test]
fn harness_links_to_nothing_never_count_as_absent() {
    let dir = temp();
    std::fs::create_dir_all(dir.path().join("pending")).unwrap();
    std::fs::create_dir_all(dir.path().join("granted")).unwrap();
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
    let valid = read_json(&fixture("approvals/after_generate.human.json"));
    let file = write_json(dir.path(), "approval.json", &valid);
    let context = fixture("contexts/fresh.json").to_string_lossy().to_string();
    // A request whose file is gone is still a pending request.
    let run = resume(
        dir.path(),
        "after_generate",
        &context,
        &["--harness-dir", "pending", "--approvals", &file],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.json()["approval_status"]["harness_pending"], true);
    // A grant that cannot be read is no verdict, not "no grant".
    let run = resume(
        dir.path(),
        "after_generate",
        &context,
        &["--harness-dir", "granted"],
    );
    run.assert_no_verdict("cannot read the harness grant");
}

#[test]
fn harness_grant_holding_a_record_is_validated_like_any_other() {
    let dir = temp();
    let mut record = read_json(&fixture("approvals/after_generate.human.json"));
    record["target_digest"] = json!("not-the-digest");
    write(
        dir.path(),
        "harness/checkpoint-after_generate.md.granted",
        &serde_json::to_string(&record).unwrap(),
    );
    let run = resume(
        dir.path(),
        "after_generate",
        &fixture("contexts/fresh.json").to_string_lossy(),
        &["--harness-dir", "harness"],
    );
    assert_eq!(run.code, 2);
    let candidate = &run.json()["approval_status"]["candidates"][0];
    assert_eq!(candidate["source"], "harness");
    assert_eq!(
        candidate["location"],
        "harness/checkpoint-after_generate.md.granted"
    );
    assert!(
        candidate["problems"][0]
            .as_str()
            .unwrap()
            .starts_with("target_digest not-the-digest is not the checkpoint's current digest")
    );
}

#[test]
fn harness_grant_does_not_satisfy_an_orchestrator_policy() {
    let dir = temp();
    write(
        dir.path(),
        "harness/checkpoint-review_by_orchestrator.md.granted",
        "\n",
    );
    let run = resume(
        dir.path(),
        "review_by_orchestrator",
        &fixture("contexts/fresh.json").to_string_lossy(),
        &["--harness-dir", "harness"],
    );
    assert_eq!(run.code, 2);
    assert_eq!(
        run.json()["approval_status"]["candidates"][0]["problems"],
        json!(["a human approval does not satisfy approval_policy `orchestrator`"])
    );
    let orchestrator = approval(
        dir.path(),
        "review_by_orchestrator",
        &["--by", "scheduler", "--policy", "orchestrator"],
    );
    let file = write_json(dir.path(), "approval.json", &orchestrator);
    let run = resume(
        dir.path(),
        "review_by_orchestrator",
        &fixture("contexts/fresh.json").to_string_lossy(),
        &["--harness-dir", "harness", "--approvals", &file],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
}

#[test]
fn auto_if_fresh_is_granted_while_nothing_blocking_is_stale() {
    let run = resume(
        &repo(),
        "review_auto",
        "fixtures/resume/contexts/fresh.json",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let status = &run.json()["approval_status"];
    assert_eq!(status["granted"], true);
    assert_eq!(status["auto_granted"], true);
    assert_eq!(status["approval"], Value::Null);
}

#[test]
fn auto_if_fresh_needs_an_approval_once_a_blocking_field_is_stale() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "draft", "2026-03-01T09:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    // Permissive, so the stale field alone does not decide: the gate does.
    let run = resume(dir.path(), "review_auto", &ctx, &["--mode", "permissive"]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!(run.stdout);
    let record = approval(
        dir.path(),
        "review_auto",
        &[
            "--by",
            "scheduler",
            "--policy",
            "orchestrator",
            "--ack",
            "draft",
        ],
    );
    let file = write_json(dir.path(), "approval.json", &record);
    let run = resume(
        dir.path(),
        "review_auto",
        &ctx,
        &["--mode", "permissive", "--approvals", &file],
    );
    assert_eq!(run.code, 0);
}

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
      "target_digest": "060ad880f1eea9baf7c3f5f52fc9094f2a6d5c0619a8a10f2173cb4739f063cf"
    }
    "#);
}

#[test]
fn approving_an_irreversible_phase_needs_confirmation() {
    let dir = temp();
    let args = [
        "approve",
        "--contract",
        "fixtures/resume/contracts/pipeline.contract.yaml",
        "--checkpoint",
        "after_publish",
        "--by",
        "ana",
        "--policy",
        "human",
        "--now",
        "2026-03-01T11:00:00Z",
    ];
    let run = phaselint(&repo(), &args);
    assert_eq!(run.code, 3);
    insta::assert_snapshot!(run.stderr, @"phaselint: error: phase `publish` of checkpoint `after_publish` has side_effects: irreversible; pass --confirm-irreversible to approve it (or run on a terminal to confirm interactively)");
    let output = dir.path().join("approval.json");
    let output = output.to_string_lossy();
    let mut confirmed = args.to_vec();
    confirmed.extend_from_slice(&["--confirm-irreversible", "--output", &output]);
    let run = phaselint(&repo(), &confirmed);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    let record = read_json(dir.path().join("approval.json").as_path());
    assert_eq!(record["checkpoint_id"], "after_publish");
    assert_eq!(record["policy"], "human");
    // And the record lets the run resume past the irreversible phase.
    let run = resume(
        &repo(),
        "after_publish",
        "fixtures/resume/contexts/fresh.json",
        &["--approvals", &output],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
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
    let run = base(&[
        "--checkpoint",
        "review_by_human",
        "--policy",
        "orchestrator",
    ]);
    assert_eq!(run.code, 3);
    assert!(run.stderr.contains(
        "checkpoint `review_by_human` has approval_policy `human`: an approval with --policy orchestrator cannot satisfy it"
    ));
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

// ---------------------------------------------------------------------------
// 6. Modes, interactive
// ---------------------------------------------------------------------------

#[test]
fn permissive_mode_reports_a_blocking_failure_and_resumes() {
    let run = resume(
        &repo(),
        "after_retrieve",
        "fixtures/resume/contexts/stale.json",
        &["--mode", "permissive"],
    );
    assert_eq!(run.code, 0);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn permissive_mode_still_denies_a_missing_approval() {
    let run = resume(
        &repo(),
        "after_generate",
        "fixtures/resume/contexts/fresh.json",
        &["--mode", "permissive"],
    );
    assert_eq!(run.code, 2);
    assert_eq!(run.decision(), "denied");
    assert_eq!(run.json()["mode"], "permissive");
}

#[test]
fn audit_mode_reports_everything_and_blocks_nothing() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "review.verdict", "2026-03-01T08:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "review_by_human", &ctx, &["--mode", "audit"]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn strict_mode_reports_blocked_before_denied() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "review.verdict", "2026-03-01T08:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let run = resume(dir.path(), "review_by_human", &ctx, &[]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_eq!(report["decision"], "blocked");
    assert_eq!(
        report["denial"]["reason"],
        "approval required (policy `human`) and none was presented"
    );
    assert_eq!(report["denial"]["stale_fields"], json!(["review.verdict"]));
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

// ---------------------------------------------------------------------------
// 7. Human output
// ---------------------------------------------------------------------------

fn human(dir: &Path, checkpoint: &str, context: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "resume-check",
        "--contract",
        "fixtures/resume/contracts/pipeline.contract.yaml",
        "--checkpoint",
        checkpoint,
        "--context",
        context,
        "--now",
        NOW,
    ];
    args.extend_from_slice(extra);
    phaselint(dir, &args)
}

#[test]
fn human_output_of_a_blocked_resume() {
    let run = human(
        &repo(),
        "after_retrieve",
        "fixtures/resume/contexts/stale.json",
        &[],
    );
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn human_output_of_a_denied_resume() {
    let run = human(
        &repo(),
        "review_by_human",
        "fixtures/resume/contexts/fresh.json",
        &[],
    );
    assert_eq!(run.code, 2);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn human_output_of_a_resume_in_audit_mode() {
    let run = human(
        &repo(),
        "after_retrieve",
        "fixtures/resume/contexts/no-provenance.yaml",
        &["--mode", "audit"],
    );
    assert_eq!(run.code, 0);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn req10_example_contract_when_present() {
    // The shared corpus lives beside the repository (`../shared/corpus`).
    let contract = repo().join("../shared/corpus/valid/req10-example.contract.yaml");
    if !contract.exists() {
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
// 8. Fail closed: every malformed input is exit 3
// ---------------------------------------------------------------------------

fn with_context(text: &str, name: &str) -> Run {
    let dir = temp();
    let ctx = write(dir.path(), name, text);
    resume(dir.path(), "after_retrieve", &ctx, &[])
}

#[test]
fn truncated_json_context_gives_no_verdict() {
    with_context(r#"{"documents": ["doc-1", "#, "ctx.json")
        .assert_no_verdict("cannot read the context `ctx.json`: it is not valid JSON: EOF while parsing a value at line 1 column 24");
}

#[test]
fn truncated_context_without_an_extension_gives_no_verdict() {
    with_context(r#"{"documents": ["doc-1", "#, "ctx")
        .assert_no_verdict("cannot read the context `ctx`: it is not valid JSON");
}

#[test]
fn invalid_yaml_context_gives_no_verdict() {
    with_context("documents: [doc-1\nindex: {\n", "ctx.yaml")
        .assert_no_verdict("cannot read the context `ctx.yaml`: it is not valid YAML");
}

#[test]
fn duplicate_key_in_a_yaml_context_gives_no_verdict() {
    with_context(
        "documents: [a]\ntoken_budget: 1\ndocuments: [b]\n",
        "ctx.yaml",
    )
    .assert_no_verdict("key `documents` appears twice in one mapping (line 3)");
}

#[test]
fn list_context_gives_no_verdict() {
    with_context("[1, 2]", "ctx.json")
        .assert_no_verdict("the context must be a mapping, found a list");
}

#[test]
fn scalar_context_gives_no_verdict() {
    with_context("just some text\n", "ctx.yaml")
        .assert_no_verdict("the context must be a mapping, found a string");
}

#[test]
fn empty_context_gives_no_verdict() {
    with_context("\n  \n", "ctx.json")
        .assert_no_verdict("cannot read the context `ctx.json`: it is empty");
}

#[test]
fn missing_context_file_gives_no_verdict() {
    resume(
        &repo(),
        "after_retrieve",
        "fixtures/resume/contexts/nope.json",
        &[],
    )
    .assert_no_verdict("cannot read the context `fixtures/resume/contexts/nope.json`");
}

#[test]
fn provenance_that_is_not_a_mapping_gives_no_verdict() {
    let mut context = fresh();
    context["_cc_propagation"] = json!(["index.snapshot"]);
    with_context(&context.to_string(), "ctx.json").assert_no_verdict(
        "malformed context: `_cc_propagation` must be a mapping of field name to provenance record, found a list",
    );
}

#[test]
fn provenance_with_a_non_string_set_at_gives_no_verdict() {
    let mut context = fresh();
    context["_cc_propagation"]["index.snapshot"]["set_at"] = json!(1_772_366_400);
    with_context(&context.to_string(), "ctx.json").assert_no_verdict(
        "malformed context: `_cc_propagation.index.snapshot.set_at` must be an ISO 8601 timestamp string, found an integer",
    );
}

#[test]
fn provenance_record_without_set_at_gives_no_verdict() {
    let mut context = fresh();
    context["_cc_propagation"]["model.version"] = json!({"origin_phase": "retrieve"});
    with_context(&context.to_string(), "ctx.json").assert_no_verdict(
        "malformed context: `_cc_propagation.model.version` has no `set_at` timestamp",
    );
}

#[test]
fn provenance_with_a_non_string_origin_phase_gives_no_verdict() {
    let mut context = fresh();
    context["_cc_propagation"]["documents"]["origin_phase"] = json!(["retrieve"]);
    with_context(&context.to_string(), "ctx.json").assert_no_verdict(
        "malformed context: `_cc_propagation.documents.origin_phase` must be a string, found a list",
    );
}

#[test]
fn approvals_file_with_an_unknown_key_gives_no_verdict() {
    resume(
        &repo(),
        "after_generate",
        "fixtures/resume/contexts/fresh.json",
        &["--approvals", "fixtures/resume/approvals/unknown-key.json"],
    )
    .assert_no_verdict(
        "cannot read the approvals file `fixtures/resume/approvals/unknown-key.json`: unknown field `approver_email`",
    );
}

#[test]
fn approvals_file_missing_a_required_key_gives_no_verdict() {
    resume(
        &repo(),
        "after_generate",
        "fixtures/resume/contexts/fresh.json",
        &[
            "--approvals",
            "fixtures/resume/approvals/missing-approved-at.yaml",
        ],
    )
    .assert_no_verdict("missing field `approved_at`");
}

#[test]
fn truncated_approvals_file_gives_no_verdict() {
    resume(
        &repo(),
        "after_generate",
        "fixtures/resume/contexts/fresh.json",
        &["--approvals", "fixtures/resume/approvals/truncated.json"],
    )
    .assert_no_verdict("cannot read the approvals file `fixtures/resume/approvals/truncated.json`: it is not valid JSON");
}

#[test]
fn approvals_file_with_wrong_types_gives_no_verdict() {
    let dir = temp();
    let mut record = read_json(&fixture("approvals/after_generate.human.json"));
    record["stale_fields_acknowledged"] = json!("draft");
    let file = write_json(dir.path(), "approval.json", &json!([record]));
    resume(
        dir.path(),
        "after_generate",
        &fixture("contexts/fresh.json").to_string_lossy(),
        &["--approvals", &file],
    )
    .assert_no_verdict("cannot read the approvals file `approval.json`: record 1: invalid type: string \"draft\", expected a sequence");
}

#[test]
fn unreadable_approvals_file_gives_no_verdict() {
    resume(
        &repo(),
        "after_generate",
        "fixtures/resume/contexts/fresh.json",
        &["--approvals", "fixtures/resume/approvals/nope.json"],
    )
    .assert_no_verdict("cannot read the approvals file `fixtures/resume/approvals/nope.json`");
}

#[test]
fn malformed_approvals_in_the_context_give_no_verdict() {
    let dir = temp();
    let mut context = fresh();
    context["_cc_checkpoint_approvals"] = json!({"after_generate": "yes"});
    let ctx = write_json(dir.path(), "ctx.json", &context);
    resume(dir.path(), "after_generate", &ctx, &[]).assert_no_verdict(
        "malformed approval in the context's `_cc_checkpoint_approvals.after_generate`: expected one ApprovalRecord (a mapping) or a list of them, found a string",
    );
    context["_cc_checkpoint_approvals"] = json!([]);
    let ctx = write_json(dir.path(), "ctx.json", &context);
    resume(dir.path(), "after_generate", &ctx, &[])
        .assert_no_verdict("it must be a mapping of checkpoint id to ApprovalRecord, found a list");
}

#[test]
fn missing_harness_dir_gives_no_verdict() {
    resume(
        &repo(),
        "after_generate",
        "fixtures/resume/contexts/fresh.json",
        &["--harness-dir", "fixtures/resume/no-such-harness"],
    )
    .assert_no_verdict("--harness-dir `fixtures/resume/no-such-harness` is not a directory");
}

#[test]
fn unreadable_harness_grant_gives_no_verdict() {
    let dir = temp();
    write(
        dir.path(),
        "harness/checkpoint-after_generate.md.granted",
        "approved_by: [unclosed\n",
    );
    resume(
        dir.path(),
        "after_generate",
        &fixture("contexts/fresh.json").to_string_lossy(),
        &["--harness-dir", "harness"],
    )
    .assert_no_verdict(
        "cannot read the harness grant `harness/checkpoint-after_generate.md.granted`",
    );
}

#[test]
fn next_steps_for_a_stale_blocking_field_never_propose_acknowledging_it() {
    let dir = temp();
    let mut context = fresh();
    stamp(&mut context, "draft", "2026-03-01T09:00:00Z");
    stamp(&mut context, "review.verdict", "2026-03-01T09:00:00Z");
    let ctx = write_json(dir.path(), "ctx.json", &context);
    let contract = pipeline();
    let steps = |checkpoint: &str, mode: &str| {
        let run = phaselint(
            dir.path(),
            &[
                "resume-check",
                "--contract",
                &contract,
                "--checkpoint",
                checkpoint,
                "--context",
                &ctx,
                "--now",
                NOW,
                "--mode",
                mode,
            ],
        );
        let at = run.stdout.find("What to do next:").unwrap();
        (run.code, run.stdout[at..].to_string())
    };
    // Strict: `review.verdict` blocks whatever is approved. Refresh or
    // recover it; an acknowledgement would change nothing, so none is proposed.
    let (code, strict) = steps("review_by_human", "strict");
    assert_eq!(code, 1, "{strict}");
    assert!(
        strict.contains("refresh `review.verdict` (re_generate)"),
        "{strict}"
    );
    assert!(strict.contains("or pass --recover-with CMD"), "{strict}");
    assert!(!strict.contains("--ack"), "{strict}");
    assert!(!strict.contains("--interactive"), "{strict}");
    assert!(
        strict.contains("then get an approval bound to this checkpoint"),
        "{strict}"
    );
    // With auto_if_fresh, the refreshed field is all it takes.
    let (_, auto) = steps("review_auto", "strict");
    assert!(
        auto.contains(
            "then no approval is needed: with the blocking fields fresh, auto_if_fresh grants it"
        ),
        "{auto}"
    );
    assert!(!auto.contains("phaselint approve"), "{auto}");
    // Permissive: the stale field does not block, and the approval that
    // would let the run resume must acknowledge it.
    let (code, permissive) = steps("review_auto", "permissive");
    assert_eq!(code, 2, "{permissive}");
    assert!(permissive.contains(" --ack draft "), "{permissive}");

    // `approve --ack` of that field records it, and warns that in strict
    // mode it will not unblock.
    let approve = phaselint(
        dir.path(),
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
// Scenario folders (tests/resume-cases/): one folder per scenario.
// ---------------------------------------------------------------------------

/// Whether `actual` has everything `expected` lists (see the folder's README).
fn matches_expected(expected: &Value, actual: &Value, at: &str, problems: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(expected), Value::Object(actual)) => {
            for (key, want) in expected {
                match actual.get(key) {
                    Some(got) => matches_expected(want, got, &format!("{at}.{key}"), problems),
                    None => problems.push(format!("{at}.{key}: missing")),
                }
            }
        }
        (Value::Array(expected), Value::Array(actual)) if expected.len() == actual.len() => {
            for (i, (want, got)) in expected.iter().zip(actual).enumerate() {
                matches_expected(want, got, &format!("{at}[{i}]"), problems);
            }
        }
        _ if expected == actual => {}
        _ => problems.push(format!("{at}: expected {expected}, got {actual}")),
    }
}

#[test]
fn every_scenario_folder_gives_its_expected_report() {
    let cases = repo().join("tests/resume-cases");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert!(folders.len() >= 9, "{folders:?}");
    for folder in folders {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let own_contract = folder.join("contract.yaml");
        let contract = if own_contract.is_file() {
            own_contract.to_string_lossy().into_owned()
        } else {
            pipeline()
        };
        let context = folder.join("context.json").to_string_lossy().into_owned();
        let extra = std::fs::read_to_string(folder.join("args")).unwrap();
        let mut args = vec![
            "resume-check",
            "--contract",
            &contract,
            "--context",
            &context,
            "--now",
            NOW,
            "--format",
            "json",
        ];
        args.extend(extra.split_whitespace());
        let run = phaselint(&repo(), &args);
        let mut expected = read_json(&folder.join("expected.json"));
        let exit = expected
            .as_object_mut()
            .unwrap()
            .remove("exit")
            .unwrap_or_else(|| panic!("{name}: expected.json has no `exit`"));
        assert_eq!(
            Value::from(run.code),
            exit,
            "{name}: exit code\n{}{}",
            run.stdout,
            run.stderr
        );
        let mut problems = Vec::new();
        matches_expected(&expected, &run.json(), "", &mut problems);
        assert!(
            problems.is_empty(),
            "{name}:\n{}\n{}",
            problems.join("\n"),
            run.stdout
        );
    }
}
