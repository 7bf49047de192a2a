//! What phaselint writes in a harness directory, through `SentinelStore`:
//!
//! - `--consume` removes a granted request and its grant as the harness's
//!   start-up check does, both or neither across a crash. It works through
//!   a journal directory, `.checkpoint-<name>.consuming/`: (1) create it,
//!   (2) move the grant into it, (3) move the request into it, (4) delete
//!   what it holds, and it. A crash after (2) leaves the request without
//!   its grant, which the harness reads as a pause (fail closed, never a
//!   stale grant left behind to answer the next request); while the journal
//!   is there, every phaselint reading of the checkpoint is no verdict, and
//!   the next `--consume` finishes the removal (the request was moved: both
//!   go) or rolls it back (only the grant was moved: it is put back, so
//!   both stay).
//! - `harness fire` writes the request `checkpoint-<name>.md` (what the
//!   checkpoint is, its trigger and when, for whoever grants it) and then
//!   `.checkpoint-<name>.fired`, each complete or not at all and never over
//!   anything already there; it refuses a checkpoint already fired this
//!   mission or whose request is already pending.

use std::path::Path;

use jiff::Timestamp;
use serde::Serialize;

use crate::model::HarnessCheckpoint;
use crate::resume::harness::{
    EntryKind, SentinelFiles, SentinelPaths, interrupted_consume, read_sentinels,
};

/// What the writes need of a directory, besides reading it.
pub trait SentinelStore: SentinelFiles {
    /// Writes a new file holding `bytes`, complete or not at all;
    /// `Ok(false)` when anything is already at `path` (left as it is).
    fn create_new(&self, path: &Path, bytes: &[u8]) -> Result<bool, String>;
    /// Creates a directory; `Ok(false)` when anything is already there.
    fn create_dir(&self, path: &Path) -> Result<bool, String>;
    /// Renames a file; nothing is at `to`.
    fn rename(&self, from: &Path, to: &Path) -> Result<(), String>;
    fn remove_file(&self, path: &Path) -> Result<(), String>;
    fn remove_dir(&self, path: &Path) -> Result<(), String>;
}

/// What a `--consume` found of an interrupted earlier one, and did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JournalRecovery {
    /// The request had been moved: both files are gone now.
    Finished,
    /// Only the grant had been moved: it is back beside its request.
    RolledBack,
    /// Nothing had been moved yet: the empty journal is gone.
    Cleared,
}

impl JournalRecovery {
    pub fn describe(self) -> &'static str {
        match self {
            JournalRecovery::Finished => {
                "an interrupted --consume had moved the request and its grant: it is finished, both are removed"
            }
            JournalRecovery::RolledBack => {
                "an interrupted --consume had moved only the grant: it is rolled back, the grant is beside its request again"
            }
            JournalRecovery::Cleared => {
                "an interrupted --consume had moved nothing: its empty journal is removed"
            }
        }
    }
}

/// Finishes or rolls back an interrupted `--consume` of `name`, if its
/// journal is there.
pub fn recover_consume(
    store: &impl SentinelStore,
    dir: &Path,
    name: &str,
) -> Result<Option<JournalRecovery>, String> {
    let paths = SentinelPaths::of(dir, name)?;
    match store.kind(&paths.journal)? {
        EntryKind::Missing => return Ok(None),
        EntryKind::Dir => {}
        EntryKind::File | EntryKind::Other(_) => {
            return Err(format!(
                "`{}` is not the directory a --consume makes: remove it by hand (it is no journal of phaselint's)",
                paths.journal.display()
            ));
        }
    }
    let (moved_grant, moved_request) = (paths.journal_grant(), paths.journal_request());
    let there = |path: &Path| -> Result<bool, String> {
        match store.kind(path)? {
            EntryKind::Missing => Ok(false),
            EntryKind::File => Ok(true),
            EntryKind::Dir | EntryKind::Other(_) => Err(format!(
                "`{}` is not a file a --consume moved there: remove `{}` by hand",
                path.display(),
                paths.journal.display()
            )),
        }
    };
    let (grant_moved, request_moved) = (there(&moved_grant)?, there(&moved_request)?);
    let request_left = store.kind(&paths.request)? != EntryKind::Missing;
    let recovery = if request_moved || (grant_moved && !request_left) {
        JournalRecovery::Finished
    } else if grant_moved {
        JournalRecovery::RolledBack
    } else {
        JournalRecovery::Cleared
    };
    if recovery == JournalRecovery::RolledBack {
        if store.kind(&paths.grant)? == EntryKind::Missing {
            store.rename(&moved_grant, &paths.grant)?;
        } else {
            // Someone granted again meanwhile: that grant stands.
            store.remove_file(&moved_grant)?;
        }
    }
    if request_moved {
        store.remove_file(&moved_request)?;
    }
    if grant_moved && recovery == JournalRecovery::Finished {
        store.remove_file(&moved_grant)?;
    }
    store.remove_dir(&paths.journal)?;
    Ok(Some(recovery))
}

/// Removes a granted request and its grant, both or neither (see the
/// module's comment). The caller has checked that the grant answers the
/// request; a step that fails is rolled back when it can be, and is
/// otherwise left for the next `--consume` to finish or roll back.
pub fn consume(store: &impl SentinelStore, dir: &Path, name: &str) -> Result<(), String> {
    let paths = SentinelPaths::of(dir, name)?;
    let cannot = |e: String| format!("cannot consume checkpoint `{name}`: {e}");
    if !store.create_dir(&paths.journal).map_err(cannot)? {
        return Err(interrupted_consume(&paths, name));
    }
    if let Err(e) = store.rename(&paths.grant, &paths.journal_grant()) {
        let _ = store.remove_dir(&paths.journal);
        return Err(cannot(e));
    }
    if let Err(e) = store.rename(&paths.request, &paths.journal_request()) {
        let undone = recover_consume(store, dir, name).is_ok();
        return Err(cannot(if undone {
            format!("{e}; the grant was put back")
        } else {
            format!("{e}; {}", interrupted_consume(&paths, name))
        }));
    }
    store
        .remove_file(&paths.journal_request())
        .and_then(|()| store.remove_file(&paths.journal_grant()))
        .and_then(|()| store.remove_dir(&paths.journal))
        .map_err(|e| {
            cannot(format!(
                "{e}; both files are out of the way, and the next --consume removes `{}`",
                paths.journal.display()
            ))
        })
}

/// What `harness fire` did.
#[derive(Clone, Debug, Serialize)]
pub struct FireReport {
    pub(crate) version: u32,
    pub(crate) kind: &'static str,
    pub checkpoint_id: String,
    pub(crate) harness_dir: String,
    /// `TRIGGER` for the hook: the type's `triggerOn`, or `orchestrator`
    /// for a checkpoint taken on request.
    pub trigger: String,
    pub fired_at: String,
    pub request: String,
    pub fired: String,
    /// The `on-checkpoint-fired.sh` run, filled in by whoever runs it.
    pub hook: Option<HookRun>,
}

#[derive(Clone, Debug, Serialize)]
pub struct HookRun {
    pub path: String,
    /// `succeeded`, `failed`, `timed_out`, `not_started`.
    pub outcome: &'static str,
    pub exit_code: Option<i32>,
    pub detail: String,
}

/// Why `harness fire` did not fire.
#[derive(Debug, PartialEq, Eq)]
pub enum FireRefusal {
    /// Already fired this mission, or its request already pending (exit 1).
    Refused(String),
    /// The files cannot be read or written (exit 3).
    NoVerdict(String),
}

/// The trigger a fired checkpoint reports.
pub(crate) fn trigger_of(checkpoint: &HarnessCheckpoint) -> String {
    checkpoint
        .trigger_on
        .as_ref()
        .map_or_else(|| "orchestrator".to_string(), |t| t.value.clone())
}

/// `now` to the second, as the files show it.
fn seconds(now: Timestamp) -> String {
    now.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// What the request says, for the person who grants it.
pub(crate) fn request_text(
    checkpoint: &HarnessCheckpoint,
    name: &str,
    dir: &Path,
    now: Timestamp,
) -> String {
    let description = checkpoint
        .description
        .as_ref()
        .map_or("(the harness config gives no description)", |d| {
            d.value.as_str()
        });
    format!(
        "# Checkpoint `{name}`\n\n{description}\n\n- trigger: {}\n- fired: {} by `phaselint harness fire`\n\nThe harness does not start again until this request is granted: grant it in\nthe harness UI, or with `touch {}`.\n",
        trigger_of(checkpoint),
        seconds(now),
        dir.join(format!("checkpoint-{name}.md.granted")).display()
    )
}

/// Fires checkpoint `name` of `checkpoint`: writes its request, then its
/// `.fired` marker. The hook is the caller's to run.
pub fn fire(
    store: &impl SentinelStore,
    checkpoint: &HarnessCheckpoint,
    dir: &Path,
    name: &str,
    now: Timestamp,
) -> Result<FireReport, FireRefusal> {
    let sentinels = read_sentinels(store, dir, name).map_err(FireRefusal::NoVerdict)?;
    let paths = &sentinels.paths;
    if sentinels.fired.is_some() {
        return Err(FireRefusal::Refused(format!(
            "checkpoint `{name}` was already fired this mission (`{}` is there): do not fire it again (a new mission starts with no `.fired` marker)",
            paths.fired.display()
        )));
    }
    let pending = || {
        FireRefusal::Refused(format!(
            "checkpoint `{name}` already has a request `{}`: it is pending or granted, not to be fired over",
            paths.request.display()
        ))
    };
    if sentinels.request.is_some() {
        return Err(pending());
    }
    let written = |what: &str, e: String| {
        FireRefusal::NoVerdict(format!(
            "cannot write the {what} of checkpoint `{name}`: {e}"
        ))
    };
    let request = request_text(checkpoint, name, dir, now);
    if !store
        .create_new(&paths.request, request.as_bytes())
        .map_err(|e| written("request", e))?
    {
        return Err(pending());
    }
    let trigger = trigger_of(checkpoint);
    let marker = format!(
        "fired {} (trigger {trigger}) by phaselint harness fire\n",
        seconds(now)
    );
    if !store
        .create_new(&paths.fired, marker.as_bytes())
        .map_err(|e| written("fired marker", e))?
    {
        return Err(FireRefusal::NoVerdict(format!(
            "`{}` appeared while checkpoint `{name}` was fired; its request `{}` is written",
            paths.fired.display(),
            paths.request.display()
        )));
    }
    Ok(FireReport {
        version: 1,
        kind: "harness_fire",
        checkpoint_id: name.to_string(),
        harness_dir: dir.display().to_string(),
        trigger,
        fired_at: seconds(now),
        request: paths.request.display().to_string(),
        fired: paths.fired.display().to_string(),
        hook: None,
    })
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::path::Path;

    use super::*;
    use crate::resume::harness::tests::{Files, now};

    /// The in-memory directory, whose writes stop (as a crash would) once
    /// `steps_left` reaches zero.
    struct Store {
        files: Files,
        steps_left: Cell<usize>,
        clock: Cell<u64>,
    }

    impl Store {
        fn new(files: &[(&str, Option<&str>)], steps: usize) -> Self {
            Store {
                files: Files::new(files),
                steps_left: Cell::new(steps),
                clock: Cell::new(100),
            }
        }

        fn step(&self) -> Result<(), String> {
            match self.steps_left.get() {
                0 => Err("crashed".into()),
                n => {
                    self.steps_left.set(n - 1);
                    Ok(())
                }
            }
        }

        fn has(&self, name: &str) -> bool {
            self.kind(&Path::new("/h").join(name)).unwrap() != EntryKind::Missing
        }
    }

    impl SentinelFiles for Store {
        fn is_dir(&self, path: &Path) -> bool {
            self.files.is_dir(path)
        }
        fn read(&self, path: &Path) -> Result<Option<crate::resume::SentinelFile>, String> {
            self.files.read(path)
        }
        fn kind(&self, path: &Path) -> Result<EntryKind, String> {
            self.files.kind(path)
        }
    }

    impl SentinelStore for Store {
        fn create_new(&self, path: &Path, bytes: &[u8]) -> Result<bool, String> {
            if self.kind(path)? != EntryKind::Missing {
                return Ok(false);
            }
            self.step()?;
            self.clock.set(self.clock.get() + 1);
            self.files
                .files
                .borrow_mut()
                .insert(path.to_path_buf(), (self.clock.get(), Some(bytes.to_vec())));
            Ok(true)
        }
        fn create_dir(&self, path: &Path) -> Result<bool, String> {
            if self.kind(path)? != EntryKind::Missing {
                return Ok(false);
            }
            self.step()?;
            self.files.dirs.borrow_mut().push(path.to_path_buf());
            Ok(true)
        }
        fn rename(&self, from: &Path, to: &Path) -> Result<(), String> {
            self.step()?;
            let mut files = self.files.files.borrow_mut();
            let file = files.remove(from).ok_or("no such file")?;
            files.insert(to.to_path_buf(), file);
            Ok(())
        }
        fn remove_file(&self, path: &Path) -> Result<(), String> {
            self.step()?;
            self.files
                .files
                .borrow_mut()
                .remove(path)
                .map(|_| ())
                .ok_or("no such file".into())
        }
        fn remove_dir(&self, path: &Path) -> Result<(), String> {
            self.step()?;
            let mut dirs = self.files.dirs.borrow_mut();
            let before = dirs.len();
            dirs.retain(|d| d != path);
            if dirs.len() == before {
                return Err("no such directory".into());
            }
            Ok(())
        }
    }

    const GRANTED: &[(&str, Option<&str>)] = &[
        ("checkpoint-k.md", Some("please")),
        ("checkpoint-k.md.granted", Some("")),
    ];

    #[test]
    fn consume_removes_both_files_and_its_journal() {
        let store = Store::new(GRANTED, usize::MAX);
        consume(&store, Path::new("/h"), "k").unwrap();
        assert!(!store.has("checkpoint-k.md"));
        assert!(!store.has("checkpoint-k.md.granted"));
        assert!(!store.has(".checkpoint-k.consuming"));
    }

    #[test]
    fn a_crash_at_any_step_of_consume_leaves_both_files_or_neither_once_recovered() {
        // Consume takes 6 steps (make the journal, 2 moves, 3 removals).
        for crash_after in 0..6 {
            let store = Store::new(GRANTED, crash_after);
            assert!(
                consume(&store, Path::new("/h"), "k").is_err(),
                "{crash_after}"
            );
            // Meanwhile: never a grant without its request, and every
            // reading of the checkpoint is no verdict while the journal
            // is there.
            assert!(
                store.has("checkpoint-k.md") || !store.has("checkpoint-k.md.granted"),
                "{crash_after}: a grant left without its request"
            );
            if store.has(".checkpoint-k.consuming") {
                let error = read_sentinels(&store, Path::new("/h"), "k").unwrap_err();
                assert!(error.contains("was interrupted"), "{error}");
            }
            // The next --consume finishes or rolls back.
            store.steps_left.set(usize::MAX);
            recover_consume(&store, Path::new("/h"), "k").unwrap();
            let both = store.has("checkpoint-k.md") && store.has("checkpoint-k.md.granted");
            let neither = !store.has("checkpoint-k.md") && !store.has("checkpoint-k.md.granted");
            assert!(both || neither, "{crash_after}: one file left");
            assert!(!store.has(".checkpoint-k.consuming"), "{crash_after}");
            if both {
                // Rolled back: the grant still answers its request.
                let files = read_sentinels(&store, Path::new("/h"), "k").unwrap();
                assert!(files.grant.unwrap().modified >= files.request.unwrap().modified);
            }
        }
    }

    #[test]
    fn an_interrupted_consume_is_rolled_back_when_only_the_grant_moved() {
        let store = Store::new(GRANTED, 2);
        assert!(consume(&store, Path::new("/h"), "k").is_err());
        // The crash also stopped consume's own roll-back: the next run
        // does it.
        assert!(store.has(".checkpoint-k.consuming/granted"));
        store.steps_left.set(usize::MAX);
        let recovery = recover_consume(&store, Path::new("/h"), "k").unwrap();
        assert_eq!(recovery, Some(JournalRecovery::RolledBack));
        assert!(store.has("checkpoint-k.md") && store.has("checkpoint-k.md.granted"));
        assert_eq!(recover_consume(&store, Path::new("/h"), "k").unwrap(), None);
    }

    fn checkpoint() -> HarnessCheckpoint {
        let analysis = crate::analyze_kind(
            r#"{"checkpoints": {"enabled": true, "types": [{"name": "k", "triggerOn": "post-planner", "description": "Check the plan"}]}}"#,
            crate::DocumentKind::Harness,
            &crate::config::Settings::default(),
        );
        analysis.harness().unwrap().checkpoints[0].clone()
    }

    #[test]
    fn fire_writes_the_request_then_the_marker_and_never_twice() {
        let store = Store::new(&[], usize::MAX);
        let report = fire(&store, &checkpoint(), Path::new("/h"), "k", now()).unwrap();
        assert_eq!(report.trigger, "post-planner");
        let request = store
            .files
            .read(Path::new("/h/checkpoint-k.md"))
            .unwrap()
            .unwrap();
        let text = String::from_utf8(request.bytes).unwrap();
        assert!(
            text.contains("Check the plan") && text.contains("trigger: post-planner"),
            "{text}"
        );
        assert!(store.has(".checkpoint-k.fired"));
        let again = fire(&store, &checkpoint(), Path::new("/h"), "k", now()).unwrap_err();
        assert!(
            matches!(&again, FireRefusal::Refused(m) if m.contains("already fired")),
            "{again:?}"
        );
        let pending = Store::new(&[("checkpoint-k.md", Some("x"))], usize::MAX);
        let refused = fire(&pending, &checkpoint(), Path::new("/h"), "k", now()).unwrap_err();
        assert!(
            matches!(&refused, FireRefusal::Refused(m) if m.contains("already has a request")),
            "{refused:?}"
        );
        // A crash between the two writes leaves a pending request, never
        // a marker without its request.
        let crashed = Store::new(&[], 1);
        assert!(fire(&crashed, &checkpoint(), Path::new("/h"), "k", now()).is_err());
        assert!(crashed.has("checkpoint-k.md") && !crashed.has(".checkpoint-k.fired"));
    }
}
