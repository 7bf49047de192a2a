//! Writing a command's answer to standard output.

use std::io::Write;

use crate::exit;

/// What a write to standard output came to: a reader that went away
/// (`| head -c 1`) is no error, since nobody is left to miss the rest; any
/// other failure to write is, as the answer was not delivered (exit 3).
pub fn delivered(written: std::io::Result<()>) -> std::io::Result<()> {
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Writes `text` to standard output, as [`delivered`] judges it.
pub fn write_answer(text: &str) -> u8 {
    let mut out = std::io::stdout().lock();
    match delivered(out.write_all(text.as_bytes()).and_then(|()| out.flush())) {
        Ok(()) => exit::SUCCESS,
        Err(e) => {
            eprintln!("phaselint: error: cannot write output: {e}");
            exit::NO_VERDICT
        }
    }
}
