use std::path::Path;

use sha2::Digest;

use super::*;
use crate::input;
use crate::resume::decision::{Decision, Mode};
use crate::resume::scope::{Entry, FileId, Links, Resolved, Tree, resolve};
use crate::resume::stash::NoRepository;
use std::collections::HashMap;

/// Files in memory: path from the root → what is there.
#[derive(Default)]
struct Memory(HashMap<String, Node>);

#[derive(Clone)]
enum Node {
    Dir,
    /// Content, and an inode (two paths with one are one file).
    File(&'static str, u64),
    Link(&'static str),
    Unreadable(&'static str),
}

impl Tree for Memory {
    type Dir = String;
    type File = (&'static str, u64);
    fn entry(
        &self,
        dir: Option<&String>,
        name: &[u8],
        _last: bool,
    ) -> Result<Entry<String, Self::File>, String> {
        let name = String::from_utf8_lossy(name);
        let path = dir.map_or(name.to_string(), |d| format!("{d}/{name}"));
        match self.0.get(&path) {
            None => Ok(Entry::Missing),
            Some(Node::Dir) => Ok(Entry::Dir(path)),
            Some(Node::File(text, inode)) => Ok(Entry::File((text, *inode))),
            Some(Node::Link(target)) => Ok(Entry::Link(target.as_bytes().to_vec())),
            Some(Node::Unreadable(reason)) => Err(reason.to_string()),
        }
    }
}

impl ScopeFiles for Memory {
    fn hash(&self, path: &str, links: Links, max: u64) -> Result<Option<Hashed>, ScopeError> {
        match resolve(self, path, links) {
            Resolved::Missing => Ok(None),
            Resolved::Refused(r) => Err(ScopeError::Refused(r)),
            Resolved::File((_, _)) if max < 4 => Err(ScopeError::TooLarge { size: Some(4) }),
            Resolved::File((text, inode)) => Ok(Some(Hashed {
                sha256: sha(text),
                size: text.len() as u64,
                id: Some(FileId { device: 1, inode }),
            })),
        }
    }
}

fn memory(nodes: &[(&str, Node)]) -> Memory {
    Memory(
        nodes
            .iter()
            .map(|(p, n)| (p.to_string(), n.clone()))
            .collect(),
    )
}

fn sha(text: &str) -> String {
    input::hex(&sha2::Sha256::digest(text.as_bytes()))
}

fn manifest(kind: &str, id: &str, files: &[&str], hash: &str) -> Value {
    let restore = match kind {
        "file_backup" => files
            .iter()
            .map(|f| format!("cp .checkpoints/{id}/{f} {f}"))
            .collect::<Vec<_>>()
            .join(" && "),
        _ => "git stash apply stash@{0}".to_string(),
    };
    serde_json::json!({
        "checkpoint_created": true,
        "checkpoint": {"id": id, "type": kind, "created_at": "2026-03-01T11:00:00Z",
                       "scope": {"files": files}, "restore_command": restore},
        "pre_mutation_state": {"hash": hash},
        "evidence_anchors": [id]
    })
}

fn input() -> ManifestInput {
    ManifestInput {
        now: "2026-03-01T12:00:00Z"
            .parse()
            .unwrap_or_else(|e| panic!("{e}")),
        max_clock_skew: 300,
        mode: Mode::Strict,
        question: Question::Mutate,
        state: None,
    }
}

fn report(files: &Memory, manifest: &Value) -> ManifestReport {
    check_manifest(manifest, files, &NoRepository, &input()).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn the_combined_hash_is_the_documented_one() {
    // sha256("a.txt\0<sha of 'x'>\n")
    let one = combined_hash([("a.txt", sha("x").as_str())]);
    let expected = format!(
        "sha256:{}",
        input::hex(&sha2::Sha256::digest(
            format!("a.txt\0{}\n", sha("x")).as_bytes()
        ))
    );
    assert_eq!(one, expected);
    // Order matters.
    let ab = combined_hash([("a", "1"), ("b", "2")]);
    let ba = combined_hash([("b", "2"), ("a", "1")]);
    assert_ne!(ab, ba);
}

#[test]
fn scope_paths_stay_under_the_root() {
    assert_eq!(scoped("a/b.txt"), Ok(()));
    assert!(scoped("a/../b.txt").is_ok());
    assert!(scoped("../x").unwrap_err().contains("leaves the root"));
    assert!(scoped("a/../../x").unwrap_err().contains("leaves the root"));
    assert!(scoped("/etc/passwd").unwrap_err().contains("absolute"));
    assert!(scoped(".").is_err());
    assert!(scoped("a\0b").unwrap_err().contains("NUL"));
}

#[test]
fn a_file_that_cannot_be_read_fails_closed() {
    let files = memory(&[(
        "loop",
        Node::Unreadable("too many levels of symbolic links"),
    )]);
    let manifest = manifest(
        "git_stash",
        "c1",
        &["loop"],
        &format!("sha256:{}", "0".repeat(64)),
    );
    let report = report(&files, &manifest);
    assert_eq!(report.decision, Decision::Blocked);
    assert_eq!(report.actual_hash, None);
    assert!(
        report.problems[0].contains("too many levels"),
        "{:?}",
        report.problems
    );
}

#[test]
fn a_link_out_of_the_root_is_refused_by_name() {
    let files = memory(&[("leak.txt", Node::Link("/etc/passwd"))]);
    let manifest = manifest(
        "git_stash",
        "c1",
        &["leak.txt"],
        &format!("sha256:{}", "0".repeat(64)),
    );
    let report = report(&files, &manifest);
    assert_eq!(report.decision, Decision::Blocked);
    assert_eq!(
        report.problems[0],
        "scope file `leak.txt` is refused: `leak.txt` is a symbolic link to `/etc/passwd`, which leaves the root (links are followed only while they stay inside it); list a file inside the root instead"
    );
}

#[test]
fn backups_are_copies_not_links_nor_the_live_files() {
    let hash = combined_hash([("a.txt", sha("v1").as_str())]);
    let live = ("a.txt", Node::File("v1", 1));
    // A real copy.
    let copy = memory(&[
        live.clone(),
        (".checkpoints", Node::Dir),
        (".checkpoints/c1", Node::Dir),
        (".checkpoints/c1/a.txt", Node::File("v1", 2)),
    ]);
    assert_eq!(
        report(&copy, &manifest("file_backup", "c1", &["a.txt"], &hash)).problems,
        Vec::<String>::new()
    );
    // The folder a link to the root.
    let linked = memory(&[
        live.clone(),
        (".checkpoints", Node::Dir),
        (".checkpoints/c1", Node::Link("..")),
    ]);
    let problems = report(&linked, &manifest("file_backup", "c1", &["a.txt"], &hash)).problems;
    assert!(
        problems[0].starts_with(
            "the backup of `a.txt` is refused: `.checkpoints/c1` is a symbolic link (to `..`)"
        ),
        "{problems:?}"
    );
    // The copy a hard link to the live file.
    let hard = memory(&[
        live,
        (".checkpoints", Node::Dir),
        (".checkpoints/c1", Node::Dir),
        (".checkpoints/c1/a.txt", Node::File("v1", 1)),
    ]);
    let problems = report(&hard, &manifest("file_backup", "c1", &["a.txt"], &hash)).problems;
    assert!(
        problems[0].contains("is the live file `a.txt` itself"),
        "{problems:?}"
    );
}

#[test]
fn a_missing_backup_names_each_place_it_was_looked_for_once() {
    let hash = combined_hash([
        ("src/a.txt", sha("v1").as_str()),
        ("b.txt", sha("v1").as_str()),
    ]);
    let files = memory(&[
        ("src", Node::Dir),
        ("src/a.txt", Node::File("v1", 1)),
        ("b.txt", Node::File("v1", 2)),
        (".checkpoints", Node::Dir),
        (".checkpoints/c1", Node::Dir),
    ]);
    let problems = report(
        &files,
        &manifest("file_backup", "c1", &["src/a.txt", "b.txt"], &hash),
    )
    .problems;
    let missing: Vec<&String> = problems
        .iter()
        .filter(|p| p.contains("is missing"))
        .collect();
    assert_eq!(
        missing,
        [
            "the backup of `src/a.txt` is missing: neither `.checkpoints/c1/src/a.txt` nor `.checkpoints/c1/a.txt` exists",
            "the backup of `b.txt` is missing: `.checkpoints/c1/b.txt` does not exist",
        ],
        "{problems:?}"
    );
}

#[test]
fn an_id_that_is_not_one_name_is_malformed() {
    for id in ["../src", "a/b", "a\\b", "..", ".", "a\0b"] {
        let manifest = manifest(
            "file_backup",
            id,
            &["a.txt"],
            &format!("sha256:{}", "0".repeat(64)),
        );
        match check_manifest(&manifest, &Memory::default(), &NoRepository, &input()) {
            Err(NoManifestVerdict::Malformed(problems)) => {
                assert!(problems[0].starts_with("`checkpoint.id`"), "{problems:?}")
            }
            other => panic!("{id}: {other:?}"),
        }
    }
}

#[test]
fn bounds_give_no_verdict_naming_the_file() {
    let files = memory(&[("a.txt", Node::File("v1", 1))]);
    let listed: Vec<String> = vec!["a.txt".into(); MAX_SCOPE_FILES + 1];
    assert!(
        manifest_hash(&files, Path::new("/r"), &listed)
            .unwrap_err()
            .contains("more than the limit of 10000")
    );
    let many: Vec<&str> = vec!["a.txt"; MAX_SCOPE_FILES + 1];
    assert!(matches!(
        check_manifest(
            &manifest("git_stash", "c1", &many, "x"),
            &files,
            &NoRepository,
            &input()
        ),
        Err(NoManifestVerdict::OverBound(_))
    ));
    assert_eq!(structure_of("[1, 2]\n- a\nb: -1\n"), 7);
    assert!(
        read_manifest(&"[0,".repeat(MAX_MANIFEST_STRUCTURE), DocumentFormat::Json)
            .unwrap_err()
            .contains("more than the limit of 50000")
    );
}
