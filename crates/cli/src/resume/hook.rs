//! The `--recover-with` hook process: run through the shell with the
//! checkpoint in its environment, bounded in time, its process group
//! killed at the end.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use phaselint_lint::input::Bound;
use phaselint_lint::model::EnumValue;
use phaselint_lint::resume::{Recoverer, RecoveryOutcome, RecoveryRequest};

use super::inputs::{NoVerdict, read_document};

/// The `--recover-with` hook.
pub(super) struct Hook {
    pub(super) command: String,
    pub(super) context: PathBuf,
    pub(super) timeout: Duration,
}

fn shell(command: &str) -> Command {
    if cfg!(windows) {
        let mut c = Command::new("cmd");
        c.args(["/C", command]);
        c
    } else {
        let mut c = Command::new("sh");
        c.args(["-c", command]);
        c
    }
}

/// Kills the hook and every process in its group (a shell script's `sleep`,
/// a background job), then reaps it.
pub(crate) fn stop_hook(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Some(group) = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        // Fails only when the group is already gone, which is the goal.
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The last non-empty line a hook wrote, for the attempt record.
pub(crate) fn last_line(bytes: &[u8]) -> Option<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(200).collect())
}

impl Recoverer for Hook {
    fn describe(&self) -> String {
        self.command.clone()
    }

    fn recover(&mut self, request: &RecoveryRequest<'_>) -> RecoveryOutcome {
        let mut command = shell(&self.command);
        command
            .env("PHASELINT_CHECKPOINT", request.checkpoint_id)
            .env("PHASELINT_PHASE", request.phase)
            .env("PHASELINT_FIELD", request.field)
            .env("PHASELINT_STRATEGY", request.strategy.as_str())
            .env("PHASELINT_CONTEXT", &self.context)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        // Its own process group, so what the hook starts can be stopped with it.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                return RecoveryOutcome::NotStarted {
                    detail: format!("cannot start the hook: {e}"),
                };
            }
        };
        // Read stderr on a thread so a chatty hook cannot fill the pipe and
        // stall; a hook's leftover background process may keep the pipe open,
        // so the reader is never waited for past the deadline.
        let (sender, receiver) = mpsc::channel();
        if let Some(mut stderr) = child.stderr.take() {
            std::thread::spawn(move || {
                let mut buffer = Vec::new();
                let _ = (&mut stderr).take(64 * 1024).read_to_end(&mut buffer);
                let _ = sender.send(buffer);
            });
        }
        let deadline = Instant::now() + self.timeout;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() >= deadline => {
                    stop_hook(&mut child);
                    return RecoveryOutcome::TimedOut {
                        detail: format!(
                            "did not finish within {} s and was killed",
                            self.timeout.as_secs()
                        ),
                    };
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => {
                    stop_hook(&mut child);
                    return RecoveryOutcome::Failed {
                        exit_code: None,
                        detail: format!("cannot wait for the hook: {e}"),
                    };
                }
            }
        };
        // Whatever the hook left running in the background could change the
        // context after it is re-read and judged: stop it too.
        stop_hook(&mut child);
        let said = receiver
            .recv_timeout(Duration::from_millis(500))
            .ok()
            .and_then(|b| last_line(&b));
        let said = said.map_or(String::new(), |s| format!(": {s}"));
        match status.code() {
            Some(0) => RecoveryOutcome::Recovered {
                detail: format!("exited 0{said}"),
            },
            Some(code @ (126 | 127)) => RecoveryOutcome::NotStarted {
                detail: format!(
                    "the shell could not run the command (exit {code}: {}){said}",
                    if code == 127 {
                        "command not found"
                    } else {
                        "not executable"
                    }
                ),
            },
            Some(code) => RecoveryOutcome::Failed {
                exit_code: Some(code),
                detail: format!("exited {code}{said}"),
            },
            None => RecoveryOutcome::Failed {
                exit_code: None,
                detail: format!("killed by a signal{said}"),
            },
        }
    }

    fn reread_context(&mut self) -> Result<serde_json::Value, String> {
        read_document(&self.context, "context", Bound::Document).map_err(|NoVerdict(m)| m)
    }
}
