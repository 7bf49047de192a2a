//! The files a checkpoint manifest covers: each listed path walked beneath
//! the root (`ScopeFiles`, on disk through `scope.rs`), hashed in blocks
//! within bounds per file and in total, and combined into one hash. Shared
//! by the manifest check, the stash check and state snapshots.

use std::path::{Component, Path};

use sha2::Digest;

use super::scope::{FileId, Links, Refusal};
use crate::input;

/// Scope files one manifest (or one `manifest-hash`) may list.
pub const MAX_SCOPE_FILES: usize = 10_000;

/// Bytes one scope file (or backup copy) may have to be hashed.
pub(crate) const SCOPE_FILE_BYTES: u64 = 512 * 1024 * 1024;

/// Bytes the scope files may have in all, and their backup copies in all.
pub(crate) const SCOPE_TOTAL_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// What a hashed file is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hashed {
    /// Lower-case hex.
    pub sha256: String,
    pub size: u64,
    /// Device and inode, where the file system has them.
    pub id: Option<FileId>,
}

/// Why a scope file or backup copy was not hashed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScopeError {
    /// Its path is refused (a link out of the root, a link where none may
    /// be, a FIFO, a directory): blocks.
    Refused(Refusal),
    /// It cannot be read (permission, I/O, it changed while read): blocks.
    Unreadable(String),
    /// Larger than the bound asked for: no verdict.
    TooLarge { size: Option<u64> },
}

/// Reads the files a manifest's scope names, beneath its root.
pub trait ScopeFiles {
    /// The regular file `path` (relative to the root, `/`-separated, already
    /// checked not to be absolute nor to climb out through `..`) names,
    /// hashed: `Ok(None)` when nothing is there. `links` says whether a
    /// link that stays beneath the root is followed; a file of more than
    /// `max_bytes` is `TooLarge`, and is not read.
    fn hash(&self, path: &str, links: Links, max_bytes: u64) -> Result<Option<Hashed>, ScopeError>;
}

/// The real file system, beneath one root held open for the whole check.
pub struct DiskFiles {
    #[cfg(unix)]
    tree: super::scope::DiskTree,
}

impl DiskFiles {
    /// Opens the root every path is walked from.
    pub fn open(root: &Path) -> Result<Self, String> {
        #[cfg(unix)]
        {
            super::scope::DiskTree::open(root)
                .map(|tree| DiskFiles { tree })
                .map_err(|e| format!("cannot open the root `{}`: {e}", root.display()))
        }
        #[cfg(not(unix))]
        {
            Err(format!(
                "cannot check scope files under `{}`: walking a root without following links out of it is implemented for Unix only",
                root.display()
            ))
        }
    }
}

impl ScopeFiles for DiskFiles {
    #[cfg(unix)]
    fn hash(&self, path: &str, links: Links, max_bytes: u64) -> Result<Option<Hashed>, ScopeError> {
        use super::scope::{Resolved, resolve};
        match resolve(&self.tree, path, links) {
            Resolved::Missing => Ok(None),
            Resolved::Refused(refusal) => Err(ScopeError::Refused(refusal)),
            Resolved::File((file, id)) => {
                match input::sha256_regular(file, Path::new(path), max_bytes) {
                    Ok((sha256, size)) => Ok(Some(Hashed {
                        sha256,
                        size,
                        id: Some(id),
                    })),
                    Err(input::InputError::TooLarge { size, .. }) => {
                        Err(ScopeError::TooLarge { size })
                    }
                    Err(e) => Err(ScopeError::Unreadable(e.reason())),
                }
            }
        }
    }

    #[cfg(not(unix))]
    fn hash(&self, _: &str, _: Links, _: u64) -> Result<Option<Hashed>, ScopeError> {
        Err(ScopeError::Unreadable(
            "not supported on this system".into(),
        ))
    }
}

/// The combined hash of scope files: `sha256:` and the hex SHA-256 of, for
/// each file in listed order, its path as listed, a NUL, the hex SHA-256 of
/// its bytes, and a newline.
pub(crate) fn combined_hash<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut hasher = sha2::Sha256::new();
    for (path, sha) in files {
        hasher.update(path.as_bytes());
        hasher.update([0]);
        hasher.update(sha.as_bytes());
        hasher.update(b"\n");
    }
    format!("sha256:{}", input::hex(&hasher.finalize()))
}

/// Refuses a listed scope path that is absolute, leaves the root through
/// `..`, names the root itself or holds a NUL byte. What the path then
/// names on disk is for `ScopeFiles` to find, beneath the root.
pub fn scoped(listed: &str) -> Result<(), String> {
    if listed.contains('\0') {
        return Err(format!(
            "`{}` contains a NUL byte, which no file name can",
            listed.escape_debug()
        ));
    }
    let path = Path::new(listed);
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => {
                return Err(format!(
                    "`{listed}` is absolute; scope paths are relative to the root"
                ));
            }
            Component::ParentDir if depth == 0 => {
                return Err(format!("`{listed}` leaves the root through `..`"));
            }
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
        }
    }
    if depth == 0 {
        return Err(format!("`{listed}` names the root itself, not a file"));
    }
    Ok(())
}

/// The total bytes left to hash of one set of files (the scope, or its
/// backup copies).
pub(super) struct Budget {
    left: u64,
}

impl Budget {
    pub(super) fn new() -> Self {
        Budget {
            left: SCOPE_TOTAL_BYTES,
        }
    }

    /// Hashes `path` within the bound of one file and what is left of the
    /// total. `Err` is over a bound (no verdict), with the message naming
    /// `shown` and the bound; `Ok(Err)` is a file that blocks.
    pub(super) fn hash(
        &mut self,
        files: &dyn ScopeFiles,
        path: &str,
        links: Links,
        shown: &str,
    ) -> Result<Result<Option<Hashed>, ScopeError>, String> {
        let max = SCOPE_FILE_BYTES.min(self.left);
        match files.hash(path, links, max) {
            Err(ScopeError::TooLarge { size }) => self.over(size, max, shown),
            // A reader that read past the bound it was given is over it.
            Ok(Some(hashed)) if hashed.size > max => {
                let size = Some(hashed.size);
                self.over(size, max, shown)
            }
            Ok(Some(hashed)) => {
                self.left -= hashed.size;
                Ok(Ok(Some(hashed)))
            }
            other => Ok(other),
        }
    }

    /// The message of a file over `max`: the bound of one file, or what
    /// was left of the total.
    pub(super) fn over<T>(&self, size: Option<u64>, max: u64, shown: &str) -> Result<T, String> {
        let size_text = size.map_or(String::new(), |s| {
            format!(" is {s} byte{},", if s == 1 { "" } else { "s" })
        });
        Err(
            if size.map_or(max == SCOPE_FILE_BYTES, |s| s > SCOPE_FILE_BYTES) {
                format!(
                    "{shown}{size_text} larger than the limit of {} for one file: phaselint hashes no file that large; leave it out of the checkpoint's scope",
                    input::describe(SCOPE_FILE_BYTES)
                )
            } else {
                format!(
                    "{shown}{size_text} over what is left of the limit of {} for all of them together: phaselint hashes no more than that in one check; checkpoint fewer or smaller files",
                    input::describe(SCOPE_TOTAL_BYTES)
                )
            },
        )
    }
}

/// `phaselint manifest-hash`: the combined hash of `listed` beneath the
/// root of `files` (`root` names it in messages). Every file must be
/// there, beneath the root, readable and within the bounds.
pub fn manifest_hash(
    files: &dyn ScopeFiles,
    root: &Path,
    listed: &[String],
) -> Result<String, String> {
    if listed.len() > MAX_SCOPE_FILES {
        return Err(format!(
            "{} files are more than the limit of {MAX_SCOPE_FILES} for one checkpoint's scope",
            listed.len()
        ));
    }
    let mut budget = Budget::new();
    let mut hashed = Vec::with_capacity(listed.len());
    for path in listed {
        scoped(path)?;
        match budget.hash(files, path, Links::WithinRoot, &format!("`{path}`"))? {
            Ok(Some(file)) => hashed.push((path.as_str(), file.sha256)),
            Ok(None) => {
                return Err(format!(
                    "`{path}` does not exist under `{}`",
                    root.display()
                ));
            }
            Err(error) => {
                return Err(format!(
                    "`{path}` cannot be hashed: {}",
                    scope_reason(&error)
                ));
            }
        }
    }
    Ok(combined_hash(hashed.iter().map(|(p, s)| (*p, s.as_str()))))
}

/// What a `ScopeError` that blocks says.
pub(super) fn scope_reason(error: &ScopeError) -> String {
    match error {
        ScopeError::Refused(refusal @ (Refusal::Escapes { .. } | Refusal::Link { .. })) => {
            format!("{refusal}; list a file inside the root instead")
        }
        ScopeError::Refused(refusal) => refusal.to_string(),
        ScopeError::Unreadable(reason) => reason.clone(),
        ScopeError::TooLarge { .. } => "it is too large".into(),
    }
}
