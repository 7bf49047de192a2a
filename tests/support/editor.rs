//! What the editor tests share: an editor runs a script that writes what
//! it received from `phaselint lsp` as JSON, and exits.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// Waits for the editor to exit (killing it after 60 s) and returns the
/// JSON its script wrote to `out`.
pub fn received(mut child: Child, out: &Path, editor: &str) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{editor} did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let received: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    println!("{editor} received: {received:#}");
    received
}
