//! What `phaselint diff --git REV` asks of the repository: its root, a
//! revision's commit and blobs, and what differs from the work tree.

use std::io::BufRead;
use std::path::PathBuf;

use phaselint_lint::input;
use phaselint_lint::resume::{GitRepository, Revision};

use super::{
    Differing, GitCli, GitFailure, Header, Listed, PATH_BYTES, content, header, is_object_id,
    read_field, read_line,
};

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
    pub(super) fn cat_blobs(
        &self,
        blobs: &[String],
        each: &mut BlobReader<'_>,
    ) -> Result<(), String> {
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
