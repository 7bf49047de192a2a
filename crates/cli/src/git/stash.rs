//! `GitCli` as the lint crate's `GitRepository`: what checking a
//! `git_stash` checkpoint asks of the repository, each through `run`.

use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::PathBuf;

use phaselint_lint::input;

use phaselint_lint::resume::{GitRepository, Hashed, Revision, TreeEntry};
use sha2::Digest;

use super::{
    COMMIT_BYTES, CONFIG_BYTES, GitCli, GitFailure, Header, PATH_BYTES, PATHS_PER_LS_TREE, content,
    header, is_object_id, parse_commit, read_line,
};

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
