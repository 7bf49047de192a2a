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

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use phaselint_lint::input;
use phaselint_lint::resume::{GitCommit, GitRepository, Hashed, Revision, TreeEntry};
use sha2::Digest;

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

impl GitRepository for GitCli {
    fn work_tree_prefix(&self) -> Result<Option<String>, String> {
        let answer = self.run(
            &["rev-parse", "--is-inside-work-tree", "--show-prefix"],
            None,
            |out| {
                let mut lines = Vec::new();
                while let Some(line) = read_line(out, 64 * 1024)? {
                    lines.push(String::from_utf8_lossy(&line).into_owned());
                    if lines.len() > 2 {
                        return Err("git printed more than it was asked".into());
                    }
                }
                Ok(lines)
            },
        );
        match answer {
            Ok(lines) => match lines.as_slice() {
                [inside, prefix] if inside == "true" => Ok(Some(prefix.clone())),
                [inside] if inside == "true" => Ok(Some(String::new())),
                _ => Ok(None),
            },
            Err(GitFailure::Exit { said, .. }) if said.contains("not a git repository") => Ok(None),
            Err(failure) => Err(failure.message("rev-parse")),
        }
    }

    fn stash_entries(&self, max: u32) -> Result<Vec<String>, String> {
        // No stash at all: `rev-list` would fail on the missing ref.
        if self.revisions(&["refs/stash".to_string()])?.first() == Some(&Revision::Missing) {
            return Ok(Vec::new());
        }
        let count = format!("--max-count={max}");
        self.run(
            &["rev-list", "--walk-reflogs", &count, "refs/stash", "--"],
            None,
            |out| {
                let mut entries = Vec::new();
                while let Some(line) = read_line(out, 256)? {
                    let id = String::from_utf8_lossy(&line).into_owned();
                    if !is_object_id(&id) || entries.len() >= max as usize {
                        return Err(format!("git listed `{id}` as a stash entry"));
                    }
                    entries.push(id);
                }
                Ok(entries)
            },
        )
        .map_err(|f| f.message("rev-list"))
    }

    fn revisions(&self, revisions: &[String]) -> Result<Vec<Revision>, String> {
        let mut input = Vec::new();
        for revision in revisions {
            if revision.contains(['\n', '\r']) {
                return Err("a revision with a line break".into());
            }
            input.extend_from_slice(revision.as_bytes());
            input.push(b'\n');
        }
        let count = revisions.len();
        self.run(&["cat-file", "--batch"], Some(input), |out| {
            let mut answers = Vec::with_capacity(count);
            for _ in 0..count {
                let line = read_line(out, 4096)?.ok_or("git's output ended early")?;
                answers.push(match header(&line)? {
                    Header::Missing => Revision::Missing,
                    Header::Object { id, kind, size } => {
                        let mut kept = Vec::new();
                        content(out, size, &mut |bytes| {
                            let room = COMMIT_BYTES.saturating_sub(kept.len());
                            kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
                        })?;
                        if kind == "commit" {
                            Revision::Commit(parse_commit(id, &kept))
                        } else {
                            Revision::Other { id, kind }
                        }
                    }
                });
            }
            Ok(answers)
        })
        .map_err(|f| f.message("cat-file"))
    }

    fn tree_entries(
        &self,
        commit: &str,
        paths: &[String],
    ) -> Result<HashMap<String, TreeEntry>, String> {
        if !is_object_id(commit) {
            return Err(format!("`{commit}` is not an object id"));
        }
        let mut entries = HashMap::new();
        for chunk in paths.chunks(PATHS_PER_LS_TREE) {
            let mut args = vec!["ls-tree", "-l", "-z", "--full-tree", commit, "--"];
            args.extend(chunk.iter().map(String::as_str));
            // Each entry is a mode, type, id, size and a path as long as one
            // asked for.
            let limit = chunk.iter().map(|p| p.len() as u64 + 200).sum::<u64>();
            let found = self
                .run(&args, None, |out| {
                    let mut bytes = Vec::new();
                    out.take(limit + 1)
                        .read_to_end(&mut bytes)
                        .map_err(|e| format!("cannot read git's output: {e}"))?;
                    if bytes.len() as u64 > limit {
                        return Err("git listed more entries than it was asked for".into());
                    }
                    Ok(bytes)
                })
                .map_err(|f| f.message("ls-tree"))?;
            for record in found.split(|&b| b == 0).filter(|r| !r.is_empty()) {
                // A path that is not UTF-8 is never one asked for (they
                // are all `String`s), however its lossy form reads.
                let Ok(record) = std::str::from_utf8(record) else {
                    continue;
                };
                let Some((meta, path)) = record.split_once('\t') else {
                    return Err(format!(
                        "git printed `{record}` where a tree entry was expected"
                    ));
                };
                let fields: Vec<&str> = meta.split_whitespace().collect();
                let entry = match fields.as_slice() {
                    ["100644" | "100755", "blob", blob, size] if is_object_id(blob) => {
                        TreeEntry::File {
                            blob: blob.to_string(),
                            size: size.parse().map_err(|_| {
                                format!("git printed a blob size `{size}` that is no number")
                            })?,
                        }
                    }
                    ["120000", ..] => TreeEntry::SymbolicLink,
                    ["160000", ..] => TreeEntry::Submodule,
                    ["040000", ..] => TreeEntry::Folder,
                    _ => return Err(format!("git printed a tree entry `{meta}` it cannot be")),
                };
                // Only the paths asked for, spelled exactly so (a repository
                // configured to ignore case may match others).
                if chunk.iter().any(|p| p == path) {
                    entries.insert(path.to_string(), entry);
                }
            }
        }
        Ok(entries)
    }

    fn hash_blobs(&self, blobs: &[String], max_bytes: u64) -> Result<Vec<Hashed>, String> {
        let mut hashed = Vec::with_capacity(blobs.len());
        self.cat_blobs(blobs, &mut |_, blob, size, out| {
            if size > max_bytes {
                return Err(format!(
                    "blob {blob} is {size} bytes, over the limit of {}",
                    input::describe(max_bytes)
                ));
            }
            let mut hasher = sha2::Sha256::new();
            content(out, size, &mut |bytes| hasher.update(bytes))?;
            hashed.push(Hashed {
                sha256: input::hex(&hasher.finalize()),
                size,
                id: None,
            });
            Ok(())
        })?;
        Ok(hashed)
    }

    fn changed_paths(
        &self,
        from: Option<&str>,
        to: &str,
        max: usize,
    ) -> Result<Vec<String>, String> {
        for id in from.iter().chain([&to]) {
            if !is_object_id(id) {
                return Err(format!("`{id}` is not an object id"));
            }
        }
        let args: Vec<&str> = match from {
            Some(from) => vec![
                "diff-tree",
                "-r",
                "-z",
                "--no-renames",
                "--no-ext-diff",
                "--no-textconv",
                "--name-only",
                from,
                to,
                "--",
            ],
            None => vec![
                "ls-tree",
                "-r",
                "-z",
                "--name-only",
                "--full-tree",
                to,
                "--",
            ],
        };
        let what = args.first().copied().unwrap_or_default();
        self.run(&args, None, |out| {
            let mut paths = Vec::new();
            loop {
                let mut path = Vec::new();
                let read = out
                    .take(PATH_BYTES)
                    .read_until(0, &mut path)
                    .map_err(|e| format!("cannot read git's output: {e}"))?;
                if read == 0 {
                    break;
                }
                if path.last() == Some(&0) {
                    path.pop();
                } else if read as u64 >= PATH_BYTES {
                    return Err("git printed a path longer than any path can be".into());
                }
                if paths.len() > max {
                    // Cut off: the rest is drained and dropped.
                    std::io::copy(out, &mut std::io::sink())
                        .map_err(|e| format!("cannot read git's output: {e}"))?;
                    break;
                }
                paths.push(String::from_utf8_lossy(&path).into_owned());
            }
            Ok(paths)
        })
        .map_err(|f| f.message(what))
    }

    fn config_entries(&self, pattern: &str) -> Result<Vec<(String, String)>, String> {
        let answer = self.run(
            &["config", "-z", "--show-scope", "--get-regexp", pattern],
            None,
            |out| {
                let mut bytes = Vec::new();
                out.take(CONFIG_BYTES + 1)
                    .read_to_end(&mut bytes)
                    .map_err(|e| format!("cannot read git's output: {e}"))?;
                if bytes.len() as u64 > CONFIG_BYTES {
                    return Err("git printed more configuration than any is expected".into());
                }
                Ok(bytes)
            },
        );
        let bytes = match answer {
            Ok(bytes) => bytes,
            // Exit 1: no entry matches.
            Err(GitFailure::Exit { code: Some(1), .. }) => return Ok(Vec::new()),
            Err(failure) => return Err(failure.message("config")),
        };
        let fields: Vec<&[u8]> = bytes.split(|&b| b == 0).collect();
        let mut entries = Vec::new();
        // `scope NUL name LF value NUL`, each.
        for pair in fields.chunks(2) {
            let [scope, entry] = pair else {
                continue;
            };
            // phaselint's own `-c` options are no configuration of the
            // repository.
            if *scope == b"command" {
                continue;
            }
            let entry = String::from_utf8_lossy(entry);
            let (name, value) = entry.split_once('\n').unwrap_or((&entry, ""));
            entries.push((name.to_string(), value.to_string()));
        }
        Ok(entries)
    }

    fn path_attributes(&self, paths: &[String]) -> Result<Vec<(String, String, String)>, String> {
        let mut found = Vec::new();
        for chunk in paths.chunks(PATHS_PER_LS_TREE) {
            let mut args = vec!["check-attr", "-z", "-a", "--"];
            args.extend(chunk.iter().map(String::as_str));
            let bytes = self
                .run(&args, None, |out| {
                    let mut bytes = Vec::new();
                    out.take(CONFIG_BYTES + 1)
                        .read_to_end(&mut bytes)
                        .map_err(|e| format!("cannot read git's output: {e}"))?;
                    if bytes.len() as u64 > CONFIG_BYTES {
                        return Err("git printed more attributes than any are expected".into());
                    }
                    Ok(bytes)
                })
                .map_err(|f| f.message("check-attr"))?;
            let fields: Vec<&[u8]> = bytes.split(|&b| b == 0).collect();
            // `path NUL attribute NUL value NUL`, each.
            for triple in fields.chunks(3) {
                if let [path, attribute, value] = triple {
                    found.push((
                        String::from_utf8_lossy(path).into_owned(),
                        String::from_utf8_lossy(attribute).into_owned(),
                        String::from_utf8_lossy(value).into_owned(),
                    ));
                }
            }
        }
        Ok(found)
    }

    fn hooks_present(&self, names: &[&str]) -> Result<Vec<String>, String> {
        let mut present = Vec::new();
        for name in names {
            let hook = format!("hooks/{name}");
            let path = self
                .run(&["rev-parse", "--git-path", &hook], None, |out| {
                    read_line(out, PATH_BYTES)?.ok_or_else(|| "git printed no path".to_string())
                })
                .map_err(|f| f.message("rev-parse"))?;
            let path = PathBuf::from(String::from_utf8_lossy(&path).into_owned());
            let path = if path.is_absolute() {
                path
            } else {
                self.root.join(path)
            };
            // A link or any file there counts: git runs what it finds.
            if std::fs::symlink_metadata(&path).is_ok() {
                present.push((*name).to_string());
            }
        }
        Ok(present)
    }
}

/// What `phaselint diff --git REV` asks of the repository it runs in:
/// its root, a revision's commit, a file's blob there and what differs
/// from the work tree. Plumbing only, through the same runner.
impl GitCli {
    /// The root of the work tree `self.root` is in; `None` outside one.
    pub fn top_level(&self) -> Result<Option<PathBuf>, String> {
        // No line is no error here: git's exit status says what happened.
        let answer = self.run(&["rev-parse", "--show-toplevel"], None, |out| {
            read_line(out, PATH_BYTES)
        });
        match answer {
            Ok(Some(line)) if !line.is_empty() => Ok(Some(PathBuf::from(
                String::from_utf8_lossy(&line).into_owned(),
            ))),
            // A bare repository, or inside `.git`: no work tree.
            Ok(_) => Ok(None),
            Err(GitFailure::Exit { said, .. })
                if said.contains("not a git repository") || said.contains("work tree") =>
            {
                Ok(None)
            }
            Err(failure) => Err(failure.message("rev-parse")),
        }
    }

    /// The commit `revision` names (a branch, tag, SHA, `HEAD~2`, a tag
    /// peeled to its commit); `None` when it names none here.
    pub fn commit_of(&self, revision: &str) -> Result<Option<String>, String> {
        match self.revisions(&[format!("{revision}^{{commit}}")])?.first() {
            Some(Revision::Commit(commit)) => Ok(Some(commit.id.clone())),
            _ => Ok(None),
        }
    }

    /// The bytes of blob `blob`, refused past `max_bytes` before any is read.
    pub fn blob(&self, blob: &str, max_bytes: u64) -> Result<Vec<u8>, String> {
        if !is_object_id(blob) {
            return Err(format!("`{blob}` is not an object id"));
        }
        let input = format!("{blob}\n").into_bytes();
        self.run(&["cat-file", "--batch"], Some(input), |out| {
            let line = read_line(out, 4096)?.ok_or("git's output ended early")?;
            match header(&line)? {
                Header::Object { id, kind, size } if id == blob && kind == "blob" => {
                    if size > max_bytes {
                        return Err(format!(
                            "it is {size} bytes, larger than the limit of {}",
                            input::describe(max_bytes)
                        ));
                    }
                    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
                    content(out, size, &mut |chunk| bytes.extend_from_slice(chunk))?;
                    Ok(bytes)
                }
                _ => Err(format!("git has no blob {blob}")),
            }
        })
        .map_err(|f| f.message("cat-file"))
    }

    /// What differs between `commit` and the work tree, in git's order:
    /// each path (from the root, as git's bytes) with its mode at `commit`
    /// and in the work tree (`000000`: absent; `120000`: a link;
    /// `160000`: a submodule). A submodule counts when its commit differs
    /// (`--ignore-submodules=dirty`, whatever the repository's config
    /// says). At most `max`; `Err` when there are more.
    pub fn differing(&self, commit: &str, max: usize) -> Result<Vec<Differing>, String> {
        if !is_object_id(commit) {
            return Err(format!("`{commit}` is not an object id"));
        }
        let args = [
            "diff-index",
            "-z",
            "--raw",
            "--no-renames",
            "--no-abbrev",
            "--ignore-submodules=dirty",
            commit,
            "--",
        ];
        self.run(&args, None, |out| {
            let mut found = Vec::new();
            while let Some(meta) = read_field(out)? {
                let path = read_field(out)?.ok_or("git's output ended inside an entry")?;
                // `:old_mode new_mode old_id new_id status`
                let meta = String::from_utf8_lossy(&meta).into_owned();
                let fields: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
                let [old_mode, new_mode, ..] = fields.as_slice() else {
                    return Err(format!("git printed `{}` where a change was expected", meta));
                };
                if found.len() >= max {
                    return Err(format!(
                        "more than {max} files differ from the revision; name the contracts to compare"
                    ));
                }
                found.push(Differing {
                    old_mode: old_mode.to_string(),
                    new_mode: new_mode.to_string(),
                    path,
                });
            }
            Ok(found)
        })
        .map_err(|f| f.message("diff-index"))
    }

    /// Every entry of `commit`'s tree, recursively, in git's order: its
    /// mode, object id, size (`None` but for a file) and path as git's
    /// bytes. At most `max`; `Err` when there are more.
    pub fn tree_listing(&self, commit: &str, max: usize) -> Result<Vec<Listed>, String> {
        if !is_object_id(commit) {
            return Err(format!("`{commit}` is not an object id"));
        }
        let args = ["ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--"];
        self.run(&args, None, |out| {
            let mut found = Vec::new();
            while let Some(record) = read_field(out)? {
                let Some(tab) = record.iter().position(|&b| b == b'\t') else {
                    return Err("git printed a tree entry with no path".into());
                };
                let meta = String::from_utf8_lossy(&record[..tab]).into_owned();
                let fields: Vec<&str> = meta.split_whitespace().collect();
                let [mode, _, id, size] = fields.as_slice() else {
                    return Err(format!("git printed a tree entry `{meta}` it cannot be"));
                };
                if found.len() >= max {
                    return Err(format!(
                        "more than {max} files at the revision; name the contracts to compare"
                    ));
                }
                found.push(Listed {
                    mode: mode.to_string(),
                    id: id.to_string(),
                    size: size.parse().ok(),
                    path: record[tab + 1..].to_vec(),
                });
            }
            Ok(found)
        })
        .map_err(|f| f.message("ls-tree"))
    }

    /// Each of `blobs` in turn from one `git cat-file --batch`: `each`
    /// gets its index, its id, its size and git's output at its content,
    /// which it reads whole (`content`) or refuses with an error.
    fn cat_blobs(&self, blobs: &[String], each: &mut BlobReader<'_>) -> Result<(), String> {
        let mut input = Vec::new();
        for blob in blobs {
            if !is_object_id(blob) {
                return Err(format!("`{blob}` is not an object id"));
            }
            input.extend_from_slice(blob.as_bytes());
            input.push(b'\n');
        }
        self.run(&["cat-file", "--batch"], Some(input), |out| {
            for (index, blob) in blobs.iter().enumerate() {
                let line = read_line(out, 4096)?.ok_or("git's output ended early")?;
                match header(&line)? {
                    Header::Object { id, kind, size } if &id == blob && kind == "blob" => {
                        each(index, blob, size, out)?;
                    }
                    _ => return Err(format!("git has no blob {blob}")),
                }
            }
            Ok(())
        })
        .map_err(|f| f.message("cat-file"))
    }

    /// Each of `blobs` in turn (one git process), given to `each` with
    /// its index; a blob over `max_bytes` is refused before it is read.
    pub fn each_blob(
        &self,
        blobs: &[String],
        max_bytes: u64,
        each: &mut dyn FnMut(usize, Vec<u8>) -> Result<(), String>,
    ) -> Result<(), String> {
        self.cat_blobs(blobs, &mut |index, blob, size, out| {
            if size > max_bytes {
                return Err(format!(
                    "blob {blob} is {size} bytes, larger than the limit of {}",
                    input::describe(max_bytes)
                ));
            }
            let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
            content(out, size, &mut |chunk| bytes.extend_from_slice(chunk))?;
            each(index, bytes)
        })
    }
}

/// What `GitCli::cat_blobs` hands each blob to: its index, id and size,
/// and git's output at its content.
type BlobReader<'a> = dyn FnMut(usize, &str, u64, &mut dyn BufRead) -> Result<(), String> + 'a;

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
