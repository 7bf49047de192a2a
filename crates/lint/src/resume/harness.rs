//! The harness sentinel protocol: a harness asks for an approval by writing
//! `checkpoint-<name>.md` into its directory and is answered by
//! `checkpoint-<name>.md.granted` beside it; `.checkpoint-<name>.fired`
//! says the checkpoint was taken this mission. A grant counts only as the
//! answer to the request beside it: with no request (an orphan left by an
//! earlier run), older than the request (it answered an earlier one), or
//! dated in the future (it could answer a request not yet written), it is
//! reported and ignored. A grant holding an ApprovalRecord is validated
//! like any other; any other content (empty, a line of text, the harness
//! API's own JSON) is one human approval of the checkpoint as it stands.
//! Text that does not load as JSON or YAML is no verdict: it may be a
//! broken record.
//!
//! Every sentinel is read without following a link, within its bound, and
//! only when it is a regular file, with its time taken from the file read:
//! a link, a directory or a FIFO in its place is no verdict, never "absent"
//! and never a wait. A checkpoint's name becomes part of a file name only
//! once it is filename-safe (H503).
//!
//! The files are reached through `SentinelFiles`, so the protocol is tested
//! without a disk.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;

use crate::input::{self, Bound};
use crate::resume::{
    ApprovalRecord, ApprovalSource, DocumentFormat, MEMORY_PER_INPUT_BYTE, parse_document_within,
    parse_records,
};

/// One sentinel file as read: its bytes and when it was last written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentinelFile {
    pub bytes: Vec<u8>,
    pub modified: SystemTime,
}

/// What the protocol needs of a directory.
pub trait SentinelFiles {
    fn is_dir(&self, path: &Path) -> bool;
    /// The regular file at `path`, read within the sentinel bound without
    /// following a link. `Ok(None)` only when nothing at all is there: a
    /// link (even to nothing), a directory, a FIFO or an unreadable file
    /// is an error, so a request can never vanish because of what it is.
    fn read(&self, path: &Path) -> Result<Option<SentinelFile>, String>;
    /// What is at `path`, without following a link.
    fn kind(&self, path: &Path) -> Result<EntryKind, String>;
}

/// What is at a path, the link itself when it is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    Missing,
    File,
    Dir,
    /// A link, a FIFO, a device: what it is.
    Other(&'static str),
}

/// The real file system, read through the bounded reader.
pub struct DiskSentinels;

impl SentinelFiles for DiskSentinels {
    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }

    fn read(&self, path: &Path) -> Result<Option<SentinelFile>, String> {
        match input::read_file_no_follow(path, Bound::Sentinel) {
            Ok(None) => Ok(None),
            Ok(Some((bytes, metadata))) => {
                let modified = metadata
                    .modified()
                    .map_err(|e| format!("cannot tell when it was written: {e}"))?;
                Ok(Some(SentinelFile { bytes, modified }))
            }
            Err(e) => Err(e.reason()),
        }
    }

    fn kind(&self, path: &Path) -> Result<EntryKind, String> {
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.is_file() => Ok(EntryKind::File),
            Ok(m) if m.is_dir() => Ok(EntryKind::Dir),
            Ok(m) => Ok(EntryKind::Other(input::describe_file_type(m.file_type()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(EntryKind::Missing),
            Err(e) => Err(format!("cannot look at `{}`: {e}", path.display())),
        }
    }
}

/// Why `name` cannot be part of a sentinel's file name (H503's rule), if
/// it cannot.
pub(crate) fn unsafe_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    crate::rules::harness_name_problem(name)
}

/// The files of one checkpoint in a harness directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SentinelPaths {
    pub(crate) dir: PathBuf,
    /// `checkpoint-<name>.md`: the request, written when it fires.
    pub(crate) request: PathBuf,
    /// `checkpoint-<name>.md.granted`: the grant.
    pub(crate) grant: PathBuf,
    /// `.checkpoint-<name>.fired`: fired this mission.
    pub(crate) fired: PathBuf,
    /// `.checkpoint-<name>.consuming/`: a `--consume` under way (or
    /// interrupted), holding what it moved out of the way.
    pub(crate) journal: PathBuf,
}

impl SentinelPaths {
    /// The paths for `name`, which must be filename-safe: no path is ever
    /// built from a name that could leave the directory.
    pub(crate) fn of(dir: &Path, name: &str) -> Result<Self, String> {
        if let Some(problem) = unsafe_name(name) {
            return Err(format!(
                "checkpoint name `{}` cannot name a harness sentinel: {problem} (H503), so no file is looked at for it",
                name.escape_debug()
            ));
        }
        Ok(SentinelPaths {
            dir: dir.to_path_buf(),
            request: dir.join(format!("checkpoint-{name}.md")),
            grant: dir.join(format!("checkpoint-{name}.md.granted")),
            fired: dir.join(format!(".checkpoint-{name}.fired")),
            journal: dir.join(format!(".checkpoint-{name}.consuming")),
        })
    }

    /// Where a `--consume` keeps the grant it moved (first step).
    pub(crate) fn journal_grant(&self) -> PathBuf {
        self.journal.join("granted")
    }

    /// Where a `--consume` keeps the request it moved (second step).
    pub(crate) fn journal_request(&self) -> PathBuf {
        self.journal.join("request")
    }
}

/// What a checkpoint's sentinels are now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sentinels {
    pub(crate) paths: SentinelPaths,
    pub(crate) request: Option<SentinelFile>,
    pub(crate) grant: Option<SentinelFile>,
    pub(crate) fired: Option<SentinelFile>,
}

/// Reads a checkpoint's sentinels. An interrupted `--consume` (its journal
/// is there) is no verdict until a `--consume` run finishes or rolls it
/// back: until then, the files say neither "pending" nor "granted" for sure.
pub(crate) fn read_sentinels(
    files: &impl SentinelFiles,
    dir: &Path,
    name: &str,
) -> Result<Sentinels, String> {
    if !files.is_dir(dir) {
        return Err(format!(
            "--harness-dir `{}` is not a directory",
            dir.display()
        ));
    }
    let paths = SentinelPaths::of(dir, name)?;
    if files.kind(&paths.journal)? != EntryKind::Missing {
        return Err(interrupted_consume(&paths, name));
    }
    let read = |path: &Path, what: &str| {
        files
            .read(path)
            .map_err(|e| format!("cannot read the harness {what} `{}`: {e}", path.display()))
    };
    Ok(Sentinels {
        request: read(&paths.request, "request")?,
        grant: read(&paths.grant, "grant")?,
        fired: read(&paths.fired, "fired marker")?,
        paths,
    })
}

/// The message of a consume that a crash interrupted.
pub(crate) fn interrupted_consume(paths: &SentinelPaths, name: &str) -> String {
    format!(
        "an earlier `--consume` of checkpoint `{name}` was interrupted (`{}` is still there), so its request and grant are neither both there nor both gone; finish it (or roll it back) with `phaselint resume-check --harness-dir {} --checkpoint {name} --consume`",
        paths.journal.display(),
        paths.dir.display()
    )
}

/// Whether a grant answers the request beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum GrantTiming {
    /// Written no earlier than the request, and not in the future.
    Answers,
    /// There is no request: an earlier run's leftover.
    Orphan,
    /// Older than the request: it answered an earlier one.
    OlderThanRequest,
    /// Dated after now (beyond the clock skew): it could answer a request
    /// not yet written.
    InTheFuture,
}

impl GrantTiming {
    pub(crate) fn of(
        request: Option<&SentinelFile>,
        grant: &SentinelFile,
        now: Timestamp,
        max_clock_skew: u64,
    ) -> GrantTiming {
        let Some(request) = request else {
            return GrantTiming::Orphan;
        };
        let latest = now
            .checked_add(jiff::SignedDuration::from_secs(
                i64::try_from(max_clock_skew).unwrap_or(i64::MAX),
            ))
            .unwrap_or(Timestamp::MAX);
        if Timestamp::try_from(grant.modified).map_or(true, |at| at > latest) {
            GrantTiming::InTheFuture
        } else if grant.modified < request.modified {
            GrantTiming::OlderThanRequest
        } else {
            GrantTiming::Answers
        }
    }

    /// Why a grant that does not answer its request is ignored.
    pub(crate) fn reason(self, grant: &Path, request: &Path) -> String {
        let (grant, request) = (grant.display(), request.display());
        match self {
            GrantTiming::Answers => format!("the grant `{grant}` answers the request `{request}`"),
            GrantTiming::Orphan => format!(
                "the harness grant `{grant}` has no request `{request}` beside it: it answers nothing now (an earlier run's leftover?), so it is ignored; remove it"
            ),
            GrantTiming::OlderThanRequest => format!(
                "the harness grant `{grant}` is older than the request `{request}`: it answered an earlier request, so it is ignored"
            ),
            GrantTiming::InTheFuture => format!(
                "the harness grant `{grant}` is dated in the future (after now and the clock skew): it could answer a request not yet written, so it is ignored; remove it and grant again"
            ),
        }
    }
}

/// What a grant holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum GrantContent {
    /// Nothing but blanks (`touch`).
    Empty,
    /// A line of text, or any document that is no mapping or list.
    Text(String),
    /// A mapping or list that is no ApprovalRecord (the harness API's
    /// `{"grantedBy": "alice"}`), as given.
    Document(Value),
    /// One ApprovalRecord or a list of them, validated as such.
    Records(Vec<ApprovalRecord>),
}

/// The keys of an ApprovalRecord: a grant that has one of them is meant as
/// a record, and is read strictly as one.
const RECORD_KEYS: &[&str] = &[
    "approved_by",
    "approved_at",
    "policy",
    "checkpoint_id",
    "stale_fields_acknowledged",
    "target_digest",
    "context_digest",
];

fn looks_like_records(value: &Value) -> bool {
    let record = |v: &Value| {
        v.as_object()
            .is_some_and(|m| m.keys().any(|k| RECORD_KEYS.contains(&k.as_str())))
    };
    match value {
        Value::Array(items) => items.iter().any(record),
        other => record(other),
    }
}

/// Reads what a grant holds. Text that is not UTF-8, does not load as
/// JSON or YAML, or is meant as a record but is not one is an error: no
/// one can tell what it grants.
pub(crate) fn grant_content(bytes: &[u8]) -> Result<GrantContent, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "it is not UTF-8".to_string())?;
    if text.trim().is_empty() {
        return Ok(GrantContent::Empty);
    }
    let budget = MEMORY_PER_INPUT_BYTE * Bound::Sentinel.bytes();
    let value =
        parse_document_within(text, DocumentFormat::Detect, budget).map_err(|e| e.to_string())?;
    if looks_like_records(&value) {
        return parse_records(&value).map(GrantContent::Records);
    }
    Ok(match value {
        Value::Object(_) | Value::Array(_) => GrantContent::Document(value),
        _ => GrantContent::Text(text.trim().to_string()),
    })
}

/// The approvals the harness directory holds for `checkpoint`, for a
/// contract's resume check: a grant (or the records in it), a pending
/// request, an ignored grant, or nothing. An error is no verdict.
pub fn harness_sources(
    files: &impl SentinelFiles,
    dir: &Path,
    checkpoint: &str,
    now: Timestamp,
    max_clock_skew: u64,
) -> Result<Vec<ApprovalSource>, String> {
    let sentinels = read_sentinels(files, dir, checkpoint)?;
    let paths = &sentinels.paths;
    let location = paths.grant.display().to_string();
    let request_location = paths.request.display().to_string();
    let pending = || ApprovalSource::HarnessPending {
        location: request_location.clone(),
    };
    let Some(grant) = &sentinels.grant else {
        return Ok(sentinels
            .request
            .as_ref()
            .map(|_| pending())
            .into_iter()
            .collect());
    };
    let timing = GrantTiming::of(sentinels.request.as_ref(), grant, now, max_clock_skew);
    if timing != GrantTiming::Answers {
        let ignored = ApprovalSource::HarnessIgnored {
            reason: timing.reason(&paths.grant, &paths.request),
            location,
        };
        return Ok(match sentinels.request {
            Some(_) => vec![ignored, pending()],
            None => vec![ignored],
        });
    }
    let content = grant_content(&grant.bytes)
        .map_err(|e| format!("cannot read the harness grant `{location}`: {e}"))?;
    Ok(match content {
        GrantContent::Records(records) => records
            .into_iter()
            .map(|record| ApprovalSource::HarnessGrant {
                location: location.clone(),
                record: Some(record),
            })
            .collect(),
        GrantContent::Empty | GrantContent::Text(_) | GrantContent::Document(_) => {
            vec![ApprovalSource::HarnessGrant {
                location,
                record: None,
            }]
        }
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::time::Duration;

    use super::*;

    /// A file in memory: the second it was written and its bytes (`None`:
    /// a link, read as an error).
    pub(crate) type MemoryFile = (u64, Option<Vec<u8>>);

    /// A harness directory in memory.
    #[derive(Default)]
    pub(crate) struct Files {
        pub(crate) dirs: RefCell<Vec<PathBuf>>,
        pub(crate) files: RefCell<BTreeMap<PathBuf, MemoryFile>>,
    }

    impl Files {
        pub(crate) fn new(files: &[(&str, Option<&str>)]) -> Self {
            let made = Files {
                dirs: RefCell::new(vec![PathBuf::from("/h")]),
                ..Files::default()
            };
            for (i, (name, text)) in files.iter().enumerate() {
                made.files.borrow_mut().insert(
                    Path::new("/h").join(name),
                    (i as u64, text.map(|t| t.as_bytes().to_vec())),
                );
            }
            made
        }
    }

    impl SentinelFiles for Files {
        fn is_dir(&self, path: &Path) -> bool {
            self.dirs.borrow().iter().any(|d| d == path)
        }

        fn read(&self, path: &Path) -> Result<Option<SentinelFile>, String> {
            if self.is_dir(path) {
                return Err("it is a directory, not a regular file".into());
            }
            match self.files.borrow().get(path) {
                None => Ok(None),
                Some((_, None)) => Err("it is a symbolic link, not a regular file".into()),
                Some((second, Some(bytes))) => Ok(Some(SentinelFile {
                    bytes: bytes.clone(),
                    modified: SystemTime::UNIX_EPOCH + Duration::from_secs(*second),
                })),
            }
        }

        fn kind(&self, path: &Path) -> Result<EntryKind, String> {
            Ok(if self.is_dir(path) {
                EntryKind::Dir
            } else {
                match self.files.borrow().get(path) {
                    None => EntryKind::Missing,
                    Some((_, None)) => EntryKind::Other("a symbolic link"),
                    Some(_) => EntryKind::File,
                }
            })
        }
    }

    pub(crate) fn now() -> Timestamp {
        Timestamp::UNIX_EPOCH + jiff::SignedDuration::from_secs(1000)
    }

    fn sources(files: &[(&str, Option<&str>)]) -> Result<Vec<ApprovalSource>, String> {
        harness_sources(&Files::new(files), Path::new("/h"), "k", now(), 300)
    }

    const REQUEST: (&str, Option<&str>) = ("checkpoint-k.md", Some("please"));

    #[test]
    fn nothing_there_is_no_approval() {
        assert_eq!(sources(&[]).unwrap().len(), 0);
    }

    #[test]
    fn a_request_without_a_grant_is_pending() {
        let found = sources(&[REQUEST]).unwrap();
        assert!(matches!(
            &found[..],
            [ApprovalSource::HarnessPending { .. }]
        ));
    }

    #[test]
    fn a_grant_written_after_its_request_is_one_approval_whatever_its_text() {
        for text in ["  \n", "approved by alice\n", r#"{"grantedBy": "alice"}"#] {
            let found = sources(&[REQUEST, ("checkpoint-k.md.granted", Some(text))]).unwrap();
            assert!(
                matches!(
                    &found[..],
                    [ApprovalSource::HarnessGrant { record: None, .. }]
                ),
                "{text:?}: {found:?}"
            );
        }
    }

    #[test]
    fn grant_content_is_shown_as_given() {
        assert_eq!(grant_content(b" \n").unwrap(), GrantContent::Empty);
        assert_eq!(
            grant_content(b"approved by alice\n").unwrap(),
            GrantContent::Text("approved by alice".into())
        );
        assert_eq!(
            grant_content(br#"{"grantedBy":"alice"}"#).unwrap(),
            GrantContent::Document(serde_json::json!({"grantedBy": "alice"}))
        );
        assert!(grant_content(b"\xff").unwrap_err().contains("not UTF-8"));
    }

    #[test]
    fn an_orphan_grant_or_one_older_than_the_request_is_ignored() {
        let orphan = sources(&[("checkpoint-k.md.granted", Some(""))]).unwrap();
        let [ApprovalSource::HarnessIgnored { reason, .. }] = &orphan[..] else {
            panic!("{orphan:?}");
        };
        assert!(reason.contains("has no request"), "{reason}");
        let stale = sources(&[("checkpoint-k.md.granted", Some("")), REQUEST]).unwrap();
        let [
            ApprovalSource::HarnessIgnored { reason, .. },
            ApprovalSource::HarnessPending { .. },
        ] = &stale[..]
        else {
            panic!("{stale:?}");
        };
        assert!(reason.contains("older than the request"), "{reason}");
    }

    #[test]
    fn a_grant_dated_in_the_future_answers_nothing() {
        let files = Files::new(&[REQUEST, ("checkpoint-k.md.granted", Some(""))]);
        files
            .files
            .borrow_mut()
            .get_mut(Path::new("/h/checkpoint-k.md.granted"))
            .unwrap()
            .0 = 1000 + 301;
        let found = harness_sources(&files, Path::new("/h"), "k", now(), 300).unwrap();
        let [
            ApprovalSource::HarnessIgnored { reason, .. },
            ApprovalSource::HarnessPending { .. },
        ] = &found[..]
        else {
            panic!("{found:?}");
        };
        assert!(reason.contains("in the future"), "{reason}");
    }

    #[test]
    fn a_grant_holding_records_hands_them_on() {
        let record = r#"{"approved_by": "ana", "approved_at": "2026-03-01T11:00:00Z", "policy": "human", "checkpoint_id": "k", "stale_fields_acknowledged": []}"#;
        let found = sources(&[REQUEST, ("checkpoint-k.md.granted", Some(record))]).unwrap();
        assert!(matches!(
            &found[..],
            [ApprovalSource::HarnessGrant {
                record: Some(_),
                ..
            }]
        ));
    }

    #[test]
    fn an_unreadable_sentinel_a_broken_record_or_an_unsafe_id_is_no_verdict() {
        let linked = sources(&[REQUEST, ("checkpoint-k.md.granted", None)]).unwrap_err();
        assert!(linked.contains("symbolic link"), "{linked}");
        let linked_request = sources(&[("checkpoint-k.md", None)]).unwrap_err();
        assert!(
            linked_request.contains("cannot read the harness request"),
            "{linked_request}"
        );
        // Meant as a record (it has a record's keys) but not one: never
        // read as a plain grant instead.
        let broken = sources(&[
            REQUEST,
            (
                "checkpoint-k.md.granted",
                Some(r#"{"approved_by": "ana", "policy": "orchestrator"}"#),
            ),
        ])
        .unwrap_err();
        assert!(broken.contains("cannot read the harness grant"), "{broken}");
        let not_yaml = sources(&[
            REQUEST,
            ("checkpoint-k.md.granted", Some("approved_by: [unclosed")),
        ])
        .unwrap_err();
        assert!(
            not_yaml.contains("cannot read the harness grant"),
            "{not_yaml}"
        );
        for unsafe_id in ["../x", "a/b", ".hidden", ""] {
            let refused = harness_sources(&Files::new(&[]), Path::new("/h"), unsafe_id, now(), 300)
                .unwrap_err();
            assert!(
                refused.contains("cannot name a harness sentinel"),
                "{refused}"
            );
        }
        let no_dir =
            harness_sources(&Files::new(&[]), Path::new("/nope"), "k", now(), 300).unwrap_err();
        assert!(no_dir.contains("is not a directory"), "{no_dir}");
        let files = Files::new(&[REQUEST]);
        files
            .dirs
            .borrow_mut()
            .push(PathBuf::from("/h/.checkpoint-k.consuming"));
        let interrupted = harness_sources(&files, Path::new("/h"), "k", now(), 300).unwrap_err();
        assert!(interrupted.contains("was interrupted"), "{interrupted}");
    }
}
