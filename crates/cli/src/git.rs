//! The git repository a `git_stash` checkpoint is checked in, read with
//! the `git` command's plumbing (`rev-parse`, `cat-file`, `ls-tree`,
//! `diff-tree`, `config`, `check-attr`) for
//! `phaselint_lint::resume::GitRepository`. The lint crate decides; this
//! file only runs git and reads what it prints.
//!
//! Why the `git` command and not gitoxide (`gix`): gix with what reading a
//! stash needs (refs with reflogs, packed objects, trees) is some 150
//! crates, minutes more of a cold build on two cores and megabytes more of
//! binary, for five plumbing reads; and the `git` that made the stash is
//! the one that will restore it, so it is also the one that should read
//! it. The price is running a program in a repository the paused run can
//! write, so git is run as a reader that can be made to run nothing:
//!
//! - found on `PATH` by this process (absolute entries only), never looked
//!   up again by the child in the root it runs in, and run without a shell;
//! - every `GIT_*` variable of the environment removed (`GIT_DIR`,
//!   `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_OBJECT_DIRECTORY`,
//!   `GIT_CONFIG_*` could point it at another repository or inject
//!   configuration), then only `GIT_NO_LAZY_FETCH`, `GIT_TERMINAL_PROMPT=0`,
//!   `GIT_OPTIONAL_LOCKS=0` set;
//! - only plumbing that runs no hook, pager, filter, textconv, fsmonitor
//!   or signature check, with `-c core.fsmonitor=false` and
//!   `-c protocol.allow=never` (a partial clone's missing object is never
//!   fetched through a transport the repository's config chose) and
//!   `--literal-pathspecs` (a scope path is a name, not a pattern), paths
//!   after `--`;
//! - output read within a bound, stderr too, and the process group killed
//!   after `GIT_TIMEOUT`.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use phaselint_lint::resume::GitCommit;

mod revision;
mod stash;

/// How long one git command may run before it is killed.
const GIT_TIMEOUT: Duration = Duration::from_secs(60);
/// Bytes of a commit object kept (its headers and the start of its
/// message); the rest is read and dropped.
const COMMIT_BYTES: usize = 64 * 1024;
/// Bytes of stderr kept, for the message of a failure.
const STDERR_BYTES: u64 = 16 * 1024;
/// Paths asked of one `ls-tree` (its arguments stay far below the
/// system's limit).
const PATHS_PER_LS_TREE: usize = 500;
/// Bytes of one path git prints (far above any system's path limit).
const PATH_BYTES: u64 = 64 * 1024;
/// Bytes of configuration or attributes read for one question.
const CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// The repository at a root, read through one `git` found on `PATH`.
pub struct GitCli {
    git: Option<PathBuf>,
    root: PathBuf,
}

impl GitCli {
    pub fn at(root: &Path) -> Self {
        GitCli {
            git: find_git(),
            root: root.to_path_buf(),
        }
    }

    /// Runs git with `args` (after the fixed safety options), feeding
    /// `stdin`, and gives its stdout to `read`. A non-zero exit is `Err`
    /// with the last line git wrote on stderr.
    fn run<T>(
        &self,
        args: &[&str],
        stdin: Option<Vec<u8>>,
        read: impl FnOnce(&mut dyn BufRead) -> Result<T, String>,
    ) -> Result<T, GitFailure> {
        let Some(git) = &self.git else {
            return Err(GitFailure::Other(
                "no `git` program on PATH (a git_stash checkpoint is read with git)".into(),
            ));
        };
        let mut command = Command::new(git);
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("GIT_") {
                command.env_remove(&name);
            }
        }
        command
            .env("GIT_NO_LAZY_FETCH", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("LC_ALL", "C")
            .arg("-C")
            .arg(&self.root)
            .args([
                "--no-pager",
                "--literal-pathspecs",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "protocol.allow=never",
                "-c",
                "core.untrackedCache=false",
            ])
            .args(args)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| GitFailure::Other(format!("cannot run `{}`: {e}", git.display())))?;
        // Killed at the deadline unless it is done before.
        let (done, deadline) = mpsc::channel::<()>();
        let pid = child.id();
        let watchdog = std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = deadline.recv_timeout(GIT_TIMEOUT) {
                kill_group(pid);
                true
            } else {
                false
            }
        });
        if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
            // On a thread: git may answer before it has read everything.
            std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
        }
        let stderr = child.stderr.take().map(|mut pipe| {
            std::thread::spawn(move || {
                let mut kept = Vec::new();
                let _ = (&mut pipe).take(STDERR_BYTES).read_to_end(&mut kept);
                // Drain the rest so git never blocks on a full pipe.
                let _ = std::io::copy(&mut pipe, &mut std::io::sink());
                kept
            })
        });
        let result = match child.stdout.take() {
            Some(stdout) => read(&mut BufReader::new(stdout)),
            None => Err("git's output could not be read".into()),
        };
        if result.is_err() {
            kill_group(pid);
        }
        let _ = done.send(());
        let status = child.wait();
        let timed_out = watchdog.join().unwrap_or(false);
        let said = stderr
            .and_then(|t| t.join().ok())
            .map(|b| {
                String::from_utf8_lossy(&b)
                    .lines()
                    .map(str::trim)
                    .rfind(|l| !l.is_empty())
                    .unwrap_or_default()
                    .chars()
                    .take(300)
                    .collect::<String>()
            })
            .unwrap_or_default();
        if timed_out {
            return Err(GitFailure::Other(format!(
                "`git {}` did not finish within {} s and was killed",
                args.first().copied().unwrap_or_default(),
                GIT_TIMEOUT.as_secs()
            )));
        }
        // Git stopped with an error before it printed what was read for:
        // its own reason says more than "the output ended early".
        if result.is_err()
            && let Ok(status) = &status
            && let Some(code) = status.code()
            && code != 0
            && !said.is_empty()
        {
            return Err(GitFailure::Exit {
                code: Some(code),
                said,
            });
        }
        let value = result.map_err(GitFailure::Other)?;
        match status {
            Ok(status) if status.success() => Ok(value),
            Ok(status) => Err(GitFailure::Exit {
                code: status.code(),
                said,
            }),
            Err(e) => Err(GitFailure::Other(format!("cannot wait for git: {e}"))),
        }
    }
}

/// Why git gave no answer.
enum GitFailure {
    /// It exited with an error, saying this.
    Exit {
        code: Option<i32>,
        said: String,
    },
    Other(String),
}

impl GitFailure {
    fn message(self, what: &str) -> String {
        match self {
            GitFailure::Exit { code, said } => format!(
                "`git {what}` failed ({}){}",
                code.map_or("killed by a signal".to_string(), |c| format!("exit {c}")),
                if said.is_empty() {
                    String::new()
                } else {
                    format!(": {}", phaselint_render::terminal::inline(&said))
                }
            ),
            GitFailure::Other(message) => message,
        }
    }
}

#[cfg(unix)]
fn kill_group(pid: u32) {
    if let Some(group) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        // Fails only when the group is gone already.
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_: u32) {}

/// `git` in an absolute directory of `PATH`: a relative entry (`.`, empty)
/// would find a `git` the paused run left in the folder it runs in.
fn find_git() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let name: OsString = if cfg!(windows) {
        "git.exe".into()
    } else {
        "git".into()
    };
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(&name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// Reads up to `limit` bytes of one line (through `\n`, which is
/// dropped); `Ok(None)` at the end of the output.
fn read_line(out: &mut dyn BufRead, limit: u64) -> Result<Option<Vec<u8>>, String> {
    let mut line = Vec::new();
    let read = out
        .take(limit)
        .read_until(b'\n', &mut line)
        .map_err(|e| format!("cannot read git's output: {e}"))?;
    if read == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        return Err("git printed a line longer than expected".into());
    }
    line.pop();
    Ok(Some(line))
}

/// Whether `text` is an object id: 40 (SHA-1) or 64 (SHA-256) hex digits.
fn is_object_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A `cat-file --batch` header: `<id> <type> <size>`, or `<rev> missing`
/// (or `ambiguous`).
enum Header {
    Object { id: String, kind: String, size: u64 },
    Missing,
}

fn header(line: &[u8]) -> Result<Header, String> {
    let text = String::from_utf8_lossy(line);
    let words: Vec<&str> = text.split(' ').collect();
    match words.as_slice() {
        [id, kind, size] if is_object_id(id) => Ok(Header::Object {
            id: id.to_string(),
            kind: kind.to_string(),
            size: size
                .parse()
                .map_err(|_| format!("git printed an object size `{size}` that is no number"))?,
        }),
        [.., "missing" | "ambiguous"] => Ok(Header::Missing),
        _ => Err(format!(
            "git printed `{}` where an object header was expected",
            text.chars().take(100).collect::<String>()
        )),
    }
}

/// Reads `size` bytes of object content and the newline after it into
/// `sink`, in blocks.
fn content(out: &mut dyn BufRead, size: u64, sink: &mut dyn FnMut(&[u8])) -> Result<(), String> {
    let mut left = size;
    let mut buffer = vec![0u8; 64 * 1024];
    while left > 0 {
        let want = buffer
            .len()
            .min(usize::try_from(left).unwrap_or(usize::MAX));
        let got = out
            .read(&mut buffer[..want])
            .map_err(|e| format!("cannot read git's output: {e}"))?;
        if got == 0 {
            return Err("git's output ended inside an object".into());
        }
        sink(&buffer[..got]);
        left -= got as u64;
    }
    let mut newline = [0u8; 1];
    out.read_exact(&mut newline)
        .map_err(|e| format!("cannot read git's output: {e}"))?;
    if newline != *b"\n" {
        return Err("git's output has no newline after an object".into());
    }
    Ok(())
}

/// A commit object's parents and message.
fn parse_commit(id: String, text: &[u8]) -> GitCommit {
    let text = String::from_utf8_lossy(text);
    let (headers, message) = text.split_once("\n\n").unwrap_or((&text, ""));
    let parents = headers
        .lines()
        .filter_map(|line| line.strip_prefix("parent "))
        .map(|p| p.trim().to_string())
        .collect();
    GitCommit {
        id,
        parents,
        message: message.to_string(),
    }
}

/// One path that differs from the revision (`GitCli::differing`).
pub struct Differing {
    pub old_mode: String,
    pub new_mode: String,
    pub path: Vec<u8>,
}

/// One entry of a revision's tree (`GitCli::tree_listing`).
pub struct Listed {
    pub mode: String,
    pub id: String,
    pub size: Option<u64>,
    pub path: Vec<u8>,
}

/// One NUL-terminated field of `-z` output, within `PATH_BYTES`;
/// `Ok(None)` at the end.
fn read_field(out: &mut dyn BufRead) -> Result<Option<Vec<u8>>, String> {
    let mut field = Vec::new();
    let read = out
        .take(PATH_BYTES)
        .read_until(0, &mut field)
        .map_err(|e| format!("cannot read git's output: {e}"))?;
    if read == 0 {
        return Ok(None);
    }
    if field.last() != Some(&0) {
        return Err("git printed a path longer than any path can be".into());
    }
    field.pop();
    Ok(Some(field))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_commits() {
        let id = "a".repeat(40);
        assert!(matches!(
            header(format!("{id} commit 12").as_bytes()),
            Ok(Header::Object { size: 12, .. })
        ));
        assert!(matches!(
            header(b"refs/stash@{3} missing"),
            Ok(Header::Missing)
        ));
        assert!(header(b"garbage").is_err());
        assert!(header(format!("{id} blob -1").as_bytes()).is_err());
        let commit = parse_commit(
            id.clone(),
            format!("tree {id}\nparent {id}\nparent {id}\nauthor x\n\nOn main: checkpoint:c1\n")
                .as_bytes(),
        );
        assert_eq!(commit.parents.len(), 2);
        assert_eq!(commit.message, "On main: checkpoint:c1\n");
    }
}
