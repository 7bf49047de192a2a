//! What phaselint prints from text written by others: a contract in a pull
//! request (its names, conditions and comments, and its file name), and
//! the handoff, manifest, context, approvals and recovery hook output a
//! paused run wrote itself. One contract full of hostile strings goes
//! through every `lint` format, `lint --diff`, `graph` in its three formats
//! and the resume check's three human reports, and each output is checked
//! by what reads it:
//!
//! - people, in a terminal or a CI log (full, concise, github, the diff,
//!   the resume reports): no C0 control but tab and newline, no DEL, no C1
//!   control, no bidi override; and a real terminal emulator (Python's
//!   `pyte`) shows every line as it was written, the escaped text visible;
//! - Graphviz (`dot -Tsvg` accepts the DOT), Mermaid's own parser (accepts
//!   the flowchart, and no `%%{init}%%` from a label configures it), the
//!   SARIF Multitool, the JUnit XSD, a JSON parser (json, gitlab, graph
//!   json: the contract's text comes back exact).
//!
//! The checkers are those of tests/sarif.rs, tests/junit.rs and
//! tests/graph.rs (installed by `.ci/run`, `pyte` too); a test whose
//! checker is missing says so and skips it, except in CI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/binary.rs"]
mod binary;
#[path = "support/tools.rs"]
mod tools;

use std::path::{Path, PathBuf};
use std::process::Command;

use binary::{Run, phaselint};
use serde_json::Value;
use tools::{missing, pipe};

fn repo() -> PathBuf {
    std::path::absolute(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

/// An OSC 52 clipboard write.
const CLIPBOARD: &str = "\u{1b}]52;c;aGVsbG8=\u{7}";
/// An OSC 8 hyperlink.
const LINK: &str = "\u{1b}]8;;https://evil/x\u{7}click\u{1b}]8;;\u{7}";
/// Up a line, and erase it.
const ERASE_ABOVE: &str = "\u{1b}[1A\u{1b}[2K";

/// The contract: YAML escapes in double-quoted names, conditions and ids
/// (the file is plain text; the strings it declares are not), and raw
/// control characters where YAML lets them be (a comment, a plain key), so
/// `full`'s source snippet has them too. A phase name holds a newline, a
/// forged workflow command and Mermaid directives; the findings quote the
/// names, and R101's did-you-mean makes a fix whose text is a hostile name.
fn contract() -> String {
    let text = r#"schema_version: '1'
pipeline_id: "pipe\e]52;c;aGVsbG8=\a %%{init: {'theme':'dark'}}%% ]]> <a&b> \"q\""
phases:
  "fetch\e]52;c;aGVsbG8=\a":
    exit:
      required: [{name: "doc\e[1A\e[2K"}]
  "link\e]8;;https://evil/x\aclick\e]8;;\a":
    entry:
      required: [{name: "need\x9b31m\u202eevil"}, {name: "doc\e[1A\e[2K"}]  # RAW_COMMENT
  "line\n::error file=forged::forged %%{init: {'themeCSS': '.note{display:none}'}}%%":
    entry:
      required: [{name: "cr\rbell\a\x7f ]]> <x&y> \"q\""}]
  RAW_KEY:
    side_effects: irreversible
graph_topology:
  edges:
    - {from: "fetch\e]52;c;aGVsbG8=\a", to: "link\e]8;;https://evil/x\aclick\e]8;;\a", condition: "x %%{init: {'theme':'forest'}}%% ]]> <a&b> \"q\" \e[2J"}
    - {from: "link\e]8;;https://evil/x\aclick\e]8;;\a", to: "line\n::error file=forged::forged %%{init: {'themeCSS': '.note{display:none}'}}%%"}
    - {from: "line\n::error file=forged::forged %%{init: {'themeCSS': '.note{display:none}'}}%%", to: RAW_KEY}
checkpoint_integrity:
  - checkpoint_id: "k\e[2J\x9b2J"
    phase: "fetch\e]52;c;aGVsbG8=X\a"
"#;
    text.replace(
        "RAW_COMMENT",
        &format!("{CLIPBOARD} {ERASE_ABOVE} \u{9b}2J hidden"),
    )
    .replace("RAW_KEY", "sink\u{1b}M\u{9b}K")
}

/// A pull request names the file too (an OSC 8 link without a `/`).
const FILE: &str = "pr\u{1b}]8;;mailto:a@b\u{7}.contract.yaml";

/// Every character of `text` a terminal would act on: C0 but tab and
/// newline, DEL, C1, and the bidi marks, embeddings, overrides and
/// isolates, with where each is.
fn acted_on(text: &str) -> Vec<(usize, char)> {
    text.char_indices()
        .filter(|&(_, c)| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

fn assert_inert(what: &str, text: &str) {
    let found = acted_on(text);
    assert!(
        found.is_empty(),
        "{what}: a terminal would act on {:?}\n{text}",
        &found[..found.len().min(10)]
    );
}

/// `text` with the colour codes codespan-reporting writes itself (SGR,
/// `ESC [ … m`) taken out: what is left must hold no escape at all.
fn without_colours(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find(|c: char| !(c.is_ascii_digit() || c == ';'));
        match end {
            Some(end) if after[end..].starts_with('m') => rest = &after[end + 1..],
            _ => {
                // Not a colour: kept, for assert_inert to find.
                out.push_str(&rest[at..at + 2]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Feeds `text` to a terminal emulator (pyte) and checks that the screen
/// shows each line exactly as written: no line moved, erased, swallowed
/// or retitled. `None` when pyte is missing (never in CI).
fn on_a_terminal(what: &str, text: &str) -> Option<()> {
    const SCRIPT: &str = r#"
import json, sys
try:
    import pyte
    from wcwidth import wcswidth
except ImportError:
    print("missing"); sys.exit(0)
text = sys.stdin.read()
lines = text.split("\n")
if lines and lines[-1] == "":
    lines.pop()
lines = [line.expandtabs(8) for line in lines]
columns = max([max(wcswidth(line), len(line)) for line in lines] + [1]) + 1
screen = pyte.Screen(columns, len(lines) + 1)
stream = pyte.Stream(screen)
stream.feed(text.replace("\n", "\r\n"))
shown = [row.rstrip() for row in screen.display][: len(lines)]
print(json.dumps({"shown": shown, "lines": [l.rstrip() for l in lines], "title": screen.title}))
"#;
    let Some(run) = pipe(Command::new("python3").args(["-c", SCRIPT]), text) else {
        missing("python3 is not installed");
        return None;
    };
    if run.stdout.trim() == "missing" {
        missing("python3 with pyte is not installed (pip install pyte)");
        return None;
    }
    assert!(run.ok, "{what}: pyte failed: {}", run.stderr);
    let screen: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(screen["title"], "", "{what}: the output set the title");
    let (shown, lines) = (
        screen["shown"].as_array().unwrap(),
        screen["lines"].as_array().unwrap(),
    );
    for (i, (shown, line)) in shown.iter().zip(lines).enumerate() {
        assert_eq!(
            shown,
            line,
            "{what}: line {} is not shown as written\n{text}",
            i + 1
        );
    }
    Some(())
}

/// A human output: nothing a terminal acts on, shown as written, and the
/// hostile text visible in its escaped form.
fn assert_for_people(what: &str, text: &str, visible: &[&str]) {
    assert_inert(what, text);
    for shown in visible {
        assert!(
            text.contains(shown),
            "{what}: {shown:?} is not shown\n{text}"
        );
    }
    on_a_terminal(what, text);
}

/// The escaped forms every report on the contract shows.
const ESCAPED: &[&str] = &[
    r"fetch\u{1b}]52;c;aGVsbG8=\u{7}",
    r"link\u{1b}]8;;https://evil/x\u{7}click\u{1b}]8;;\u{7}",
    r"need\u{9b}31m\u{202e}evil",
    r"line\u{a}::error file=forged::forged",
    r"cr\u{d}bell\u{7}\u{7f}",
];

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), contract()).unwrap();
        Project { dir }
    }

    fn run(&self, args: &[&str]) -> Run {
        phaselint(self.dir.path(), args)
    }

    /// How many findings the lint reports, read from its JSON: what the
    /// other formats must show one of each of, however many rules fire on
    /// the contract.
    fn finding_count(&self) -> usize {
        let json: Value = serde_json::from_str(&self.lint("json")).unwrap();
        json["diagnostics"].as_array().unwrap().len()
    }

    fn lint(&self, format: &str) -> String {
        let run = self.run(&["lint", "--no-config", "--format", format, FILE]);
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        assert_inert(
            &format!("lint --format {format}, standard error"),
            &run.stderr,
        );
        run.stdout
    }

    fn graph(&self, format: &str) -> String {
        let run = self.run(&[
            "graph",
            "--no-config",
            "--findings",
            "--format",
            format,
            FILE,
        ]);
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        assert_inert(
            &format!("graph --format {format}, standard error"),
            &run.stderr,
        );
        run.stdout
    }
}

#[test]
fn the_human_lint_formats_show_hostile_text_escaped() {
    let project = Project::new();
    let full = project.lint("full");
    assert_for_people("full", &full, ESCAPED);
    // The source snippet is escaped too: the raw ESC in the comment, the
    // raw C1 in the plain key; and the carets still sit under the label.
    assert!(
        full.contains(r"  # \u{1b}]52;c;aGVsbG8=\u{7} \u{1b}[1A\u{1b}[2K \u{9b}2J hidden"),
        "{full}"
    );
    let snippet = full
        .lines()
        .position(|l| l.contains(r"sink\u{1b}M\u{9b}K:"))
        .expect(&full);
    let lines: Vec<&str> = full.lines().collect();
    let key = lines[snippet].find("sink").unwrap();
    let carets = lines[snippet + 1].find('^').unwrap();
    assert_eq!(key, carets, "{}\n{}", lines[snippet], lines[snippet + 1]);
    // The header's column is the file's own (the key is at column 3).
    assert!(full.contains(":13:3\n"), "{full}");
    // In colour, the only escapes are codespan-reporting's own colours.
    let coloured = project.run(&["lint", "--no-config", "--color", "always", FILE]);
    assert_inert("full in colour", &without_colours(&coloured.stdout));

    let concise = project.lint("concise");
    assert_for_people("concise", &concise, ESCAPED);
    // One line per finding, whatever newline a name holds; the file name
    // is escaped too.
    let findings: Vec<&str> = concise
        .lines()
        .filter(|l| l.starts_with(r"pr\u{1b}]8;;mailto:a@b\u{7}.contract.yaml:"))
        .collect();
    let count = project.finding_count();
    assert!(count >= 6, "{concise}");
    assert_eq!(findings.len(), count, "{concise}");
    assert_eq!(concise.lines().count(), count + 2, "{concise}");

    let github = project.lint("github");
    assert_inert("github", &github);
    // A newline in a name cannot start a workflow command of its own.
    for line in github.lines() {
        assert!(line.starts_with("::"), "{line}");
    }
    assert!(
        !github.lines().any(|l| l.starts_with("::error file=forged")),
        "{github}"
    );
    assert!(github.contains(r"need\u{9b}31m\u{202e}evil"), "{github}");
    on_a_terminal("github", &github);
}

#[test]
fn the_diff_of_the_fixes_shows_the_source_escaped() {
    let project = Project::new();
    let run = project.run(&["lint", "--no-config", "--diff", "--unsafe-fixes", FILE]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_for_people(
        "lint --diff",
        &run.stdout,
        // The fix writes the name quoted, its control characters as YAML
        // escapes: plain text in the file, and nothing for a terminal.
        &[r#"+    phase: "fetch\u001B]52;c;aGVsbG8=\u0007""#],
    );
    assert_inert("lint --diff, standard error", &run.stderr);
}

#[test]
fn the_machine_lint_formats_pass_their_readers_and_keep_the_text() {
    let project = Project::new();

    let json = project.lint("json");
    assert_inert("json", &json);
    let json: Value = serde_json::from_str(&json).unwrap();
    let messages: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    // The tools' format keeps the contract's own text, exactly.
    assert!(
        messages
            .iter()
            .any(|m| m.contains("`fetch\u{1b}]52;c;aGVsbG8=X\u{7}`")),
        "{messages:?}"
    );
    assert_eq!(json["diagnostics"][0]["path"], FILE);
    let fix = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "R101")
        .unwrap();
    // Written in the file as a double-quoted scalar that reads back as the
    // phase's name.
    assert_eq!(
        fix["fix"]["edits"][0]["replacement"],
        r#""fetch\u001B]52;c;aGVsbG8=\u0007""#
    );

    let gitlab = project.lint("gitlab");
    assert_inert("gitlab", &gitlab);
    let gitlab: Value = serde_json::from_str(&gitlab).unwrap();
    let issues = gitlab.as_array().unwrap();
    assert_eq!(issues.len(), project.finding_count());
    for issue in issues {
        assert_eq!(issue["location"]["path"], FILE);
        assert_inert("gitlab description", issue["description"].as_str().unwrap());
    }

    let sarif = project.lint("sarif");
    assert_inert("sarif", &sarif);
    let log: Value = serde_json::from_str(&sarif).unwrap();
    for result in log["runs"][0]["results"].as_array().unwrap() {
        assert_inert("sarif message", result["message"]["text"].as_str().unwrap());
    }
    validate_sarif(&sarif);

    let junit = project.lint("junit");
    assert_inert("junit", &junit);
    assert!(junit.contains(r"need\u{9b}31m\u{202e}evil"), "{junit}");
    validate_junit(&junit);
}

fn validate_sarif(log: &str) {
    let Some(validator) = std::env::var_os("SARIF_MULTITOOL").filter(|v| Path::new(v).exists())
    else {
        missing(
            "SARIF_MULTITOOL is not set (npm install @microsoft/sarif-multitool, then point it at the platform binary)",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hostile.sarif");
    std::fs::write(&file, log).unwrap();
    let output = Command::new(validator)
        .arg("validate")
        .arg(&file)
        .args(["--rule-kind", "Sarif;Gh"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("Analysis completed successfully"), "{said}");
    let problems: Vec<&str> = said
        .lines()
        .filter(|l| l.contains(": error ") || l.contains(": warning "))
        .collect();
    assert!(problems.is_empty(), "{}\n{log}", problems.join("\n"));
}

fn validate_junit(xml: &str) {
    const SCRIPT: &str = r#"
import sys
try:
    import xmlschema
except ImportError:
    print("missing"); sys.exit(0)
xmlschema.XMLSchema(sys.argv[1]).validate(sys.stdin.read())
print("valid")
"#;
    let Some(xsd) = std::env::var_os("JUNIT_XSD").filter(|p| Path::new(p).is_file()) else {
        missing(
            "JUNIT_XSD does not name a file (pytest's sdist has testing/example_scripts/junit-10.xsd)",
        );
        return;
    };
    let run = pipe(Command::new("python3").args(["-c", SCRIPT]).arg(xsd), xml)
        .expect("python3 is missing");
    if run.stdout.trim() == "missing" {
        missing("python3 with xmlschema is not installed (pip install xmlschema)");
        return;
    }
    assert!(
        run.ok,
        "the JUnit XML does not validate:\n{}\n{xml}",
        run.stderr
    );
}

#[test]
fn graphviz_and_mermaid_read_the_graph_and_no_label_configures_it() {
    let project = Project::new();
    let dot = project.graph("dot");
    assert_inert("graph --format dot", &dot);
    assert!(dot.contains(r"fetch\u{1b}]52;c;aGVsbG8=\u{7}"), "{dot}");
    match pipe(Command::new("dot").arg("-Tsvg"), &dot) {
        None => missing("Graphviz's `dot` is not installed (apt-get install graphviz)"),
        Some(run) => {
            assert!(
                run.ok && run.stderr.is_empty(),
                "dot -Tsvg: {}\n{dot}",
                run.stderr
            );
            assert_inert("the SVG Graphviz drew", &run.stdout);
        }
    }

    let mermaid = project.graph("mermaid");
    assert_inert("graph --format mermaid", &mermaid);
    // No `%%` outside the front matter's quoted title, where Mermaid does
    // not look for directives.
    let body = mermaid.split("\n---\n").nth(1).unwrap();
    assert!(!body.contains('%'), "{body}");
    assert!(body.contains("#37;#37;{init:"), "{body}");
    if let Some(result) = mermaid_parse(&mermaid) {
        assert_eq!(result["ok"], true, "{}\n{mermaid}", result["error"]);
        assert_eq!(result["type"], "flowchart-v2");
        assert_eq!(result["config"], serde_json::json!({}), "{mermaid}");
    }

    let json = project.graph("json");
    assert_inert("graph --format json", &json);
    let json: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["nodes"][0]["id"], format!("fetch{CLIPBOARD}"));
}

/// Mermaid's own parser on `text` (tests/graph/mermaid-parse.mjs); `None`
/// when Mermaid is not installed (never in CI).
fn mermaid_parse(text: &str) -> Option<Value> {
    let Some(dir) = std::env::var_os("MERMAID_DIR")
        .map(PathBuf::from)
        .filter(|d| d.join("node_modules/mermaid").is_dir())
    else {
        missing(
            "MERMAID_DIR does not name a folder with node_modules/mermaid and node_modules/jsdom",
        );
        return None;
    };
    let script = std::fs::read_to_string(repo().join("tests/graph/mermaid-parse.mjs")).unwrap();
    let run = pipe(
        Command::new("node")
            .args(["--input-type=module", "-e", &script])
            .current_dir(&dir),
        &serde_json::to_string(&[text]).unwrap(),
    )
    .expect("node is missing");
    assert!(run.ok, "{}", run.stderr);
    let results: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    results.into_iter().next()
}

/// The resume check of the contract side: a checkpoint whose names, the
/// context's field, the approvals file's `approved_by` and the recovery
/// hook's error output are all hostile.
#[test]
fn the_resume_report_of_a_contract_checkpoint_shows_hostile_text_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let field = format!("doc{LINK}");
    let contract = r#"schema_version: '1'
pipeline_id: "pipe\e]52;c;aGVsbG8=\a"
phases:
  "gather\e[1A\e[2K":
    exit:
      required: [{name: "doc\e]8;;https://evil/x\aclick\e]8;;\a"}]
  next:
    entry:
      required: [{name: "doc\e]8;;https://evil/x\aclick\e]8;;\a"}]
checkpoint_integrity:
  - checkpoint_id: "k\x9b2J"
    phase: "gather\e[1A\e[2K"
    on_resume:
      approval_required: true
      approval_policy: human
      staleness_checks:
        - {field: "doc\e]8;;https://evil/x\aclick\e]8;;\a", max_age_seconds: 60, recovery: re_retrieve}
"#;
    std::fs::write(dir.path().join("c.contract.yaml"), contract).unwrap();
    let context = serde_json::json!({
        &field: 1,
        "_cc_propagation": {&field: {"set_at": "2026-03-01T11:00:00Z"}},
    });
    std::fs::write(dir.path().join("ctx.json"), context.to_string()).unwrap();
    let approval = serde_json::json!({
        "approved_by": format!("ana{CLIPBOARD}{ERASE_ABOVE}"),
        "approved_at": "2026-03-01T11:00:00Z",
        "policy": "human",
        "checkpoint_id": "k\u{9b}2J",
        "stale_fields_acknowledged": [],
        "notes": "n",
        "target_digest": "00",
    });
    std::fs::write(dir.path().join("approval.json"), approval.to_string()).unwrap();
    let run = phaselint(
        dir.path(),
        &[
            "resume-check",
            "--no-config",
            "--contract",
            "c.contract.yaml",
            "--checkpoint",
            "k\u{9b}2J",
            "--context",
            "ctx.json",
            "--approvals",
            "approval.json",
            "--recover-with",
            r"printf '\033]52;c;aGk=\007\033[2Kboom' >&2; exit 1",
            "--now",
            "2026-03-01T12:00:00Z",
        ],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_for_people(
        "resume-check --contract",
        &run.stdout,
        &[
            r"checkpoint `k\u{9b}2J` after phase `gather\u{1b}[1A\u{1b}[2K` of pipeline `pipe\u{1b}]52;c;aGVsbG8=\u{7}`",
            r"STALE     doc\u{1b}]8;;https://evil/x\u{7}click\u{1b}]8;;\u{7} [blocking",
            r"failed: exited 1: \u{1b}]52;c;aGk=\u{7}\u{1b}[2Kboom",
            r"by `ana\u{1b}]52;c;aGVsbG8=\u{7}\u{1b}[1A\u{1b}[2K`",
        ],
    );
}

/// `approve` asks on a terminal before approving a resume into an
/// irreversible phase, naming it: a name holding a hyperlink and an
/// erase-the-line-above is shown escaped in the question. Driven on a
/// pseudo-terminal by script(1) (util-linux), answering "n".
#[cfg(unix)]
#[test]
fn the_approve_prompt_shows_a_hostile_phase_name_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let contract = r#"schema_version: '1'
pipeline_id: demo
phases:
  plan:
    exit:
      required: [{name: doc}]
  "drop\e]8;;https://evil/x\aclick\e]8;;\a\e[1A\e[2K":
    side_effects: irreversible
    entry:
      required: [{name: doc}]
checkpoint_integrity:
  - checkpoint_id: gate
    phase: plan
    on_resume:
      approval_required: true
      approval_policy: human
"#;
    std::fs::write(dir.path().join("c.contract.yaml"), contract).unwrap();
    std::fs::write(dir.path().join("ctx.json"), r#"{"doc": "x"}"#).unwrap();
    let command = format!(
        "'{}' approve --no-config --contract c.contract.yaml --checkpoint gate --by ana --policy human --context ctx.json --now 2026-03-01T11:00:00Z",
        env!("CARGO_BIN_EXE_phaselint")
    );
    let mut script = Command::new("script");
    script
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir.path());
    let Some(run) = pipe(&mut script, "n\n") else {
        missing("script (util-linux) is not installed");
        return;
    };
    // The terminal ends its lines with CR LF.
    let shown = run.stdout.replace("\r\n", "\n");
    assert!(
        shown.contains("whose side effects cannot be undone. Approve it? [y/N]")
            && shown.contains("not confirmed: no approval written"),
        "{shown}"
    );
    assert_for_people(
        "approve's prompt",
        &shown,
        &[r"runs `drop\u{1b}]8;;https://evil/x\u{7}click\u{1b}]8;;\u{7}\u{1b}[1A\u{1b}[2K`"],
    );
    assert!(!dir.path().join("approval.json").exists());
}

#[test]
fn the_handoff_report_shows_hostile_tasks_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let example =
        std::fs::read_to_string(repo().join("fixtures/handoff/skill-example.md")).unwrap();
    let row = "| 2 | Implement feature B | in_progress | worker-2 |";
    assert!(example.contains(row));
    let hostile = format!(
        "| 2{ERASE_ABOVE} | Implement {CLIPBOARD}feature B\u{202e}{ERASE_ABOVE} | in_progress | w{LINK} |"
    );
    std::fs::write(
        dir.path().join("handoff.md"),
        example.replace(row, &hostile),
    )
    .unwrap();
    let run = phaselint(
        dir.path(),
        &[
            "resume-check",
            "--no-config",
            "--handoff",
            "handoff.md",
            "--now",
            "2026-01-26T12:00:00Z",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_for_people(
        "resume-check --handoff",
        &run.stdout,
        &[
            r"Implement \u{1b}]52;c;aGVsbG8=\u{7}feature B\u{202e}\u{1b}[1A\u{1b}[2K",
            r"w\u{1b}]8;;https://evil/x\u{7}click\u{1b}]8;;\u{7}",
            r"2\u{1b}[1A\u{1b}[2K",
        ],
    );
}

#[test]
fn the_manifest_report_shows_hostile_ids_and_paths_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = serde_json::json!({
        "checkpoint_created": true,
        "checkpoint": {
            "id": format!("ck{ERASE_ABOVE}\u{9b}31m"),
            "type": "git_stash",
            "created_at": "2026-03-01T11:30:00Z",
            "scope": {"files": [format!("a{CLIPBOARD}.txt")], "state_keys": []},
            "restore_command": "git stash pop",
            "expiry": "24h"
        },
        "pre_mutation_state": {"hash": format!("sha256:{ERASE_ABOVE}beef"), "summary": "s"},
        "evidence_anchors": ["x"]
    });
    std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
    let run = phaselint(
        dir.path(),
        &[
            "resume-check",
            "--no-config",
            "--manifest",
            "manifest.json",
            "--now",
            "2026-03-01T12:00:00Z",
        ],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_for_people(
        "resume-check --manifest",
        &run.stdout,
        &[
            r"checkpoint: ck\u{1b}[1A\u{1b}[2K\u{9b}31m",
            r"a\u{1b}]52;c;aGVsbG8=\u{7}.txt",
            r"recorded hash: sha256:\u{1b}[1A\u{1b}[2Kbeef",
        ],
    );
}

/// `phaselint diff`: OLD's location is in OLD's own file, so OLD's name
/// and OLD's source lines reach every format. A hostile OLD (a name with
/// an OSC 8 link, a comment with raw escapes on the lines its related
/// locations show) is shown escaped, as NEW is, and the machine formats
/// still pass their readers.
#[test]
fn a_diff_shows_old_s_hostile_name_and_snippet_escaped() {
    const OLD: &str = "old\u{1b}]8;;mailto:a@b\u{7}.contract.yaml";
    const OLD_SHOWN: &str = r"old\u{1b}]8;;mailto:a@b\u{7}.contract.yaml";
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(repo().join("fixtures/diff/base.contract.yaml")).unwrap();
    let old = base.replace(
        "max_age_seconds: 600",
        &format!("max_age_seconds: 600  # {CLIPBOARD} {ERASE_ABOVE} \u{9b}2J hidden"),
    );
    std::fs::write(dir.path().join(OLD), old).unwrap();
    std::fs::write(
        dir.path().join("new.contract.yaml"),
        base.replace("max_age_seconds: 600", "max_age_seconds: 60"),
    )
    .unwrap();
    let diff = |format: &str| {
        let run = phaselint(
            dir.path(),
            &[
                "diff",
                "--no-config",
                "--format",
                format,
                OLD,
                "new.contract.yaml",
            ],
        );
        assert_eq!(run.code, 0, "{format}: {}{}", run.stdout, run.stderr);
        assert_inert(
            &format!("diff --format {format}, standard error"),
            &run.stderr,
        );
        run.stdout
    };
    let full = diff("full");
    assert_for_people("diff full", &full, &[OLD_SHOWN]);
    assert!(
        full.contains(r"  # \u{1b}]52;c;aGVsbG8=\u{7} \u{1b}[1A\u{1b}[2K \u{9b}2J hidden"),
        "{full}"
    );
    for format in ["concise", "github"] {
        let text = diff(format);
        assert_for_people(&format!("diff {format}"), &text, &[OLD_SHOWN]);
    }

    let json = diff("json");
    assert_inert("diff json", &json);
    let json: Value = serde_json::from_str(&json).unwrap();
    // The tools' format keeps the name as it is.
    assert_eq!(json["diagnostics"][0]["related"][0]["path"], OLD);

    let gitlab = diff("gitlab");
    assert_inert("diff gitlab", &gitlab);
    for issue in serde_json::from_str::<Value>(&gitlab)
        .unwrap()
        .as_array()
        .unwrap()
    {
        let description = issue["description"].as_str().unwrap();
        assert!(description.contains(OLD_SHOWN), "{description}");
    }

    let sarif = diff("sarif");
    assert_inert("diff sarif", &sarif);
    let log: Value = serde_json::from_str(&sarif).unwrap();
    let uri =
        log["runs"][0]["results"][0]["relatedLocations"][0]["physicalLocation"]["artifactLocation"]
            ["uri"]
            .as_str()
            .unwrap();
    assert_eq!(uri, "old%1B%5D8;;mailto%3Aa@b%07.contract.yaml");
    validate_sarif(&sarif);

    let junit = diff("junit");
    assert_inert("diff junit", &junit);
    assert!(junit.contains(OLD_SHOWN), "{junit}");
    validate_junit(&junit);
}
