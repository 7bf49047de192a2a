//! The `phaselint` binary as users run it: output formats, exit codes,
//! stdin, directory walking, configuration discovery and `phaselint rule`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn phaselint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn code(output: &Output) -> i32 {
    output.status.code().unwrap()
}

const C203_FAIL: &str = "fixtures/C203/fail.contract.yaml";

#[test]
fn concise_format() {
    let out = phaselint(&repo(), &["lint", "--format", "concise", C203_FAIL]);
    assert_eq!(code(&out), 0, "warnings alone do not fail");
    insta::assert_snapshot!(stdout(&out), @r"
    fixtures/C203/fail.contract.yaml:9:3: C203 [warning] long-running phase `generate` has no checkpoint: its expected_duration 2h is at least the long_running_threshold 15m; help: add a checkpoint_integrity entry with `phase: generate` so a paused run can resume after it
    fixtures/C203/fail.contract.yaml:17:3: C203 [warning] long-running phase `review` has no checkpoint: it is marked long_running; help: add a checkpoint_integrity entry with `phase: review` so a paused run can resume after it
    Found 2 warnings in 1 file.
    ");
}

#[test]
fn full_format_without_a_terminal_has_no_colour() {
    let out = phaselint(
        &repo(),
        &[
            "lint",
            "--format",
            "full",
            "fixtures/R101/fail.contract.yaml",
        ],
    );
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(
        !text.contains('\u{1b}'),
        "no ANSI escapes when not on a terminal"
    );
    insta::assert_snapshot!(text, @r"
    error[R101]: checkpoint phase `retreive` is not a declared phase
       ┌─ fixtures/R101/fail.contract.yaml:25:12
       │
    25 │     phase: retreive
       │            ^^^^^^^^
       │
       = help: did you mean `retrieve`?
       = suggestion: Replace with `retrieve`

    Found 1 error in 1 file.
    [*] 1 fixable with `--fix --unsafe-fixes` (did-you-mean guesses: preview them with `--diff --unsafe-fixes`).
    ");
}

#[test]
fn json_format_is_versioned_with_one_based_character_columns() {
    let out = phaselint(
        &repo(),
        &[
            "lint",
            "--format",
            "json",
            "fixtures/S002/fail.contract.yaml",
        ],
    );
    assert_eq!(code(&out), 0);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["version"], 1);
    let first = &json["diagnostics"][0];
    insta::assert_json_snapshot!(first, @r#"
    {
      "code": "S002",
      "end": {
        "column": 29,
        "line": 9
      },
      "fix": {
        "applicability": "safe",
        "edits": [
          {
            "end": {
              "column": 29,
              "line": 9
            },
            "replacement": "blocking",
            "start": {
              "column": 21,
              "line": 9
            }
          }
        ],
        "title": "Lowercase to `blocking`"
      },
      "help": "ContextCore accepts only lower-case values",
      "message": "severity `BLOCKING` is not in canonical case; write `blocking`",
      "path": "fixtures/S002/fail.contract.yaml",
      "related": [],
      "severity": "warning",
      "start": {
        "column": 21,
        "line": 9
      }
    }
    "#);
}

#[test]
fn json_columns_count_characters_not_bytes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("x.contract.yaml"),
        "schema_version: '1'\npipeline_id: p\ndescription: \"données\"\nphases: { a: {} }\nextra: 1 # é\n",
    )
    .unwrap();
    let out = phaselint(dir.path(), &["lint", "--format", "json", "x.contract.yaml"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &json["diagnostics"][0];
    assert_eq!(d["code"], "E003");
    assert_eq!(
        (d["start"]["line"].as_u64(), d["start"]["column"].as_u64()),
        (Some(5), Some(1))
    );
    assert_eq!(d["end"]["column"], 6);
}

#[test]
fn github_format_emits_workflow_commands() {
    let out = phaselint(
        &repo(),
        &[
            "lint",
            "--format",
            "github",
            "fixtures/R101/fail.contract.yaml",
            C203_FAIL,
        ],
    );
    assert_eq!(code(&out), 1);
    insta::assert_snapshot!(stdout(&out), @r"
    ::warning title=C203,file=fixtures/C203/fail.contract.yaml,line=9,col=3,endLine=9,endColumn=11::C203 long-running phase `generate` has no checkpoint: its expected_duration 2h is at least the long_running_threshold 15m%0Ahelp: add a checkpoint_integrity entry with `phase: generate` so a paused run can resume after it
    ::warning title=C203,file=fixtures/C203/fail.contract.yaml,line=17,col=3,endLine=17,endColumn=9::C203 long-running phase `review` has no checkpoint: it is marked long_running%0Ahelp: add a checkpoint_integrity entry with `phase: review` so a paused run can resume after it
    ::error title=R101,file=fixtures/R101/fail.contract.yaml,line=25,col=12,endLine=25,endColumn=20::R101 checkpoint phase `retreive` is not a declared phase%0Ahelp: did you mean `retrieve`?
    ");
}

#[test]
fn exit_codes() {
    let root = repo();
    let clean = "fixtures/valid/linear-rag.contract.yaml";
    assert_eq!(code(&phaselint(&root, &["lint", clean])), 0);
    assert_eq!(
        code(&phaselint(
            &root,
            &["lint", "fixtures/R101/fail.contract.yaml"]
        )),
        1
    );
    // Warnings pass unless they exceed --max-warnings.
    assert_eq!(
        code(&phaselint(
            &root,
            &["lint", C203_FAIL, "--max-warnings", "2"]
        )),
        0
    );
    let over = phaselint(&root, &["lint", C203_FAIL, "--max-warnings", "1"]);
    assert_eq!(code(&over), 1);
    assert!(stderr(&over).contains("2 warnings exceed --max-warnings 1"));
    // A file that cannot be parsed never passes, whatever is ignored.
    let broken = phaselint(
        &root,
        &["lint", "fixtures/E001/fail.contract.yaml", "--ignore", "E"],
    );
    assert_eq!(code(&broken), 1, "{}", stdout(&broken));
    // No verdict: unreadable file, bad selection, usage errors.
    let missing = phaselint(&root, &["lint", "fixtures/nope.contract.yaml"]);
    assert_eq!(code(&missing), 3);
    assert!(stderr(&missing).contains("cannot read fixtures/nope.contract.yaml"));
    // The summary never says all checks passed when a file was not checked.
    let summary = stdout(&phaselint(
        &root,
        &[
            "lint",
            "--format",
            "concise",
            clean,
            "fixtures/nope.contract.yaml",
        ],
    ));
    assert!(
        summary.ends_with("No findings in 1 file, but 1 file could not be read.\n"),
        "{summary}"
    );
    let bad_select = phaselint(&root, &["lint", clean, "--select", "C2O3"]);
    assert_eq!(code(&bad_select), 3);
    assert!(
        stderr(&bad_select).contains("`C2O3` matches no rule; did you mean `C203`?"),
        "{}",
        stderr(&bad_select)
    );
    assert_eq!(
        code(&phaselint(&root, &["lint", "--format", "xml", clean])),
        3
    );
    assert_eq!(
        code(&phaselint(&root, &["lint", clean, "--severity", "C203"])),
        3
    );
    assert_eq!(code(&phaselint(&root, &["--version"])), 0);
}

#[test]
fn select_ignore_and_severity_overrides() {
    let root = repo();
    let out = phaselint(
        &root,
        &["lint", "--format", "concise", C203_FAIL, "--ignore", "C2"],
    );
    assert!(!stdout(&out).contains("C203"));
    // The more specific selector wins, as in ruff.
    let out = phaselint(
        &root,
        &[
            "lint", "--format", "concise", C203_FAIL, "--ignore", "C", "--select", "C203",
        ],
    );
    assert!(stdout(&out).contains("C203"));
    let out = phaselint(
        &root,
        &[
            "lint",
            "--format",
            "concise",
            C203_FAIL,
            "--severity",
            "C203=error",
        ],
    );
    assert_eq!(code(&out), 1);
    assert!(stdout(&out).contains("C203 [error]"));
    let out = phaselint(
        &root,
        &[
            "lint",
            "--format",
            "concise",
            C203_FAIL,
            "--severity",
            "C203=off",
        ],
    );
    assert!(!stdout(&out).contains("C203"));
}

#[test]
fn statistics_count_findings_per_rule() {
    let out = phaselint(
        &repo(),
        &[
            "lint",
            "--statistics",
            "--format",
            "concise",
            "fixtures/S002",
            "fixtures/C203",
        ],
    );
    insta::assert_snapshot!(stdout(&out), @r"
        4  S002  non-canonical-case
        2  C203  uncovered-long-running-phase
    Found 6 warnings in 4 files.
    [*] 4 fixable with `--fix`.
    ");
}

#[test]
fn stdin_uses_the_stdin_filename() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args([
            "lint",
            "--format",
            "concise",
            "-",
            "--stdin-filename",
            "pipelines/in.contract.yaml",
        ])
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"schema_version: '1'\npipeline_id: p\nphases: { a: {} }\nphasse: 1\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).starts_with(
            "pipelines/in.contract.yaml:4:1: E003 [error] unknown key `phasse` in the contract root"
        ),
        "{}",
        stdout(&out)
    );
}

fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const UNKNOWN_KEY: &str = "schema_version: '1'\npipeline_id: p\nphases: { a: {} }\nbogus: 1\n";
const DEAD_WRITE: &str = "schema_version: '1'\npipeline_id: p\nphases:\n  a: { exit: { required: [{ name: x }] } }\n  b: {}\n";

#[test]
fn directories_are_walked_honouring_gitignore_and_include_globs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "ignored/\n");
    write(root, "pipelines/a.contract.yaml", UNKNOWN_KEY);
    write(root, "pipelines/b.contract.yml", UNKNOWN_KEY);
    write(root, "ignored/c.contract.yaml", UNKNOWN_KEY);
    write(root, "pipelines/not-a-contract.yaml", UNKNOWN_KEY);
    // Another kind of contract sharing the suffix: skipped when walked.
    write(
        root,
        "pipelines/gate.contract.yaml",
        "contract_metadata: {}\ninput_schema: {}\n",
    );
    let out = phaselint(root, &["lint", "--format", "concise", "--verbose", "."]);
    let text = stdout(&out);
    assert!(
        text.contains("pipelines/a.contract.yaml:4:1: E003"),
        "{text}"
    );
    assert!(
        text.contains("pipelines/b.contract.yml:4:1: E003"),
        "{text}"
    );
    assert!(!text.contains("ignored/"), "{text}");
    assert!(!text.contains("not-a-contract"), "{text}");
    assert!(!text.contains("gate.contract.yaml"), "{text}");
    assert!(
        stderr(&out).contains("skipped pipelines/gate.contract.yaml: not a context contract"),
        "{}",
        stderr(&out)
    );
    // Named explicitly, the other kind is linted and fails.
    let out = phaselint(
        root,
        &[
            "lint",
            "--format",
            "concise",
            "pipelines/gate.contract.yaml",
        ],
    );
    assert_eq!(code(&out), 1);
    assert!(stdout(&out).contains("E005"));
}

#[test]
fn a_walk_whose_every_file_is_skipped_says_so_without_verbose() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let other_kind = "contract_metadata: {}\ninput_schema: {}\n";
    write(root, "gates/a.contract.yaml", other_kind);
    write(root, "gates/b.contract.yaml", other_kind);
    let out = phaselint(root, &["lint", "gates"]);
    // SPEC §5 has no code for "nothing to lint": the skipped files were
    // read and are not in error, so the exit code stays 0.
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "No files checked: 2 files were skipped (not phaselint documents); run with --verbose to see why.\n"
    );
    // The machine formats keep stdout to the report: the note goes to stderr.
    let out = phaselint(root, &["lint", "--format", "json", "gates"]);
    assert_eq!(code(&out), 0);
    assert!(
        stderr(&out).contains("phaselint: note: No files checked: 2 files were skipped (not phaselint documents); run with --verbose to see why"),
        "{}",
        stderr(&out)
    );
    // A folder with nothing to lint does not claim that checks passed.
    std::fs::create_dir(root.join("empty")).unwrap();
    let out = phaselint(root, &["lint", "empty"]);
    assert_eq!(stdout(&out), "No files checked.\n");
}

#[test]
fn the_summary_names_harness_configs_beside_contracts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.contract.yaml", UNKNOWN_KEY);
    write(
        root,
        ".harness/config.json",
        r#"{"checkpoints": {"types": [{"name": "plan-review", "triggerOn": "post-planner"}]}}"#,
    );
    let out = phaselint(root, &["lint", "--format", "concise", "."]);
    assert!(
        stdout(&out).ends_with("Found 1 error in 1 contract and 1 harness config.\n"),
        "{}",
        stdout(&out)
    );
    let out = phaselint(root, &["lint", ".harness/config.json"]);
    assert_eq!(stdout(&out), "All checks passed (1 harness config).\n");
}

#[test]
fn configuration_is_discovered_upwards_and_can_be_overridden() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // G304 is off by default: the discovered config turns it on.
    write(root, "phaselint.toml", "select = [\"ALL\"]\n");
    write(root, "deep/er/x.contract.yaml", DEAD_WRITE);
    let run = |args: &[&str]| stdout(&phaselint(root, args));
    assert!(run(&["lint", "--format", "concise", "deep/er/x.contract.yaml"]).contains("G304"));
    assert!(
        !run(&[
            "lint",
            "--format",
            "concise",
            "--no-config",
            "deep/er/x.contract.yaml"
        ])
        .contains("G304")
    );
    write(root, "other.toml", "select = [\"E\"]\n");
    assert!(
        !run(&[
            "lint",
            "--format",
            "concise",
            "--config",
            "other.toml",
            "deep/er/x.contract.yaml"
        ])
        .contains("G304")
    );

    // pyproject.toml is used only when it has [tool.phaselint].
    let py = tempfile::tempdir().unwrap();
    write(
        py.path(),
        "pyproject.toml",
        "[project]\nname = \"x\"\n\n[tool.phaselint]\n[tool.phaselint.severity]\nG304 = \"warning\"\n",
    );
    write(
        py.path(),
        "sub/pyproject.toml",
        "[project]\nname = \"inner\"\n",
    );
    write(py.path(), "sub/x.contract.yaml", DEAD_WRITE);
    let out = stdout(&phaselint(
        py.path(),
        &["lint", "--format", "concise", "sub/x.contract.yaml"],
    ));
    assert!(out.contains("G304 [warning]"), "{out}");
}

#[test]
fn per_file_ignores_and_thresholds() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "phaselint.toml",
        "select = [\"ALL\"]\nlong_running_threshold = \"3h\"\n[per-file-ignores]\n\"legacy/*.contract.yaml\" = [\"G3\"]\n",
    );
    write(root, "legacy/x.contract.yaml", DEAD_WRITE);
    write(root, "new/x.contract.yaml", DEAD_WRITE);
    let slow = "schema_version: '1'\npipeline_id: p\nphases:\n  a: { expected_duration: 2h }\n";
    write(root, "new/slow.contract.yaml", slow);
    let out = stdout(&phaselint(root, &["lint", "--format", "concise", "."]));
    assert!(!out.contains("legacy/x.contract.yaml"), "{out}");
    assert!(out.contains("new/x.contract.yaml:4:35: G304"), "{out}");
    assert!(!out.contains("C203"), "2h is under the 3h threshold: {out}");
    let out = stdout(&phaselint(
        root,
        &[
            "lint",
            "--format",
            "concise",
            "--no-config",
            "new/slow.contract.yaml",
        ],
    ));
    assert!(out.contains("C203"), "2h is over the default 15m: {out}");
}

#[test]
fn a_malformed_config_is_an_error_naming_file_and_key() {
    let cases = [
        (
            "phaselint.toml",
            "selcet = [\"E\"]\n",
            "unknown key `selcet`; did you mean `select`?",
        ),
        (
            "phaselint.toml",
            "colour = true\n",
            "unknown key `colour`; the keys are include, exclude,",
        ),
        (
            "phaselint.toml",
            "select = [\"Q9\"]\n",
            "`select`: `Q9` matches no rule",
        ),
        (
            "phaselint.toml",
            "long_running_threshold = \"soon\"\n",
            "`long_running_threshold`: `soon` is not a duration",
        ),
        (
            "phaselint.toml",
            "[severity]\nC203 = \"loud\"\n",
            "`severity.C203`: `loud` is not a level",
        ),
        (
            "phaselint.toml",
            "dialect = \"yaml\"\n",
            "unknown variant `yaml`",
        ),
        ("phaselint.toml", "select = [\n", "phaselint.toml"),
        (
            "pyproject.toml",
            "[tool.phaselint]\nignore = \"G304\"\n",
            "in [tool.phaselint]",
        ),
    ];
    for (file, text, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), file, text);
        write(dir.path(), "x.contract.yaml", DEAD_WRITE);
        let out = phaselint(dir.path(), &["lint", "x.contract.yaml"]);
        assert_eq!(code(&out), 3, "{file}: {text}");
        let err = stderr(&out);
        assert!(
            err.contains(file) && err.contains(expected),
            "{file} {text:?}: {err}"
        );
    }
}

#[test]
fn rule_lists_every_rule_and_prints_pages() {
    let out = phaselint(&repo(), &["rule"]);
    assert_eq!(code(&out), 0);
    let text = stdout(&out);
    let table: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(table.len(), 1 + phaselint_lint::rules::RULES.len());
    // Default level and fix availability side by side.
    for row in [
        "C203   uncovered-long-running-phase           warning     -      ",
        "S002   non-canonical-case                     warning     safe   ",
        "R101   unknown-checkpoint-phase               error       unsafe ",
        "G304   dead-write                             off (info)  unsafe ",
    ] {
        assert!(
            table.iter().any(|l| l.starts_with(row)),
            "{row:?} in\n{text}"
        );
    }
    let page = phaselint(&repo(), &["rule", "c203"]);
    assert_eq!(code(&page), 0);
    assert_eq!(
        stdout(&page),
        std::fs::read_to_string(repo().join("rules/C203.md")).unwrap()
    );
    let unknown = phaselint(&repo(), &["rule", "X999"]);
    assert_eq!(code(&unknown), 3);
}

#[test]
fn fix_applies_safe_fixes_in_place_and_leaves_broken_files_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let original = "schema_version: '1'\npipeline_id: p\nphases:\n  a:\n    risk_class: HIGH\n    descripton: x\n";
    write(root, "x.contract.yaml", original);
    write(
        root,
        "broken.contract.yaml",
        "phases: [\n  risk_class: HIGH\n",
    );
    let out = phaselint(
        root,
        &[
            "lint",
            "--fix",
            "--format",
            "concise",
            "x.contract.yaml",
            "broken.contract.yaml",
        ],
    );
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("fixed 1 finding in 1 file"),
        "{}",
        stderr(&out)
    );
    let fixed = std::fs::read_to_string(root.join("x.contract.yaml")).unwrap();
    assert_eq!(
        fixed,
        original.replace("HIGH", "high"),
        "only the safe fix; the did-you-mean is a suggestion"
    );
    // What is reported is the state after fixing.
    assert!(!stdout(&out).contains("S002"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("x.contract.yaml:6:5: E003"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        std::fs::read_to_string(root.join("broken.contract.yaml")).unwrap(),
        "phases: [\n  risk_class: HIGH\n"
    );
    let leftovers: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with('.')
        })
        .collect();
    assert!(leftovers.is_empty(), "no temporary files left behind");
}

/// The R101 fixture with its typo: a did-you-mean, so an unsafe fix.
const R101_FAIL: &str = "fixtures/R101/fail.contract.yaml";

#[test]
fn unsafe_fixes_are_previewed_by_diff_and_applied_only_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let original = std::fs::read_to_string(repo().join(R101_FAIL)).unwrap();
    write(root, "x.contract.yaml", &original);

    // --diff without --unsafe-fixes: nothing safe to do, and it says what is held back.
    let safe = phaselint(root, &["lint", "--diff", "x.contract.yaml"]);
    assert_eq!(code(&safe), 0, "{}", stderr(&safe));
    assert_eq!(stdout(&safe), "");
    assert!(
        stderr(&safe).contains("no safe fixes; 1 did-you-mean fix with --unsafe-fixes"),
        "{}",
        stderr(&safe)
    );

    // --diff --unsafe-fixes: a unified diff, exit 1, the file untouched.
    let diff = phaselint(
        root,
        &["lint", "--diff", "--unsafe-fixes", "x.contract.yaml"],
    );
    assert_eq!(code(&diff), 1);
    insta::assert_snapshot!(stdout(&diff), @r"
    --- x.contract.yaml
    +++ x.contract.yaml
    @@ -22,7 +22,7 @@
             - name: final_answer
     checkpoint_integrity:
       - checkpoint_id: post_retrieval
    -    phase: retreive
    +    phase: retrieve
         on_resume:
           staleness_checks:
             - field: retrieved_context
    ");
    assert_eq!(
        std::fs::read_to_string(root.join("x.contract.yaml")).unwrap(),
        original
    );

    // The summary says the fix exists and how to get it.
    let lint = stdout(&phaselint(root, &["lint", "x.contract.yaml"]));
    assert!(
        lint.ends_with("Found 1 error in 1 file.\n[*] 1 fixable with `--fix --unsafe-fixes` (did-you-mean guesses: preview them with `--diff --unsafe-fixes`).\n"),
        "{lint}"
    );

    // --fix alone leaves a guess alone; with --unsafe-fixes it applies it,
    // and says that the checkpoint's target digest changed.
    let fix = phaselint(root, &["lint", "--fix", "x.contract.yaml"]);
    assert_eq!(code(&fix), 1);
    assert_eq!(
        std::fs::read_to_string(root.join("x.contract.yaml")).unwrap(),
        original
    );
    let fix = phaselint(
        root,
        &["lint", "--fix", "--unsafe-fixes", "x.contract.yaml"],
    );
    assert_eq!(code(&fix), 0, "{}{}", stdout(&fix), stderr(&fix));
    assert_eq!(
        std::fs::read_to_string(root.join("x.contract.yaml")).unwrap(),
        original.replace("phase: retreive", "phase: retrieve")
    );
    assert!(
        stderr(&fix).contains("fixed 1 finding in 1 file"),
        "{}",
        stderr(&fix)
    );
    // Nothing left: --diff says so and passes.
    let again = phaselint(
        root,
        &["lint", "--diff", "--unsafe-fixes", "x.contract.yaml"],
    );
    assert_eq!(code(&again), 0);
    assert!(
        stderr(&again).contains("nothing to fix"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn quiet_exit_zero_output_file_and_colour() {
    let root = repo();
    // --quiet: the findings, no summary.
    let quiet = stdout(&phaselint(
        &root,
        &["lint", "--quiet", "--format", "concise", R101_FAIL],
    ));
    assert_eq!(quiet.lines().count(), 1, "{quiet}");
    assert!(
        quiet.starts_with("fixtures/R101/fail.contract.yaml:25:12: R101"),
        "{quiet}"
    );
    // --exit-zero: errors are printed, the exit is 0.
    let zero = phaselint(&root, &["lint", "--exit-zero", R101_FAIL]);
    assert_eq!(code(&zero), 0);
    assert!(stdout(&zero).contains("error[R101]"));
    // An unreadable file is still no verdict.
    assert_eq!(
        code(&phaselint(
            &root,
            &["lint", "--exit-zero", "fixtures/nope.contract.yaml"]
        )),
        3
    );
    // A file that cannot be parsed was not checked: never exit 0.
    for unparsed in [
        "fixtures/E001/fail.contract.yaml",
        "fixtures/E007/fail.contract.yaml",
    ] {
        assert_eq!(
            code(&phaselint(&root, &["lint", "--exit-zero", unparsed])),
            1,
            "{unparsed}"
        );
    }
    // --output-file: the report goes to the file, never coloured.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.txt");
    let written = phaselint(
        &root,
        &[
            "lint",
            "--color",
            "always",
            "--output-file",
            file.to_str().unwrap(),
            R101_FAIL,
        ],
    );
    assert_eq!(code(&written), 1);
    assert_eq!(stdout(&written), "");
    let report = std::fs::read_to_string(&file).unwrap();
    assert!(
        report.starts_with("error[R101]: checkpoint phase `retreive`"),
        "{report}"
    );
    // --color always colours a pipe; never and auto (not a terminal) do not.
    let coloured = stdout(&phaselint(&root, &["lint", "--color", "always", R101_FAIL]));
    assert!(coloured.contains("\u{1b}["), "{coloured}");
    for choice in ["never", "auto"] {
        let plain = stdout(&phaselint(&root, &["lint", "--color", choice, R101_FAIL]));
        assert!(!plain.contains('\u{1b}'), "--color {choice}: {plain}");
    }
}

#[test]
fn a_directory_without_contracts_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pipeline.yaml", "schema_version: '1'\n");
    let out = phaselint(dir.path(), &["lint", "."]);
    assert_eq!(code(&out), 0);
    assert!(
        stderr(&out).contains(
            "no contract files found under .; phaselint lints `*.contract.yaml` by default, see `include`"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn fixes_that_change_a_checkpoint_say_its_approvals_no_longer_hold() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // R102's did-you-mean renames a staleness field: part of the checkpoint
    // an approval is bound to.
    let contract = "\
schema_version: '1'
pipeline_id: p
phases:
  retrieve: { exit: { required: [{ name: retrieved_context }] } }
  generate: { entry: { required: [{ name: retrieved_context }] } }
checkpoint_integrity:
  - checkpoint_id: after_retrieval
    phase: retrieve
    on_resume:
      staleness_checks: [{ field: retrieved_contxt, max_age_seconds: 600 }]
";
    write(root, "x.contract.yaml", contract);
    let diff = phaselint(
        root,
        &["lint", "--diff", "--unsafe-fixes", "x.contract.yaml"],
    );
    assert_eq!(code(&diff), 1);
    assert!(
        stderr(&diff).contains(
            "these fixes would change checkpoint `after_retrieval` in x.contract.yaml: approvals bound to its old target digest would no longer hold"
        ),
        "{}",
        stderr(&diff)
    );
    let fix = phaselint(
        root,
        &["lint", "--fix", "--unsafe-fixes", "x.contract.yaml"],
    );
    assert_eq!(code(&fix), 0, "{}{}", stdout(&fix), stderr(&fix));
    assert!(
        stderr(&fix).contains(
            "the fixes changed checkpoint `after_retrieval` in x.contract.yaml: approvals bound to its old target digest no longer hold (run `phaselint approve` again)"
        ),
        "{}",
        stderr(&fix)
    );
    assert_eq!(
        std::fs::read_to_string(root.join("x.contract.yaml")).unwrap(),
        contract.replace("retrieved_contxt", "retrieved_context")
    );
}

// ---------------------------------------------------------------------------
// Harness configs (`.harness/config.json`)
// ---------------------------------------------------------------------------

/// A project with a harness config, a contract, and a hidden folder the
/// walk must not enter.
fn harness_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for folder in [".harness", ".cache", "pipelines"] {
        std::fs::create_dir_all(root.join(folder)).unwrap();
    }
    std::fs::copy(
        repo().join("fixtures/H501/fail.harness.json"),
        root.join(".harness/config.json"),
    )
    .unwrap();
    std::fs::copy(
        repo().join("fixtures/P402/fail.contract.yaml"),
        root.join(".cache/old.contract.yaml"),
    )
    .unwrap();
    std::fs::copy(
        repo().join("fixtures/P402/pass.contract.yaml"),
        root.join("pipelines/report.contract.yaml"),
    )
    .unwrap();
    dir
}

#[test]
fn a_walk_enters_the_harness_folder_and_no_other_hidden_one() {
    let project = harness_project();
    let out = phaselint(
        project.path(),
        &["lint", "--no-config", "--format", "concise"],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out), @r"
    .harness/config.json:8:16: H501 [error] checkpoint name `plan-review` is declared twice; both would be `.harness/checkpoint-plan-review.md`, so one checkpoint's approval would count for the other; help: rename one of them, or remove the duplicate entry
    Found 1 error in 1 contract and 1 harness config.
    ");
}

#[test]
fn any_json_or_yaml_file_is_a_harness_config_with_kind_harness() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "checkpoints:\n  types:\n    - name: plan review\n      triggerOn: pre_done\n";
    std::fs::write(dir.path().join("harness.yaml"), yaml).unwrap();
    let out = phaselint(
        dir.path(),
        &[
            "lint",
            "--no-config",
            "--format",
            "concise",
            "--kind",
            "harness",
            "harness.yaml",
        ],
    );
    assert_eq!(code(&out), 1);
    insta::assert_snapshot!(stdout(&out), @r"
    harness.yaml:3:13: H503 [error] checkpoint name `plan review` cannot be a file name: the harness writes `.harness/checkpoint-<name>.md`, and a space is not a letter, digit, `.`, `_` or `-`; help: use only letters, digits, `.`, `_` and `-`, not starting with `.`, at most 100 characters, for example `plan-review`
    harness.yaml:4:18: H502 [error] unknown triggerOn `pre_done`: the harness knows `post-planner`, `pre-done` and `feature-claim:<area>`; help: did you mean `pre-done`?
    Found 2 errors in 1 harness config.
    [*] 1 fixable with `--fix --unsafe-fixes` (did-you-mean guesses: preview them with `--diff --unsafe-fixes`).
    ");
    // Without --kind, the same file is read as a contract.
    let out = phaselint(
        dir.path(),
        &["lint", "--no-config", "--format", "concise", "harness.yaml"],
    );
    assert!(stdout(&out).contains("E005"), "{}", stdout(&out));
}

#[test]
fn harness_config_schema_errors_are_reported_at_their_values() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".harness")).unwrap();
    let cases: &[(&str, &str)] = &[
        // JSON syntax: line and column of the parser's stop.
        (
            "{\n  \"checkpoints\": {\"types\": [\n    {\"name\": \"a\",}\n  ]}\n}\n",
            "E001",
        ),
        (
            "{\"checkpoints\": {\"types\": []}, \"checkpoints\": 1}",
            "E002",
        ),
        ("{\"checkpoints\": [\"a\"]}", "E004"),
        ("{\"checkpoints\": {\"types\": {\"name\": \"a\"}}}", "E004"),
        ("{\"checkpoints\": {\"types\": [\"a\"]}}", "E004"),
        ("{\"checkpoints\": {\"types\": [{\"name\": 7}]}}", "E004"),
        (
            "{\"checkpoints\": {\"types\": [{\"triggerOn\": \"pre-done\"}]}}",
            "E005",
        ),
    ];
    let mut report = String::new();
    for (text, code_expected) in cases {
        std::fs::write(dir.path().join(".harness/config.json"), text).unwrap();
        let out = phaselint(
            dir.path(),
            &[
                "lint",
                "--no-config",
                "--format",
                "concise",
                ".harness/config.json",
            ],
        );
        assert_eq!(code(&out), 1, "{text}");
        let first = stdout(&out).lines().next().unwrap_or_default().to_string();
        assert!(first.contains(code_expected), "{text}: {first}");
        report.push_str(&first);
        report.push('\n');
    }
    insta::assert_snapshot!(report, @r#"
    .harness/config.json:3:18: E001 [error] JSON syntax error: key must be a string; help: fix the JSON at this position; nothing else in the file is checked until it parses
    .harness/config.json:1:32: E002 [error] duplicate key `checkpoints` in the harness config's root; help: JSON parsers keep only the last value (or refuse the file); remove one of the two or merge them
    .harness/config.json:1:17: E004 [error] `checkpoints` must be a mapping, found a list; help: write an object: `{"key": "value"}`
    .harness/config.json:1:27: E004 [error] `checkpoints.types` must be a list, found a mapping; help: write an array: `[{"name": "..."}]`
    .harness/config.json:1:28: E004 [error] `checkpoints.types[0]` must be a mapping, found a string; help: write an object: `{"key": "value"}`
    .harness/config.json:1:37: E004 [error] `checkpoints.types[0].name` must be a string, found an integer; help: write it as a string, in double quotes: `"7"`
    .harness/config.json:1:28: E005 [error] `checkpoints.types[0]` is missing the required key `name`; help: add `"name": ...` to this object
    "#);
}

#[test]
fn the_harness_did_you_mean_keeps_the_json_quotes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".harness")).unwrap();
    let config = dir.path().join(".harness/config.json");
    std::fs::write(
        &config,
        "{\"checkpoints\": {\"types\": [{\"name\": \"a\", \"triggerOn\": \"post_planner\"}]}}\n",
    )
    .unwrap();
    let out = phaselint(
        dir.path(),
        &[
            "lint",
            "--no-config",
            "--fix",
            "--unsafe-fixes",
            ".harness/config.json",
        ],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "{\"checkpoints\": {\"types\": [{\"name\": \"a\", \"triggerOn\": \"post-planner\"}]}}\n"
    );
}

// ---------------------------------------------------------------------------
// GitLab Code Quality
// ---------------------------------------------------------------------------

fn gitlab_issues(dir: &Path, file: &str) -> Vec<serde_json::Value> {
    let out = phaselint(dir, &["lint", "--no-config", "--format", "gitlab", file]);
    let issues: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    issues.as_array().unwrap().clone()
}

#[test]
fn gitlab_code_quality_issues_have_stable_fingerprints() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo().join("fixtures/P403/fail.contract.yaml")).unwrap();
    std::fs::write(dir.path().join("a.contract.yaml"), &text).unwrap();
    let issues = gitlab_issues(dir.path(), "a.contract.yaml");
    assert!(!issues.is_empty());
    for issue in &issues {
        for key in ["description", "check_name", "fingerprint", "severity"] {
            assert!(issue[key].is_string(), "{key} in {issue}");
        }
        assert_eq!(issue["location"]["path"], "a.contract.yaml");
        assert!(issue["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
        assert!(
            ["info", "minor", "major", "critical", "blocker"]
                .contains(&issue["severity"].as_str().unwrap())
        );
    }
    // The same findings again, and after a comment moved every line down:
    // the same fingerprints, at new lines.
    assert_eq!(gitlab_issues(dir.path(), "a.contract.yaml"), issues);
    std::fs::write(
        dir.path().join("a.contract.yaml"),
        format!("# moved\n{text}"),
    )
    .unwrap();
    let moved = gitlab_issues(dir.path(), "a.contract.yaml");
    let prints = |list: &[serde_json::Value]| {
        list.iter()
            .map(|i| i["fingerprint"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(prints(&moved), prints(&issues));
    assert_ne!(
        moved[0]["location"]["lines"]["begin"],
        issues[0]["location"]["lines"]["begin"]
    );
    // Every fingerprint is distinct.
    let mut distinct: Vec<String> = prints(&issues).iter().map(|p| p.to_string()).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), issues.len());
}

#[test]
fn statistics_are_refused_for_formats_that_a_tool_reads() {
    for format in ["sarif", "gitlab", "junit", "github"] {
        let out = phaselint(
            &repo(),
            &["lint", "--statistics", "--format", format, "fixtures/G303"],
        );
        assert_eq!(out.status.code(), Some(3), "{format}");
        assert!(out.stdout.is_empty(), "{format}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--statistics prints a table"),
            "{format}"
        );
    }
    let json = phaselint(
        &repo(),
        &["lint", "--statistics", "--format", "json", "fixtures/G303"],
    );
    assert_eq!(json.status.code(), Some(1));
}

/// The README opens with a run of phaselint: it must be what phaselint
/// prints today.
#[test]
fn the_readme_example_is_what_phaselint_prints() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let block = readme
        .split("```console\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .unwrap();
    let (command, shown) = block.split_once('\n').unwrap();
    let args: Vec<&str> = command
        .strip_prefix("$ phaselint ")
        .unwrap()
        .split(' ')
        .collect();
    let out = phaselint(&repo(), &args);
    assert_eq!(
        stdout(&out).trim_end(),
        shown.trim_end(),
        "the README's example is stale"
    );
}

/// `phaselint schema | head -c 1`: standard output closed before a byte is
/// written is a reader that went away, not a panic (exit 101) nor an error.
#[test]
fn a_reader_that_went_away_is_neither_a_panic_nor_an_error() {
    let commands: [&[&str]; 5] = [
        &["schema"],
        &["rule"],
        &["rule", "P406"],
        &["manifest-hash", "README.md"],
        &["lint", "fixtures/G303/fail.contract.yaml"],
    ];
    for args in commands {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_phaselint"))
            .args(args)
            .current_dir(repo())
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let said = stderr(&out);
        assert!(!said.contains("panicked"), "{args:?}: {said}");
        let expected = if args[0] == "lint" { 1 } else { 0 };
        assert_eq!(code(&out), expected, "{args:?}: {said}");
    }
}
