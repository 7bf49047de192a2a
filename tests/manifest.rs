//! `phaselint resume-check --manifest` and `phaselint manifest-hash`
//! through the real binary, always with a fixed `--now`: one case per rule
//! of the manifest check, the JSON reports snapshotted. Each case builds
//! its scope files in a temporary git repository and writes the manifest's
//! hash with `phaselint manifest-hash`, as a skill would; a `git_stash`
//! checkpoint is a real stash (`git stash push`, then `git stash apply`),
//! made with fixed dates so its commit ids are the same in every run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

#[path = "support/binary.rs"]
mod binary;
use binary::{Run, phaselint};
#[path = "support/git.rs"]
mod git;
use git::git;

const NOW: &str = "2026-03-01T12:00:00Z";

/// A git repository with `src/app.py` and `config.toml` committed, and
/// `src/app.py` changed since (the work a checkpoint saves).
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/app.py"), "print('v0')\n").unwrap();
        std::fs::write(dir.path().join("config.toml"), "level = 1\n").unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        git(dir.path(), &["add", "."]);
        git(dir.path(), &["commit", "-q", "-m", "start"]);
        std::fs::write(dir.path().join("src/app.py"), "print('v1')\n").unwrap();
        Project { dir }
    }

    /// The checkpoint skill's git stash, taken the way the lifecycle does:
    /// stash (untracked files too), then apply it back, so the stash stays
    /// as the checkpoint and the work tree as it was.
    fn stash(&self, id: &str) {
        let message = format!("checkpoint:{id}:before the migration");
        git(
            self.path(),
            &["stash", "push", "-q", "--include-untracked", "-m", &message],
        );
        git(self.path(), &["stash", "apply", "-q"]);
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, relative: &str, text: &str) {
        let file = self.path().join(relative);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }

    /// `phaselint manifest-hash` of `files` under the root.
    fn hash(&self, files: &[&str]) -> String {
        let mut args = vec!["manifest-hash"];
        args.extend_from_slice(files);
        let run = phaselint(self.path(), &args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout.trim().to_string()
    }

    /// A manifest of `kind` over `files` (a state checkpoint: over the
    /// key `app.mode` of `state.json`), its hash written by
    /// `phaselint manifest-hash`, its checkpoint taken (a stash) and its
    /// restore command the one the skills write.
    fn manifest(&self, kind: &str, files: &[&str]) -> Value {
        let state_kind = matches!(kind, "state_snapshot" | "database_savepoint");
        let hash = if state_kind {
            self.write("state.json", r#"{"app": {"mode": "blue", "replicas": 3}}"#);
            let run = phaselint(
                self.path(),
                &[
                    "manifest-hash",
                    "--state",
                    "state.json",
                    "--key",
                    "app.mode",
                ],
            );
            assert_eq!(run.code, 0, "{}", run.stderr);
            run.stdout.trim().to_string()
        } else {
            self.hash(files)
        };
        let restore = match kind {
            "git_stash" => {
                self.stash("ckpt-7");
                "git stash apply stash@{0}".to_string()
            }
            "file_backup" => files
                .iter()
                .map(|f| format!("cp .checkpoints/ckpt-7/{f} {f}"))
                .collect::<Vec<_>>()
                .join(" && "),
            _ => "./restore-state.sh ckpt-7".to_string(),
        };
        let (files, keys): (&[&str], &[&str]) = if state_kind {
            (&[], &["app.mode"])
        } else {
            (files, &[])
        };
        json!({
            "checkpoint_created": true,
            "checkpoint": {
                "id": "ckpt-7",
                "type": kind,
                "created_at": "2026-03-01T11:30:00Z",
                "scope": {"files": files, "state_keys": keys},
                "restore_command": restore,
                "expiry": "24h"
            },
            "pre_mutation_state": {"hash": hash, "summary": "before the migration"},
            "evidence_anchors": ["ckpt-7: stash@{0} holds src/app.py and config.toml"],
            "mutation_plan": "rewrite the config loader"
        })
    }

    /// The check of `manifest` (written as `manifest.json`), JSON report.
    fn check(&self, manifest: &Value, extra: &[&str]) -> Run {
        std::fs::write(
            self.path().join("manifest.json"),
            serde_json::to_string_pretty(manifest).unwrap(),
        )
        .unwrap();
        let mut args = vec![
            "resume-check",
            "--manifest",
            "manifest.json",
            "--now",
            NOW,
            "--no-config",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        phaselint(self.path(), &args)
    }
}

const SCOPE: &[&str] = &["src/app.py", "config.toml"];

/// The JSON report, with the exit code it must give (a state checkpoint
/// checked against `state.json`).
fn report(project: &Project, manifest: &Value, exit: i32) -> String {
    let state = matches!(
        manifest["checkpoint"]["type"].as_str(),
        Some("state_snapshot" | "database_savepoint")
    );
    let extra: &[&str] = if state {
        &["--state", "state.json"]
    } else {
        &[]
    };
    let run = project.check(manifest, extra);
    assert_eq!(run.code, exit, "{}{}", run.stdout, run.stderr);
    run.stdout
}

/// The problems of a report, for short assertions.
fn problems(stdout: &str) -> Vec<String> {
    let report: Value = serde_json::from_str(stdout).unwrap();
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_untouched_scope_lets_the_mutation_proceed() {
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    let hash = manifest["pre_mutation_state"]["hash"]
        .as_str()
        .unwrap()
        .to_string();
    let out = report(&project, &manifest, 0);
    // The hash differs from run to run only in nothing: the files are fixed.
    insta::assert_snapshot!(out);
    assert!(out.contains(&format!("\"actual_hash\": \"{hash}\"")));
}

#[test]
fn a_file_changed_after_the_checkpoint_blocks() {
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    project.write("config.toml", "level = 2\n");
    insta::assert_snapshot!(report(&project, &manifest, 1));
    let human = phaselint(
        project.path(),
        &[
            "resume-check",
            "--manifest",
            "manifest.json",
            "--now",
            NOW,
            "--no-config",
        ],
    );
    assert_eq!(human.code, 1);
    insta::assert_snapshot!(human.stdout);
}

#[test]
fn a_scope_file_that_is_gone_blocks() {
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    std::fs::remove_file(project.path().join("src/app.py")).unwrap();
    insta::assert_snapshot!(report(&project, &manifest, 1));
}

#[test]
fn a_checkpoint_not_created_blocks() {
    let project = Project::new();
    let mut manifest = project.manifest("git_stash", SCOPE);
    manifest["checkpoint_created"] = json!(false);
    assert!(problems(&report(&project, &manifest, 1))[0].contains("`checkpoint_created` is false"));
}

#[test]
fn an_expired_checkpoint_is_stale() {
    let project = Project::new();
    let mut manifest = project.manifest("git_stash", SCOPE);
    manifest["checkpoint"]["expiry"] = json!("15m");
    insta::assert_snapshot!(report(&project, &manifest, 1));
    manifest["checkpoint"]["expiry"] = json!("2026-03-01T11:45:00Z");
    assert!(
        problems(&report(&project, &manifest, 1))[0].contains("expired at 2026-03-01T11:45:00Z")
    );
    manifest["checkpoint"]["expiry"] = json!(600);
    assert!(
        problems(&report(&project, &manifest, 1))[0].contains("expired at 2026-03-01T11:40:00Z")
    );
}

#[test]
fn never_null_and_absent_never_expire() {
    let project = Project::new();
    let mut manifest = project.manifest("git_stash", SCOPE);
    for expiry in [json!("never"), json!(null)] {
        manifest["checkpoint"]["expiry"] = expiry;
        report(&project, &manifest, 0);
    }
    manifest["checkpoint"]
        .as_object_mut()
        .unwrap()
        .remove("expiry");
    report(&project, &manifest, 0);
}

#[test]
fn an_unreadable_expiry_blocks() {
    let project = Project::new();
    let mut manifest = project.manifest("git_stash", SCOPE);
    manifest["checkpoint"]["expiry"] = json!("next week");
    assert!(
        problems(&report(&project, &manifest, 1))[0]
            .contains("`checkpoint.expiry` `next week` is neither")
    );
}

#[test]
fn a_checkpoint_from_the_future_blocks_beyond_the_clock_skew() {
    let project = Project::new();
    let mut manifest = project.manifest("git_stash", SCOPE);
    manifest["checkpoint"]["created_at"] = json!("2026-03-01T12:10:00Z");
    insta::assert_snapshot!(report(&project, &manifest, 1));
    manifest["checkpoint"]["created_at"] = json!("2026-03-01T12:03:00Z");
    report(&project, &manifest, 0);
}

#[test]
fn file_backup_copies_under_their_path_or_base_name() {
    let project = Project::new();
    let manifest = project.manifest("file_backup", SCOPE);
    // Under the listed path, and under the base name (the skill's example).
    project.write(".checkpoints/ckpt-7/src/app.py", "print('v1')\n");
    project.write(".checkpoints/ckpt-7/config.toml", "level = 1\n");
    report(&project, &manifest, 0);
    std::fs::remove_dir_all(project.path().join(".checkpoints/ckpt-7/src")).unwrap();
    project.write(".checkpoints/ckpt-7/app.py", "print('v1')\n");
    // The restore command must then name the copy where it is.
    assert!(
        problems(&report(&project, &manifest, 1))[0].contains(
            "copies `.checkpoints/ckpt-7/src/app.py`, but the backup of `src/app.py` is `.checkpoints/ckpt-7/app.py`"
        )
    );
    let mut manifest = manifest;
    manifest["checkpoint"]["restore_command"] = json!(
        "cp .checkpoints/ckpt-7/app.py src/ && cp .checkpoints/ckpt-7/config.toml config.toml"
    );
    insta::assert_snapshot!(report(&project, &manifest, 0));
}

#[test]
fn a_missing_backup_copy_blocks() {
    let project = Project::new();
    let manifest = project.manifest("file_backup", SCOPE);
    project.write(".checkpoints/ckpt-7/config.toml", "level = 1\n");
    insta::assert_snapshot!(report(&project, &manifest, 1));
}

#[test]
fn a_backup_copy_that_differs_blocks() {
    let project = Project::new();
    let manifest = project.manifest("file_backup", SCOPE);
    project.write(".checkpoints/ckpt-7/src/app.py", "print('v0')\n");
    project.write(".checkpoints/ckpt-7/config.toml", "level = 1\n");
    let out = report(&project, &manifest, 1);
    assert!(
        problems(&out)[0].starts_with("the backup copies hash to sha256:"),
        "{out}"
    );
}

#[test]
fn paths_that_leave_the_root_are_refused() {
    let project = Project::new();
    let mut manifest = project.manifest("git_stash", SCOPE);
    manifest["checkpoint"]["scope"]["files"] =
        json!(["../outside.txt", "/etc/hostname", "src/../config.toml"]);
    let out = report(&project, &manifest, 1);
    let found = problems(&out);
    assert!(
        found
            .iter()
            .any(|p| p.contains("`../outside.txt` leaves the root through `..`")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|p| p.contains("`/etc/hostname` is absolute")),
        "{found:?}"
    );
    // Inside the root, but no path of a git tree: it cannot be looked up
    // in the stash.
    assert!(
        !found
            .iter()
            .any(|p| p.contains("`src/../config.toml` leaves the root")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|p| p
                .contains("scope file `src/../config.toml` cannot be looked up in `stash@{0}`")),
        "{found:?}"
    );
}

#[test]
fn evidence_that_does_not_mention_the_checkpoint_warns() {
    let project = Project::new();
    let mut manifest = project.manifest("git_stash", SCOPE);
    manifest["evidence_anchors"] = json!(["stash@{0}", {"kind": "log", "ref": "deploy-42"}]);
    let out = report(&project, &manifest, 0);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["warnings"],
        json!([
            "no `evidence_anchors` entry mentions checkpoint `ckpt-7`: the evidence is not grounded in this checkpoint"
        ])
    );
    // An anchor object that names it counts.
    // (The same checkpoint: a second stash would hold the untracked
    // manifest.json too.)
    let mut anchored = manifest.clone();
    anchored["evidence_anchors"] = json!([{"checkpoint": "ckpt-7"}]);
    assert!(report_warnings(&project, &anchored).is_empty());
}

fn report_warnings(project: &Project, manifest: &Value) -> Vec<Value> {
    let out = report(project, manifest, 0);
    let report: Value = serde_json::from_str(&out).unwrap();
    report["warnings"].as_array().unwrap().clone()
}

#[test]
fn secret_looking_scope_files_warn_and_do_not_block() {
    let project = Project::new();
    for file in [
        ".env.production",
        "deploy/id_rsa",
        "tls/server.pem",
        "aws-credentials.json",
    ] {
        project.write(file, "secret\n");
    }
    let files = [
        ".env.production",
        "deploy/id_rsa",
        "tls/server.pem",
        "aws-credentials.json",
        "config.toml",
    ];
    let manifest = project.manifest("git_stash", &files);
    insta::assert_snapshot!(report(&project, &manifest, 0));
}

#[test]
fn a_malformed_manifest_lists_every_problem_and_gives_no_verdict() {
    let project = Project::new();
    let manifest = json!({
        "checkpoint_created": "yes",
        "checkpoint": {"id": 7, "type": "stash", "scope": {"files": "src/app.py"}, "restore_command": "git stash pop"},
    });
    let run = project.check(&manifest, &[]);
    assert_eq!(run.code, 3);
    insta::assert_snapshot!(run.stderr);
}

#[test]
fn an_unknown_type_gets_a_did_you_mean_and_no_verdict() {
    let project = Project::new();
    let mut manifest = project.manifest("git_stash", SCOPE);
    manifest["checkpoint"]["type"] = json!("file_backups");
    let run = project.check(&manifest, &[]);
    assert_eq!(run.code, 3);
    assert!(
        run.stderr.contains("`checkpoint.type` `file_backups` is not one of `git_stash`, `file_backup`, `state_snapshot`, `database_savepoint`; did you mean `file_backup`?"),
        "{}",
        run.stderr
    );
}

#[test]
fn invalid_json_and_an_empty_file_give_no_verdict() {
    let project = Project::new();
    std::fs::write(
        project.path().join("manifest.json"),
        "{\"checkpoint_created\": true,",
    )
    .unwrap();
    let run = phaselint(
        project.path(),
        &["resume-check", "--manifest", "manifest.json", "--now", NOW],
    );
    assert_eq!(run.code, 3);
    assert!(
        run.stderr
            .contains("cannot read the manifest `manifest.json`: it is not valid JSON"),
        "{}",
        run.stderr
    );
    std::fs::write(project.path().join("manifest.json"), "").unwrap();
    let run = phaselint(
        project.path(),
        &["resume-check", "--manifest", "manifest.json", "--now", NOW],
    );
    assert_eq!(run.code, 3);
}

#[test]
fn a_yaml_manifest_is_read_like_json() {
    let project = Project::new();
    let hash = project.hash(SCOPE);
    project.stash("ckpt-7");
    let yaml = format!(
        "checkpoint_created: true\ncheckpoint:\n  id: ckpt-7\n  type: git_stash\n  created_at: 2026-03-01T11:30:00Z\n  scope:\n    files: [src/app.py, config.toml]\n  restore_command: git stash apply 'stash@{{0}}'\n  expiry: never\npre_mutation_state:\n  hash: \"{hash}\"\nevidence_anchors: [ckpt-7]\n"
    );
    std::fs::write(project.path().join("manifest.yaml"), yaml).unwrap();
    let run = phaselint(
        project.path(),
        &[
            "resume-check",
            "--manifest",
            "manifest.yaml",
            "--now",
            NOW,
            "--no-config",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn a_directory_a_fifo_or_a_link_loop_where_a_file_should_be_blocks() {
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    std::fs::remove_file(project.path().join("config.toml")).unwrap();
    std::fs::create_dir(project.path().join("config.toml")).unwrap();
    let found = problems(&report(&project, &manifest, 1));
    assert!(
        found[0].contains("`config.toml` cannot be read: it is a directory"),
        "{found:?}"
    );
    #[cfg(unix)]
    {
        std::fs::remove_dir(project.path().join("config.toml")).unwrap();
        std::os::unix::fs::symlink("config.toml", project.path().join("config.toml")).unwrap();
        let found = problems(&report(&project, &manifest, 1));
        assert!(
            found[0].contains("`config.toml` cannot be read"),
            "{found:?}"
        );
        std::fs::remove_file(project.path().join("config.toml")).unwrap();
        let made = Command::new("mkfifo")
            .arg(project.path().join("config.toml"))
            .status()
            .is_ok_and(|s| s.success());
        if made {
            let found = problems(&report(&project, &manifest, 1));
            assert!(found[0].contains("it is a FIFO"), "{found:?}");
        }
    }
}

#[test]
fn modes_report_a_changed_file_and_let_permissive_and_audit_proceed() {
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    project.write("src/app.py", "print('v2')\n");
    for mode in ["permissive", "audit"] {
        let run = project.check(&manifest, &["--mode", mode]);
        assert_eq!(run.code, 0, "{mode}");
        let report: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(report["decision"], "resume");
        assert_eq!(report["passed"], false);
        assert_eq!(report["mode"], mode);
    }
}

#[test]
fn an_empty_restore_command_and_a_malformed_hash_block() {
    let project = Project::new();
    let mut manifest = project.manifest("git_stash", SCOPE);
    manifest["checkpoint"]["restore_command"] = json!("  ");
    manifest["pre_mutation_state"]["hash"] = json!("md5:abc");
    insta::assert_snapshot!(report(&project, &manifest, 1));
}

#[test]
fn scope_paths_are_relative_to_root() {
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    std::fs::create_dir(project.path().join("elsewhere")).unwrap();
    std::fs::write(
        project.path().join("elsewhere/manifest.json"),
        serde_json::to_string(&manifest).unwrap(),
    )
    .unwrap();
    let run = phaselint(
        &project.path().join("elsewhere"),
        &[
            "resume-check",
            "--manifest",
            "manifest.json",
            "--root",
            "..",
            "--now",
            NOW,
            "--no-config",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let run = phaselint(
        &project.path().join("elsewhere"),
        &[
            "resume-check",
            "--manifest",
            "manifest.json",
            "--root",
            "nope",
            "--now",
            NOW,
        ],
    );
    assert_eq!(run.code, 3);
    assert!(
        run.stderr.contains("--root `nope` is not a directory"),
        "{}",
        run.stderr
    );
}

#[test]
fn manifest_hash_is_the_documented_hash_and_refuses_what_it_cannot_hash() {
    use sha2::Digest;
    let project = Project::new();
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let file_sha = hex(&sha2::Sha256::digest(b"level = 1\n"));
    let expected = format!(
        "sha256:{}",
        hex(&sha2::Sha256::digest(
            format!("config.toml\0{file_sha}\n").as_bytes()
        ))
    );
    assert_eq!(project.hash(&["config.toml"]), expected);
    let missing = phaselint(project.path(), &["manifest-hash", "nope.txt"]);
    assert_eq!(missing.code, 3);
    assert!(
        missing.stderr.contains("`nope.txt` does not exist"),
        "{}",
        missing.stderr
    );
    let outside = phaselint(project.path(), &["manifest-hash", "../x"]);
    assert_eq!(outside.code, 3);
    assert!(
        outside.stderr.contains("leaves the root"),
        "{}",
        outside.stderr
    );
}

/// `phaselint ARGS` in `dir` under an address-space cap of `kib` KiB.
fn capped(dir: &Path, kib: u64, args: &[&str]) -> Run {
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_phaselint"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn a_large_scope_file_is_hashed_in_bounded_memory_up_to_its_bound() {
    // A sparse file at the bound of one scope file under a 512 MiB
    // address-space cap: reading it whole would fail; hashing it in blocks
    // does not. One byte more, and it is not read at all: exit 3 naming
    // the file and the bound (a 10 GiB file took 53 s to hash).
    let project = Project::new();
    // Checkpointed before the big file exists: it is not stashed.
    let mut manifest = project.manifest("git_stash", SCOPE);
    let big = std::fs::File::create(project.path().join("big.bin")).unwrap();
    big.set_len(512 << 20).unwrap();
    let run = capped(project.path(), 524288, &["manifest-hash", "big.bin"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("sha256:"));
    big.set_len((512 << 20) + 1).unwrap();
    let run = phaselint(project.path(), &["manifest-hash", "big.bin"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("`big.bin` is 536870913 bytes, larger than the limit of 536870912 bytes (512 MiB) for one file"),
        "{}",
        run.stderr
    );
    manifest["checkpoint"]["scope"]["files"] = json!(["config.toml", "big.bin"]);
    let run = project.check(&manifest, &[]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "cannot be checked: scope file `big.bin` is 536870913 bytes, larger than the limit"
        ),
        "{}",
        run.stderr
    );
}

#[cfg(target_os = "linux")]
#[test]
fn proc_files_and_devices_are_not_hashed() {
    // `/proc/self/status` says it is 0 bytes and gives more; a link to
    // `/proc/self/pagemap` was hashed for ever.
    let run = phaselint(
        Path::new("/"),
        &["manifest-hash", "--root", "/proc/self", "status"],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("it gave more bytes than its size (0 bytes) says"),
        "{}",
        run.stderr
    );
    let run = phaselint(Path::new("/"), &["manifest-hash", "--root", "/dev", "null"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("it is a character device, not a regular file"),
        "{}",
        run.stderr
    );
    let project = Project::new();
    std::os::unix::fs::symlink("/proc/self/pagemap", project.path().join("pagemap")).unwrap();
    let run = phaselint(project.path(), &["manifest-hash", "pagemap"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
}

#[cfg(unix)]
#[test]
fn a_scope_link_out_of_the_root_is_refused_naming_it() {
    // A link to `/etc/passwd` and a path through a link to `/etc` were
    // followed: the file hashed, its SHA-256 printed, the verdict resume.
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    std::os::unix::fs::symlink("/etc/passwd", project.path().join("leak.txt")).unwrap();
    std::os::unix::fs::symlink("/etc", project.path().join("etc")).unwrap();
    std::os::unix::fs::symlink("../..", project.path().join("src/up")).unwrap();
    for (listed, link, target) in [
        ("leak.txt", "leak.txt", "/etc/passwd"),
        ("etc/passwd", "etc", "/etc"),
        ("src/up/x", "src/up", "../.."),
    ] {
        let hash = phaselint(project.path(), &["manifest-hash", listed]);
        assert_eq!(hash.code, 3, "{listed}: {}", hash.stdout);
        assert!(
            hash.stderr.contains(&format!("`{listed}` cannot be hashed: `{link}` is a symbolic link to `{target}`, which leaves the root")),
            "{}",
            hash.stderr
        );
        let mut refused = manifest.clone();
        refused["checkpoint"]["scope"]["files"] = json!([listed]);
        let out = report(&project, &refused, 1);
        assert!(!out.contains("\"sha256\": \""), "{out}");
        assert_eq!(
            problems(&out)[0],
            format!(
                "scope file `{listed}` is refused: `{link}` is a symbolic link to `{target}`, which leaves the root (links are followed only while they stay inside it); list a file inside the root instead"
            )
        );
    }
}

#[cfg(unix)]
#[test]
fn a_scope_link_that_stays_inside_the_root_is_followed() {
    let project = Project::new();
    std::os::unix::fs::symlink("src", project.path().join("current")).unwrap();
    std::os::unix::fs::symlink("../config.toml", project.path().join("src/config")).unwrap();
    let files = ["current/app.py", "src/config"];
    let mut manifest = project.manifest("file_backup", &files);
    project.write(".checkpoints/ckpt-7/app.py", "print('v1')\n");
    project.write(".checkpoints/ckpt-7/src/config", "level = 1\n");
    manifest["checkpoint"]["restore_command"] = json!(
        "cp .checkpoints/ckpt-7/app.py current/app.py && cp .checkpoints/ckpt-7/src/config src/config"
    );
    report(&project, &manifest, 0);
    let manifest = project.manifest("git_stash", &files);
    // `manifest-hash` hashes through the links; a git tree holds links as
    // links, so the stash has no `current/app.py` to restore.
    let found = problems(&report(&project, &manifest, 1));
    assert_eq!(
        found,
        [
            "scope file `current/app.py` is not in `stash@{0}`, so restoring the stash does not bring it back (an untracked file is stashed only with `git stash push --include-untracked`)",
            "scope file `src/config` is a symbolic link in `stash@{0}`: restoring it writes a link, not the checkpointed file"
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_backup_that_is_a_link_or_the_live_file_is_no_backup() {
    // Each of these resumed with no copy in existence.
    let project = Project::new();
    let manifest = project.manifest("file_backup", SCOPE);
    let backup = project.path().join(".checkpoints/ckpt-7");
    // The backup folder a link to the root.
    std::fs::create_dir(project.path().join(".checkpoints")).unwrap();
    std::os::unix::fs::symlink("..", &backup).unwrap();
    let found = problems(&report(&project, &manifest, 1));
    assert!(
        found[0].starts_with("the backup of `src/app.py` is refused: `.checkpoints/ckpt-7` is a symbolic link (to `..`), and nothing under `.checkpoints/` may be a link"),
        "{found:?}"
    );
    // Backup files that are links to the live files.
    std::fs::remove_file(&backup).unwrap();
    std::fs::create_dir_all(backup.join("src")).unwrap();
    std::os::unix::fs::symlink("../../../src/app.py", backup.join("src/app.py")).unwrap();
    std::os::unix::fs::symlink("../../config.toml", backup.join("config.toml")).unwrap();
    let found = problems(&report(&project, &manifest, 1));
    assert!(
        found[0].starts_with("the backup of `src/app.py` is refused: `.checkpoints/ckpt-7/src/app.py` is a symbolic link"),
        "{found:?}"
    );
    // Hard links: the same device and inode as the live files.
    std::fs::remove_dir_all(&backup).unwrap();
    std::fs::create_dir_all(backup.join("src")).unwrap();
    std::fs::hard_link(project.path().join("src/app.py"), backup.join("src/app.py")).unwrap();
    std::fs::hard_link(
        project.path().join("config.toml"),
        backup.join("config.toml"),
    )
    .unwrap();
    let found = problems(&report(&project, &manifest, 1));
    assert_eq!(
        found[0],
        "the backup `.checkpoints/ckpt-7/src/app.py` of `src/app.py` is the live file `src/app.py` itself (the same device and inode: a hard link), so there is no copy to restore: copy the file into `.checkpoints/ckpt-7/` instead"
    );
    // Copies are backups.
    std::fs::remove_dir_all(&backup).unwrap();
    project.write(".checkpoints/ckpt-7/src/app.py", "print('v1')\n");
    project.write(".checkpoints/ckpt-7/config.toml", "level = 1\n");
    report(&project, &manifest, 0);
}

#[test]
fn a_checkpoint_id_that_is_not_one_name_gives_no_verdict() {
    // `../src` made `src/` the backup folder, and the base-name fallback
    // found each live file as its own backup.
    let project = Project::new();
    let mut manifest = project.manifest("file_backup", &["src/app.py"]);
    std::fs::create_dir(project.path().join(".checkpoints")).unwrap();
    for id in ["../src", "a/b", "a\\b", "..", "x\u{0}"] {
        manifest["checkpoint"]["id"] = json!(id);
        let run = project.check(&manifest, &[]);
        assert_eq!(run.code, 3, "{id}: {}", run.stdout);
        assert!(
            run.stderr.contains("is malformed:\n  - `checkpoint.id` `"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn counts_and_structure_are_bounded_before_anything_is_hashed() {
    let project = Project::new();
    // 10,001 scope files.
    let many: Vec<String> = (0..10_001).map(|i| format!("f{i}")).collect();
    let mut manifest = project.manifest("git_stash", SCOPE);
    manifest["checkpoint"]["scope"]["files"] = json!(many);
    let run = project.check(&manifest, &[]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("`checkpoint.scope.files` lists 10001 files, more than the limit of 10000"),
        "{}",
        run.stderr
    );
    let mut args = vec!["manifest-hash"];
    args.extend(many.iter().map(String::as_str));
    let run = phaselint(project.path(), &args);
    assert_eq!(run.code, 3);
    assert!(
        run.stderr
            .contains("10001 files are more than the limit of 10000"),
        "{}",
        run.stderr
    );
    // An 8 MiB manifest of one-letter paths took 1.4 GB and 53 s; it is
    // refused from its text, within a 512 MiB address-space cap.
    let paths = vec!["\"a\""; 2 << 20].join(",");
    let text = format!(
        "{{\"checkpoint_created\": true, \"checkpoint\": {{\"scope\": {{\"files\": [{paths}]}}}}}}"
    );
    std::fs::write(project.path().join("big.json"), text).unwrap();
    let run = capped(
        project.path(),
        524288,
        &[
            "resume-check",
            "--manifest",
            "big.json",
            "--now",
            NOW,
            "--no-config",
        ],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot read the manifest `big.json`: it has 2097160 commas, brackets, colons, list dashes and line breaks, more than the limit of 50000"),
        "{}",
        run.stderr
    );
}

#[test]
fn every_checkpoint_type_is_read() {
    let project = Project::new();
    for kind in ["git_stash", "state_snapshot", "database_savepoint"] {
        let manifest = project.manifest(kind, SCOPE);
        let out = report(&project, &manifest, 0);
        assert!(out.contains("\"decision\": \"resume\""), "{kind}: {out}");
    }
}

#[test]
fn a_manifest_that_is_a_directory_or_a_link_loop_gives_no_verdict() {
    let project = Project::new();
    std::fs::create_dir(project.path().join("manifest.json")).unwrap();
    let run = phaselint(
        project.path(),
        &["resume-check", "--manifest", "manifest.json", "--now", NOW],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("it is a directory"), "{}", run.stderr);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("loop.json", project.path().join("loop.json")).unwrap();
        let run = phaselint(
            project.path(),
            &["resume-check", "--manifest", "loop.json", "--now", NOW],
        );
        assert_eq!(run.code, 3, "{}", run.stderr);
    }
}

/// The check with `--for QUESTION`, JSON report, with the exit code it
/// must give.
fn asked(project: &Project, manifest: &Value, question: &str, exit: i32) -> Value {
    let run = project.check(manifest, &["--for", question]);
    assert_eq!(run.code, exit, "{}{}", run.stdout, run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_stash_push_without_apply_blocks_a_mutation_and_says_to_apply_it() {
    // The skill's own order: hash, then `git stash push`, which reverts the
    // work tree; the live files are then the committed ones.
    let project = Project::new();
    let hash = project.hash(SCOPE);
    git(
        project.path(),
        &[
            "stash",
            "push",
            "-q",
            "-m",
            "checkpoint:ckpt-7:before the migration",
        ],
    );
    let mut manifest = project.manifest("file_backup", SCOPE);
    manifest["checkpoint"]["type"] = json!("git_stash");
    manifest["checkpoint"]["restore_command"] = json!("git stash pop stash@{0}");
    manifest["pre_mutation_state"]["hash"] = json!(hash);
    let mutate = asked(&project, &manifest, "mutate", 1);
    assert_eq!(mutate["changed_files"], json!(["src/app.py"]));
    assert_eq!(
        strings(&mutate["next_steps"]),
        [
            "the changed files are as the commit the stash was taken on has them, which is the work tree `git stash push` leaves: `git stash apply stash@{0}` brings the checkpointed files back (the stash stays, as the checkpoint); then check again"
        ]
    );
    // As a rollback point it is fine; `pop` would drop it.
    let rollback = asked(&project, &manifest, "rollback", 0);
    assert_eq!(rollback["changed_files"], json!(["src/app.py"]));
    assert!(strings(&rollback["warnings"])[0].contains("`git stash pop`, which drops the stash"));
    git(project.path(), &["stash", "apply", "-q"]);
    asked(&project, &manifest, "mutate", 0);
}

#[test]
fn after_a_mutation_the_checkpoint_is_still_a_rollback_point_until_its_stash_goes() {
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    project.write("config.toml", "level = 2\n");
    let mutate = asked(&project, &manifest, "mutate", 1);
    assert_eq!(mutate["changed_files"], json!(["config.toml"]));
    let steps = strings(&mutate["next_steps"]);
    assert!(
        steps[1].contains("never checkpoint after mutation has started"),
        "{steps:?}"
    );
    let rollback = asked(&project, &manifest, "rollback", 0);
    assert_eq!(rollback["changed_files"], json!(["config.toml"]));
    assert_eq!(rollback["problems"], json!([]));
    assert!(
        strings(&rollback["next_steps"])[1].contains("first run `git checkout -- config.toml`"),
        "{rollback}"
    );
    // Another stash pushed since: stash@{0} is no longer the checkpoint.
    project.write("notes.txt", "wip\n");
    git(project.path(), &["add", "notes.txt"]);
    git(
        project.path(),
        &["stash", "push", "-q", "-m", "unrelated work"],
    );
    let other = asked(&project, &manifest, "rollback", 1);
    assert_eq!(
        strings(&other["problems"]),
        [
            "`stash@{0}` is not this checkpoint's stash: its message `On main: unrelated work` does not carry `checkpoint:ckpt-7` (the skill stashes with `git stash push -m \"checkpoint:<id>:<reason>\"`); `stash@{1}` carries `checkpoint:ckpt-7`: stashes pushed or dropped since moved it, and `restore_command` would restore another one"
        ]
    );
    // Dropped: nothing to roll back to.
    git(project.path(), &["stash", "drop", "-q", "stash@{1}"]);
    git(project.path(), &["stash", "drop", "-q"]);
    let gone = asked(&project, &manifest, "rollback", 1);
    assert!(
        strings(&gone["problems"])[0].starts_with("there is no `stash@{0}` in the repository"),
        "{gone}"
    );
    assert_eq!(gone["changed_files"], json!([]));
    assert!(
        strings(&gone["next_steps"])[0].starts_with("this checkpoint is no valid rollback point")
    );
}

#[test]
fn restore_commands_that_name_another_stash_or_more_than_a_restore_are_problems() {
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    for (command, problem) in [
        (
            "git stash pop stash@{7}",
            "there is no `stash@{7}` in the repository",
        ),
        ("git stash apply main", "`main` is not a stash entry"),
        ("git stash pop; rm -rf src", "holds `;`"),
        ("git stash pop $(rm -rf src)", "holds `$`"),
        ("git stash pop && rm -rf src", "runs 2 commands"),
        (
            "cp .checkpoints/ckpt-7/app.py src/app.py",
            "is not `git stash pop",
        ),
    ] {
        let mut edited = manifest.clone();
        edited["checkpoint"]["restore_command"] = json!(command);
        for question in ["mutate", "rollback"] {
            let report = asked(&project, &edited, question, 1);
            let found = strings(&report["problems"]);
            assert!(
                found.iter().any(|p| p.contains(problem)),
                "{command}: {found:?}"
            );
        }
    }
}

#[test]
fn a_stash_with_the_right_message_but_other_content_or_no_stash_shape_is_refused() {
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    // The paused run stashes other content under the checkpoint's name.
    git(project.path(), &["stash", "drop", "-q"]);
    project.write("src/app.py", "print('forged')\n");
    project.stash("ckpt-7");
    project.write("src/app.py", "print('v1')\n");
    let forged = asked(&project, &manifest, "rollback", 1);
    assert!(
        strings(&forged["problems"])[0]
            .starts_with("the scope files as stored in `stash@{0}` hash to sha256:"),
        "{forged}"
    );
    assert_eq!(forged["changed_files"], json!(["src/app.py"]));
    // A plain commit with the message, put where the stash list is.
    let tree = git(project.path(), &["write-tree"]);
    let head = git(project.path(), &["rev-parse", "HEAD"]);
    let commit = git(
        project.path(),
        &[
            "commit-tree",
            tree.trim(),
            "-p",
            head.trim(),
            "-m",
            "checkpoint:ckpt-7",
        ],
    );
    git(project.path(), &["update-ref", "refs/stash", commit.trim()]);
    let plain = asked(&project, &manifest, "rollback", 1);
    assert!(
        strings(&plain["problems"])[0].contains(
            "is not a stash: a stash commit has the commit it was taken on and the index as parents"
        ),
        "{plain}"
    );
}

#[test]
fn no_repository_or_no_git_is_never_a_rollback_point() {
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    std::fs::rename(
        project.path().join(".git"),
        project.path().join("git-was-here"),
    )
    .unwrap();
    let report = asked(&project, &manifest, "rollback", 1);
    assert!(
        strings(&report["problems"])[0].starts_with("the root is in no git work tree"),
        "{report}"
    );
    std::fs::rename(
        project.path().join("git-was-here"),
        project.path().join(".git"),
    )
    .unwrap();
    // Without git on PATH: no verdict.
    std::fs::write(
        project.path().join("manifest.json"),
        serde_json::to_string(&manifest).unwrap(),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args([
            "resume-check",
            "--manifest",
            "manifest.json",
            "--now",
            NOW,
            "--no-config",
        ])
        .current_dir(project.path())
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no `git` program on PATH"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[cfg(unix)]
#[test]
fn a_hostile_repository_or_environment_cannot_run_code_or_redirect_git() {
    use std::os::unix::fs::PermissionsExt;
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    std::fs::write(
        project.path().join("manifest.json"),
        serde_json::to_string(&manifest).unwrap(),
    )
    .unwrap();
    let marker = project.path().join("pwned");
    let payload = format!("touch {}", marker.display());
    // Repository configuration that runs commands when git consults it.
    for (key, value) in [
        ("core.fsmonitor", payload.as_str()),
        ("core.pager", payload.as_str()),
        ("core.sshCommand", payload.as_str()),
        ("alias.cat-file", "!touch pwned"),
    ] {
        git(project.path(), &["config", key, value]);
    }
    std::fs::create_dir_all(project.path().join(".git/hooks")).unwrap();
    // A `git` in the root, for a PATH with `.` in it.
    let fake = project.path().join("git");
    std::fs::write(&fake, format!("#!/bin/sh\n{payload}\nexit 1\n")).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let other = tempfile::tempdir().unwrap();
    git(other.path(), &["init", "-q"]);
    let path = format!(".:{}", std::env::var("PATH").unwrap_or_default());
    let output = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args([
            "resume-check",
            "--manifest",
            "manifest.json",
            "--now",
            NOW,
            "--no-config",
            "--format",
            "json",
        ])
        .current_dir(project.path())
        .env("PATH", path)
        // Variables that would point git at another repository.
        .env("GIT_DIR", other.path().join(".git"))
        .env("GIT_WORK_TREE", other.path())
        .env("GIT_OBJECT_DIRECTORY", other.path())
        .env("GIT_INDEX_FILE", other.path().join("index"))
        .env(
            "GIT_CONFIG_PARAMETERS",
            format!("'core.fsmonitor'='{payload}'"),
        )
        .output()
        .unwrap();
    // phaselint runs none of it; the `git stash apply` it would advise
    // runs the fsmonitor, so that blocks.
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("`core.fsmonitor` is `touch "), "{stdout}");
    assert!(!marker.exists(), "something ran the payload");
}

#[test]
fn state_checkpoints_hash_their_keys_and_need_the_state() {
    let project = Project::new();
    let manifest = project.manifest("state_snapshot", SCOPE);
    // Without the state: no verdict, saying why.
    let run = project.check(&manifest, &[]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(
        run.stderr.contains("a state_snapshot checkpoint's hash covers the values of its state keys, so it cannot be recomputed without the state: pass --state FILE"),
        "{}",
        run.stderr
    );
    // With it: the key's canonical value, whatever the layout or format.
    project.write("state.yaml", "app:\n  replicas: 3\n  mode: blue\n");
    let run = project.check(&manifest, &["--state", "state.yaml"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["state_keys"][0]["key"], "app.mode");
    project.write("state.yaml", "app:\n  mode: green\n");
    let run = project.check(&manifest, &["--state", "state.yaml"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("the state changed since the checkpoint"),
        "{}",
        run.stdout
    );
    project.write("state.yaml", "other: 1\n");
    let run = project.check(&manifest, &["--state", "state.yaml", "--for", "rollback"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("state key `app.mode` is not in the state"),
        "{}",
        run.stdout
    );
    // The documented hash, printed by manifest-hash.
    use sha2::Digest;
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let value = hex(&sha2::Sha256::digest(br#""blue""#));
    assert_eq!(
        manifest["pre_mutation_state"]["hash"],
        json!(format!(
            "sha256:{}",
            hex(&sha2::Sha256::digest(
                format!("app.mode\0{value}\n").as_bytes()
            ))
        ))
    );
    // --state is for state checkpoints only; files are for the others.
    let stash = project.manifest("git_stash", SCOPE);
    let run = project.check(&stash, &["--state", "state.yaml"]);
    assert_eq!(run.code, 3);
    let mut with_files = manifest.clone();
    with_files["checkpoint"]["scope"]["files"] = json!(["config.toml"]);
    project.write("state.yaml", "app:\n  mode: blue\n");
    let run = project.check(&with_files, &["--state", "state.yaml"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("captures state keys, not files"),
        "{}",
        run.stdout
    );
}

/// One of the skill's own example manifests (`fixtures/manifest/`).
fn skill_example(n: u8) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../fixtures/manifest/skill-example-{n}.yaml")),
    )
    .unwrap()
}

#[test]
fn the_skills_example_1_records_the_hash_of_empty_input() {
    // Its repository as the example describes it, with its stash in place.
    let project = Project::new();
    for file in [
        "src/api/handlers/user.py",
        "src/api/handlers/auth.py",
        "tests/test_handlers.py",
    ] {
        project.write(file, "def handler():\n    pass\n");
    }
    git(project.path(), &["add", "."]);
    git(project.path(), &["commit", "-q", "-m", "handlers"]);
    project.write("src/api/handlers/user.py", "def get_user():\n    pass\n");
    git(
        project.path(),
        &[
            "stash",
            "push",
            "-q",
            "-m",
            "checkpoint:chk_20240115_143022_a7b3c9:Before refactoring API handlers",
        ],
    );
    git(project.path(), &["stash", "apply", "-q"]);
    std::fs::write(project.path().join("manifest.yaml"), skill_example(1)).unwrap();
    for question in ["mutate", "rollback"] {
        let run = phaselint(
            project.path(),
            &[
                "resume-check",
                "--manifest",
                "manifest.yaml",
                "--now",
                "2024-01-15T15:00:00Z",
                "--no-config",
                "--format",
                "json",
                "--for",
                question,
            ],
        );
        assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
        let report: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(
            report["stash"]["message"],
            "On main: checkpoint:chk_20240115_143022_a7b3c9:Before refactoring API handlers"
        );
        let found = strings(&report["problems"]);
        assert_eq!(
            found[0],
            "`pre_mutation_state.hash` is the SHA-256 of empty input (e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855): it hashes nothing, so it cannot be the hash of 3 scope files; the hash to record is `phaselint manifest-hash FILE...`",
            "{found:?}"
        );
    }
    let human = phaselint(
        project.path(),
        &[
            "resume-check",
            "--manifest",
            "manifest.yaml",
            "--now",
            "2024-01-15T15:00:00Z",
            "--no-config",
        ],
    );
    insta::assert_snapshot!(human.stdout);
}

#[test]
fn the_skills_example_2_records_a_placeholder_and_its_cp_restores() {
    let project = Project::new();
    project.write("config/production.yaml", "database: primary\n");
    project.write(
        ".checkpoints/chk_20240115_150000_config/production.yaml",
        "database: primary\n",
    );
    std::fs::write(project.path().join("manifest.yaml"), skill_example(2)).unwrap();
    let check = |now: &str, question: &str| {
        let run = phaselint(
            project.path(),
            &[
                "resume-check",
                "--manifest",
                "manifest.yaml",
                "--now",
                now,
                "--no-config",
                "--format",
                "json",
                "--for",
                question,
            ],
        );
        assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
        strings(&serde_json::from_str::<Value>(&run.stdout).unwrap()["problems"])
    };
    // Within its 24 hours: the placeholder is the one problem.
    for question in ["mutate", "rollback"] {
        assert_eq!(
            check("2024-01-15T16:00:00Z", question),
            [
                "`pre_mutation_state.hash` `sha256:abc123...` is not `sha256:` followed by 64 hex digits"
            ]
        );
    }
    // Past its expiry, it is stale too.
    assert_eq!(
        check("2026-03-01T12:00:00Z", "rollback")[0],
        "the checkpoint expired at 2024-01-16T15:00:00Z: it is stale, and restoring it may lose later work"
    );
}

/// The problems of the check with `--for QUESTION` that mention `text`.
fn problems_with(report: &Value, text: &str) -> Vec<String> {
    strings(&report["problems"])
        .into_iter()
        .filter(|p| p.contains(text))
        .collect()
}

#[test]
fn configuration_attributes_or_hooks_that_act_when_the_stash_is_applied_block() {
    let project = Project::new();
    let manifest = project.manifest("git_stash", SCOPE);
    asked(&project, &manifest, "rollback", 0);
    let marker = project.path().join("RAN_CODE");
    // A smudge filter: `git stash apply` would run it and write its output.
    std::fs::write(
        project.path().join(".git/info/attributes"),
        "src/app.py filter=evil\n",
    )
    .unwrap();
    let payload = format!("sh -c 'touch {}; sed s/v1/EVIL/'", marker.display());
    git(project.path(), &["config", "filter.evil.smudge", &payload]);
    for question in ["rollback", "mutate"] {
        let report = asked(&project, &manifest, question, 1);
        let found = problems_with(&report, "would not just write the bytes");
        assert_eq!(found.len(), 1, "{report}");
        assert!(
            found[0].contains("the attribute `filter=evil` is set for `src/app.py`"),
            "{found:?}"
        );
    }
    // The attribute alone still names a filter.
    git(project.path(), &["config", "--unset", "filter.evil.smudge"]);
    let report = asked(&project, &manifest, "rollback", 1);
    assert_eq!(problems_with(&report, "`filter=evil`").len(), 1, "{report}");
    std::fs::remove_file(project.path().join(".git/info/attributes")).unwrap();
    asked(&project, &manifest, "rollback", 0);
    // A filter driver no written path names (git lfs set up for other
    // files), and attributes that write a blob's bytes as they are, do not
    // block.
    git(
        project.path(),
        &["config", "filter.lfs.smudge", "git-lfs smudge -- %f"],
    );
    project.write(
        ".gitattributes",
        "* text=auto\n*.toml eol=lf\n*.bin filter=lfs\n",
    );
    asked(&project, &manifest, "rollback", 0);
    std::fs::remove_file(project.path().join(".gitattributes")).unwrap();
    git(project.path(), &["config", "--unset", "filter.lfs.smudge"]);
    // Attributes of the work tree that convert on checkout, without any
    // configuration.
    for attributes in [
        "config.toml eol=crlf\n",
        "*.py ident\n",
        "*.toml working-tree-encoding=UTF-16\n",
    ] {
        project.write(".gitattributes", attributes);
        let report = asked(&project, &manifest, "rollback", 1);
        assert_eq!(
            problems_with(&report, "the attribute `").len(),
            1,
            "{attributes}: {report}"
        );
    }
    project.write(".gitattributes", "* -text\n");
    asked(&project, &manifest, "rollback", 0);
    // Hooks `git stash apply` runs (post-index-change, reference-transaction).
    let hooks = project.path().join("hooks-elsewhere");
    std::fs::create_dir(&hooks).unwrap();
    std::fs::write(hooks.join("reference-transaction"), "#!/bin/sh\n").unwrap();
    git(
        project.path(),
        &["config", "core.hooksPath", hooks.to_str().unwrap()],
    );
    let report = asked(&project, &manifest, "rollback", 1);
    assert_eq!(
        problems_with(&report, "the hook `reference-transaction` is installed").len(),
        1,
        "{report}"
    );
    git(project.path(), &["config", "--unset", "core.hooksPath"]);
    std::fs::write(
        project.path().join(".git/hooks/post-index-change"),
        "#!/bin/sh\n",
    )
    .unwrap();
    let report = asked(&project, &manifest, "rollback", 1);
    assert_eq!(
        problems_with(&report, "the hook `post-index-change` is installed").len(),
        1,
        "{report}"
    );
    assert!(!marker.exists(), "phaselint ran the filter");
}

#[test]
fn a_stash_that_also_writes_files_outside_the_scope_is_no_rollback_point() {
    let project = Project::new();
    // The stash (with untracked files) also holds a changed config.toml
    // and a new .envrc; the scope is src/app.py only.
    project.write("config.toml", "level = 9\n");
    project.write(".envrc", "export PATH=.:$PATH\n");
    let manifest = project.manifest("git_stash", &["src/app.py"]);
    let rollback = asked(&project, &manifest, "rollback", 1);
    assert_eq!(
        rollback["stash"]["paths_outside_scope"],
        json!(["config.toml", ".envrc"])
    );
    assert_eq!(
        problems_with(&rollback, "outside the checkpoint's scope"),
        [format!(
            "applying `stash@{{0}}` also writes 2 paths outside the checkpoint's scope: `config.toml`, `.envrc`: a rollback with it restores those too (drop them from the stash, or restore only the scope files: `git checkout {} -- FILE...`)",
            rollback["stash"]["commit"].as_str().unwrap()
        )]
    );
    // Before a mutation it is said, and does not block.
    let mutate = asked(&project, &manifest, "mutate", 0);
    assert_eq!(mutate["problems"], json!([]));
    assert!(
        strings(&mutate["warnings"])
            .iter()
            .any(|w| w.contains("also writes 2 paths outside the checkpoint's scope")),
        "{mutate}"
    );
}

#[test]
fn a_scope_file_head_changed_that_the_stash_does_not_hold_is_not_restored_by_it() {
    let project = Project::new();
    // The stash holds src/app.py's change; config.toml is as committed.
    let manifest = project.manifest("git_stash", SCOPE);
    asked(&project, &manifest, "rollback", 0);
    // The run commits a change to config.toml: `git stash apply` would
    // leave it so.
    project.write("config.toml", "level = 2\n");
    git(project.path(), &["add", "config.toml"]);
    git(project.path(), &["commit", "-q", "-m", "the run's change"]);
    let rollback = asked(&project, &manifest, "rollback", 1);
    let base = rollback["stash"]["base"].as_str().unwrap();
    let found = problems_with(&rollback, "changed in HEAD");
    assert_eq!(found.len(), 1, "{rollback}");
    assert!(
        found[0].starts_with("scope file `config.toml` changed in HEAD (")
            && found[0].ends_with(&format!(
                "the stash holds no change to it, so `git stash apply` leaves it as HEAD has it, not as checkpointed: restore it with `git checkout {base} -- config.toml` (or reset to {base}) before applying"
            )),
        "{found:?}"
    );
}

#[test]
fn the_rollback_advice_removes_untracked_scope_files_and_restores() {
    let project = Project::new();
    project.write("u.txt", "untracked at the checkpoint\n");
    let files = ["src/app.py", "u.txt"];
    let manifest = project.manifest("git_stash", &files);
    // The run changes both.
    project.write("src/app.py", "print('v2')\n");
    project.write("u.txt", "changed by the run\n");
    let rollback = asked(&project, &manifest, "rollback", 0);
    let steps = strings(&rollback["next_steps"]);
    assert!(
        steps[1].contains(
            "first run `git checkout -- src/app.py` and `rm -- u.txt` (the tracked files back to the committed version, the untracked ones removed), then `git stash apply stash@{0}`"
        ),
        "{steps:?}"
    );
    // The advice, followed, restores the checkpoint.
    git(project.path(), &["checkout", "--", "src/app.py"]);
    std::fs::remove_file(project.path().join("u.txt")).unwrap();
    git(project.path(), &["stash", "apply", "-q", "stash@{0}"]);
    let after = asked(&project, &manifest, "mutate", 0);
    assert_eq!(after["changed_files"], json!([]));
}

#[cfg(unix)]
#[test]
fn a_scope_file_that_is_a_link_to_its_backup_is_called_so() {
    let project = Project::new();
    let manifest = project.manifest("file_backup", &["src/app.py"]);
    project.write(".checkpoints/ckpt-7/src/app.py", "print('v1')\n");
    report(&project, &manifest, 0);
    std::fs::remove_file(project.path().join("src/app.py")).unwrap();
    std::os::unix::fs::symlink(
        "../.checkpoints/ckpt-7/src/app.py",
        project.path().join("src/app.py"),
    )
    .unwrap();
    let found = problems(&report(&project, &manifest, 1));
    assert_eq!(
        found,
        [
            "the backup `.checkpoints/ckpt-7/src/app.py` of `src/app.py` is the live file itself: the scope file `src/app.py` is a symbolic link to it, so a mutation through `src/app.py` writes the backup and there is no copy to restore: make `src/app.py` a regular file and copy it into `.checkpoints/ckpt-7/`"
        ]
    );
}

#[test]
fn a_state_with_a_number_it_cannot_hash_exactly_gets_no_verdict() {
    let project = Project::new();
    let manifest = project.manifest("state_snapshot", SCOPE);
    // Each of these would be read as another number (or as text), so two
    // different states would hash alike: no verdict, naming where and why.
    for (file, text, shown) in [
        (
            "state.json",
            r#"{"app": {"mode": 100000000000000000001}}"#,
            "the number `100000000000000000001` at `app.mode` (line 1) is an integer beyond 64 bits",
        ),
        (
            "state.json",
            r#"{"app": {"mode": "blue", "rate": 0.10000000000000000001}}"#,
            "the number `0.10000000000000000001` at `app.rate` (line 1) has more digits than a 64-bit float keeps",
        ),
        (
            "state.yaml",
            "app:\n  mode: blue\n  limit: .inf\n",
            "the number `.inf` at `app.limit` (line 3) is not a finite number",
        ),
        (
            "state.yaml",
            "app:\n  mode: blue\n  limit: .nan\n",
            "the number `.nan` at `app.limit` (line 3) is not a finite number",
        ),
        (
            "state.yaml",
            "app:\n  mode: blue\n  limit: 1e400\n",
            "the number `1e400` at `app.limit` (line 3) is not a finite number",
        ),
        (
            "state.yaml",
            "app:\n  mode: blue\n  ids: [1, 100000000000000000001]\n",
            "the number `100000000000000000001` at `app.ids[1]` (line 3) is an integer beyond 64 bits",
        ),
        (
            "state.yaml",
            "app:\n  mode: blue\n  mask: 0xfffffffffffffffffff\n",
            "the number `0xfffffffffffffffffff` at `app.mask` (line 3) is an integer beyond 64 bits",
        ),
    ] {
        project.write(file, text);
        let run = project.check(&manifest, &["--state", file]);
        assert_eq!(run.code, 3, "{text}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(shown), "{text}: {}", run.stderr);
        let run = phaselint(
            project.path(),
            &["manifest-hash", "--state", file, "--key", "app.mode"],
        );
        assert_eq!(run.code, 3, "{text}: {}", run.stdout);
        assert!(run.stderr.contains(shown), "{text}: {}", run.stderr);
    }
    // Numbers read exactly hash; a number and the string of its text differ.
    let hash = |text: &str| {
        project.write("exact.yaml", text);
        let run = phaselint(
            project.path(),
            &["manifest-hash", "--state", "exact.yaml", "--key", "n"],
        );
        assert_eq!(run.code, 0, "{text}: {}", run.stderr);
        run.stdout
    };
    assert_eq!(hash("n: 1.50\n"), hash("n: 1.5e0\n"));
    assert_ne!(hash("n: 1.5\n"), hash("n: '1.5'\n"));
    assert_ne!(
        hash("n: 9223372036854775807\n"),
        hash("n: '9223372036854775807'\n")
    );
    assert_ne!(hash("n: 0.1\n"), hash("n: 0.2\n"));
}

#[test]
fn a_state_key_that_reads_two_ways_is_ambiguous() {
    let project = Project::new();
    // `a.b.c` is `c` in `b` in `a`, and `c` in the key `a.b`, and the key
    // `a.b.c`, and `b.c` in `a`: two of them present is no verdict.
    for state in [
        r#"{"a.b": {"c": 1}, "a": {"b": {"c": 2}}}"#,
        r#"{"a": {"b.c": 1, "b": {"c": 2}}}"#,
        r#"{"a.b.c": 1, "a": {"b.c": 2}}"#,
    ] {
        project.write("state.json", state);
        let run = phaselint(
            project.path(),
            &["manifest-hash", "--state", "state.json", "--key", "a.b.c"],
        );
        assert_eq!(run.code, 3, "{state}: {}", run.stdout);
        assert!(
            run.stderr
                .contains("state key `a.b.c` names more than one value"),
            "{state}: {}",
            run.stderr
        );
    }
    // One reading present: its value.
    project.write("state.json", r#"{"a.b": {"c": 1}, "a": {"x": 2}}"#);
    let run = phaselint(
        project.path(),
        &["manifest-hash", "--state", "state.json", "--key", "a.b.c"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}
