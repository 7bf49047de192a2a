//! A harness's named checkpoints without a contract, through the real
//! binary: `resume-check --harness-dir DIR --checkpoint NAME [--consume]`,
//! `harness status` and `harness fire`, each in a project directory of its
//! own with a `.harness/config.json` declaring two checkpoint types, as
//! the harness's README describes them. Grants are dated after their
//! requests by setting file times, never by waiting.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;

#[path = "support/binary.rs"]
mod binary;
use binary::{Run, phaselint};

const CONFIG: &str = r#"{
  "models": {"worker": "sonnet"},
  "checkpoints": {
    "enabled": true,
    "types": [
      {"name": "plan-approved", "description": "Approve the plan before any worker starts", "triggerOn": "post-planner"},
      {"name": "pre-deploy", "description": "A person looks before the deploy"}
    ]
  }
}
"#;

const REQUEST: &str = ".harness/checkpoint-plan-approved.md";
const GRANT: &str = ".harness/checkpoint-plan-approved.md.granted";
const FIRED: &str = ".harness/.checkpoint-plan-approved.fired";
const JOURNAL: &str = ".harness/.checkpoint-plan-approved.consuming";

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        Self::with_config(CONFIG)
    }

    fn with_config(config: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".harness")).unwrap();
        std::fs::write(dir.path().join(".harness/config.json"), config).unwrap();
        Project { dir }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn has(&self, relative: &str) -> bool {
        std::fs::symlink_metadata(self.path(relative)).is_ok()
    }

    /// Sets a file's time, seconds after 2026-01-01.
    fn date(&self, relative: &str, seconds: u64) {
        let time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_767_225_600 + seconds);
        std::fs::File::options()
            .write(true)
            .open(self.path(relative))
            .and_then(|file| file.set_modified(time))
            .unwrap();
    }

    /// A request, and a grant holding `grant` written a minute after it.
    fn granted(&self, grant: &str) {
        self.write(
            REQUEST,
            "# Checkpoint `plan-approved`\n\nApprove the plan.\n",
        );
        self.write(GRANT, grant);
        self.date(REQUEST, 0);
        self.date(GRANT, 60);
    }

    fn run(&self, args: &[&str]) -> Run {
        phaselint(self.dir.path(), args)
    }

    /// The start-up check of `plan-approved`, JSON report.
    fn check(&self, extra: &[&str]) -> Run {
        let mut args = vec![
            "resume-check",
            "--harness-dir",
            ".harness",
            "--checkpoint",
            "plan-approved",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        self.run(&args)
    }
}

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

fn no_verdict(run: &Run, says: &str) {
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains(says), "{says:?} not in {}", run.stderr);
}

#[test]
fn a_pending_request_pauses_with_its_text_and_a_grant_lets_the_harness_start() {
    let project = Project::new();
    project.write(
        REQUEST,
        "# Checkpoint `plan-approved`\n\nThe plan splits the work into 4 features.\n",
    );
    let run = project.check(&[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let report = json(&run);
    assert_eq!(report["kind"], "harness");
    assert_eq!(report["decision"], "denied");
    assert_eq!(report["state"], "pending");
    assert_eq!(report["trigger_on"], "post-planner");
    assert!(
        report["request"]["text"]
            .as_str()
            .unwrap()
            .contains("4 features")
    );
    let human = project.run(&[
        "resume-check",
        "--harness-dir",
        ".harness",
        "--checkpoint",
        "plan-approved",
    ]);
    assert_eq!(human.code, 2);
    assert!(
        human
            .stdout
            .contains("  | The plan splits the work into 4 features."),
        "{}",
        human.stdout
    );
    assert!(
        human
            .stdout
            .contains("Decision: DENIED (exit 2, mode strict)")
    );

    // Every content a person or the harness API writes counts, shown as given.
    for (grant, kind, content) in [
        ("", "empty", Value::Null),
        (
            "approved by alice\n",
            "text",
            Value::String("approved by alice".into()),
        ),
        (
            r#"{"grantedBy":"alice"}"#,
            "document",
            serde_json::json!({"grantedBy": "alice"}),
        ),
    ] {
        project.granted(grant);
        let run = project.check(&[]);
        assert_eq!(run.code, 0, "{grant:?}: {}", run.stderr);
        let report = json(&run);
        assert_eq!(report["state"], "granted");
        assert_eq!(report["grant"]["content_kind"], kind);
        assert_eq!(report["grant"]["content"], content);
        assert!(
            project.has(REQUEST) && project.has(GRANT),
            "a check without --consume removed files"
        );
    }
}

#[test]
fn consume_removes_both_files_as_the_harness_start_up_does() {
    let project = Project::new();
    project.granted(r#"{"grantedBy":"alice"}"#);
    let run = project.check(&["--consume"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(json(&run)["consumed"], true);
    assert!(!project.has(REQUEST) && !project.has(GRANT) && !project.has(JOURNAL));
    // Nothing pending now: the harness may start.
    let again = project.check(&["--consume"]);
    assert_eq!(again.code, 0);
    assert_eq!(json(&again)["state"], "none");
    assert_eq!(json(&again)["consumed"], false);
    // A pending request is never consumed.
    project.write(REQUEST, "# again\n");
    let pending = project.check(&["--consume"]);
    assert_eq!(pending.code, 2);
    assert!(project.has(REQUEST));
}

#[test]
fn an_interrupted_consume_is_no_verdict_until_a_consume_finishes_or_rolls_it_back() {
    // The crash came after the grant was moved: the request is still there.
    let project = Project::new();
    project.granted("");
    std::fs::create_dir(project.path(JOURNAL)).unwrap();
    std::fs::rename(
        project.path(GRANT),
        project.path(&format!("{JOURNAL}/granted")),
    )
    .unwrap();
    no_verdict(&project.check(&[]), "was interrupted");
    let status = project.run(&["harness", "status"]);
    assert_eq!(status.code, 3, "{}", status.stdout);
    assert!(
        status.stdout.contains("was interrupted"),
        "{}",
        status.stdout
    );
    let fire = project.run(&["harness", "fire", "plan-approved"]);
    no_verdict(&fire, "was interrupted");
    let run = project.check(&["--consume"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = json(&run);
    assert!(
        report["recovered"]
            .as_str()
            .unwrap()
            .contains("rolled back"),
        "{report}"
    );
    assert_eq!(report["consumed"], true);
    assert!(!project.has(REQUEST) && !project.has(GRANT) && !project.has(JOURNAL));

    // The crash came after both were moved: the removal is finished.
    let project = Project::new();
    project.granted("");
    std::fs::create_dir(project.path(JOURNAL)).unwrap();
    std::fs::rename(
        project.path(GRANT),
        project.path(&format!("{JOURNAL}/granted")),
    )
    .unwrap();
    std::fs::rename(
        project.path(REQUEST),
        project.path(&format!("{JOURNAL}/request")),
    )
    .unwrap();
    no_verdict(&project.check(&[]), "was interrupted");
    let run = project.check(&["--consume"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = json(&run);
    assert!(report["recovered"].as_str().unwrap().contains("finished"));
    assert_eq!(report["state"], "none");
    assert!(!project.has(REQUEST) && !project.has(GRANT) && !project.has(JOURNAL));
}

#[test]
fn a_grant_that_answers_no_request_is_reported_and_ignored() {
    let project = Project::new();
    project.write(GRANT, "");
    let orphan = project.check(&[]);
    assert_eq!(orphan.code, 0, "{}", orphan.stderr);
    let report = json(&orphan);
    assert_eq!(report["state"], "none");
    assert!(
        report["warnings"][0]
            .as_str()
            .unwrap()
            .contains("has no request")
    );
    // A grant older than the request answered an earlier one.
    project.write(REQUEST, "# asked again\n");
    project.date(GRANT, 0);
    project.date(REQUEST, 60);
    let older = project.check(&["--consume"]);
    assert_eq!(older.code, 2);
    let report = json(&older);
    assert_eq!(report["grant"]["timing"], "older_than_request");
    assert!(project.has(GRANT), "an ignored grant was consumed");
    // A grant dated in the future could answer a request not yet written.
    project.date(GRANT, 100 * 365 * 86_400);
    let future = project.check(&[]);
    assert_eq!(future.code, 2);
    assert_eq!(json(&future)["grant"]["timing"], "in_the_future");
}

#[test]
fn a_record_in_a_grant_is_judged_as_a_record() {
    let project = Project::new();
    let record = |policy: &str| {
        format!(
            r#"{{"approved_by": "ana", "approved_at": "2026-01-01T00:00:30Z", "policy": "{policy}", "checkpoint_id": "plan-approved"}}"#
        )
    };
    project.granted(&record("human"));
    let run = project.check(&["--now", "2026-01-01T00:02:00Z"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(json(&run)["grant"]["records"][0]["valid"], true);
    project.granted(&record("orchestrator"));
    let run = project.check(&["--now", "2026-01-01T00:02:00Z"]);
    assert_eq!(run.code, 2);
    assert!(
        json(&run)["grant"]["records"][0]["problems"][0]
            .as_str()
            .unwrap()
            .contains("orchestrator approval")
    );
    // Meant as a record, but not one: no verdict, never a plain grant.
    project.granted(r#"{"approved_by": "ana", "grantedBy": "alice"}"#);
    no_verdict(&project.check(&[]), "cannot read the harness grant");
    project.granted("approved_by: [unclosed");
    no_verdict(&project.check(&[]), "cannot read the harness grant");
}

#[test]
fn names_the_config_does_not_declare_are_refused_with_a_did_you_mean() {
    let project = Project::new();
    let run = project.run(&[
        "resume-check",
        "--harness-dir",
        ".harness",
        "--checkpoint",
        "plan-aproved",
    ]);
    no_verdict(&run, "did you mean `plan-approved`?");
    for hostile in ["../plan-approved", "plan-approved/../../x", ".."] {
        let run = project.run(&[
            "resume-check",
            "--harness-dir",
            ".harness",
            "--checkpoint",
            hostile,
        ]);
        no_verdict(&run, "is not declared");
    }
    let fire = project.run(&["harness", "fire", "../escape"]);
    no_verdict(&fire, "is not declared");
    assert!(!project.has("escape.md") && !project.has(".harness/../checkpoint-..md"));
    // A declared name that is no file name is never made into a path.
    let unsafe_config = Project::with_config(
        r#"{"checkpoints": {"enabled": true, "types": [{"name": "../../up"}]}}"#,
    );
    let run = unsafe_config.run(&[
        "resume-check",
        "--harness-dir",
        ".harness",
        "--checkpoint",
        "../../up",
    ]);
    no_verdict(&run, "cannot name a harness sentinel");
    let fire = unsafe_config.run(&["harness", "fire", "../../up"]);
    no_verdict(&fire, "cannot name a harness sentinel");
    let status = unsafe_config.run(&["harness", "status", "--format", "json"]);
    assert_eq!(status.code, 3);
    assert_eq!(json(&status)["checkpoints"][0]["state"], "error");
}

#[test]
fn a_config_that_does_not_load_is_no_verdict() {
    let broken = Project::with_config(r#"{"checkpoints": {"types": [{"name": "a"}, ]}}"#);
    no_verdict(
        &broken.run(&[
            "resume-check",
            "--harness-dir",
            ".harness",
            "--checkpoint",
            "a",
        ]),
        "has errors",
    );
    // Over its bound (a sparse file: nothing is written, nothing is read).
    let huge = Project::new();
    std::fs::File::options()
        .write(true)
        .open(huge.path(".harness/config.json"))
        .unwrap()
        .set_len(33 * 1024 * 1024)
        .unwrap();
    no_verdict(&huge.run(&["harness", "status"]), "E007");
    // A grant over its bound is no verdict, whatever it would say.
    let big = Project::new();
    big.granted("");
    std::fs::File::options()
        .write(true)
        .open(big.path(GRANT))
        .unwrap()
        .set_len(1024 * 1024 + 1)
        .unwrap();
    big.date(GRANT, 60);
    no_verdict(
        &big.check(&[]),
        "larger than the limit of 1048576 bytes (1 MiB)",
    );
    let missing = Project::new();
    std::fs::remove_file(missing.path(".harness/config.json")).unwrap();
    no_verdict(
        &missing.run(&[
            "resume-check",
            "--harness-dir",
            ".harness",
            "--checkpoint",
            "a",
        ]),
        "cannot read the harness config",
    );
}

#[cfg(unix)]
#[test]
fn sentinels_that_are_links_directories_or_fifos_are_no_verdict() {
    let fifo = |project: &Project, relative: &str| {
        let made = std::process::Command::new("mkfifo")
            .arg(project.path(relative))
            .status()
            .unwrap();
        assert!(made.success());
    };
    type Plant = fn(&Project, &str);
    let link: Plant = |project, relative| {
        project.write("elsewhere", "");
        std::os::unix::fs::symlink(project.path("elsewhere"), project.path(relative)).unwrap();
    };
    let directory: Plant = |project, relative| std::fs::create_dir(project.path(relative)).unwrap();
    for (what, plant) in [
        ("a symbolic link", link),
        ("a directory", directory),
        ("a FIFO", fifo as Plant),
    ] {
        for (sentinel, with_request) in [(GRANT, true), (REQUEST, false), (FIRED, false)] {
            let project = Project::new();
            if with_request {
                project.write(REQUEST, "# approve?\n");
            }
            plant(&project, sentinel);
            let run = project.check(&[]);
            no_verdict(&run, what);
            let status = project.run(&["harness", "status"]);
            assert_eq!(status.code, 3, "{what} at {sentinel}: {}", status.stdout);
            let fire = project.run(&["harness", "fire", "plan-approved"]);
            assert_ne!(fire.code, 0, "{what} at {sentinel}");
        }
    }
}

#[test]
fn options_of_a_contract_check_are_refused_without_a_contract() {
    let project = Project::new();
    project.write("ctx.json", "{}");
    for extra in [
        &["--context", "ctx.json"][..],
        &["--next-phase", "work"],
        &["--approvals", "ctx.json"],
        &["--recover-with", "true"],
        &["--trust-context-approvals"],
        &["--no-config"],
    ] {
        let run = project.check(extra);
        no_verdict(&run, "does not apply to a harness check");
    }
    // --consume is the harness check's own.
    project.write(
        "c.yaml",
        "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\n",
    );
    let run = project.run(&[
        "resume-check",
        "--contract",
        "c.yaml",
        "--checkpoint",
        "k",
        "--context",
        "ctx.json",
        "--harness-dir",
        ".harness",
        "--consume",
    ]);
    no_verdict(&run, "--consume applies only to a harness check");
}

#[test]
fn fire_writes_the_sentinels_runs_the_hook_and_never_fires_twice() {
    let project = Project::new();
    project.write(
        ".harness/hooks/on-checkpoint-fired.sh",
        "#!/bin/sh\nprintf '%s|%s|%s|%s|%s\\n' \"$CHECKPOINT_NAME\" \"$TRIGGER\" \"$PROJECT_DIR\" \"$STATE_DIR\" \"$(pwd)\" > \"$STATE_DIR/hook.log\"\n",
    );
    make_executable(&project.path(".harness/hooks/on-checkpoint-fired.sh"));
    let run = project.run(&[
        "harness",
        "fire",
        "plan-approved",
        "--now",
        "2026-03-01T12:00:00Z",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = json(&run);
    assert_eq!(report["trigger"], "post-planner");
    assert_eq!(report["hook"]["outcome"], "succeeded");
    let request = std::fs::read_to_string(project.path(REQUEST)).unwrap();
    assert!(
        request.contains("Approve the plan before any worker starts"),
        "{request}"
    );
    assert!(request.contains("- trigger: post-planner"), "{request}");
    assert!(
        request.contains("- fired: 2026-03-01T12:00:00Z"),
        "{request}"
    );
    assert!(project.has(FIRED));
    let root = std::path::absolute(project.dir.path()).unwrap();
    let log = std::fs::read_to_string(project.path(".harness/hook.log")).unwrap();
    let [name, trigger, project_dir, state_dir, cwd] =
        log.trim_end().split('|').collect::<Vec<_>>()[..]
    else {
        panic!("{log}");
    };
    assert_eq!((name, trigger), ("plan-approved", "post-planner"));
    assert_eq!(Path::new(project_dir), root);
    assert_eq!(Path::new(state_dir), root.join(".harness"));
    assert_eq!(
        Path::new(cwd).canonicalize().unwrap(),
        root.canonicalize().unwrap()
    );
    // Pending now: the start-up check pauses.
    assert_eq!(project.check(&[]).code, 2);
    // Fired this mission: never again, granted and consumed or not.
    let again = project.run(&["harness", "fire", "plan-approved"]);
    assert_eq!(again.code, 1, "{}", again.stderr);
    assert!(
        again.stderr.contains("already fired this mission"),
        "{}",
        again.stderr
    );
    project.granted("");
    assert_eq!(project.check(&["--consume"]).code, 0);
    let after = project.run(&["harness", "fire", "plan-approved"]);
    assert_eq!(after.code, 1);
    let report = json(&project.check(&[]));
    assert_eq!(report["state"], "fired");
    assert_eq!(
        report["fired"]["note"],
        "fired this mission: do not fire again"
    );
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) {}

#[cfg(unix)]
#[test]
fn a_hook_that_fails_is_reported_and_the_checkpoint_stays_fired() {
    for (hook, executable, outcome) in [
        (
            "#!/bin/sh\necho 'cannot reach the notifier' >&2\nexit 5\n",
            true,
            "failed",
        ),
        ("#!/bin/sh\nexit 0\n", false, "not_started"),
        ("#!/bin/sh\nsleep 30\n", true, "timed_out"),
    ] {
        let project = Project::new();
        project.write(".harness/hooks/on-checkpoint-fired.sh", hook);
        if executable {
            make_executable(&project.path(".harness/hooks/on-checkpoint-fired.sh"));
        }
        let run = project.run(&[
            "harness",
            "fire",
            "pre-deploy",
            "--hook-timeout",
            "1",
            "--format",
            "json",
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let report = json(&run);
        assert_eq!(report["hook"]["outcome"], outcome, "{report}");
        assert_eq!(report["trigger"], "orchestrator");
        assert!(run.stderr.contains("fired all the same"), "{}", run.stderr);
        assert!(project.has(".harness/checkpoint-pre-deploy.md"));
        assert!(project.has(".harness/.checkpoint-pre-deploy.fired"));
    }
}

#[test]
fn checkpoints_that_are_not_enabled_are_not_fired() {
    let project = Project::with_config(
        r#"{"checkpoints": {"types": [{"name": "plan-approved", "triggerOn": "post-planner"}]}}"#,
    );
    no_verdict(
        &project.run(&["harness", "fire", "plan-approved"]),
        "checkpoints.enabled: true",
    );
    assert!(!project.has(REQUEST));
    // A request there still pauses: phaselint answers from the files.
    project.write(REQUEST, "# approve?\n");
    let run = project.check(&[]);
    assert_eq!(run.code, 2);
    assert!(
        json(&run)["warnings"][0]
            .as_str()
            .unwrap()
            .contains("checkpoints.enabled")
    );
}

#[test]
fn status_lists_every_declared_checkpoint_with_its_state_and_times() {
    let project = Project::new();
    project.granted("");
    project.write(FIRED, "fired\n");
    project.date(FIRED, 0);
    let run = project.run(&["harness", "status", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let status = json(&run);
    assert_eq!(status["kind"], "harness_status");
    assert_eq!(status["checkpoints_enabled"], true);
    let rows = status["checkpoints"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["name"], "plan-approved");
    assert_eq!(rows[0]["trigger_on"], "post-planner");
    assert_eq!(rows[0]["state"], "granted");
    assert_eq!(rows[0]["fired"], true);
    assert_eq!(rows[0]["requested_at"], "2026-01-01T00:00:00Z");
    assert_eq!(rows[0]["granted_at"], "2026-01-01T00:01:00Z");
    assert_eq!(rows[0]["fired_at"], "2026-01-01T00:00:00Z");
    assert_eq!(rows[1]["state"], "none");
    let table = project.run(&["harness", "status", ".harness"]);
    assert_eq!(table.code, 0);
    let lines: Vec<&str> = table.stdout.lines().collect();
    assert_eq!(lines[0], "Harness: .harness   checkpoints.enabled: true");
    assert_eq!(
        lines[2],
        "NAME           TRIGGER       STATE    REQUESTED             GRANTED               FIRED                 NOTE"
    );
    assert_eq!(
        lines[3],
        "plan-approved  post-planner  granted  2026-01-01T00:00:00Z  2026-01-01T00:01:00Z  2026-01-01T00:00:00Z"
    );
    assert_eq!(
        lines[4],
        "pre-deploy     -             none     -                     -                     -"
    );
}

#[test]
fn a_request_cannot_write_to_the_terminal_through_the_report() {
    let project = Project::new();
    project.write(
        REQUEST,
        "# Approve?\n\u{1b}[2J\u{1b}]52;c;aGk=\u{7}wiped\n\u{202e}reversed\n",
    );
    let run = project.run(&[
        "resume-check",
        "--harness-dir",
        ".harness",
        "--checkpoint",
        "plan-approved",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        !run.stdout.contains('\u{1b}') && !run.stdout.contains('\u{202e}'),
        "{:?}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("  | \\u{1b}[2J\\u{1b}]52;c;aGk=\\u{7}wiped"),
        "{}",
        run.stdout
    );
}
