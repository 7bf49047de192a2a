//! `phaselint diff` beyond one pair, through the real binary: `--mode
//! approvals` (only what voids approvals recorded under OLD), `--against
//! DIR_OR_FILE NEW` (NEW against every older version) and `--git REV
//! [FILE...]` (each file against its version at a revision, in a real git
//! repository made in a temporary folder; no network).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

#[path = "support/binary.rs"]
mod binary;
use binary::{Run, phaselint};
#[path = "support/git.rs"]
mod git;
use git::git;

fn repo() -> PathBuf {
    std::path::absolute(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

/// A fixture of `fixtures/diff/`, as text.
fn fixture(name: &str) -> String {
    std::fs::read_to_string(repo().join("fixtures/diff").join(name)).unwrap()
}

const BASE: &str = "base.contract.yaml";

/// The codes a concise report lists, in order.
fn codes(run: &Run) -> Vec<String> {
    run.stdout
        .lines()
        .filter_map(|line| line.split(": ").nth(1))
        .filter_map(|rest| rest.split(' ').next())
        .map(str::to_string)
        .collect()
}

/// The (file, code) of each line of a concise report, in order.
fn files_and_codes(run: &Run) -> Vec<(String, String)> {
    run.stdout
        .lines()
        .filter_map(|line| {
            let (place, rest) = line.split_once(": ")?;
            let file = place.split(':').next()?;
            Some((file.to_string(), rest.split(' ').next()?.to_string()))
        })
        .collect()
}

// --mode ------------------------------------------------------------------

fn diff_mode(mode: Option<&str>, new: &str) -> Run {
    let mut args = vec!["diff", "--format", "concise"];
    if let Some(mode) = mode {
        args.extend(["--mode", mode]);
    }
    let old = format!("fixtures/diff/{BASE}");
    let new = format!("fixtures/diff/{new}");
    args.extend([old.as_str(), new.as_str()]);
    phaselint(&repo(), &args)
}

/// For NEW fixtures whose findings mix kinds: what each mode keeps and
/// the exit code. `approvals` keeps D601, D611, D613, D614 only.
/// (NEW, resume's codes, its exit code, approvals' codes, its exit code)
type ModeCase = (
    &'static str,
    &'static [&'static str],
    i32,
    &'static [&'static str],
    i32,
);

const MODE_CASES: &[ModeCase] = &[
    (
        "D606/fail.contract.yaml",
        &["D606", "D606", "D611", "D613"],
        1,
        &["D611", "D613"],
        0,
    ),
    (
        "D603/fail.contract.yaml",
        &["D603", "D611"],
        1,
        &["D611"],
        0,
    ),
    (
        "D612/fail.contract.yaml",
        &["D611", "D612"],
        0,
        &["D611"],
        0,
    ),
    // A renamed checkpoint: the approvals recorded for its old id are void.
    (
        "D601/fail-renamed.contract.yaml",
        &["D601"],
        1,
        &["D601"],
        1,
    ),
    (
        "D614/fail.contract.yaml",
        &["D614", "D611", "D611"],
        0,
        &["D614", "D611", "D611"],
        0,
    ),
    ("D621/fail.contract.yaml", &["D621"], 0, &[], 0),
];

#[test]
fn mode_approvals_keeps_only_what_voids_approvals_and_resume_is_the_default() {
    for &(new, resume, resume_exit, approvals, approvals_exit) in MODE_CASES {
        let default = diff_mode(None, new);
        let explicit = diff_mode(Some("resume"), new);
        assert_eq!(codes(&default), resume, "{new}: {}", default.stdout);
        assert_eq!(default.code, resume_exit, "{new}: {}", default.stderr);
        assert_eq!(default.stdout, explicit.stdout, "{new}: --mode resume");
        assert_eq!(default.code, explicit.code);

        let run = diff_mode(Some("approvals"), new);
        assert_eq!(codes(&run), approvals, "{new}: {}", run.stdout);
        assert_eq!(run.code, approvals_exit, "{new}: {}", run.stderr);
    }
}

#[test]
fn an_unknown_mode_is_a_usage_error() {
    // phaselint's usage errors are no verdict (2 is `denied`).
    let run = diff_mode(Some("forward"), "D611/pass.contract.yaml");
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("approvals"), "{}", run.stderr);
}

/// The SARIF log's results and its rules (the rules run: the D-codes
/// once they are in the rule registry) stay within the mode's codes.
#[test]
fn sarif_results_and_rules_stay_within_the_mode() {
    let run = phaselint(
        &repo(),
        &[
            "diff",
            "--mode",
            "approvals",
            "--format",
            "sarif",
            "fixtures/diff/base.contract.yaml",
            "fixtures/diff/D606/fail.contract.yaml",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let log: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let approvals = ["D601", "D611", "D613", "D614"];
    let results: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["D611", "D613"]);
    for rule in log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let id = rule["id"].as_str().unwrap();
        assert!(
            approvals.contains(&id),
            "rule {id} listed in approvals mode"
        );
    }
}

// --against ---------------------------------------------------------------

/// A folder of older versions: `v1` the base, `v2` with a staleness
/// check tightened, and a YAML file that is no contract (not read).
fn versions() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("versions");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("v1.contract.yaml"), fixture(BASE)).unwrap();
    std::fs::write(
        folder.join("v2.contract.yml"),
        fixture("D612/fail.contract.yaml"),
    )
    .unwrap();
    std::fs::write(folder.join("notes.yaml"), "not: [a contract\n").unwrap();
    std::fs::create_dir(folder.join("older")).unwrap();
    std::fs::write(folder.join("older/v0.contract.yaml"), "broken: [\n").unwrap();
    std::fs::write(
        dir.path().join("new.contract.yaml"),
        fixture("D603/fail.contract.yaml"),
    )
    .unwrap();
    dir
}

#[test]
fn against_a_folder_diffs_new_with_each_contract_in_it_in_name_order() {
    let dir = versions();
    let run = phaselint(
        dir.path(),
        &[
            "diff",
            "--format",
            "concise",
            "--against",
            "versions",
            "new.contract.yaml",
        ],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().filter(|l| l.contains(": D")).collect();
    assert_eq!(lines.len(), 5, "{}", run.stdout);
    // v2's max_age_seconds was 60, NEW's is 600: loosened (D622).
    assert_eq!(codes(&run), ["D603", "D611", "D603", "D611", "D622"]);
    // Each finding names the OLD it comes from; v1's come first.
    for line in &lines[..2] {
        assert!(
            line.contains("(against OLD `versions/v1.contract.yaml`)"),
            "{line}"
        );
    }
    for line in &lines[2..] {
        assert!(
            line.contains("(against OLD `versions/v2.contract.yml`)"),
            "{line}"
        );
    }
    // The run is the same each time.
    let again = phaselint(
        dir.path(),
        &[
            "diff",
            "--format",
            "concise",
            "--against",
            "versions",
            "new.contract.yaml",
        ],
    );
    assert_eq!(again.stdout, run.stdout);
}

#[test]
fn against_files_named_one_by_one_and_the_worst_exit_code() {
    let dir = versions();
    // Against v2 alone nothing is an error; against v1 too, D603 is.
    std::fs::write(
        dir.path().join("new.contract.yaml"),
        fixture("D612/fail.contract.yaml"),
    )
    .unwrap();
    let only_v2 = phaselint(
        dir.path(),
        &[
            "diff",
            "--format",
            "concise",
            "--against",
            "versions/v2.contract.yml",
            "new.contract.yaml",
        ],
    );
    assert_eq!(only_v2.code, 0, "{}{}", only_v2.stdout, only_v2.stderr);
    assert_eq!(codes(&only_v2), Vec::<String>::new());

    std::fs::write(
        dir.path().join("new.contract.yaml"),
        fixture("D603/fail.contract.yaml"),
    )
    .unwrap();
    let both = phaselint(
        dir.path(),
        &[
            "diff",
            "--format",
            "concise",
            "--mode",
            "approvals",
            "--against",
            "versions/v2.contract.yml",
            "--against",
            "versions/v1.contract.yaml",
            "new.contract.yaml",
        ],
    );
    // Named files keep the order given; approvals mode drops D603.
    assert_eq!(both.code, 0, "{}{}", both.stdout, both.stderr);
    assert_eq!(codes(&both), ["D611", "D611"]);
    let lines: Vec<&str> = both.stdout.lines().filter(|l| l.contains(": D")).collect();
    assert!(lines[0].contains("v2.contract.yml"), "{}", both.stdout);
    assert!(lines[1].contains("v1.contract.yaml"), "{}", both.stdout);
}

#[test]
fn against_a_folder_that_holds_new_skips_new_itself() {
    let dir = versions();
    let run = phaselint(
        dir.path(),
        &[
            "diff",
            "--format",
            "concise",
            "--against",
            "versions",
            "versions/v1.contract.yaml",
        ],
    );
    assert!(
        run.stderr
            .contains("is NEW itself: not compared with itself"),
        "{}",
        run.stderr
    );
    // Only v2 is compared: v1 loosens its staleness check again.
    assert!(
        run.stdout
            .lines()
            .filter(|l| l.contains(": D"))
            .all(|l| l.contains("v2.contract.yml")),
        "{}",
        run.stdout
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn against_an_old_version_with_errors_is_no_verdict_naming_it() {
    let dir = versions();
    std::fs::write(
        dir.path().join("versions/v3.contract.yaml"),
        "schema_version: 1\nphases: {}\n",
    )
    .unwrap();
    let run = phaselint(
        dir.path(),
        &["diff", "--against", "versions", "new.contract.yaml"],
    );
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("OLD (`versions/v3.contract.yaml`): the contract has errors"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

#[test]
fn against_a_folder_without_contracts_is_no_verdict() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    std::fs::write(dir.path().join("empty/notes.yaml"), "a: 1\n").unwrap();
    std::fs::write(dir.path().join("new.contract.yaml"), fixture(BASE)).unwrap();
    let run = phaselint(
        dir.path(),
        &["diff", "--against", "empty", "new.contract.yaml"],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("no older version to compare NEW with"),
        "{}",
        run.stderr
    );
}

#[test]
fn against_wants_new_alone() {
    let dir = versions();
    let run = phaselint(
        dir.path(),
        &[
            "diff",
            "--against",
            "versions",
            "versions/v1.contract.yaml",
            "new.contract.yaml",
        ],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("give NEW alone"), "{}", run.stderr);
    let run = phaselint(dir.path(), &["diff", "--against", "-", "-"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("only one of"), "{}", run.stderr);
}

#[test]
fn against_with_new_on_standard_input() {
    let dir = versions();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args(["diff", "--format", "concise", "--against", "versions", "-"])
        .current_dir(dir.path())
        .stdin(std::fs::File::open(dir.path().join("new.contract.yaml")).unwrap())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert_eq!(stdout.lines().filter(|l| l.contains(": D603 ")).count(), 2);
}

#[cfg(unix)]
#[test]
fn against_a_folder_does_not_follow_a_link_out_of_it() {
    let dir = versions();
    let outside = dir.path().join("secret.yaml");
    std::fs::write(&outside, fixture(BASE)).unwrap();
    std::os::unix::fs::symlink(&outside, dir.path().join("versions/v9.contract.yaml")).unwrap();
    let run = phaselint(
        dir.path(),
        &["diff", "--against", "versions", "new.contract.yaml"],
    );
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("v9.contract.yaml") && run.stderr.contains("symbolic link"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

// --git -------------------------------------------------------------------

/// The base fixture with its own pipeline_id (a contract's identity).
fn base_as(pipeline_id: &str) -> String {
    fixture(BASE).replace(
        "pipeline_id: rag-answer",
        &format!("pipeline_id: {pipeline_id}"),
    )
}

/// A repository whose first commit (`main`, tagged `v1`) holds
/// `pipelines/rag.contract.yaml`, `pipelines/same.contract.yaml` and
/// `pipelines/gone.contract.yaml` (each the base, `rag` with its
/// pipeline_id, the others with their own) and a README. In the work tree
/// since: `rag` re-routes `pre_publish` (D603), `gone` is deleted, `added`
/// (a pipeline_id of its own) is new and added to the index, the README
/// changed.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("pipelines")).unwrap();
    for (name, id) in [("rag", "rag-answer"), ("same", "same"), ("gone", "gone")] {
        std::fs::write(
            root.join(format!("pipelines/{name}.contract.yaml")),
            base_as(id),
        )
        .unwrap();
    }
    std::fs::write(root.join("README.md"), "v1\n").unwrap();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "v1"]);
    git(root, &["tag", "v1"]);
    std::fs::write(
        root.join("pipelines/rag.contract.yaml"),
        fixture("D603/fail.contract.yaml"),
    )
    .unwrap();
    std::fs::remove_file(root.join("pipelines/gone.contract.yaml")).unwrap();
    std::fs::write(root.join("pipelines/added.contract.yaml"), base_as("added")).unwrap();
    git(root, &["add", "pipelines/added.contract.yaml"]);
    std::fs::write(root.join("README.md"), "v2\n").unwrap();
    dir
}

#[test]
fn git_with_files_compares_each_with_its_version_at_rev() {
    let dir = project();
    let run = phaselint(
        dir.path(),
        &[
            "diff",
            "--format",
            "concise",
            "--git",
            "main",
            "pipelines/rag.contract.yaml",
            "pipelines/same.contract.yaml",
        ],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        files_and_codes(&run),
        [
            ("pipelines/rag.contract.yaml".into(), "D603".into()),
            ("pipelines/rag.contract.yaml".into(), "D611".into()),
        ]
    );
    // The same from inside `pipelines/`: paths are the work tree's, git
    // is asked for them from the repository's root.
    let inside = phaselint(
        &dir.path().join("pipelines"),
        &[
            "diff",
            "--format",
            "concise",
            "--git",
            "v1",
            "rag.contract.yaml",
        ],
    );
    assert_eq!(inside.code, 1, "{}{}", inside.stdout, inside.stderr);
    assert_eq!(
        files_and_codes(&inside),
        [
            ("rag.contract.yaml".into(), "D603".into()),
            ("rag.contract.yaml".into(), "D611".into()),
        ]
    );
}

#[test]
fn git_without_files_compares_every_contract_that_differs_from_rev() {
    let dir = project();
    let run = phaselint(
        dir.path(),
        &["diff", "--format", "concise", "--git", "main"],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    // `gone` is deleted: each checkpoint it had is removed, shown in its
    // text at REV; `rag` is diffed; `same` and the README are not read;
    // `added` is new.
    assert_eq!(
        files_and_codes(&run),
        [
            ("pipelines/gone.contract.yaml".into(), "D601".into()),
            ("pipelines/gone.contract.yaml".into(), "D601".into()),
            ("pipelines/rag.contract.yaml".into(), "D603".into()),
            ("pipelines/rag.contract.yaml".into(), "D611".into()),
        ]
    );
    assert!(
        run.stdout
            .contains("is removed with its contract (the file is deleted in the work tree"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr
            .contains("`pipelines/added.contract.yaml` is new since `main`"),
        "{}",
        run.stderr
    );
    // -q: the findings only, no notes.
    let quiet = phaselint(
        dir.path(),
        &["diff", "-q", "--format", "concise", "--git", "main"],
    );
    assert!(quiet.stderr.is_empty(), "{}", quiet.stderr);
    // In approvals mode the deleted file's D601s stay (its approvals are
    // void), D603 goes.
    let approvals = phaselint(
        dir.path(),
        &[
            "diff",
            "--mode",
            "approvals",
            "--format",
            "concise",
            "--git",
            "main",
        ],
    );
    assert_eq!(codes(&approvals), ["D601", "D601", "D611"]);
}

#[test]
fn git_with_nothing_changed_is_a_note_and_exit_0() {
    let dir = project();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "v2"]);
    let run = phaselint(dir.path(), &["diff", "--git", "HEAD"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("no contract"), "{}", run.stderr);
    // Against the tag, the committed change is still found.
    let run = phaselint(dir.path(), &["diff", "--format", "concise", "--git", "v1"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
}

#[test]
fn git_with_a_revision_that_does_not_resolve_is_no_verdict() {
    let dir = project();
    for revision in [
        "no-such-branch",
        "HEAD~5",
        "0000000000000000000000000000000000000000",
    ] {
        let run = phaselint(
            dir.path(),
            &["diff", "--git", revision, "pipelines/rag.contract.yaml"],
        );
        assert_eq!(run.code, 3, "{revision}: {}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("`{revision}` names no commit in the repository")),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("fetch-depth: 0"), "{}", run.stderr);
    }
}

#[test]
fn git_outside_a_repository_is_no_verdict() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.contract.yaml"), fixture(BASE)).unwrap();
    let run = phaselint(dir.path(), &["diff", "--git", "HEAD", "a.contract.yaml"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("not inside a git work tree"),
        "{}",
        run.stderr
    );
}

#[test]
fn git_with_a_file_new_since_rev_says_so_and_compares_nothing() {
    let dir = project();
    let run = phaselint(
        dir.path(),
        &["diff", "--git", "main", "pipelines/added.contract.yaml"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("is new since `main`"), "{}", run.stderr);
    // A file that is nowhere is no verdict.
    let run = phaselint(
        dir.path(),
        &["diff", "--git", "main", "pipelines/typo.contract.yaml"],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("neither in the work tree nor at `main`"),
        "{}",
        run.stderr
    );
}

#[test]
fn git_with_an_old_version_with_errors_is_no_verdict_naming_it() {
    let dir = project();
    std::fs::write(
        dir.path().join("pipelines/same.contract.yaml"),
        "schema_version: 1\nphases: {}\n",
    )
    .unwrap();
    git(dir.path(), &["commit", "-q", "-am", "broken"]);
    std::fs::write(
        dir.path().join("pipelines/same.contract.yaml"),
        fixture(BASE),
    )
    .unwrap();
    let run = phaselint(
        dir.path(),
        &["diff", "--git", "HEAD", "pipelines/same.contract.yaml"],
    );
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("OLD (`HEAD:pipelines/same.contract.yaml`): the contract has errors"),
        "{}",
        run.stderr
    );
}

#[test]
fn git_does_not_take_standard_input_or_against() {
    let dir = project();
    let run = phaselint(dir.path(), &["diff", "--git", "main", "-"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    let run = phaselint(
        dir.path(),
        &[
            "diff",
            "--git",
            "main",
            "--against",
            "pipelines",
            "pipelines/rag.contract.yaml",
        ],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("cannot be combined"), "{}", run.stderr);
}

#[cfg(unix)]
#[test]
fn git_does_not_follow_a_link_a_change_puts_where_a_contract_was() {
    let dir = project();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "password: hunter2\n").unwrap();
    let same = dir.path().join("pipelines/same.contract.yaml");
    std::fs::remove_file(&same).unwrap();
    std::os::unix::fs::symlink(&secret, &same).unwrap();
    let run = phaselint(dir.path(), &["diff", "--git", "main"]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("symbolic link"), "{}", run.stderr);
    assert!(!run.stdout.contains("hunter2") && !run.stderr.contains("hunter2"));
}

/// The repository's own configuration cannot make `diff --git` run a
/// program: git runs as the stash check runs it (`git.rs`), with
/// `core.fsmonitor` off, no pager and plumbing that takes no external
/// diff. (A clean filter can still run on a racily clean file: see
/// docs/diff.md, "What git runs".)
#[cfg(unix)]
#[test]
fn git_runs_nothing_the_repository_configures() {
    let dir = project();
    let root = dir.path();
    for (key, marker) in [
        ("core.fsmonitor", "FSMONITOR"),
        ("core.pager", "PAGER"),
        ("diff.external", "EXTERNAL"),
        ("core.hooksPath", "HOOKS"),
    ] {
        let script = root.join(format!("{marker}.sh"));
        std::fs::write(
            &script,
            format!("#!/bin/sh\ntouch '{}'\n", root.join(marker).display()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        git(root, &["config", key, script.to_str().unwrap()]);
    }
    let run = phaselint(root, &["diff", "--format", "concise", "--git", "main"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    for marker in ["FSMONITOR", "PAGER", "EXTERNAL", "HOOKS"] {
        assert!(
            !root.join(marker).exists(),
            "git ran the configured {marker}"
        );
    }
}

// --git and --against under attack (issue 23's hardening) ------------------

/// A repository whose one commit holds `files` (path, text); its SHA.
fn committed(files: &[(&str, String)]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    let base = git(root, &["rev-parse", "HEAD"]).trim().to_string();
    (dir, base)
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn diff_git(root: &Path, base: &str, files: &[&str]) -> Run {
    let mut args = vec!["diff", "--format", "concise", "--git", base];
    args.extend(files);
    phaselint(root, &args)
}

#[test]
fn git_judges_with_the_configuration_at_rev_not_the_changes_own() {
    let drop = fixture("D601/fail.contract.yaml");
    for own in [
        "[severity]\nD601 = \"info\"\nD611 = \"info\"\n",
        "ignore = [\"D601\"]\n",
        "select = [\"E\"]\n",
    ] {
        let (dir, base) = committed(&[("p/a.contract.yaml", fixture(BASE))]);
        let root = dir.path();
        write(root, "p/a.contract.yaml", &drop);
        write(root, "p/phaselint.toml", own);
        let run = diff_git(root, &base, &[]);
        assert_eq!(run.code, 1, "{own}: {}{}", run.stdout, run.stderr);
        assert!(codes(&run).contains(&"D601".to_string()), "{}", run.stdout);
        assert!(
            run.stderr.contains(&format!(
                "`p/phaselint.toml` changed since `{base}`: diff judges with its version at `{base}`"
            )),
            "{}",
            run.stderr
        );
        // Named explicitly, a configuration is used as named.
        let run = phaselint(
            root,
            &[
                "diff",
                "--format",
                "concise",
                "--config",
                "p/phaselint.toml",
                "--git",
                &base,
            ],
        );
        assert_eq!(run.code, 0, "{own}: {}{}", run.stdout, run.stderr);
    }
    // The base's own configuration does apply, found from the file's folder
    // up as on disk: here it sets D601 to a warning.
    let (dir, base) = committed(&[
        ("p/a.contract.yaml", fixture(BASE)),
        (
            "p/phaselint.toml",
            "[severity]\nD601 = \"warning\"\n".into(),
        ),
    ]);
    write(dir.path(), "p/a.contract.yaml", &drop);
    std::fs::remove_file(dir.path().join("p/phaselint.toml")).unwrap();
    let run = diff_git(dir.path(), &base, &[]);
    assert!(run.stdout.contains("D601"), "{}", run.stdout);
    assert!(
        run.stdout
            .lines()
            .filter(|l| l.contains("D601"))
            .all(|l| l.contains("warning")),
        "{}",
        run.stdout
    );
    // (c) a deleted folder and a new pyproject.toml whose per-file-ignores
    // would cover it: REV has none, so both deletions are reported.
    let (dir, base) = committed(&[
        ("p/a.contract.yaml", fixture(BASE)),
        ("p/q/a.contract.yaml", base_as("other")),
    ]);
    let root = dir.path();
    git(root, &["rm", "-q", "-r", "p"]);
    write(
        root,
        "pyproject.toml",
        "[tool.phaselint.per-file-ignores]\n\"p/**\" = [\"D601\"]\n",
    );
    let run = diff_git(root, &base, &[]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("p/a.contract.yaml") && run.stdout.contains("p/q/a.contract.yaml"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("`pyproject.toml` changed since"),
        "{}",
        run.stderr
    );
}

#[test]
fn git_refuses_a_contract_inside_a_submodule() {
    let (sub, _) = committed(&[("c.contract.yaml", fixture(BASE))]);
    let (dir, _) = committed(&[("README.md", "main\n".into())]);
    let root = dir.path();
    git(
        root,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            sub.path().to_str().unwrap(),
            "contracts",
        ],
    );
    git(root, &["commit", "-q", "-m", "submodule"]);
    let base = git(root, &["rev-parse", "HEAD"]).trim().to_string();
    let inner = root.join("contracts");
    write(
        &inner,
        "c.contract.yaml",
        &fixture("D601/fail.contract.yaml"),
    );
    git(&inner, &["commit", "-q", "-am", "drop"]);
    git(root, &["commit", "-q", "-am", "bump"]);
    let run = diff_git(root, &base, &[]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("submodule `contracts` differs from")
            && run
                .stderr
                .contains("run `phaselint diff` inside the submodule"),
        "{}",
        run.stderr
    );
    let run = diff_git(root, &base, &["contracts/c.contract.yaml"]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("is inside submodule `contracts` at"),
        "{}",
        run.stderr
    );
    // Inside the submodule, diff compares it.
    let run = diff_git(&inner, "HEAD~1", &[]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
}

#[cfg(unix)]
#[test]
fn git_refuses_a_contract_link_whose_target_changed() {
    let (dir, _) = committed(&[("real.yaml", fixture(BASE))]);
    let root = dir.path();
    std::os::unix::fs::symlink("real.yaml", root.join("s.contract.yaml")).unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "link"]);
    write(root, "real.yaml", &fixture("D601/fail.contract.yaml"));
    let run = diff_git(root, "HEAD", &[]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("`s.contract.yaml` is a symbolic link at `HEAD` to `real.yaml`"),
        "{}",
        run.stderr
    );
    // Its target unchanged, the link is no reason to refuse.
    write(root, "real.yaml", &fixture(BASE));
    write(root, "README.md", "x\n");
    git(root, &["add", "README.md"]);
    let run = diff_git(root, "HEAD", &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn git_compares_a_moved_or_copied_contract_by_pipeline_id() {
    let drop = fixture("D601/fail.contract.yaml");
    let setup = || {
        committed(&[
            ("pipelines/rag.contract.yaml", fixture(BASE)),
            ("other/unrelated.contract.yaml", base_as("unrelated")),
        ])
    };
    // Renamed and changed, named: compared with the old path.
    let (dir, base) = setup();
    let root = dir.path();
    git(
        root,
        &[
            "mv",
            "pipelines/rag.contract.yaml",
            "pipelines/rag-v2.contract.yaml",
        ],
    );
    write(root, "pipelines/rag-v2.contract.yaml", &drop);
    let run = diff_git(root, &base, &["pipelines/rag-v2.contract.yaml"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(codes(&run).contains(&"D601".to_string()), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("compared with `pipelines/rag.contract.yaml` at")
            && run.stderr.contains("(same pipeline_id `rag-answer`)"),
        "{}",
        run.stderr
    );
    // The same with no FILE: one comparison, the old path not "deleted".
    let run = diff_git(root, &base, &[]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        files_and_codes(&run)
            .iter()
            .all(|(f, _)| f == "pipelines/rag-v2.contract.yaml"),
        "{}",
        run.stdout
    );
    // A pure `git mv`: nothing to report, no false D601.
    let (dir, base) = setup();
    let root = dir.path();
    git(
        root,
        &[
            "mv",
            "pipelines/rag.contract.yaml",
            "pipelines/rag-v2.contract.yaml",
        ],
    );
    let run = diff_git(root, &base, &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("D601"), "{}", run.stdout);
    // A changed copy beside the unchanged original.
    let (dir, base) = setup();
    let root = dir.path();
    write(root, "elsewhere/copy.contract.yaml", &drop);
    git(root, &["add", "-A"]);
    let run = diff_git(root, &base, &[]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(codes(&run).contains(&"D601".to_string()), "{}", run.stdout);
    // Truly new (a pipeline_id REV does not know): a note, "Nothing compared".
    let (dir, base) = setup();
    let root = dir.path();
    write(root, "new.contract.yaml", &base_as("brand-new"));
    git(root, &["add", "-A"]);
    let run = diff_git(root, &base, &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("no contract there has its pipeline_id"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout.trim(), "Nothing compared.");
}

#[cfg(unix)]
#[test]
fn git_refuses_a_link_in_a_parent_folder() {
    let (dir, base) = committed(&[
        ("p/a.contract.yaml", fixture(BASE)),
        ("outside/a.contract.yaml", fixture(BASE)),
    ]);
    let root = dir.path();
    git(root, &["rm", "-q", "-r", "p"]);
    write(
        root,
        "q/a.contract.yaml",
        &fixture("D601/fail.contract.yaml"),
    );
    std::os::unix::fs::symlink("outside", root.join("p")).unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "pr"]);
    let run = diff_git(root, &base, &[]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("`p`") && run.stderr.contains("symbolic link"),
        "{}",
        run.stderr
    );
}

#[cfg(target_os = "linux")]
#[test]
fn names_that_are_not_utf8_are_no_verdict() {
    use std::os::unix::ffi::OsStrExt;
    let raw = std::ffi::OsStr::from_bytes(b"a\xff.contract.yaml");
    let (dir, _) = committed(&[("a\u{FFFD}.contract.yaml", fixture(BASE))]);
    let root = dir.path();
    std::fs::write(root.join(raw), fixture(BASE)).unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "twin"]);
    std::fs::write(root.join(raw), fixture("D601/fail.contract.yaml")).unwrap();
    let run = diff_git(root, "HEAD", &[]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(r"a\xff.contract.yaml"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("not UTF-8"), "{}", run.stderr);
    // --against: a version whose name is not UTF-8 is not left out.
    let dir = versions();
    let root = dir.path();
    std::fs::write(
        root.join("versions")
            .join(std::ffi::OsStr::from_bytes(b"v0-\xff.contract.yaml")),
        fixture(BASE),
    )
    .unwrap();
    let run = phaselint(
        root,
        &["diff", "--against", "versions", "new.contract.yaml"],
    );
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(r"v0-\xff.contract.yaml"),
        "{}",
        run.stderr
    );
}

#[cfg(unix)]
#[test]
fn a_git_failure_says_why_and_a_link_to_new_in_a_versions_folder_is_no_verdict() {
    let dir = project();
    let run = phaselint(
        dir.path(),
        &["diff", "--git", "HEAD:../x", "pipelines/rag.contract.yaml"],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(!run.stderr.contains("ended early"), "{}", run.stderr);
    assert!(run.stderr.contains("outside repository"), "{}", run.stderr);
    let dir = versions();
    std::os::unix::fs::symlink(
        dir.path().join("new.contract.yaml"),
        dir.path().join("versions/v3.contract.yaml"),
    )
    .unwrap();
    let run = phaselint(
        dir.path(),
        &["diff", "--against", "versions", "new.contract.yaml"],
    );
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("v3.contract.yaml") && run.stderr.contains("symbolic link"),
        "{}",
        run.stderr
    );
}
