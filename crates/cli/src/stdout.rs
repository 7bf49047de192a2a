//! Writing a command's answer to standard output.

use std::io::Write;

use crate::exit;

/// Writes `text` to standard output: a reader that went away (`| head -c 1`)
/// is no error, as elsewhere in the CLI; any other failure to write is, since
/// the answer was not delivered (exit 3).
pub fn write_answer(text: &str) -> u8 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => exit::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => exit::SUCCESS,
        Err(e) => {
            eprintln!("phaselint: error: cannot write output: {e}");
            exit::NO_VERDICT
        }
    }
}
