//! A real editor as the client: batch Emacs (Debian's `emacs-nox` with
//! `elpa-eglot`, which `.ci/run` installs) opens a fixture through the
//! shipped `editors/emacs/phaselint.el`, eglot starts `phaselint lsp`, and
//! flymake receives the diagnostics. Skipped with a printed reason when
//! Emacs or eglot is absent, except in CI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "support/editor.rs"]
mod editor;
#[path = "support/tools.rs"]
mod tools;

fn repo() -> PathBuf {
    std::path::absolute(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

/// Batch Emacs with the site packages (Debian's elpa-*), no init file.
fn emacs() -> Command {
    let mut command = Command::new("emacs");
    command.args(["--batch", "-q", "--eval", "(package-initialize)"]);
    command
}

/// Whether Emacs with eglot is here; in CI it must be.
fn eglot_present() -> bool {
    let present = emacs()
        .args(["--eval", "(require 'eglot)"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !present {
        tools::missing("Emacs with eglot is not installed (apt-get install emacs-nox elpa-eglot)");
    }
    present
}

/// What Emacs, with `editors/emacs/phaselint.el` loaded, received for
/// `file` (tests/emacs/collect-diagnostics.el writes it).
fn received_in_emacs(home: &Path, file: &Path) -> serde_json::Value {
    let out = home.join("received.json");
    let child = emacs()
        .arg("-l")
        .arg(repo().join("editors/emacs/phaselint.el"))
        .arg("-l")
        .arg(repo().join("tests/emacs/collect-diagnostics.el"))
        .env("PHASELINT_BIN", env!("CARGO_BIN_EXE_phaselint"))
        .env("PHASELINT_FILE", file)
        .env("PHASELINT_OUT", &out)
        .env("HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    editor::received(child, &out, "emacs")
}

#[test]
fn emacs_eglot_receives_the_diagnostics_of_a_fixture() {
    if !eglot_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A copy, so that eglot's project is the temporary directory.
    let fixture = dir.path().join("fail.contract.yaml");
    std::fs::copy(repo().join("fixtures/R105/fail.contract.yaml"), &fixture).unwrap();
    let received = received_in_emacs(dir.path(), &fixture);
    assert_eq!(received["mode"], "phaselint-contract-mode");
    assert_ne!(received["server"], false, "eglot started no server");
    let diagnostics = received["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{received}");
    // The finding `phaselint lint` reports for this file, at its position.
    assert_eq!(diagnostics[0]["line"], 32);
    assert_eq!(diagnostics[0]["column"], 20);
    assert_eq!(diagnostics[0]["type"], "eglot-error");
    let text = diagnostics[0]["text"].as_str().unwrap();
    assert!(
        text.contains("[R105]: duplicate checkpoint_id `post_retrieval`"),
        "{text}"
    );
}

#[test]
fn emacs_eglot_lints_a_harness_config() {
    if !eglot_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".harness")).unwrap();
    let config = dir.path().join(".harness/config.json");
    std::fs::copy(repo().join("fixtures/H501/fail.harness.json"), &config).unwrap();
    let received = received_in_emacs(dir.path(), &config);
    assert_eq!(received["mode"], "phaselint-harness-mode");
    let diagnostics = received["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{received}");
    // `phaselint lint` reports it at 8:16.
    assert_eq!(
        (
            diagnostics[0]["line"].as_u64(),
            diagnostics[0]["column"].as_u64()
        ),
        (Some(8), Some(16))
    );
    let text = diagnostics[0]["text"].as_str().unwrap();
    assert!(
        text.contains("[H501]: checkpoint name `plan-review` is declared twice"),
        "{text}"
    );
}
