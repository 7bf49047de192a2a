//! The worked lifecycles of `docs/resume-check.md`, one script per
//! checkpoint system in `docs/examples/`, run end to end with the real
//! binary in a scratch directory. Each script stops with an error when a
//! step's exit code is not the one it expects (`docs/examples/expect.sh`),
//! so a script that runs to its end is the documentation holding true.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples")
}

fn scripts() -> Vec<PathBuf> {
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(examples())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sh"))
        .filter(|path| path.file_name().is_some_and(|name| name != "expect.sh"))
        .collect();
    scripts.sort();
    scripts
}

#[test]
fn every_example_runs_to_its_end() {
    let scripts = scripts();
    let mut failed = Vec::new();
    for script in &scripts {
        let scratch = tempfile::tempdir().unwrap();
        let output = Command::new("bash")
            .arg(script)
            .current_dir(scratch.path())
            .env("PHASELINT", env!("CARGO_BIN_EXE_phaselint"))
            .env("NO_COLOR", "1")
            // The examples commit to git repositories of their own.
            .env("GIT_AUTHOR_NAME", "phaselint example")
            .env("GIT_AUTHOR_EMAIL", "example@phaselint.invalid")
            .env("GIT_COMMITTER_NAME", "phaselint example")
            .env("GIT_COMMITTER_EMAIL", "example@phaselint.invalid")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        println!(
            "== {name}\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        if !output.status.success() {
            failed.push(name);
        }
    }
    assert!(failed.is_empty(), "examples that stopped: {failed:?}");
}

/// One lifecycle per checkpoint system the resume check answers for.
const LIFECYCLES: &[&str] = &[
    "harness-run-sh.sh",
    "tina-supervisor.sh",
    "skill-cavr-git-stash.sh",
    "syndicate-operator-queue.sh",
    "contextcore-orchestrator.sh",
];

#[test]
fn every_checkpoint_system_has_its_lifecycle() {
    let present: Vec<String> = scripts()
        .iter()
        .map(|s| s.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for name in LIFECYCLES {
        assert!(
            present.iter().any(|p| p == name),
            "docs/examples/{name} is missing"
        );
    }
}

#[test]
fn every_example_is_shown_in_the_resume_check_guide() {
    let guide = std::fs::read_to_string(examples().join("../resume-check.md")).unwrap();
    for script in scripts() {
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            guide.contains(&format!("examples/{name}")),
            "docs/resume-check.md does not link examples/{name}"
        );
    }
}

/// What a marked section of a document holds, in order: files to save (a
/// `yaml` block whose first line is `# save as NAME`), shell lines that set
/// the scene, and `phaselint` commands with the exit code the comment line
/// before each gives (`# exit N: …`).
#[derive(Debug)]
enum Step {
    Save { name: String, text: String },
    Shell(String),
    Phaselint { args: Vec<String>, exit: i32 },
}

/// The steps between `<!-- MARKER -->` and `<!-- /MARKER -->` of `document`.
fn marked_steps(document: &str, marker: &str) -> Vec<Step> {
    let open = format!("<!-- {marker} -->");
    let close = format!("<!-- /{marker} -->");
    let start = document
        .find(&open)
        .unwrap_or_else(|| panic!("no `{open}` marker"));
    let end = document[start..]
        .find(&close)
        .unwrap_or_else(|| panic!("no `{close}` marker after `{open}`"));
    let section = &document[start + open.len()..start + end];
    let mut steps = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        let Some(language) = line.strip_prefix("```") else {
            continue;
        };
        let block: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        match language {
            "yaml" => {
                let name = block
                    .first()
                    .and_then(|first| first.strip_prefix("# save as "))
                    .unwrap_or_else(|| {
                        panic!("a yaml block in `{marker}` without `# save as NAME`")
                    });
                steps.push(Step::Save {
                    name: name.trim().to_string(),
                    text: block[1..].iter().map(|l| format!("{l}\n")).collect(),
                });
            }
            "sh" => {
                let mut exit = None;
                for line in block {
                    if let Some(rest) = line.strip_prefix("# exit ") {
                        let digits: String =
                            rest.chars().take_while(char::is_ascii_digit).collect();
                        exit = Some(digits.parse().unwrap());
                    } else if let Some(command) = line.strip_prefix("phaselint ") {
                        assert!(
                            !command.contains(['\'', '"', '\\']),
                            "`{line}`: the runner splits commands at blanks, so no quotes"
                        );
                        let exit = exit
                            .take()
                            .unwrap_or_else(|| panic!("`{line}` has no `# exit N` line before it"));
                        steps.push(Step::Phaselint {
                            args: command.split_whitespace().map(String::from).collect(),
                            exit,
                        });
                    } else if !line.trim().is_empty() && !line.starts_with('#') {
                        steps.push(Step::Shell(line.to_string()));
                    }
                }
            }
            other => panic!("a `{other}` block in `{marker}`: only yaml and sh are run"),
        }
    }
    steps
}

/// Runs the steps in a scratch folder that sees the repository's
/// `fixtures/` as a clone's root does; returns what each command printed.
fn run_steps(steps: &[Step]) -> String {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    std::os::unix::fs::symlink(examples().join("../../fixtures"), dir.join("fixtures")).unwrap();
    let mut transcript = String::new();
    for step in steps {
        match step {
            Step::Save { name, text } => std::fs::write(dir.join(name), text).unwrap(),
            Step::Shell(line) => {
                let status = Command::new("sh")
                    .args(["-c", line])
                    .current_dir(dir)
                    .status()
                    .unwrap();
                assert!(status.success(), "`{line}` failed");
            }
            Step::Phaselint { args, exit } => {
                let output = Command::new(env!("CARGO_BIN_EXE_phaselint"))
                    .args(args)
                    .current_dir(dir)
                    .env("NO_COLOR", "1")
                    .output()
                    .unwrap();
                let said = format!(
                    "$ phaselint {}\n{}{}",
                    args.join(" "),
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
                assert_eq!(
                    output.status.code(),
                    Some(*exit),
                    "the document says exit {exit}:\n{said}"
                );
                transcript.push_str(&said);
            }
        }
    }
    transcript
}

#[test]
fn the_readme_quick_start_runs_as_written() {
    let readme = std::fs::read_to_string(examples().join("../../README.md")).unwrap();
    let steps = marked_steps(&readme, "quick-start");
    let commands = steps
        .iter()
        .filter(|s| matches!(s, Step::Phaselint { .. }))
        .count();
    assert!(
        commands >= 3,
        "the quick start lost its commands: {steps:?}"
    );
    let transcript = run_steps(&steps);
    assert!(
        transcript.contains("All checks passed (1 file)."),
        "{transcript}"
    );
    assert!(transcript.contains("Decision: RESUME"), "{transcript}");
    assert!(transcript.contains("Decision: BLOCKED"), "{transcript}");
}

#[test]
fn the_example_manifest_of_the_resume_check_guide_is_accepted() {
    let guide = std::fs::read_to_string(examples().join("../resume-check.md")).unwrap();
    let steps = marked_steps(&guide, "example-manifest");
    assert!(
        steps
            .iter()
            .any(|s| matches!(s, Step::Save { name, .. } if name == "manifest.yaml")),
        "the guide's example lost its manifest: {steps:?}"
    );
    let transcript = run_steps(&steps);
    assert!(
        transcript.contains("the mutation may proceed"),
        "{transcript}"
    );
}
