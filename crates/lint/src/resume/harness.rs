//! The harness sentinel protocol: a harness asks for an approval by writing
//! `checkpoint-<id>.md` into its directory and is answered by
//! `checkpoint-<id>.md.granted` beside it. A grant counts only as the answer
//! to the request beside it: with no request (an orphan left by an earlier
//! run) or older than the request (it answered an earlier one), it is
//! reported and ignored. A grant holding an ApprovalRecord is validated like
//! any other; any other content (empty, a line of text, the harness API's
//! own JSON) is one human approval of the checkpoint as it stands. Text that
//! does not load as JSON or YAML is no verdict: it may be a broken record.
//!
//! The files are reached through `SentinelFiles`, so the protocol is tested
//! without a disk.

use std::path::Path;
use std::time::SystemTime;

use serde_json::Value;

use crate::input::{self, Bound};
use crate::resume::{
    ApprovalSource, DocumentFormat, MEMORY_PER_INPUT_BYTE, parse_document_within, parse_records,
};

/// What the protocol needs of a directory.
pub trait SentinelFiles {
    fn is_dir(&self, path: &Path) -> bool;
    /// Whether anything is at `path`. A link to nothing counts as there
    /// (reading it then fails, which is no verdict), never as absent: a
    /// pending request must not vanish because its target did.
    fn exists(&self, path: &Path) -> Result<bool, String>;
    /// A grant's bytes, read within the grant bound.
    fn read_grant(&self, path: &Path) -> Result<Vec<u8>, String>;
    /// When the file at `path` was last written.
    fn modified(&self, path: &Path) -> Result<SystemTime, String>;
}

/// The real file system, read through the bounded reader.
pub struct DiskSentinels;

impl SentinelFiles for DiskSentinels {
    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }

    fn exists(&self, path: &Path) -> Result<bool, String> {
        match std::fs::symlink_metadata(path) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(format!(
                "cannot look at the harness file `{}`: {e}",
                path.display()
            )),
        }
    }

    fn read_grant(&self, path: &Path) -> Result<Vec<u8>, String> {
        input::read_file(path, Bound::Grant).map_err(|e| e.reason())
    }

    fn modified(&self, path: &Path) -> Result<SystemTime, String> {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .map_err(|e| format!("cannot tell when it was written: {e}"))
    }
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

/// The approvals the harness directory holds for `checkpoint`: a grant (or
/// the records in it), a pending request, or nothing. An error is no
/// verdict.
pub fn harness_sources(
    files: &impl SentinelFiles,
    dir: &Path,
    checkpoint: &str,
) -> Result<Vec<ApprovalSource>, String> {
    if !files.is_dir(dir) {
        return Err(format!(
            "--harness-dir `{}` is not a directory",
            dir.display()
        ));
    }
    let filename_safe = !checkpoint.is_empty()
        && !checkpoint.starts_with('.')
        && checkpoint
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !filename_safe {
        return Err(format!(
            "checkpoint id `{checkpoint}` is not filename-safe ([A-Za-z0-9._-]+), so no harness sentinel can name it"
        ));
    }
    let request = dir.join(format!("checkpoint-{checkpoint}.md"));
    let granted = dir.join(format!("checkpoint-{checkpoint}.md.granted"));
    let location = granted.display().to_string();
    let request_location = request.display().to_string();
    match (files.exists(&granted)?, files.exists(&request)?) {
        (false, false) => Ok(Vec::new()),
        (false, true) => Ok(vec![ApprovalSource::HarnessPending {
            location: request_location,
        }]),
        (true, false) => Ok(vec![ApprovalSource::HarnessIgnored {
            reason: format!(
                "the harness grant `{location}` has no request `{request_location}` beside it: it answers nothing now (an earlier run's leftover?), so it is ignored; remove it"
            ),
            location,
        }]),
        (true, true) => {
            let grant_time = files
                .modified(&granted)
                .map_err(|e| format!("cannot read the harness grant `{location}`: {e}"))?;
            let request_time = files.modified(&request).map_err(|e| {
                format!("cannot read the harness request `{request_location}`: {e}")
            })?;
            if grant_time < request_time {
                return Ok(vec![
                    ApprovalSource::HarnessIgnored {
                        reason: format!(
                            "the harness grant `{location}` is older than the request `{request_location}`: it answered an earlier request, so it is ignored"
                        ),
                        location,
                    },
                    ApprovalSource::HarnessPending {
                        location: request_location,
                    },
                ]);
            }
            read_grant(files, &granted, location)
        }
    }
}

/// The approvals a grant that answers the current request holds.
fn read_grant(
    files: &impl SentinelFiles,
    granted: &Path,
    location: String,
) -> Result<Vec<ApprovalSource>, String> {
    let cannot = |why: String| format!("cannot read the harness grant `{location}`: {why}");
    let bytes = files.read_grant(granted).map_err(cannot)?;
    let text = String::from_utf8(bytes).map_err(|_| cannot("it is not UTF-8".into()))?;
    let plain = || {
        Ok(vec![ApprovalSource::HarnessGrant {
            location: location.clone(),
            record: None,
        }])
    };
    if text.trim().is_empty() {
        return plain();
    }
    // Text that is no document at all may be a record written wrong:
    // nobody can tell what it grants, so it is no verdict.
    let budget = MEMORY_PER_INPUT_BYTE * Bound::Grant.bytes();
    let value = parse_document_within(&text, DocumentFormat::Detect, budget)
        .map_err(|e| cannot(e.to_string()))?;
    if !looks_like_records(&value) {
        return plain();
    }
    let records = parse_records(&value).map_err(cannot)?;
    Ok(records
        .into_iter()
        .map(|record| ApprovalSource::HarnessGrant {
            location: location.clone(),
            record: Some(record),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;

    /// A directory `/h` holding these files, written in this order (`None`:
    /// a link to nothing).
    struct Files(HashMap<PathBuf, (usize, Option<&'static str>)>);

    impl Files {
        fn new(files: &[(&str, Option<&'static str>)]) -> Self {
            Files(
                files
                    .iter()
                    .enumerate()
                    .map(|(i, (name, text))| (Path::new("/h").join(name), (i, *text)))
                    .collect(),
            )
        }
    }

    impl SentinelFiles for Files {
        fn is_dir(&self, path: &Path) -> bool {
            path == Path::new("/h")
        }

        fn exists(&self, path: &Path) -> Result<bool, String> {
            Ok(self.0.contains_key(path))
        }

        fn read_grant(&self, path: &Path) -> Result<Vec<u8>, String> {
            match self.0.get(path) {
                Some((_, Some(text))) => Ok(text.as_bytes().to_vec()),
                _ => Err("it is a link to nothing".into()),
            }
        }

        fn modified(&self, path: &Path) -> Result<SystemTime, String> {
            match self.0.get(path) {
                Some((order, Some(_))) => {
                    Ok(SystemTime::UNIX_EPOCH + Duration::from_secs(*order as u64))
                }
                _ => Err("it is a link to nothing".into()),
            }
        }
    }

    fn sources(files: &[(&str, Option<&'static str>)]) -> Result<Vec<ApprovalSource>, String> {
        harness_sources(&Files::new(files), Path::new("/h"), "k")
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
    fn an_unreadable_grant_a_broken_record_or_an_unsafe_id_is_no_verdict() {
        let dangling = sources(&[REQUEST, ("checkpoint-k.md.granted", None)]).unwrap_err();
        assert!(dangling.contains("link to nothing"), "{dangling}");
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
        let unsafe_id = harness_sources(&Files::new(&[]), Path::new("/h"), "../x").unwrap_err();
        assert!(unsafe_id.contains("not filename-safe"), "{unsafe_id}");
        let no_dir = harness_sources(&Files::new(&[]), Path::new("/nope"), "k").unwrap_err();
        assert!(no_dir.contains("is not a directory"), "{no_dir}");
    }
}
