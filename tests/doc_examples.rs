//! The worked lifecycles of `docs/resume-check.md`, one script per
//! checkpoint system in `docs/examples/`, run end to end with the real
//! binary in a scratch directory. Each script stops with an error when a
//! step's exit code is not the one it expects (`docs/examples/expect.sh`),
//! so a script that runs to its end is the documentation holding true.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples")
}

fn scripts() -> Vec<PathBuf> {
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(examples())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sh"))
        .filter(|path| path.file_name().is_some_and(|name| name != "expect.sh"))
        .collect();
    scripts.sort();
    scripts
}

#[test]
fn every_example_runs_to_its_end() {
    let scripts = scripts();
    let mut failed = Vec::new();
    for script in &scripts {
        let scratch = tempfile::tempdir().unwrap();
        let output = Command::new("bash")
            .arg(script)
            .current_dir(scratch.path())
            .env("PHASELINT", env!("CARGO_BIN_EXE_phaselint"))
            .env("NO_COLOR", "1")
            // The examples commit to git repositories of their own.
            .env("GIT_AUTHOR_NAME", "phaselint example")
            .env("GIT_AUTHOR_EMAIL", "example@phaselint.invalid")
            .env("GIT_COMMITTER_NAME", "phaselint example")
            .env("GIT_COMMITTER_EMAIL", "example@phaselint.invalid")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        println!(
            "== {name}\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        if !output.status.success() {
            failed.push(name);
        }
    }
    assert!(failed.is_empty(), "examples that stopped: {failed:?}");
}

/// One lifecycle per checkpoint system the resume check answers for.
const LIFECYCLES: &[&str] = &[
    "harness-run-sh.sh",
    "tina-supervisor.sh",
    "skill-cavr-git-stash.sh",
    "syndicate-operator-queue.sh",
    "contextcore-orchestrator.sh",
];

#[test]
fn every_checkpoint_system_has_its_lifecycle() {
    let present: Vec<String> = scripts()
        .iter()
        .map(|s| s.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for name in LIFECYCLES {
        assert!(
            present.iter().any(|p| p == name),
            "docs/examples/{name} is missing"
        );
    }
}

#[test]
fn every_example_is_shown_in_the_resume_check_guide() {
    let guide = std::fs::read_to_string(examples().join("../resume-check.md")).unwrap();
    for script in scripts() {
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            guide.contains(&format!("examples/{name}")),
            "docs/resume-check.md does not link examples/{name}"
        );
    }
}
