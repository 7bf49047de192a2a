//! The scenario folders of `tests/resume-cases/` as their README says the
//! runner reads them: which folders, the arguments of a folder's run, and
//! the dating of its harness sentinels. Shared by `tests/resume.rs`, which
//! runs each folder as written, and `tests/contextcore.rs`, which runs
//! each again in ContextCore's format.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The resume time a folder's run gets unless its `args` name `--now`.
pub const NOW: &str = "2026-03-01T12:00:00Z";

/// The pipeline fixture, seen from a case folder.
pub const PIPELINE_FROM_A_CASE: &str = "../../../fixtures/resume/contracts/pipeline.contract.yaml";

/// Every scenario folder, in name order.
pub fn case_folders() -> Vec<PathBuf> {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/resume-cases");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    folders
}

/// Every file under `dir` with its bytes, to see that a run changed none.
pub fn files_under(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            let bytes = std::fs::read(&path).unwrap();
            files.insert(path, bytes);
        }
    }
    files
}

/// A harness writes its request `checkpoint-<id>.md` before anyone grants
/// it, and a grant counts only when it is not older than its request; a
/// checkout gives files whatever times it likes, so every request under
/// `folder` that has a grant beside it is dated a minute before the grant.
pub fn date_harness_requests_before_their_grants(folder: &Path) {
    let set = |path: &Path, time: std::time::SystemTime| {
        std::fs::File::options()
            .write(true)
            .open(path)
            .and_then(|file| file.set_modified(time))
            .unwrap();
    };
    let requested =
        std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_767_225_600);
    for (path, _) in files_under(folder) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(request) = name.strip_suffix(".granted") else {
            continue;
        };
        let request = path.with_file_name(request);
        let regular = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
        if regular(&path) && regular(&request) {
            set(&request, requested);
            set(&path, requested + std::time::Duration::from_secs(60));
        }
    }
}

/// The arguments of the folder's run: `resume-check`, the contract, the
/// context and `--now` unless `args` names them, then `args`. `format`:
/// `None` keeps the folder's `--format` (`json` when it names none);
/// `Some(F)` runs it with `--format F` instead. `Err`: the folder is laid
/// out wrongly.
pub fn case_args(folder: &Path, format: Option<&str>) -> Result<Vec<String>, String> {
    let listed = std::fs::read_to_string(folder.join("args")).unwrap_or_default();
    let mut given: Vec<String> = Vec::new();
    let mut lines = listed.lines().filter(|line| !line.is_empty());
    while let Some(line) = lines.next() {
        if format.is_some() && line == "--format" {
            lines.next();
        } else {
            given.push(line.to_string());
        }
    }
    let names = |flag: &str| given.iter().any(|a| a == flag);
    let mut args = vec!["resume-check".to_string()];
    if !names("--contract") {
        let contract = if folder.join("contract.yaml").is_file() {
            "contract.yaml"
        } else {
            PIPELINE_FROM_A_CASE
        };
        args.extend(["--contract".into(), contract.into()]);
    }
    let contexts: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file() && path.file_stem().is_some_and(|stem| stem == "context"))
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    match contexts.as_slice() {
        [] => {}
        [context] => args.extend(["--context".into(), context.clone()]),
        more => return Err(format!("more than one context file: {more:?}")),
    }
    if !names("--now") {
        args.extend(["--now".into(), NOW.into()]);
    }
    match format {
        Some(format) => args.extend(["--format".into(), format.into()]),
        None if !names("--format") => args.extend(["--format".into(), "json".into()]),
        None => {}
    }
    args.extend(given);
    Ok(args)
}
