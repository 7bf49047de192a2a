//! `manifest_scope`: scope and backup paths walked beneath a root, in a
//! tree of folders, files, hard links, symbolic links and FIFOs built from
//! the input, against a plain POSIX resolution of the same path.
//!
//! The input is lines. Before a line `---`, the tree, each path from the
//! outer root (`r/` is the manifest's root; `etc/passwd` and the rest are
//! outside it): `d PATH` a folder, `f PATH TEXT` a file, `h PATH OTHER` a
//! hard link to the file `OTHER`, `l PATH TARGET` a symbolic link, `p PATH`
//! a FIFO (missing parent folders are made). After it, the scope paths of a
//! manifest; a first line `id ID` sets the checkpoint id (default `c`).
//!
//! Invariants:
//! - a file found is found at an entry beneath `r/`, and it is the file a
//!   POSIX resolution of `r/PATH` finds, at the same entry; where the walk
//!   finds nothing, neither does POSIX;
//! - with links refused, a file found is at the lexical path;
//! - a `file_backup` manifest whose hash the walk itself computed resumes
//!   only when no live file is reached outside the root and no backup
//!   copy is a live file (the same node) or is reached through a link.

use std::collections::BTreeMap;

use phaselint_lint::resume::{
    self, Entry, FileId, Hashed, Links, ManifestInput, Mode, Resolved, ScopeError, ScopeFiles,
    Tree, resolve,
};

enum Kind {
    Dir(BTreeMap<Vec<u8>, usize>),
    File(Vec<u8>),
    Link(Vec<u8>),
    Fifo,
}

/// A tree of nodes; node 0 is the outer root, `root` the manifest's.
struct Memory {
    nodes: Vec<Kind>,
    root: usize,
}

/// A folder as the walk holds it: its node and its path from the outer
/// root.
type Dir = (usize, Vec<u8>);
/// A file found: its node and the entry it was found at.
type Found = (usize, Vec<u8>);

const MAX_NODES: usize = 256;

impl Memory {
    fn new() -> Self {
        let mut tree = Memory {
            nodes: vec![Kind::Dir(BTreeMap::new())],
            root: 0,
        };
        tree.root = tree.make(b"r", || Kind::Dir(BTreeMap::new())).unwrap_or(0);
        let _ = tree.make(b"etc/passwd", || Kind::File(b"root:x:0:0".to_vec()));
        tree
    }

    /// The node at `path` from the outer root, made (with its folders)
    /// when missing; `None` when a file is in the way.
    fn make(&mut self, path: &[u8], kind: impl FnOnce() -> Kind) -> Option<usize> {
        let names: Vec<&[u8]> = path
            .split(|&b| b == b'/')
            .filter(|n| !matches!(*n, b"" | b"." | b".."))
            .collect();
        let (last, folders) = names.split_last()?;
        let mut at = 0;
        for name in folders {
            at = self.child_or(at, name, || Kind::Dir(BTreeMap::new()))?;
        }
        self.child_or(at, last, kind)
    }

    fn child_or(&mut self, dir: usize, name: &[u8], kind: impl FnOnce() -> Kind) -> Option<usize> {
        if let Kind::Dir(entries) = &self.nodes[dir]
            && let Some(&child) = entries.get(name)
        {
            return Some(child);
        }
        if self.nodes.len() >= MAX_NODES {
            return None;
        }
        let child = self.nodes.len();
        match &mut self.nodes[dir] {
            Kind::Dir(entries) => {
                entries.insert(name.to_vec(), child);
            }
            _ => return None,
        }
        self.nodes.push(kind());
        Some(child)
    }

    /// A hard link at `path` to the node at `other`, if it is a file.
    fn hard_link(&mut self, path: &[u8], other: &[u8]) {
        let Some(target) = self.find(other) else {
            return;
        };
        if !matches!(self.nodes[target], Kind::File(_)) {
            return;
        }
        let names: Vec<&[u8]> = path
            .split(|&b| b == b'/')
            .filter(|n| !matches!(*n, b"" | b"." | b".."))
            .collect();
        let Some((last, folders)) = names.split_last() else {
            return;
        };
        let mut at = 0;
        for name in folders {
            match self.child_or(at, name, || Kind::Dir(BTreeMap::new())) {
                Some(next) => at = next,
                None => return,
            }
        }
        if let Kind::Dir(entries) = &mut self.nodes[at] {
            entries.entry(last.to_vec()).or_insert(target);
        }
    }

    /// The node at `path` without following links.
    fn find(&self, path: &[u8]) -> Option<usize> {
        let mut at = 0;
        for name in path.split(|&b| b == b'/').filter(|n| !n.is_empty()) {
            match &self.nodes[at] {
                Kind::Dir(entries) => at = *entries.get(name)?,
                _ => return None,
            }
        }
        Some(at)
    }

    /// The path of folder `dir` from the outer root (folders have one
    /// entry each).
    fn path_of(&self, dir: usize) -> Vec<u8> {
        fn walk(tree: &Memory, at: usize, want: usize, path: &mut Vec<u8>) -> bool {
            if at == want {
                return true;
            }
            let Kind::Dir(entries) = &tree.nodes[at] else {
                return false;
            };
            for (name, &child) in entries {
                if matches!(tree.nodes[child], Kind::Dir(_)) && child != at {
                    let len = path.len();
                    if !path.is_empty() {
                        path.push(b'/');
                    }
                    path.extend_from_slice(name);
                    if walk(tree, child, want, path) {
                        return true;
                    }
                    path.truncate(len);
                }
            }
            false
        }
        let mut path = Vec::new();
        walk(self, 0, dir, &mut path);
        path
    }
}

fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut path = dir.to_vec();
    if !path.is_empty() {
        path.push(b'/');
    }
    path.extend_from_slice(name);
    path
}

impl Tree for Memory {
    type Dir = Dir;
    type File = Found;

    fn entry(
        &self,
        dir: Option<&Dir>,
        name: &[u8],
        last: bool,
    ) -> Result<Entry<Dir, Found>, String> {
        let (at, path) = dir.cloned().unwrap_or((self.root, b"r".to_vec()));
        let Kind::Dir(entries) = &self.nodes[at] else {
            return Err("not a folder".into());
        };
        let Some(&child) = entries.get(name) else {
            return Ok(Entry::Missing);
        };
        let path = join(&path, name);
        Ok(match &self.nodes[child] {
            Kind::Dir(_) => Entry::Dir((child, path)),
            Kind::File(_) if last => Entry::File((child, path)),
            Kind::File(_) => Entry::Other("a regular file"),
            Kind::Link(target) => Entry::Link(target.clone()),
            Kind::Fifo => Entry::Other("a FIFO"),
        })
    }
}

impl ScopeFiles for Memory {
    fn hash(&self, path: &str, links: Links, max_bytes: u64) -> Result<Option<Hashed>, ScopeError> {
        match resolve(self, path, links) {
            Resolved::Missing => Ok(None),
            Resolved::Refused(refusal) => Err(ScopeError::Refused(refusal)),
            Resolved::File((node, _)) => {
                let Kind::File(text) = &self.nodes[node] else {
                    panic!("the walk found a node that is no file");
                };
                if text.len() as u64 > max_bytes {
                    return Err(ScopeError::TooLarge {
                        size: Some(text.len() as u64),
                    });
                }
                Ok(Some(Hashed {
                    sha256: format!("{:064x}", fxhash(text)),
                    size: text.len() as u64,
                    id: Some(FileId {
                        device: 1,
                        inode: node as u64,
                    }),
                }))
            }
        }
    }
}

/// A stand-in for SHA-256: only equality matters here.
fn fxhash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h: u64, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What POSIX resolution of `path` from the outer root finds.
#[derive(Debug, PartialEq, Eq)]
enum Posix {
    File(Found),
    Missing,
    Error,
}

fn posix(tree: &Memory, path: &[u8]) -> Posix {
    // Folders from the outer root down.
    let mut folders: Vec<usize> = vec![0];
    let mut pending: Vec<Vec<u8>> = path
        .split(|&b| b == b'/')
        .rev()
        .map(<[u8]>::to_vec)
        .collect();
    let mut links = 0;
    let mut steps = 0;
    while let Some(name) = pending.pop() {
        steps += 1;
        if steps > 100_000 {
            return Posix::Error;
        }
        match name.as_slice() {
            b"" | b"." => continue,
            b".." => {
                if folders.len() > 1 {
                    folders.pop();
                }
                continue;
            }
            _ => {}
        }
        let last = pending.iter().all(|n| matches!(n.as_slice(), b"" | b"."));
        let at = *folders.last().unwrap_or(&0);
        let Kind::Dir(entries) = &tree.nodes[at] else {
            return Posix::Error;
        };
        let Some(&child) = entries.get(&name) else {
            return Posix::Missing;
        };
        match &tree.nodes[child] {
            Kind::Dir(_) if last => return Posix::Error,
            Kind::Dir(_) => folders.push(child),
            Kind::File(_) if last => {
                return Posix::File((child, join(&tree.path_of(at), &name)));
            }
            Kind::File(_) | Kind::Fifo => return Posix::Error,
            Kind::Link(target) => {
                links += 1;
                if links > resume::MAX_LINKS {
                    return Posix::Error;
                }
                if target.first() == Some(&b'/') {
                    folders.truncate(1);
                }
                pending.extend(target.split(|&b| b == b'/').rev().map(<[u8]>::to_vec));
            }
        }
    }
    Posix::Error
}

/// `path` with `.` and `..` taken lexically, from `r/`.
fn lexical(path: &str) -> Vec<u8> {
    let mut names: Vec<&str> = vec!["r"];
    for name in path.split('/') {
        match name {
            "" | "." => {}
            ".." => {
                names.pop();
            }
            other => names.push(other),
        }
    }
    names.join("/").into_bytes()
}

pub fn manifest_scope(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (tree_text, scope_text) = text.split_once("\n---\n").unwrap_or((&text, ""));
    let mut tree = Memory::new();
    for line in tree_text.lines().take(MAX_NODES) {
        let mut words = line.splitn(3, ' ');
        let (Some(kind), Some(path)) = (words.next(), words.next()) else {
            continue;
        };
        let rest = words.next().unwrap_or("").as_bytes().to_vec();
        let path = path.as_bytes();
        match kind {
            "d" => {
                let _ = tree.make(path, || Kind::Dir(BTreeMap::new()));
            }
            "f" => {
                let _ = tree.make(path, || Kind::File(rest));
            }
            "l" => {
                let _ = tree.make(path, || Kind::Link(rest));
            }
            "p" => {
                let _ = tree.make(path, || Kind::Fifo);
            }
            "h" => tree.hard_link(path, &rest),
            _ => {}
        }
    }
    let mut lines = scope_text.lines().peekable();
    let id = match lines.peek().and_then(|l| l.strip_prefix("id ")) {
        Some(id) => {
            let id = id.to_string();
            lines.next();
            id
        }
        None => "c".to_string(),
    };
    let listed: Vec<String> = lines.take(64).map(str::to_string).collect();

    for path in &listed {
        if resume::scoped(path).is_err() {
            continue;
        }
        let full = join(b"r", path.as_bytes());
        match resolve(&tree, path, Links::WithinRoot) {
            Resolved::File((node, entry)) => {
                assert!(entry.starts_with(b"r/"), "{path:?} found outside the root");
                assert_eq!(
                    posix(&tree, &full),
                    Posix::File((node, entry)),
                    "{path:?}: the walk and POSIX disagree"
                );
            }
            Resolved::Missing => {
                assert_eq!(posix(&tree, &full), Posix::Missing, "{path:?}");
            }
            Resolved::Refused(_) => {}
        }
        if let Resolved::File((_, entry)) = resolve(&tree, path, Links::Refused) {
            assert_eq!(entry, lexical(path), "{path:?} found through a link");
        }
    }

    // A file_backup manifest whose hash the walk computed: resume only
    // with real copies, inside the root.
    let Ok(hash) = resume::manifest_hash(&tree, std::path::Path::new("r"), &listed) else {
        return;
    };
    // The restore command the skill writes: one `cp` per file, from where
    // its copy would be under its own path.
    let restore = listed
        .iter()
        .map(|p| format!("cp '.checkpoints/{id}/{p}' '{p}'"))
        .collect::<Vec<_>>()
        .join(" && ");
    let manifest = serde_json::json!({
        "checkpoint_created": true,
        "checkpoint": {"id": id, "type": "file_backup", "created_at": "2026-03-01T11:00:00Z",
                       "scope": {"files": listed}, "restore_command": restore},
        "pre_mutation_state": {"hash": hash},
        "evidence_anchors": [id]
    });
    let input = ManifestInput {
        now: resume::Timestamp::from_second(1_772_366_400).unwrap_or(resume::Timestamp::UNIX_EPOCH),
        max_clock_skew: 300,
        mode: Mode::Strict,
        question: resume::Question::Mutate,
        state: None,
    };
    let Ok(report) = resume::check_manifest(&manifest, &tree, &resume::NoRepository, &input) else {
        return;
    };
    if report.decision != resume::Decision::Resume {
        return;
    }
    assert!(
        !id.contains(['/', '\\', '\0']) && !id.contains("..") && id != ".",
        "checkpoint id {id:?} resumed, though it is no one name"
    );
    let live: Vec<usize> = listed
        .iter()
        .map(|p| match resolve(&tree, p, Links::WithinRoot) {
            Resolved::File((node, entry)) => {
                assert!(entry.starts_with(b"r/"));
                node
            }
            _ => panic!("{p:?} resumed without a live file"),
        })
        .collect();
    for path in &listed {
        let base = path
            .rsplit('/')
            .find(|n| !matches!(*n, "" | "." | ".."))
            .unwrap_or(path);
        let copy = [
            format!(".checkpoints/{id}/{path}"),
            format!(".checkpoints/{id}/{base}"),
        ]
        .iter()
        .find_map(|c| match resolve(&tree, c, Links::Refused) {
            Resolved::File((node, entry)) => Some((node, entry)),
            _ => None,
        });
        let Some((node, entry)) = copy else {
            panic!("{path:?} resumed without a backup copy");
        };
        assert!(
            !live.contains(&node),
            "the backup of {path:?} is a live file"
        );
        assert!(
            entry.starts_with(format!("r/.checkpoints/{id}/").as_bytes()),
            "the backup of {path:?} is not in the backup folder"
        );
    }
}
