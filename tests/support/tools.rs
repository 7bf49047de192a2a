//! What the tests that run an outside checker (Graphviz, Mermaid, an XSD
//! validator) share: feeding it text, and the rule for when it is missing.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

pub struct Piped {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `program` with `input` on standard input; `None` when it cannot
/// be started (not installed).
pub fn pipe(program: &mut Command, input: &str) -> Option<Piped> {
    let mut child = program
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    Some(Piped {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}

/// A checker is missing: the test fails in CI, where `.ci/run` installs
/// every one, and otherwise says why it is skipped.
pub fn missing(reason: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{reason}, in CI: .ci/run must provide it"
    );
    println!("skipped: {reason}");
}
