//! Paths resolved beneath a root, the way a manifest's scope and backup
//! paths must be (docs/resume-check.md): one component at a time from the
//! root, never following a link out of it.
//!
//! The walk is written once, over the `Tree` trait: the disk (`DiskTree`,
//! one `openat` with `O_NOFOLLOW` per component from a descriptor of the
//! root, so nothing can be swapped for a link between a check and the
//! open) and the fuzzer's trees in memory walk the same code. A link is
//! read (`readlinkat`) and its target walked in its place, from the folder
//! it is in: an absolute target, or one whose `..` climbs above the root,
//! is refused, as is any link at all where `Links::Refused` says so. This
//! is `openat2(RESOLVE_BENEATH)` done by hand: portable to every Unix, and
//! able to name the link it refuses.

use std::collections::VecDeque;
use std::fmt;

/// Whether a walk follows links that stay beneath the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// A link is followed while its target stays beneath the root.
    WithinRoot,
    /// Any link is refused (a backup copy must be a copy, not a link).
    Refused,
}

/// What a name in a folder is, without following a link.
#[derive(Debug)]
pub enum Entry<D, F> {
    /// A folder, opened to go on from.
    Dir(D),
    /// A regular file, opened to be read (only where the path ends).
    File(F),
    /// A symbolic link, with its target.
    Link(Vec<u8>),
    Missing,
    /// Anything else there: what it is ("a FIFO", "a directory").
    Other(&'static str),
}

/// Folders whose entries can be looked at one name at a time.
pub trait Tree {
    type Dir;
    type File;
    /// `name` in `dir` (`None`: the root), not following a link. `last`
    /// says the path ends at it: a regular file is opened to be read; a
    /// folder is not wanted there, nor a file before the end.
    fn entry(
        &self,
        dir: Option<&Self::Dir>,
        name: &[u8],
        last: bool,
    ) -> Result<Entry<Self::Dir, Self::File>, String>;
}

/// Links followed in one walk at most, as the kernel's own limit.
pub const MAX_LINKS: usize = 40;
/// Names looked up in one walk at most (the path's and its links'
/// components): a path needs a handful; link targets of thousands of
/// components cannot make one walk cost more than this.
pub const MAX_STEPS: usize = 256;

/// Where a walk ended.
#[derive(Debug)]
pub enum Resolved<F> {
    /// A regular file, opened.
    File(F),
    /// Nothing there.
    Missing,
    Refused(Refusal),
}

/// Why a walk was refused. `at` is a path from the root, as walked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A link whose target leaves the root.
    Escapes {
        at: String,
        target: String,
    },
    /// A link where links are refused.
    Link {
        at: String,
        target: String,
    },
    /// `..` above the root in the path itself.
    AboveRoot,
    TooManyLinks {
        at: String,
    },
    TooManySteps,
    /// The path ends at a folder (or at the root).
    Folder {
        at: String,
    },
    /// A FIFO, a device, a socket where a file or folder should be.
    NotRegular {
        at: String,
        kind: &'static str,
    },
    /// A file used as a folder.
    NotAFolder {
        at: String,
        kind: &'static str,
    },
    /// The file system said no (permission denied, an I/O error).
    Unreadable {
        at: String,
        reason: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Escapes { at, target } => write!(
                f,
                "`{at}` is a symbolic link to `{target}`, which leaves the root (links are followed only while they stay inside it)"
            ),
            Refusal::Link { at, target } => {
                write!(f, "`{at}` is a symbolic link (to `{target}`)")
            }
            Refusal::AboveRoot => write!(f, "it leaves the root through `..`"),
            Refusal::TooManyLinks { at } => write!(
                f,
                "too many levels of symbolic links at `{at}` (more than {MAX_LINKS})"
            ),
            Refusal::TooManySteps => write!(
                f,
                "it takes more than {MAX_STEPS} names, its own and its links', to resolve"
            ),
            Refusal::Folder { at } if at.is_empty() => write!(f, "it names the root folder"),
            Refusal::Folder { .. } => write!(f, "it is a directory"),
            Refusal::NotRegular { kind, .. } => write!(
                f,
                "it is {kind}, not a regular file (only regular files are hashed)"
            ),
            Refusal::NotAFolder { at, kind } => {
                write!(f, "`{at}` is {kind}, not a folder")
            }
            Refusal::Unreadable { at, reason } => write!(f, "`{at}`: {reason}"),
        }
    }
}

/// A name of a link's target still to walk, and that link (an index into
/// the links followed, for messages).
struct Step {
    name: Vec<u8>,
    link: usize,
}

/// Whether a name is more than a separator's leftover (`a//b`, `./a`).
fn is_name(name: &[u8]) -> bool {
    !matches!(name, b"" | b".")
}

/// Walks `path` (relative, `/`-separated) beneath the root of `tree`.
/// The path's own names are read as they come (a path of millions of `./`
/// costs no memory); a link's target is put in front of them.
pub fn resolve<T: Tree>(tree: &T, path: &str, links: Links) -> Resolved<T::File> {
    // Folders from the root down, each with its name.
    let mut folders: Vec<(T::Dir, Vec<u8>)> = Vec::new();
    // Links followed: where each was and what it said.
    let mut followed: Vec<(String, String)> = Vec::new();
    let mut own = path.as_bytes().split(|&b| b == b'/').filter(|n| is_name(n));
    let mut own_left = path
        .as_bytes()
        .split(|&b| b == b'/')
        .filter(|n| is_name(n))
        .count();
    let mut from_links: VecDeque<Step> = VecDeque::new();
    let mut steps = 0usize;
    let at = |folders: &[(T::Dir, Vec<u8>)], name: &[u8]| {
        let mut shown: Vec<u8> = Vec::new();
        for (_, folder) in folders {
            shown.extend_from_slice(folder);
            shown.push(b'/');
        }
        shown.extend_from_slice(name);
        String::from_utf8_lossy(&shown).into_owned()
    };
    loop {
        let (name, link) = match from_links.pop_front() {
            Some(step) => (step.name, Some(step.link)),
            None => match own.next() {
                Some(name) => {
                    own_left -= 1;
                    (name.to_vec(), None)
                }
                None => break,
            },
        };
        if name == b".." {
            if folders.pop().is_none() {
                return Resolved::Refused(match link {
                    Some(link) => {
                        let (at, target) = followed[link].clone();
                        Refusal::Escapes { at, target }
                    }
                    None => Refusal::AboveRoot,
                });
            }
            continue;
        }
        steps += 1;
        if steps > MAX_STEPS {
            return Resolved::Refused(Refusal::TooManySteps);
        }
        // The path ends here unless another name follows.
        let last = from_links.is_empty() && own_left == 0;
        let here = folders.last().map(|(dir, _)| dir);
        let entry = match tree.entry(here, &name, last) {
            Ok(entry) => entry,
            Err(reason) => {
                return Resolved::Refused(Refusal::Unreadable {
                    at: at(&folders, &name),
                    reason,
                });
            }
        };
        match entry {
            Entry::Missing => return Resolved::Missing,
            Entry::File(file) if last => return Resolved::File(file),
            Entry::Dir(_) if last => {
                return Resolved::Refused(Refusal::Folder {
                    at: at(&folders, &name),
                });
            }
            Entry::Dir(dir) => folders.push((dir, name)),
            Entry::File(_) => {
                return Resolved::Refused(Refusal::NotAFolder {
                    at: at(&folders, &name),
                    kind: "a file",
                });
            }
            Entry::Other(kind) if last => {
                return Resolved::Refused(Refusal::NotRegular {
                    at: at(&folders, &name),
                    kind,
                });
            }
            Entry::Other(kind) => {
                return Resolved::Refused(Refusal::NotAFolder {
                    at: at(&folders, &name),
                    kind,
                });
            }
            Entry::Link(target) => {
                let shown_at = at(&folders, &name);
                let shown_target = String::from_utf8_lossy(&target).into_owned();
                if links == Links::Refused {
                    return Resolved::Refused(Refusal::Link {
                        at: shown_at,
                        target: shown_target,
                    });
                }
                if target.first() == Some(&b'/') || target.is_empty() {
                    return Resolved::Refused(Refusal::Escapes {
                        at: shown_at,
                        target: shown_target,
                    });
                }
                if followed.len() >= MAX_LINKS {
                    return Resolved::Refused(Refusal::TooManyLinks { at: shown_at });
                }
                followed.push((shown_at, shown_target));
                let link = followed.len() - 1;
                // The target is walked from the link's folder, in its place.
                for name in target.split(|&b| b == b'/').rev().filter(|n| is_name(n)) {
                    from_links.push_front(Step {
                        name: name.to_vec(),
                        link,
                    });
                }
                // A target of only `.` and `/` names the link's folder.
                if from_links.is_empty() && own_left == 0 {
                    return Resolved::Refused(Refusal::Folder {
                        at: at(&folders, b"").trim_end_matches('/').to_string(),
                    });
                }
            }
        }
    }
    // Every name walked, and the path ended at a folder (`a/..`).
    Resolved::Refused(Refusal::Folder {
        at: at(&folders, b"").trim_end_matches('/').to_string(),
    })
}

/// The identity of a file: two paths to the same file (a hard link, a
/// link) have the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId {
    pub device: u64,
    pub inode: u64,
}

#[cfg(unix)]
pub(crate) use disk::DiskTree;

#[cfg(unix)]
mod disk {
    use std::os::fd::{AsFd, OwnedFd};
    use std::path::Path;

    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use rustix::io::Errno;

    use super::{Entry, FileId, Tree};

    /// A folder on disk, held open: every path is walked from it.
    pub(crate) struct DiskTree {
        root: OwnedFd,
    }

    impl DiskTree {
        /// Opens `root` (following links in it: it is the caller's).
        pub(crate) fn open(root: &Path) -> std::io::Result<Self> {
            let root = rustix::fs::open(
                root,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(DiskTree { root })
        }
    }

    /// Opening a folder only to walk on needs no read permission where
    /// `O_PATH` exists.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const WALK: OFlags = OFlags::PATH;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const WALK: OFlags = OFlags::RDONLY;

    fn kind(file_type: FileType) -> &'static str {
        match file_type {
            FileType::RegularFile => "a regular file",
            FileType::Directory => "a directory",
            FileType::Symlink => "a symbolic link",
            FileType::Fifo => "a FIFO",
            FileType::Socket => "a socket",
            FileType::CharacterDevice => "a character device",
            FileType::BlockDevice => "a block device",
            FileType::Unknown => "not a regular file",
        }
    }

    impl Tree for DiskTree {
        type Dir = OwnedFd;
        type File = (std::fs::File, FileId);

        fn entry(
            &self,
            dir: Option<&OwnedFd>,
            name: &[u8],
            last: bool,
        ) -> Result<Entry<OwnedFd, Self::File>, String> {
            let at = dir.map_or(self.root.as_fd(), |d| d.as_fd());
            // Never follows a link, never waits on a FIFO, never makes a
            // terminal the controlling one.
            let flags = if last {
                OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY
            } else {
                WALK | OFlags::DIRECTORY | OFlags::NOFOLLOW
            } | OFlags::CLOEXEC;
            match rustix::fs::openat(at, name, flags, Mode::empty()) {
                Ok(fd) => {
                    let stat = rustix::fs::fstat(&fd).map_err(|e| e.to_string())?;
                    let id = FileId {
                        device: stat.st_dev as u64,
                        inode: stat.st_ino as u64,
                    };
                    Ok(match FileType::from_raw_mode(stat.st_mode) {
                        FileType::RegularFile if last => Entry::File((fd.into(), id)),
                        FileType::Directory => Entry::Dir(fd),
                        other => Entry::Other(kind(other)),
                    })
                }
                Err(Errno::NOENT) => Ok(Entry::Missing),
                // A link (`ELOOP`, or `ENOTDIR` with `O_DIRECTORY`), a file
                // used as a folder, or a real error: look without opening.
                Err(error) => match rustix::fs::statat(at, name, AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(stat) => match FileType::from_raw_mode(stat.st_mode) {
                        FileType::Symlink => rustix::fs::readlinkat(at, name, Vec::new())
                            .map(|target| Entry::Link(target.into_bytes()))
                            .map_err(|e| e.to_string()),
                        FileType::Directory => Err(error.to_string()),
                        other => Ok(Entry::Other(kind(other))),
                    },
                    Err(Errno::NOENT) => Ok(Entry::Missing),
                    Err(_) => Err(error.to_string()),
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A tree in memory: paths from the root to what is there.
    #[derive(Default)]
    struct Memory(HashMap<String, Node>);

    #[derive(Clone)]
    enum Node {
        Dir,
        File,
        Link(&'static str),
        Fifo,
    }

    impl Tree for Memory {
        type Dir = String;
        type File = String;
        fn entry(
            &self,
            dir: Option<&String>,
            name: &[u8],
            _last: bool,
        ) -> Result<Entry<String, String>, String> {
            let name = String::from_utf8_lossy(name);
            let path = match dir {
                Some(dir) => format!("{dir}/{name}"),
                None => name.into_owned(),
            };
            Ok(match self.0.get(&path) {
                None => Entry::Missing,
                Some(Node::Dir) => Entry::Dir(path),
                Some(Node::File) => Entry::File(path),
                Some(Node::Link(target)) => Entry::Link(target.as_bytes().to_vec()),
                Some(Node::Fifo) => Entry::Other("a FIFO"),
            })
        }
    }

    fn tree() -> Memory {
        let mut t = Memory::default();
        for (path, node) in [
            ("src", Node::Dir),
            ("src/app.py", Node::File),
            ("src/lib", Node::Dir),
            ("src/lib/x.py", Node::File),
            ("current", Node::Link("src/lib")),
            ("up", Node::Link("src/../src/app.py")),
            ("etc", Node::Link("/etc")),
            ("out", Node::Link("src/../../outside")),
            ("loop", Node::Link("loop")),
            ("pipe", Node::Fifo),
        ] {
            t.0.insert(path.to_string(), node);
        }
        t
    }

    fn found(path: &str, links: Links) -> Result<String, String> {
        match resolve(&tree(), path, links) {
            Resolved::File(f) => Ok(f),
            Resolved::Missing => Err("missing".into()),
            Resolved::Refused(r) => Err(r.to_string()),
        }
    }

    #[test]
    fn links_inside_the_root_are_followed_from_their_folder() {
        assert_eq!(
            found("src/app.py", Links::WithinRoot),
            Ok("src/app.py".into())
        );
        assert_eq!(
            found("current/x.py", Links::WithinRoot),
            Ok("src/lib/x.py".into())
        );
        assert_eq!(found("up", Links::WithinRoot), Ok("src/app.py".into()));
        // `..` after a link is its target's parent, as the kernel does it.
        assert_eq!(
            found("current/../app.py", Links::WithinRoot),
            Ok("src/app.py".into())
        );
        assert_eq!(
            found("./src//app.py", Links::WithinRoot),
            Ok("src/app.py".into())
        );
        assert_eq!(found("src/nope", Links::WithinRoot), Err("missing".into()));
    }

    #[test]
    fn links_out_of_the_root_are_refused_by_name() {
        assert_eq!(
            found("etc/passwd", Links::WithinRoot),
            Err("`etc` is a symbolic link to `/etc`, which leaves the root (links are followed only while they stay inside it)".into())
        );
        assert!(
            found("out", Links::WithinRoot)
                .is_err_and(|e| e.starts_with("`out` is a symbolic link to `src/../../outside`"))
        );
        assert_eq!(
            found("../x", Links::WithinRoot),
            Err("it leaves the root through `..`".into())
        );
        assert!(found("loop", Links::WithinRoot).is_err_and(|e| e.contains("too many levels")));
    }

    #[test]
    fn where_links_are_refused_any_link_is() {
        assert_eq!(
            found("current/x.py", Links::Refused),
            Err("`current` is a symbolic link (to `src/lib`)".into())
        );
        assert_eq!(
            found("src/lib/x.py", Links::Refused),
            Ok("src/lib/x.py".into())
        );
    }

    #[test]
    fn only_regular_files_are_found() {
        assert_eq!(
            found("src", Links::WithinRoot),
            Err("it is a directory".into())
        );
        assert_eq!(
            found("src/lib/..", Links::WithinRoot),
            Err("it is a directory".into())
        );
        assert!(found("pipe", Links::WithinRoot).is_err_and(|e| e.starts_with("it is a FIFO")));
        assert_eq!(
            found("src/app.py/x", Links::WithinRoot),
            Err("`src/app.py` is a file, not a folder".into())
        );
    }

    #[test]
    fn a_walk_has_a_bounded_number_of_steps() {
        let deep = format!("src/{}app.py", "lib/../".repeat(MAX_STEPS));
        assert_eq!(
            found(&deep, Links::WithinRoot),
            Err(format!(
                "it takes more than {MAX_STEPS} names, its own and its links', to resolve"
            ))
        );
    }
}
