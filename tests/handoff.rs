//! `phaselint resume-check --handoff` through the real binary, always with
//! a fixed `--now`: one case per rule of the handoff format, each JSON
//! report snapshotted whole. The base document is the checkpoint skill's
//! own example handoff (`fixtures/handoff/skill-example.md`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

#[path = "support/binary.rs"]
mod binary;
use binary::{Run, phaselint};

const NOW: &str = "2026-01-26T12:00:00Z";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example() -> String {
    std::fs::read_to_string(repo().join("fixtures/handoff/skill-example.md")).unwrap()
}

/// The example with `find` replaced by `replace` (which must be there).
fn edited(find: &str, replace: &str) -> String {
    let text = example();
    assert!(text.contains(find), "{find:?} is not in the example");
    text.replacen(find, replace, 1)
}

/// Runs the check on `text` written at `relative` in a fresh directory.
fn check_at(relative: &str, text: &[u8], extra: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(relative);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, text).unwrap();
    run_in(dir.path(), relative, extra)
}

fn run_in(dir: &Path, relative: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "resume-check",
        "--handoff",
        relative,
        "--now",
        NOW,
        "--no-config",
    ];
    args.extend_from_slice(extra);
    phaselint(dir, &args)
}

/// The JSON report of `text`, with the exit code it must give.
fn json(text: &str, extra: &[&str], exit: i32) -> String {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    let run = check_at("handoff.md", text.as_bytes(), &args);
    assert_eq!(run.code, exit, "{}{}", run.stdout, run.stderr);
    run.stdout
}

#[test]
fn the_skill_example_resumes() {
    insta::assert_snapshot!(json(&example(), &[], 0));
}

#[test]
fn the_skill_example_in_human_form() {
    let run = check_at("handoff.md", example().as_bytes(), &[]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn sections_match_in_any_case_and_order() {
    let text = example()
        .replace("## Timestamp", "## timestamp")
        .replace("## Task States", "## TASK STATES");
    let (head, notes) = text.split_at(text.find("## Resumption Notes").unwrap());
    let reordered = format!("{notes}\n{head}");
    let report = json(&reordered, &[], 0);
    assert!(report.contains("\"problems\": []"), "{report}");
}

#[test]
fn a_missing_section_is_named() {
    let text = edited(
        "## Review Tracking\n- Task 1: spec-review passed, code-quality passed\n- Task 2: not yet reviewed\n",
        "",
    );
    insta::assert_snapshot!(json(&text, &[], 1));
}

#[test]
fn an_empty_file_lacks_every_section() {
    insta::assert_snapshot!(json("", &[], 1));
}

#[test]
fn a_repeated_section_is_reported_at_the_second() {
    let text = format!("{}\n## Reason\nAgain\n", example());
    insta::assert_snapshot!(json(&text, &[], 1));
}

#[test]
fn an_unparseable_timestamp() {
    insta::assert_snapshot!(json(&edited("2026-01-26T10:30:00Z", "yesterday"), &[], 1));
}

#[test]
fn a_timestamp_without_an_offset() {
    insta::assert_snapshot!(json(
        &edited("2026-01-26T10:30:00Z", "2026-01-26T10:30:00"),
        &[],
        1
    ));
}

#[test]
fn two_timestamps() {
    let text = edited(
        "2026-01-26T10:30:00Z",
        "2026-01-26T10:30:00Z 2026-01-26T11:00:00Z",
    );
    insta::assert_snapshot!(json(&text, &[], 1));
}

#[test]
fn a_timestamp_in_the_future_beyond_the_clock_skew() {
    insta::assert_snapshot!(json(
        &edited("2026-01-26T10:30:00Z", "2026-01-26T12:10:00Z"),
        &[],
        1
    ));
}

#[test]
fn a_timestamp_within_the_clock_skew_and_one_with_an_offset_are_fine() {
    let report = json(
        &edited("2026-01-26T10:30:00Z", "2026-01-26T12:04:00Z"),
        &[],
        0,
    );
    assert!(report.contains("\"age_seconds\": -240"), "{report}");
    let report = json(
        &edited("2026-01-26T10:30:00Z", "2026-01-26T13:30:00+02:00"),
        &[],
        0,
    );
    assert!(report.contains("\"age_seconds\": 1800"), "{report}");
}

#[test]
fn an_old_handoff_is_stale_past_max_handoff_age() {
    insta::assert_snapshot!(json(&example(), &["--max-handoff-age", "1h"], 1));
    json(&example(), &["--max-handoff-age", "2h"], 0);
}

#[test]
fn an_empty_reason() {
    let text = edited("## Reason\nContext threshold exceeded\n", "## Reason\n\n");
    insta::assert_snapshot!(json(&text, &[], 1));
}

#[test]
fn a_team_without_members_and_an_item_that_is_not_member_role() {
    let text = edited(
        "- worker-1: supersonic:implementer\n- worker-2: supersonic:implementer\n- spec-reviewer: supersonic:spec-reviewer\n- code-quality-reviewer: supersonic:code-quality-reviewer\n",
        "- worker-1\n",
    );
    insta::assert_snapshot!(json(&text, &[], 1));
}

#[test]
fn columns_in_any_order_and_case_with_blocked_by() {
    let text = edited(
        "| ID | Subject | Status | Owner |\n|----|---------|--------|-------|\n| 1 | Implement feature A | completed | worker-1 |\n| 2 | Implement feature B | in_progress | worker-2 |\n| 3 | Add tests for A | pending | - |",
        "| owner | status | BLOCKED BY | subject | id |\n|---|---|---|---|---|\n| worker-1 | completed | | Implement feature A | 1 |\n| worker-2 | in_progress | | Implement feature B | 2 |\n| | pending | 1, 2 | Add tests for A | 3 |",
    );
    insta::assert_snapshot!(json(&text, &[], 0));
}

#[test]
fn a_table_without_the_owner_column() {
    let text = edited(
        "| ID | Subject | Status | Owner |\n|----|---------|--------|-------|\n| 1 | Implement feature A | completed | worker-1 |\n| 2 | Implement feature B | in_progress | worker-2 |\n| 3 | Add tests for A | pending | - |",
        "| ID | Subject | Status |\n|---|---|---|\n| 1 | Implement feature A | completed |",
    );
    insta::assert_snapshot!(json(&text, &[], 1));
}

#[test]
fn an_unknown_status_gets_a_did_you_mean() {
    let text = edited("| in_progress | worker-2 |", "| In Progress | worker-2 |").replacen(
        "| completed | worker-1 |",
        "| done | worker-1 |",
        1,
    );
    insta::assert_snapshot!(json(&text, &[], 1));
}

#[test]
fn a_task_in_progress_needs_an_owner() {
    insta::assert_snapshot!(json(
        &edited("| in_progress | worker-2 |", "| in_progress | - |"),
        &[],
        1
    ));
}

#[test]
fn blocked_by_must_name_another_task() {
    let text = edited(
        "| ID | Subject | Status | Owner |\n|----|---------|--------|-------|\n| 1 | Implement feature A | completed | worker-1 |\n| 2 | Implement feature B | in_progress | worker-2 |\n| 3 | Add tests for A | pending | - |",
        "| ID | Subject | Status | Owner | Blocked By |\n|---|---|---|---|---|\n| 1 | Implement feature A | completed | worker-1 | |\n| 2 | Implement feature B | blocked | - | 2 |\n| 3 | Add tests for A | pending | - | 1, 9 |",
    );
    insta::assert_snapshot!(json(&text, &[], 1));
}

#[test]
fn task_ids_are_unique() {
    insta::assert_snapshot!(json(
        &edited("| 3 | Add tests for A |", "| 2 | Add tests for A |"),
        &[],
        1
    ));
}

#[test]
fn a_task_list_that_failed_makes_the_handoff_partial() {
    let text = edited(
        "| ID | Subject | Status | Owner |\n|----|---------|--------|-------|\n| 1 | Implement feature A | completed | worker-1 |\n| 2 | Implement feature B | in_progress | worker-2 |\n| 3 | Add tests for A | pending | - |",
        "TaskList failed twice; task states were not captured.",
    );
    insta::assert_snapshot!(json(&text, &[], 0));
}

/// The skill still signals completion when `TaskList` fails ("partial
/// handoff better than none"): the note is a warning, but anything else
/// wrong with the handoff still blocks in strict mode.
#[test]
fn a_partial_handoff_with_another_problem_still_blocks() {
    let text = edited(
        "| ID | Subject | Status | Owner |\n|----|---------|--------|-------|\n| 1 | Implement feature A | completed | worker-1 |\n| 2 | Implement feature B | in_progress | worker-2 |\n| 3 | Add tests for A | pending | - |",
        "TaskList failed twice; task states were not captured.",
    )
    .replacen("Context threshold exceeded", "", 1);
    let report = json(&text, &[], 1);
    assert!(report.contains("`## Reason` is empty"), "{report}");
    assert!(report.contains("partial handoff: task states missing (TaskList failed twice; task states were not captured.)"), "{report}");
}

/// Rows without a delimiter row are a table written wrongly, not the
/// note of a partial handoff: they block.
#[test]
fn rows_that_are_no_table_are_not_a_partial_handoff() {
    let text = edited("|----|---------|--------|-------|\n", "");
    let report = json(&text, &[], 1);
    assert!(
        report.contains("look like table rows but no table"),
        "{report}"
    );
    assert!(report.contains("\"partial\": false"), "{report}");
}

#[test]
fn an_owner_who_is_not_in_the_team_is_a_warning() {
    let text = edited("| in_progress | worker-2 |", "| in_progress | Worker-7 |");
    let report = json(&text, &[], 0);
    assert!(
        report.contains("task `2` is owned by `Worker-7`, who is not in `## Team Composition` (worker-1, worker-2, spec-reviewer, code-quality-reviewer)"),
        "{report}"
    );
    // Names compare without regard to case.
    let text = edited("| in_progress | worker-2 |", "| in_progress | WORKER-2 |");
    assert!(!json(&text, &[], 0).contains("is owned by"));
}

#[test]
fn an_empty_task_states_section() {
    let text = edited(
        "| ID | Subject | Status | Owner |\n|----|---------|--------|-------|\n| 1 | Implement feature A | completed | worker-1 |\n| 2 | Implement feature B | in_progress | worker-2 |\n| 3 | Add tests for A | pending | - |\n",
        "",
    );
    insta::assert_snapshot!(json(&text, &[], 1));
}

#[test]
fn code_blocks_escaped_pipes_and_inline_markup_read_as_markdown() {
    let text = edited(
        "| 3 | Add tests for A | pending | - |",
        "| 3 | Add `a \\| b` tests | **pending** | *-* |",
    )
    .replacen(
        "## Reason\nContext threshold exceeded\n",
        "## Reason\nContext threshold exceeded\n\n```\n## Timestamp\nnot a section\n```\n",
        1,
    );
    insta::assert_snapshot!(json(&text, &[], 0));
}

#[test]
fn an_unfinished_checkpoint_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let handoff = dir.path().join(".tina/phase-2/handoff.md");
    std::fs::create_dir_all(handoff.parent().unwrap()).unwrap();
    std::fs::write(&handoff, example()).unwrap();
    std::fs::write(dir.path().join(".tina/checkpoint-needed"), "").unwrap();
    let run = run_in(
        dir.path(),
        ".tina/phase-2/handoff.md",
        &["--format", "json"],
    );
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.stdout);
    // Once the signal is gone, the same handoff resumes.
    std::fs::remove_file(dir.path().join(".tina/checkpoint-needed")).unwrap();
    assert_eq!(run_in(dir.path(), ".tina/phase-2/handoff.md", &[]).code, 0);
}

#[test]
fn permissive_and_audit_report_the_problems_and_resume() {
    let text = edited("2026-01-26T10:30:00Z", "yesterday");
    for mode in ["permissive", "audit"] {
        let report = json(&text, &["--mode", mode], 0);
        assert!(report.contains("\"decision\": \"resume\""), "{report}");
        assert!(report.contains("\"passed\": false"), "{report}");
        assert!(report.contains("cannot be read as a date-time"), "{report}");
    }
    let run = check_at("handoff.md", text.as_bytes(), &["--mode", "permissive"]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn every_problem_of_a_bad_handoff_is_reported_in_one_run() {
    let text = "# Handoff\n\n## Timestamp\nsoon\n\n## Team Composition\n- lead\n\n## Task States\n| ID | Subject | Status | Owner | Blocked By |\n|---|---|---|---|---|\n| 1 | a | working | - | 4 |\n| 1 | b | in_progress | | |\n";
    insta::assert_snapshot!(json(text, &[], 1));
}

#[test]
fn what_cannot_be_read_gives_no_verdict() {
    let not_utf8 = check_at("handoff.md", b"## Timestamp\n\xff\n", &[]);
    assert_eq!(not_utf8.code, 3, "{}", not_utf8.stderr);
    assert!(not_utf8.stderr.contains("not UTF-8"), "{}", not_utf8.stderr);
    let dir = tempfile::tempdir().unwrap();
    let missing = run_in(dir.path(), "nope.md", &[]);
    assert_eq!(missing.code, 3);
    assert!(
        missing.stderr.contains("cannot read the handoff `nope.md`"),
        "{}",
        missing.stderr
    );
    std::fs::create_dir(dir.path().join("folder.md")).unwrap();
    let folder = run_in(dir.path(), "folder.md", &[]);
    assert_eq!(folder.code, 3, "{}", folder.stderr);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("loop.md", dir.path().join("loop.md")).unwrap();
        let looped = run_in(dir.path(), "loop.md", &[]);
        assert_eq!(looped.code, 3, "{}", looped.stderr);
    }
    let bad_age = check_at(
        "handoff.md",
        example().as_bytes(),
        &["--max-handoff-age", "soon"],
    );
    assert_eq!(bad_age.code, 3);
    assert!(
        bad_age.stderr.contains("--max-handoff-age `soon`"),
        "{}",
        bad_age.stderr
    );
}

#[cfg(unix)]
#[test]
fn the_unfinished_checkpoint_is_found_however_the_handoff_is_named() {
    // From inside the folder, through a link to the file or to its folder,
    // with `..`: each of these resumed while `.tina/phase-2/handoff.md`
    // blocked.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".tina/phase-2")).unwrap();
    std::fs::write(root.join(".tina/phase-2/handoff.md"), example()).unwrap();
    std::fs::write(root.join(".tina/checkpoint-needed"), "").unwrap();
    std::os::unix::fs::symlink(".tina/phase-2/handoff.md", root.join("latest.md")).unwrap();
    std::os::unix::fs::symlink(".tina/phase-2", root.join("phase")).unwrap();
    // A phase handoff that is a link to a file elsewhere has the signal of
    // where it was named.
    std::fs::write(root.join("elsewhere.md"), example()).unwrap();
    std::fs::create_dir_all(root.join(".tina/phase-3")).unwrap();
    std::os::unix::fs::symlink("../../elsewhere.md", root.join(".tina/phase-3/handoff.md"))
        .unwrap();
    for (dir, named) in [
        (root.to_path_buf(), ".tina/phase-2/handoff.md"),
        (root.join(".tina/phase-2"), "handoff.md"),
        (root.join(".tina/phase-2"), "./handoff.md"),
        (root.to_path_buf(), "latest.md"),
        (root.to_path_buf(), "phase/handoff.md"),
        (root.to_path_buf(), ".tina/phase-2/../phase-2/handoff.md"),
        (root.join(".tina"), "../.tina/phase-2/handoff.md"),
        (root.to_path_buf(), ".tina/phase-3/handoff.md"),
    ] {
        let run = run_in(&dir, named, &["--format", "json"]);
        assert_eq!(run.code, 1, "{named}: {}", run.stdout);
        assert!(
            run.stdout
                .contains("checkpoint-needed` still exists: the checkpoint did not complete"),
            "{named}: {}",
            run.stdout
        );
    }
    // The same text elsewhere resumes; and once the signal is gone, so
    // does every spelling.
    assert_eq!(run_in(root, "elsewhere.md", &[]).code, 0);
    std::fs::remove_file(root.join(".tina/checkpoint-needed")).unwrap();
    for named in ["latest.md", "phase/handoff.md", ".tina/phase-3/handoff.md"] {
        assert_eq!(run_in(root, named, &[]).code, 0, "{named}");
    }
}

/// The example with its task table replaced by `table`.
fn with_tasks(table: &str) -> String {
    edited(
        "| ID | Subject | Status | Owner |\n|----|---------|--------|-------|\n| 1 | Implement feature A | completed | worker-1 |\n| 2 | Implement feature B | in_progress | worker-2 |\n| 3 | Add tests for A | pending | - |\n",
        table,
    )
}

#[test]
fn a_row_with_fewer_or_more_cells_than_the_header_is_a_problem_at_its_line() {
    let text = with_tasks(
        "| ID | Subject | Status | Owner |\n|---|---|---|---|\n| 1 | Implement feature A | completed |\n| 2 | Implement feature B | in_progress | worker-2 | late |\n| 3 | Add tests for A | pending | - |\n",
    );
    let out = json(&text, &[], 1);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["problems"],
        serde_json::json!([
            {"line": 18, "section": "Task States", "message": "the row has 3 cells but the header has 4: write one cell per column (an empty one as `| |`), as Markdown fills the missing ones in and a table of many such rows is cut short"},
            {"line": 19, "section": "Task States", "message": "the row has 5 cells but the header has 4: Markdown drops the cells past the header's, so remove them or name their columns in the header"}
        ]),
        "{out}"
    );
}

#[test]
fn rows_past_the_parsers_cell_limit_are_not_hidden() {
    // A header of 1,024 columns and rows of four cells: after 2^18 filled
    // cells pulldown-cmark ended the table, and the rows past it (a
    // duplicate ID, an in-progress task without owner) were a paragraph
    // nobody checked: RESUME.
    let extra = 1020;
    let mut table = format!(
        "| ID | Subject | Status | Owner |{}\n|---|---|---|---|{}\n",
        " x |".repeat(extra),
        "---|".repeat(extra)
    );
    for i in 0..300 {
        table.push_str(&format!("| {i} | s | pending | - |\n"));
    }
    table.push_str("| 1 | again | in_progress | |\n");
    let run = check_at("handoff.md", with_tasks(&table).as_bytes(), &[]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("more than the limit of 250000: a handoff is a summary of a session"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_handoff_within_its_bytes_is_read_in_bounded_memory() {
    // 32 MiB of `[` took 1.5-2 GB: each is a node of the parser's tree.
    // It is refused from its text, under a 512 MiB address-space cap.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("handoff.md"), "[".repeat((32 << 20) - 1)).unwrap();
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 524288 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_phaselint"))
        .args([
            "resume-check",
            "--handoff",
            "handoff.md",
            "--now",
            NOW,
            "--no-config",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(
            "cannot read the handoff `handoff.md`: it has about 33554432 Markdown elements"
        ),
        "{stderr}"
    );
}

#[test]
fn a_heading_that_names_another_phase_than_its_folder_is_a_warning() {
    let text = example().replacen(
        "# Phase N Checkpoint Handoff",
        "# Phase 3 Checkpoint Handoff",
        1,
    );
    for folder in [
        ".tina/phase-2/handoff.md",
        ".claude/tina/phase-2/handoff.md",
    ] {
        let run = check_at(folder, text.as_bytes(), &["--format", "json"]);
        assert_eq!(run.code, 0, "{}", run.stdout);
        assert!(
            run.stdout
                .contains("the heading names phase 3 but the handoff is in `phase-2/`"),
            "{folder}: {}",
            run.stdout
        );
    }
    // The heading of its own folder, the skill's `Phase N` template, and a
    // handoff outside a phase folder say nothing.
    for (folder, heading) in [
        (".tina/phase-3/handoff.md", "# Phase 3 Checkpoint Handoff"),
        (".tina/phase-3/handoff.md", "# Phase N Checkpoint Handoff"),
        ("handoff.md", "# Phase 3 Checkpoint Handoff"),
    ] {
        let text = example().replacen("# Phase N Checkpoint Handoff", heading, 1);
        let run = check_at(folder, text.as_bytes(), &["--format", "json"]);
        assert_eq!(run.code, 0, "{}", run.stdout);
        assert!(
            run.stdout.contains("\"warnings\": []"),
            "{folder} {heading}: {}",
            run.stdout
        );
    }
}

#[test]
fn the_claude_code_edition_keeps_its_signal_in_claude_tina() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude/tina/phase-1")).unwrap();
    std::fs::write(
        dir.path().join(".claude/tina/phase-1/handoff.md"),
        example(),
    )
    .unwrap();
    std::fs::write(dir.path().join(".claude/tina/checkpoint-needed"), "").unwrap();
    let run = run_in(
        dir.path(),
        ".claude/tina/phase-1/handoff.md",
        &["--format", "json"],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("checkpoint-needed` still exists"),
        "{}",
        run.stdout
    );
}

/// A task table the reader would not read as one is never a partial
/// handoff, and no task written beside the table is dropped in silence.
#[test]
fn tasks_written_where_the_table_reader_does_not_look_block() {
    let table = "| ID | Subject | Status | Owner |\n|----|---------|--------|-------|\n| 1 | Implement feature A | completed | worker-1 |\n| 2 | Implement feature B | in_progress | worker-2 |\n| 3 | Add tests for A | pending | - |";
    for (case, replacement, expected) in [
        (
            "an HTML table",
            "<table><tr><td>2</td><td>B</td><td>in_progress</td><td></td></tr></table>",
            "holds an HTML table",
        ),
        (
            "rows without outer pipes or a delimiter row",
            "ID | Subject | Status | Owner\n2 | B | in_progress | -",
            "look like table rows but no table",
        ),
        (
            "a row without outer pipes after the table",
            &format!("{table}\n\n2 | B | in_progress | -"),
            "looks like a row of the task table but is not in it",
        ),
    ] {
        let text = edited(table, replacement);
        let report = json(&text, &[], 1);
        assert!(report.contains(expected), "{case}: {report}");
        assert!(report.contains("\"partial\": false"), "{case}: {report}");
    }
}

#[test]
fn an_owner_that_names_nobody_is_no_owner() {
    for owner in ["none", "N/A", "—", "\u{200b}", "unassigned"] {
        let text = edited(
            "| in_progress | worker-2 |",
            &format!("| in_progress | {owner} |"),
        );
        let report = json(&text, &[], 1);
        assert!(
            report.contains("is in_progress but has no owner"),
            "{owner:?}: {report}"
        );
    }
}
