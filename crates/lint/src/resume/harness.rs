//! The harness sentinel protocol: a harness asks for an approval by writing
//! `checkpoint-<id>.md` into its directory and is answered by
//! `checkpoint-<id>.md.granted` beside it. An empty grant is one human
//! approval of the checkpoint as it stands; a grant holding an
//! ApprovalRecord is validated like any other. A grant is looked for before
//! the request: once granted, a leftover request does not matter.
//!
//! The files are reached through `SentinelFiles`, so the protocol is tested
//! without a disk.

use std::path::Path;

use crate::input::{self, Bound};
use crate::resume::{ApprovalSource, DocumentFormat, parse_document, parse_records};

/// What the protocol needs of a directory.
pub trait SentinelFiles {
    fn is_dir(&self, path: &Path) -> bool;
    /// Whether anything is at `path`. A link to nothing counts as there
    /// (reading it then fails, which is no verdict), never as absent: a
    /// pending request must not vanish because its target did.
    fn exists(&self, path: &Path) -> Result<bool, String>;
    /// A grant's bytes, read within the grant bound.
    fn read_grant(&self, path: &Path) -> Result<Vec<u8>, String>;
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
    if files.exists(&granted)? {
        let cannot = |why: String| format!("cannot read the harness grant `{location}`: {why}");
        let bytes = files.read_grant(&granted).map_err(cannot)?;
        let text = String::from_utf8(bytes).map_err(|_| cannot("it is not UTF-8".into()))?;
        if text.trim().is_empty() {
            return Ok(vec![ApprovalSource::HarnessGrant {
                location,
                record: None,
            }]);
        }
        let value =
            parse_document(&text, DocumentFormat::Detect).map_err(|e| cannot(e.to_string()))?;
        let records = parse_records(&value).map_err(|e| cannot(e.to_string()))?;
        return Ok(records
            .into_iter()
            .map(|record| ApprovalSource::HarnessGrant {
                location: location.clone(),
                record: Some(record),
            })
            .collect());
    }
    if files.exists(&request)? {
        return Ok(vec![ApprovalSource::HarnessPending {
            location: request.display().to_string(),
        }]);
    }
    Ok(Vec::new())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::PathBuf;

    use super::*;

    /// A directory `/h` holding these files (`None`: a link to nothing).
    struct Files(HashMap<PathBuf, Option<&'static str>>);

    impl Files {
        fn new(files: &[(&str, Option<&'static str>)]) -> Self {
            Files(
                files
                    .iter()
                    .map(|(name, text)| (Path::new("/h").join(name), *text))
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
                Some(Some(text)) => Ok(text.as_bytes().to_vec()),
                _ => Err("it is a link to nothing".into()),
            }
        }
    }

    fn sources(files: &[(&str, Option<&'static str>)]) -> Result<Vec<ApprovalSource>, String> {
        harness_sources(&Files::new(files), Path::new("/h"), "k")
    }

    #[test]
    fn nothing_there_is_no_approval() {
        assert_eq!(sources(&[]).unwrap().len(), 0);
    }

    #[test]
    fn a_request_without_a_grant_is_pending() {
        let found = sources(&[("checkpoint-k.md", Some("please"))]).unwrap();
        assert!(matches!(
            &found[..],
            [ApprovalSource::HarnessPending { .. }]
        ));
    }

    #[test]
    fn an_empty_grant_is_one_approval_and_wins_over_the_request() {
        let found = sources(&[
            ("checkpoint-k.md", Some("please")),
            ("checkpoint-k.md.granted", Some("  \n")),
        ])
        .unwrap();
        assert!(matches!(
            &found[..],
            [ApprovalSource::HarnessGrant { record: None, .. }]
        ));
    }

    #[test]
    fn a_grant_holding_records_hands_them_on() {
        let record = r#"{"approved_by": "ana", "approved_at": "2026-03-01T11:00:00Z", "policy": "human", "checkpoint_id": "k", "stale_fields_acknowledged": []}"#;
        let found = sources(&[("checkpoint-k.md.granted", Some(record))]).unwrap();
        assert!(matches!(
            &found[..],
            [ApprovalSource::HarnessGrant {
                record: Some(_),
                ..
            }]
        ));
    }

    #[test]
    fn an_unreadable_grant_or_an_unsafe_id_is_no_verdict() {
        let dangling = sources(&[("checkpoint-k.md.granted", None)]).unwrap_err();
        assert!(
            dangling.contains("cannot read the harness grant"),
            "{dangling}"
        );
        let not_yaml = sources(&[("checkpoint-k.md.granted", Some("[unclosed"))]).unwrap_err();
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
