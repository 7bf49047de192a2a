//! A real editor as the client: headless Neovim (Debian's `neovim`, which
//! `.ci/run` installs) starts `phaselint lsp` through the shipped
//! `editors/neovim/phaselint.lua` and receives diagnostics for a fixture.
//! Skipped with a printed reason when `nvim` is absent, except in CI.
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

/// Whether `nvim` runs; when it does not, the test is skipped with the
/// reason, except in CI, where `.ci/run` installs Debian's neovim package.
fn nvim_present() -> bool {
    let present = Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !present {
        tools::missing("nvim is not installed (apt-get install neovim)");
    }
    present
}

#[test]
fn neovim_receives_the_diagnostics_of_a_fixture() {
    if !nvim_present() {
        return;
    }
    let fixture = repo().join("fixtures/R105/fail.contract.yaml");
    let received = diagnostics_in_neovim(&fixture);
    assert_eq!(received["received"], true);
    assert_eq!(received["clients"], serde_json::json!(["phaselint"]));
    let diagnostics: Vec<(String, u64, u64)> = received["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect();
    // The same findings `phaselint lint` reports for this file.
    assert_eq!(diagnostics, [("R105".to_string(), 32, 20)]);
    let message = received["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("duplicate checkpoint_id `post_retrieval`"),
        "{message}"
    );
    assert_eq!(received["diagnostics"][0]["severity"], 1, "error");
}

/// What Neovim, set up with `phaselint.lua`'s defaults, received for
/// `file` (tests/neovim/collect-diagnostics.lua writes it).
fn diagnostics_in_neovim(file: &Path) -> serde_json::Value {
    run_neovim("collect-diagnostics.lua", file)
}

/// Runs headless Neovim with `script` (under tests/neovim) on `file`; the
/// JSON the script writes.
fn run_neovim(script: &str, file: &Path) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("received.json");
    let child = Command::new("nvim")
        .args(["--headless", "--clean", "-n", "-c"])
        .arg(format!(
            "luafile {}",
            repo().join("tests/neovim").join(script).display()
        ))
        .env("PHASELINT_REPO", repo())
        .env("PHASELINT_BIN", env!("CARGO_BIN_EXE_phaselint"))
        .env("PHASELINT_FILE", file)
        .env("PHASELINT_OUT", &out)
        .env("HOME", dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    editor::received(child, &out, "neovim")
}

#[test]
fn neovim_lints_a_harness_config_by_its_default_patterns() {
    if !nvim_present() {
        return;
    }
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join(".harness")).unwrap();
    let config = project.path().join(".harness/config.json");
    std::fs::copy(repo().join("fixtures/H501/fail.harness.json"), &config).unwrap();
    let received = diagnostics_in_neovim(&config);
    assert_eq!(received["clients"], serde_json::json!(["phaselint"]));
    let first = &received["diagnostics"][0];
    // `phaselint lint` reports it at 8:16.
    assert_eq!(
        (
            first["code"].as_str(),
            first["line"].as_u64(),
            first["column"].as_u64()
        ),
        (Some("H501"), Some(8), Some(16))
    );
}

/// The README's check "`K` shows the finding", with the mapping it
/// documents for Neovim 0.7-0.9 (Debian's 0.7 runs `:Man` on `K` without
/// it): the hover window shows the finding and its rule's page.
#[test]
fn neovim_shows_the_finding_on_k_with_the_documented_mapping() {
    if !nvim_present() {
        return;
    }
    let received = run_neovim(
        "hover-with-K.lua",
        &repo().join("fixtures/R101/fail.contract.yaml"),
    );
    let hover: Vec<&str> = received["hover"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let text = hover.join("\n");
    assert!(text.contains("R101"), "{received}");
    assert!(
        text.contains("checkpoint phase `retreive` is not a declared phase"),
        "{text}"
    );
    assert_eq!(received["omnifunc"], "v:lua.vim.lsp.omnifunc");
}
