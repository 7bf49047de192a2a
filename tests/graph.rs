//! `phaselint graph`: what the picture carries (JSON), that Graphviz draws
//! the DOT (`dot -Tsvg`) and Mermaid's own parser reads the flowchart, for
//! every fixture; that the output does not change from run to run; and
//! that the README's picture is current. Graphviz and Mermaid (with jsdom,
//! from npm, in the folder `MERMAID_DIR`) are installed by `.ci/run`; a
//! test that needs one skips with a printed reason when it is absent,
//! except in CI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/binary.rs"]
mod binary;
#[path = "support/tools.rs"]
mod tools;

use std::path::{Path, PathBuf};
use std::process::Command;

use binary::phaselint;
use serde_json::{Value, json};
use tools::{missing, pipe};

fn repo() -> PathBuf {
    std::path::absolute(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

/// Every fixture contract, sorted.
fn fixtures() -> Vec<String> {
    let mut found = Vec::new();
    for rule in std::fs::read_dir(repo().join("fixtures")).unwrap() {
        let rule = rule.unwrap().path();
        for file in std::fs::read_dir(&rule).into_iter().flatten() {
            let file = file.unwrap().path();
            if file.to_string_lossy().ends_with(".contract.yaml") {
                found.push(
                    file.strip_prefix(repo())
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    found.sort();
    found
}

/// Graphviz's `dot -Tsvg` on `text`, or `None` (with the reason printed,
/// never in CI) when Graphviz is not installed.
fn graphviz_svg(text: &str) -> Option<String> {
    let Some(run) = pipe(Command::new("dot").arg("-Tsvg"), text) else {
        missing("Graphviz's `dot` is not installed (apt-get install graphviz)");
        return None;
    };
    assert!(
        run.ok && run.stderr.is_empty(),
        "dot -Tsvg refused it: {}\n{text}",
        run.stderr
    );
    Some(run.stdout)
}

fn graph(file: &str, format: &str, findings: bool) -> String {
    let mut args = vec!["graph", "--no-config", "--format", format, file];
    if findings {
        args.push("--findings");
    }
    let run = phaselint(&repo(), &args);
    assert_eq!(run.code, 0, "{file}: {}", run.stderr);
    run.stdout
}

/// The graph of every fixture that can be read as a contract (the others
/// are refused, as `a_file_that_is_not_a_contract_has_no_graph` checks).
fn fixture_graphs(format: &str) -> Vec<(String, String)> {
    fixtures()
        .into_iter()
        .filter_map(|file| {
            let run = phaselint(
                &repo(),
                &[
                    "graph",
                    "--no-config",
                    "--findings",
                    "--format",
                    format,
                    &file,
                ],
            );
            if run.code == 3 && (file.contains("/E001/") || file.contains("/E007/")) {
                return None;
            }
            assert_eq!(run.code, 0, "{file}: {}", run.stderr);
            Some((file, run.stdout))
        })
        .collect()
}

#[test]
fn graphviz_draws_the_dot_of_every_fixture() {
    let graphs = fixture_graphs("dot");
    assert!(graphs.len() > 80, "{}", graphs.len());
    for (file, dot) in graphs {
        let Some(svg) = graphviz_svg(&dot) else {
            return;
        };
        assert!(svg.contains("<svg"), "{file}");
    }
}

#[test]
fn mermaid_parses_the_flowchart_of_every_fixture() {
    let Some(dir) = std::env::var_os("MERMAID_DIR")
        .map(PathBuf::from)
        .filter(|d| d.join("node_modules/mermaid").is_dir())
    else {
        missing(
            "MERMAID_DIR does not name a folder with node_modules/mermaid and node_modules/jsdom",
        );
        return;
    };
    let script = std::fs::read_to_string(repo().join("tests/graph/mermaid-parse.mjs")).unwrap();
    // The first text checks that the check itself refuses a broken flowchart.
    let mut texts = vec![(
        "broken".to_string(),
        "flowchart TD\n  p0[\"a \"b\" c\"]\n".to_string(),
    )];
    texts.extend(fixture_graphs("mermaid"));
    let input = serde_json::to_string(&texts.iter().map(|(_, t)| t).collect::<Vec<_>>()).unwrap();
    let run = pipe(
        Command::new("node")
            .args(["--input-type=module", "-e", &script])
            .current_dir(&dir),
        &input,
    )
    .expect("node is missing");
    assert!(run.ok, "{}", run.stderr);
    let results: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(results.len(), texts.len());
    assert_eq!(results[0]["ok"], false, "{}", results[0]);
    for ((file, text), result) in texts.iter().zip(&results).skip(1) {
        assert_eq!(result["ok"], true, "{file}: {}\n{text}", result["error"]);
        assert_eq!(result["type"], "flowchart-v2", "{file}");
        // Nothing in a label (a `%%{init: …}%%`) configures the diagram.
        assert_eq!(result["config"], json!({}), "{file}\n{text}");
    }
}

const GOVERNED: &str = r#"schema_version: '1'
pipeline_id: "payouts <v2> & \"co\""
checkpoint_mode: policy
phases:
  fetch:
    expected_duration: 2h
    exit:
      required: [{name: invoices}, {name: scratch}]
  review:
    entry:
      required: [{name: invoices}]
  pay:
    side_effects: irreversible
    risk_class: critical
    entry:
      required: [{name: invoices}]
  notify:
    side_effects: reversible
graph_topology:
  edges:
    - {from: fetch, to: review, condition: "amount > 1000 and region == 'EU'", drops: [scratch]}
    - {from: fetch, to: pay, condition: "amount <= 1000", drops: [scratch]}
    - {from: review, to: pay}
    - {from: pay, to: notify}
checkpoint_integrity:
  - checkpoint_id: after_fetch
    phase: fetch
  - checkpoint_id: before_pay
    phase: review
    on_resume:
      approval_required: true
      approval_policy: human
"#;

fn governed_graph(args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("payouts.contract.yaml"), GOVERNED).unwrap();
    let run = phaselint(
        dir.path(),
        &[
            &["graph", "--no-config", "--format", "json"],
            args,
            &["payouts.contract.yaml"],
        ]
        .concat(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

#[test]
fn nodes_carry_checkpoints_side_effects_risk_and_duration_and_edges_their_condition_and_drops() {
    let graph = governed_graph(&[]);
    assert_eq!(graph["version"], 1);
    assert_eq!(graph["edges_from"], "graph_topology");
    let node = |id: &str| {
        graph["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(
        node("review")["checkpoints"],
        json!([{"id": "before_pay", "approval_required": true, "approval_policy": "human"}])
    );
    assert_eq!(
        node("fetch")["checkpoints"],
        json!([{"id": "after_fetch", "approval_required": false, "approval_policy": null}])
    );
    assert_eq!(node("fetch")["long_running"], true);
    assert_eq!(node("pay")["side_effects"], "irreversible");
    assert_eq!(node("pay")["risk_class"], "critical");
    assert_eq!(node("notify")["side_effects"], "reversible");
    assert_eq!(node("review")["long_running"], false);
    assert!(node("pay").get("findings").is_none());
    assert_eq!(
        graph["edges"][0],
        json!({"from": "fetch", "to": "review", "condition": "amount > 1000 and region == 'EU'", "drops": ["scratch"], "preserves": null})
    );
    assert_eq!(graph["edges"].as_array().unwrap().len(), 4);
}

#[test]
fn findings_are_drawn_on_the_phase_they_point_at() {
    let drawn = governed_graph(&["--findings"]);
    let pay = drawn["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "pay")
        .unwrap();
    // Entering the irreversible phase straight from `fetch` passes no
    // person's approval.
    let codes: Vec<&str> = pay["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"P401"), "{pay}");
    let lint = phaselint(
        &repo(),
        &[
            "lint",
            "--no-config",
            "--format",
            "json",
            "fixtures/G305/fail.contract.yaml",
        ],
    );
    let dot = graph("fixtures/G305/fail.contract.yaml", "dot", true);
    // Every lint finding is somewhere in the picture.
    let lint: Value = serde_json::from_str(&lint.stdout).unwrap();
    for d in lint["diagnostics"].as_array().unwrap() {
        let line = d["start"]["line"].as_u64().unwrap();
        let code = d["code"].as_str().unwrap();
        assert!(
            dot.contains(&format!("{code} (line {line})")),
            "{code} at {line}:\n{dot}"
        );
    }
}

#[test]
fn labels_from_the_contract_are_escaped_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("payouts.contract.yaml"), GOVERNED).unwrap();
    let draw = |format: &str| {
        let run = phaselint(
            dir.path(),
            &[
                "graph",
                "--no-config",
                "--format",
                format,
                "payouts.contract.yaml",
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let dot = draw("dot");
    assert!(
        dot.starts_with("digraph \"payouts <v2> & \\\"co\\\"\" {"),
        "{dot}"
    );
    assert!(
        dot.contains("p2 [label=<<b>pay</b><br/>side effects: irreversible, risk: critical>"),
        "{dot}"
    );
    assert!(
        dot.contains("label=<<b>payouts &lt;v2&gt; &amp; \"co\"</b>>"),
        "{dot}"
    );
    assert!(
        dot.contains("<b>review</b><br/>checkpoint after it: before_pay (approval: human)>"),
        "{dot}"
    );
    assert!(dot.contains("peripheries=2"), "{dot}");
    assert!(dot.contains("style=\"rounded,filled,dashed\""), "{dot}");
    let mermaid = draw("mermaid");
    assert!(
        mermaid.starts_with("---\ntitle: \"payouts <v2> & \\\"co\\\"\"\n---\nflowchart TD\n"),
        "{mermaid}"
    );
    assert!(
        mermaid.contains("p0 -->|\"amount #gt; 1000 and region == 'EU'<br/>drops: scratch\"| p1"),
        "{mermaid}"
    );
    assert!(mermaid.contains("class p0,p1 checkpointed"), "{mermaid}");
    assert!(
        mermaid.contains("p2[\"<b>pay</b><br/>side effects: irreversible, risk: critical\"]"),
        "{mermaid}"
    );
    // Control characters a quoted YAML string can hold: XML cannot, and
    // Graphviz parses its labels as XML.
    std::fs::write(
        dir.path().join("controls.contract.yaml"),
        "schema_version: '1'\npipeline_id: \"p\\x01q\"\nphases:\n  \"a\\x02b\": {}\n",
    )
    .unwrap();
    let controls = phaselint(
        dir.path(),
        &["graph", "--no-config", "controls.contract.yaml"],
    );
    assert_eq!(controls.code, 0, "{}", controls.stderr);
    graphviz_svg(&controls.stdout);
    if let Some(svg) = graphviz_svg(&dot) {
        assert!(
            svg.contains("payouts &lt;v2&gt; &amp; &quot;co&quot;"),
            "{svg}"
        );
    }
}

#[test]
fn text_from_the_contract_is_cut_to_what_a_picture_can_hold() {
    let dir = tempfile::tempdir().unwrap();
    // A 1,024-character phase name (the longest a name may be, as YAML's
    // plain keys) and a phase with 40 findings.
    let name = "n".repeat(1_024);
    let needs: Vec<String> = (0..40).map(|i| format!("{{name: f{i}}}")).collect();
    std::fs::write(
        dir.path().join("big.contract.yaml"),
        format!(
            "schema_version: '1'\npipeline_id: big\nphases:\n  ? {name}\n  : {{}}\n  b: {{entry: {{required: [{}]}}}}\n",
            needs.join(", ")
        ),
    )
    .unwrap();
    for format in ["dot", "mermaid"] {
        let run = phaselint(
            dir.path(),
            &[
                "graph",
                "--no-config",
                "--findings",
                "--format",
                format,
                "big.contract.yaml",
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stdout.len() < 8_000,
            "{format}: {} bytes",
            run.stdout.len()
        );
        assert!(
            run.stdout
                .contains("and 35 more (phaselint lint lists them)"),
            "{}",
            run.stdout
        );
        if format == "dot" {
            graphviz_svg(&run.stdout);
        }
    }
    // JSON, for tools, keeps everything.
    let json = phaselint(
        dir.path(),
        &[
            "graph",
            "--no-config",
            "--findings",
            "--format",
            "json",
            "big.contract.yaml",
        ],
    );
    let json: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(json["nodes"][0]["id"].as_str().unwrap().len(), 1_024);
    assert_eq!(json["nodes"][1]["findings"].as_array().unwrap().len(), 40);
}

/// `graph --findings` places each finding through an index built once: it
/// searched every phase per finding, and 120,000 phases with a finding
/// each took minutes. The deadline only catches a return of that.
#[test]
fn findings_are_placed_in_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    let phases = 120_000;
    let mut text = String::from("schema_version: '1'\npipeline_id: big\nphases:\n");
    for i in 0..phases {
        text.push_str(&format!(
            "  p{i}: {{entry: {{required: [{{name: f{i}}}]}}}}\n"
        ));
    }
    std::fs::write(dir.path().join("big.contract.yaml"), text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args([
            "graph",
            "--no-config",
            "--findings",
            "--format",
            "json",
            "big.contract.yaml",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).unwrap();
        out
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("graph --findings of {phases} phases took more than 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success());
    let graph: Value = serde_json::from_str(&reader.join().unwrap()).unwrap();
    let nodes = graph["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), phases);
    // Each finding on its own phase (the first phase's entry fields are
    // the pipeline's inputs).
    for (i, node) in nodes.iter().enumerate().skip(1).step_by(997) {
        let findings = node["findings"].as_array().unwrap();
        assert_eq!(findings.len(), 1, "p{i}: {node}");
        assert_eq!(findings[0]["code"], "G303");
        assert_eq!(findings[0]["line"], i + 4);
    }
}

#[test]
fn the_same_contract_gives_the_same_text() {
    for format in ["dot", "mermaid", "json"] {
        for file in [
            "fixtures/G305/fail.contract.yaml",
            "fixtures/valid/branch-merge.contract.yaml",
        ] {
            assert_eq!(
                graph(file, format, true),
                graph(file, format, true),
                "{file} {format}"
            );
        }
    }
}

#[test]
fn a_file_that_is_not_a_contract_has_no_graph() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.contract.yaml"), "phases: [\n").unwrap();
    let run = phaselint(dir.path(), &["graph", "bad.contract.yaml"]);
    assert_eq!(run.code, 3);
    assert!(
        run.stderr.contains("cannot be read as a contract"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
    let harness = phaselint(&repo(), &["graph", "fixtures/H501/fail.harness.json"]);
    assert_eq!(harness.code, 3);
    assert!(
        harness.stderr.contains("is not a context contract"),
        "{}",
        harness.stderr
    );
    let missing = phaselint(dir.path(), &["graph", "missing.contract.yaml"]);
    assert_eq!(missing.code, 3);
    assert!(
        missing
            .stderr
            .contains("cannot read `missing.contract.yaml`"),
        "{}",
        missing.stderr
    );
}

/// The README's picture: `scripts/graph-picture` names the contract; the
/// committed DOT is what `phaselint graph` prints for it now, and the
/// committed SVG is what Graphviz draws from that DOT.
#[test]
fn the_readme_picture_is_current() {
    let script = std::fs::read_to_string(repo().join("scripts/graph-picture")).unwrap();
    let value = |name: &str| {
        script
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .unwrap()
            .to_string()
    };
    let (contract, picture) = (value("contract"), value("picture"));
    if !repo().join(&contract).exists() {
        missing(&format!("{contract} is not beside the repository"));
        return;
    }
    let committed_dot = std::fs::read_to_string(repo().join(format!("{picture}.dot"))).unwrap();
    let run = phaselint(&repo(), &["graph", "--no-config", "--findings", &contract]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout == committed_dot,
        "{picture}.dot is stale: run scripts/graph-picture"
    );
    let committed_svg = std::fs::read_to_string(repo().join(format!("{picture}.svg"))).unwrap();
    if let Some(svg) = graphviz_svg(&committed_dot) {
        assert!(
            svg == committed_svg,
            "{picture}.svg is not what Graphviz draws from {picture}.dot: run scripts/graph-picture"
        );
    }
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("({picture}.svg)")),
        "the README does not show {picture}.svg"
    );
}
