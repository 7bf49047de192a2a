//! What the tests that run an outside checker (Graphviz, Mermaid, an XSD
//! validator) share: feeding it text, and the rule for when it, or the
//! corpus beside the repository, is missing: every skipping test says why
//! through `missing`.
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

/// A checker is missing: the test fails in CI (`CI` set), where `.ci/run`
/// installs every one, and otherwise says on stderr why it is skipped.
pub fn missing(reason: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{reason}, in CI: .ci/run must provide it"
    );
    // libtest captures `print!` and `eprint!` in a test's thread and shows
    // them only when the test fails, so a skip would pass in silence; a
    // write to the stderr handle itself is not captured, and `cargo test`
    // shows it among the results. libtest names the thread after the test.
    let thread = std::thread::current();
    let test = thread.name().filter(|name| *name != "main");
    let line = match test {
        Some(test) => format!("skipped {test}: {reason}\n"),
        None => format!("skipped: {reason}\n"),
    };
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}
