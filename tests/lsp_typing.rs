//! Half-typed YAML, as an editor and CI see it (issue 24, point 1).
//!
//! Through the real `phaselint lsp` process: a 30-line phase is typed into
//! the largest real contract one character at a time, waiting for the
//! diagnostics of every version. While the text does not parse, the
//! findings off the typed lines are those of the last text that parsed,
//! E001 is on the line being typed, and hover, definition and the outline
//! keep answering. Through `phaselint lint`: E001 is on the broken line, and
//! it is the only finding (no guessing in CI).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

#[path = "support/lsp_client.rs"]
mod lsp_client;
#[path = "support/tools.rs"]
mod tools;
use lsp_client::Lsp;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The largest real contract (721 lines), read from the corpus beside the
/// repository; `None` (the test says it is skipped) when it is not there,
/// except in CI.
fn largest_contract() -> Option<(PathBuf, String)> {
    let path = repo().join("../shared/corpus/valid/artisan-pipeline.ed6cc63c.contract.yaml");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some((path, text)),
        Err(_) => {
            tools::missing(&format!(
                "no corpus at {} (the tests run beside ../shared)",
                path.display()
            ));
            None
        }
    }
}

/// Hover and definition at a (line, column) of an ASCII text.
impl Lsp {
    fn at_point(&mut self, method: &str, uri: &str, (line, character): (usize, usize)) -> Value {
        self.at(method, uri, line as u32, character as u32, json!({}))
    }
}

/// A finding as compared between versions: code, range, message.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Finding {
    code: String,
    start: (usize, usize),
    end: (usize, usize),
    message: String,
}

fn findings(diagnostics: &[Value]) -> Vec<Finding> {
    let position = |p: &Value| {
        (
            p["line"].as_u64().unwrap() as usize,
            p["character"].as_u64().unwrap() as usize,
        )
    };
    let mut found: Vec<Finding> = diagnostics
        .iter()
        .map(|d| Finding {
            code: d["code"].as_str().unwrap().to_string(),
            start: position(&d["range"]["start"]),
            end: position(&d["range"]["end"]),
            message: d["message"].as_str().unwrap().to_string(),
        })
        .collect();
    found.sort();
    found
}

/// The (line, column) of byte `offset` of an ASCII text.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    (line, offset - before.rfind('\n').map_or(0, |i| i + 1))
}

/// The phase typed into the contract: 30 lines with a quoted description,
/// lists of fields, a nested mapping (`quality`) and flow collections, so
/// that typing it passes through keys without their colon, unclosed quotes
/// and unclosed brackets.
const PHASE: &str = r#"  audit:
    description: "Audit the finalized workflow against the plan"
    entry:
      required:
        - name: workflow_summary
          type: dict
          severity: blocking
          source_phase: finalize
        - name: tasks
          type: list
          severity: blocking
      enrichment:
        - name: truncation_flags
          type: dict
          severity: advisory
          default: {}
    exit:
      required:
        - name: audit_report
          type: dict
          severity: blocking
          description: "Findings of the audit, one per task"
          quality:
            metric: line_count
            threshold: 5
      optional:
        - name: audit_tags
          type: list
          severity: advisory
          default: [reviewed, final]"#;

#[test]
fn typing_a_phase_keeps_the_findings_hover_and_definition_of_the_last_text_that_parsed() {
    let Some((path, original)) = largest_contract() else {
        return;
    };
    assert_eq!(PHASE.lines().count(), 30);
    let uri = format!("file://{}", std::path::absolute(&path).unwrap().display());
    // The same text opened fresh, as a second document beside it (same
    // directory, so the same configuration), at every step that parses.
    let fresh_uri = uri.replace(".contract.yaml", ".typing-check.contract.yaml");
    let mut lsp = Lsp::start_with(json!({}));
    lsp.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": original}}),
    );
    lsp.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": fresh_uri, "languageId": "yaml", "version": 1, "text": original}}),
    );
    let opened = findings(&lsp.diagnostics(&uri, 1));
    assert_eq!(opened, findings(&lsp.diagnostics(&fresh_uri, 1)));
    assert!(
        !opened.is_empty() && opened.iter().all(|f| f.code != "E001"),
        "{opened:?}"
    );

    // The phase goes at the end of `phases:`, after the last line of its
    // last phase.
    let chains = original.find("\npropagation_chains:").unwrap();
    let before_comments = original[..chains]
        .lines()
        .map(str::len)
        .fold((0, 0), |(offset, last), len| {
            let line = &original[offset..offset + len];
            let kept = if line.trim().is_empty() || line.trim_start().starts_with('#') {
                last
            } else {
                offset + len
            };
            (offset + len + 1, kept)
        })
        .1;
    let mut text = original.clone();
    let mut cursor = before_comments;

    // The last text that parsed: its findings, and where the typing since
    // then began (its cursor) in it.
    let mut good = opened;
    let mut good_cursor = cursor;
    let mut version = 1;
    let (mut broken_steps, mut parsed_steps) = (0, 0);
    let typed: Vec<char> = PHASE
        .split('\n')
        .flat_map(|line| std::iter::once('\n').chain(line.chars()))
        .collect();
    for (step, c) in typed.into_iter().enumerate() {
        let (line, column) = line_col(&text, cursor);
        version += 1;
        lsp.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{
                    "range": {"start": {"line": line, "character": column}, "end": {"line": line, "character": column}},
                    "text": c.to_string(),
                }],
            }),
        );
        text.insert(cursor, c);
        cursor += c.len_utf8();
        let published = findings(&lsp.diagnostics(&uri, version));
        let typing_line = line_col(&text, cursor).0;
        let e001: Vec<&Finding> = published.iter().filter(|f| f.code == "E001").collect();
        if e001.is_empty() {
            // It parses: the same findings as the same text opened fresh.
            parsed_steps += 1;
            lsp.notify(
                "textDocument/didChange",
                json!({
                    "textDocument": {"uri": fresh_uri, "version": version},
                    "contentChanges": [{"text": text}],
                }),
            );
            let fresh = findings(&lsp.diagnostics(&fresh_uri, version));
            assert_eq!(published, fresh, "step {step}: {:?}", &text[..cursor]);
            good = published;
            good_cursor = cursor;
            continue;
        }
        broken_steps += 1;
        assert_eq!(e001.len(), 1, "step {step}: {published:?}");
        assert_eq!(
            e001[0].start.0,
            typing_line,
            "step {step}: E001 off the line being typed ({typing_line}): {} in {:?}",
            e001[0].message,
            &text[..cursor].rsplit('\n').next()
        );
        // The typing since the last text that parsed: inserted at
        // `good_cursor`, now the lines `first..=last` of the text.
        let first = line_col(&text, good_cursor).0;
        let inserted = &text[good_cursor..cursor];
        let last = first + inserted.matches('\n').count();
        // A finding of that text on a line before `first` is where it was;
        // after it, as many lines lower as the typing added; on it, gone.
        let expected: Vec<Finding> = good
            .iter()
            .filter(|f| f.end.0 < first || f.start.0 > first)
            .map(|f| {
                let mut f = f.clone();
                if f.start.0 > first {
                    f.start.0 += last - first;
                    f.end.0 += last - first;
                }
                f
            })
            .collect();
        // The contract's own findings lie both before and after the typing.
        assert!(
            expected.iter().any(|f| f.start.0 < first) && expected.iter().any(|f| f.start.0 > last),
            "step {step}: {expected:?}"
        );
        let carried: Vec<Finding> = published.into_iter().filter(|f| f.code != "E001").collect();
        assert_eq!(
            carried, expected,
            "step {step}: carried findings, typed lines {first}..={last}"
        );

        // Hover on a phase name before the typing, and definition of a
        // phase named after it (in a chain, lines below).
        let plan = original.find("\n  plan:").unwrap() + 3;
        let hover = lsp.at_point("textDocument/hover", &uri, line_col(&text, plan));
        let contents = hover["contents"]["value"].as_str().unwrap_or_default();
        assert!(
            contents.contains("phase `plan`"),
            "step {step}: hover on `plan`: {hover}"
        );
        let chain_phase = cursor + text[cursor..].find("      phase: implement").unwrap() + 13;
        let definition = lsp.at_point(
            "textDocument/definition",
            &uri,
            line_col(&text, chain_phase),
        );
        let implement = text.find("\n  implement:").unwrap() + 3;
        assert_eq!(
            definition[0]["range"]["start"],
            json!({"line": line_col(&text, implement).0, "character": 2}),
            "step {step}: definition of `implement`: {definition}"
        );
        // The outline keeps the contract's phases, every few steps.
        if broken_steps % 25 == 1 {
            let symbols = lsp.request(
                "textDocument/documentSymbol",
                json!({"textDocument": {"uri": uri}}),
            );
            let names: Vec<&str> = symbols
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["name"].as_str().unwrap())
                .collect();
            for phase in ["plan", "implement", "finalize"] {
                assert!(names.contains(&phase), "step {step}: outline {names:?}");
            }
        }
    }
    println!("{parsed_steps} steps parsed, {broken_steps} did not");
    // The typing passed through both kinds of state, many times.
    assert!(broken_steps > 100 && parsed_steps > 100);
    // The finished phase parses, and what it says is what a fresh open says.
    assert!(good.iter().all(|f| f.code != "E001"));
}

/// `phaselint lint --format concise` on a copy of the real contract with
/// one line broken as it is while being typed: E001 on that line, and
/// nothing else (CI gets no guess at what the rest of the file says).
#[test]
fn lint_reports_only_e001_on_the_line_being_typed() {
    let Some((_, original)) = largest_contract() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Line 57 (1-based) is `          severity: blocking`, in `plan`'s exit.
    let line57 = original.lines().nth(56).unwrap();
    assert_eq!(line57, "          severity: blocking");
    let line55 = original.lines().nth(54).unwrap();
    assert_eq!(line55, "        - name: total_estimated_loc");
    // (what, the 1-based line broken, its broken text, E001's column)
    let cases = [
        ("a key without its colon", 57, "          sever", 11),
        // Line 55 is `        - name: total_estimated_loc`: the first key
        // of a list item runs on into the next line's `type: int`.
        (
            "the first key of a list item without its colon",
            55,
            "        - nam",
            11,
        ),
        (
            "an unclosed double quote",
            57,
            "          severity: \"block",
            21,
        ),
        (
            "an unclosed single quote",
            57,
            "          severity: 'block",
            21,
        ),
        (
            "an unclosed flow sequence",
            57,
            "          severity: [block",
            21,
        ),
        (
            "an unclosed flow mapping",
            57,
            "          severity: {a: block",
            21,
        ),
        (
            "a tab in the indentation",
            57,
            "\t         severity: blocking",
            1,
        ),
    ];
    for (what, line, broken, column) in cases {
        let text: Vec<&str> = original
            .lines()
            .enumerate()
            .map(|(i, l)| if i + 1 == line { broken } else { l })
            .collect();
        let file = dir.path().join("broken.contract.yaml");
        std::fs::write(&file, text.join("\n") + "\n").unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_phaselint"))
            .args(["lint", "--format", "concise"])
            .arg(&file)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let findings: Vec<&str> = stdout
            .lines()
            .filter(|l| {
                ["[error]", "[warning]", "[info]"]
                    .iter()
                    .any(|s| l.contains(s))
            })
            .collect();
        assert_eq!(output.status.code(), Some(1), "{what}: {stdout}");
        assert_eq!(findings.len(), 1, "{what}: only E001, got {stdout}");
        let expected =
            format!("broken.contract.yaml:{line}:{column}: E001 [error] YAML syntax error");
        assert!(
            findings[0].contains(&expected),
            "{what}: expected {expected}, got {stdout}"
        );
    }
}
