//! The language server as an editor drives it: the real `phaselint lsp`
//! process over stdio, every capability, a burst of edits, garbage input,
//! configuration reload, shutdown and exit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/generate.rs"]
mod generate;
use generate::cycle_contract;

#[path = "support/lsp_client.rs"]
mod lsp_client;
use lsp_client::{Lsp, TIMEOUT, uri_of};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What only these tests ask of the shared client.
impl Lsp {
    /// A server with extra environment (`PHASELINT_LSP_FAULT` makes a test
    /// build's handler panic).
    fn start_with_env(env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_phaselint"));
        // The injected panics' messages are expected; keep them out of the log.
        command
            .envs(env.iter().copied())
            .arg("lsp")
            .stderr(Stdio::null());
        Lsp::spawn(command)
    }

    /// A server whose address space is capped (`ulimit -v`, in KiB).
    fn start_capped(limit_kib: u64) -> Self {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("ulimit -v {limit_kib} && exec \"$0\" lsp"))
            .arg(env!("CARGO_BIN_EXE_phaselint"));
        Lsp::spawn(command)
    }

    /// Waits for the process to end on its own; its exit status.
    fn wait_for_exit(mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `textDocument/codeAction` for an empty range at (line, character).
    fn code_actions(&mut self, uri: &str, line: u32, character: u32, context: Value) -> Value {
        let at = json!({"line": line, "character": character});
        self.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": at, "end": at}, "context": context}),
        )
    }

    fn shutdown_and_exit(mut self) {
        assert_eq!(self.request("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "exit status {status}");
                return;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn fixture(relative: &str) -> (String, String) {
    let path = repo().join("fixtures").join(relative);
    (uri_of(&path), std::fs::read_to_string(&path).unwrap())
}

fn action_titles(actions: &Value) -> Vec<&str> {
    actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect()
}

fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

/// The position of the first `needle` in `text` (UTF-16 columns, ASCII lines).
fn pos(text: &str, needle: &str) -> (u32, u32) {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in text"));
    let line = text[..offset].matches('\n').count();
    let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1);
    (line as u32, column as u32)
}

#[test]
fn diagnostics_carry_code_description_related_information_and_version() {
    let mut lsp = Lsp::start();
    let init = lsp.initialize_with_encodings(&["utf-16"]);
    let caps = &init["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    for capability in [
        "hoverProvider",
        "definitionProvider",
        "referencesProvider",
        "renameProvider",
        "completionProvider",
        "codeActionProvider",
        "documentSymbolProvider",
    ] {
        assert!(!caps[capability].is_null(), "{capability} missing");
    }
    let (uri, text) = fixture("R105/fail.contract.yaml");
    lsp.open(&uri, &text);
    let diagnostics = lsp.diagnostics(&uri, 1);
    let r105 = diagnostics.iter().find(|d| d["code"] == "R105").unwrap();
    assert_eq!(r105["severity"], 1);
    assert_eq!(r105["source"], "phaselint");
    assert!(
        r105["codeDescription"]["href"]
            .as_str()
            .unwrap()
            .ends_with("rules/R105.md")
    );
    assert_eq!(
        r105["relatedInformation"][0]["location"]["uri"],
        uri.as_str()
    );
    assert_eq!(r105["relatedInformation"][0]["message"], "first used here");
    let (line, col) = (
        r105["range"]["start"]["line"].as_u64(),
        r105["range"]["start"]["character"].as_u64(),
    );
    assert_eq!((line, col), (Some(31), Some(19)));
    lsp.shutdown_and_exit();
}

const NON_ASCII: &str = "schema_version: '1'\npipeline_id: p\nphases: { \"é😀\": { bogus: 1 } }\n";

#[test]
fn positions_follow_the_negotiated_encoding_on_non_ascii_lines() {
    for (offered, expected_encoding, expected_column) in [
        (vec![], "utf-16", 19),
        (vec!["utf-8", "utf-16"], "utf-8", 22),
    ] {
        let mut lsp = Lsp::start();
        let init = lsp.initialize_with_encodings(&offered);
        assert_eq!(init["capabilities"]["positionEncoding"], expected_encoding);
        lsp.open("file:///tmp/enc.contract.yaml", NON_ASCII);
        let diagnostics = lsp.diagnostics("file:///tmp/enc.contract.yaml", 1);
        let e003 = diagnostics.iter().find(|d| d["code"] == "E003").unwrap();
        assert_eq!(e003["range"]["start"]["line"], 2);
        assert_eq!(
            e003["range"]["start"]["character"], expected_column,
            "{expected_encoding}"
        );
        // Hover at that same position finds the same finding.
        let hover = lsp.at(
            "textDocument/hover",
            "file:///tmp/enc.contract.yaml",
            2,
            expected_column + 1,
            json!({}),
        );
        assert!(
            hover["contents"]["value"]
                .as_str()
                .unwrap()
                .contains("E003"),
            "{hover}"
        );
        lsp.shutdown_and_exit();
    }
}

const CONTRACT: &str = "\
schema_version: '1'
pipeline_id: rag
phases:
  retrieve:
    description: Fetch the documents
    exit:
      required:
        - name: docs
  generate:
    entry:
      required:
        - name: docs
    exit:
      required:
        - name: answer
          severity: BLOCKING
propagation_chains:
  - chain_id: docs_flow
    source: { phase: retrieve, field: docs }
    destination: { phase: generate, field: docs }
checkpoint_integrity:
  - checkpoint_id: after_retrieve
    phase: retrieve
    on_resume:
      staleness_checks:
        - field: docs
          max_age_seconds: 60
          recovery: re_retrieve
";

#[test]
fn hover_definition_references_rename_symbols() {
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    let uri = "file:///tmp/nav.contract.yaml";
    lsp.open(uri, CONTRACT);
    assert_eq!(codes(&lsp.diagnostics(uri, 1)), ["S002"]);

    let hover = |lsp: &mut Lsp, needle: &str, skip: usize| {
        let (l, c) = pos(CONTRACT, needle);
        lsp.at("textDocument/hover", uri, l, c + skip as u32, json!({}))["contents"]["value"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let on_diagnostic = hover(&mut lsp, "BLOCKING", 1);
    assert!(on_diagnostic.starts_with("**S002**"), "{on_diagnostic}");
    assert!(
        on_diagnostic.contains("# S002: non-canonical-case"),
        "the rule page: {on_diagnostic}"
    );
    let on_phase = hover(&mut lsp, "phase: retrieve\n", 8);
    assert!(on_phase.contains("**phase `retrieve`**"), "{on_phase}");
    assert!(on_phase.contains("Fetch the documents"));
    assert!(on_phase.contains("exit required: `docs`"));
    assert!(
        on_phase.contains("covered by checkpoints: `after_retrieve`"),
        "{on_phase}"
    );
    let on_field = hover(&mut lsp, "field: docs\n", 8);
    assert!(
        on_field.contains("produced by: `retrieve`")
            && on_field.contains("consumed by: `generate`"),
        "{on_field}"
    );
    // Keys: their type, default and meaning, from the format's table.
    let on_key = hover(&mut lsp, "max_age_seconds", 3);
    assert!(
        on_key.starts_with("**`max_age_seconds`** (Staleness check): integer"),
        "{on_key}"
    );
    assert!(on_key.contains("Required."), "{on_key}");
    let on_key = hover(&mut lsp, "recovery: re_retrieve", 1);
    assert!(
        on_key.contains("What to do about a stale field."),
        "{on_key}"
    );
    let on_key = hover(&mut lsp, "description: Fetch", 2);
    assert!(on_key.contains("(Phase)"), "{on_key}");
    // An enum value's hover covers the value.
    let (l, c) = pos(CONTRACT, "re_retrieve");
    let raw = lsp.at("textDocument/hover", uri, l, c + 2, json!({}));
    assert_eq!(
        raw["range"],
        json!({"start": {"line": l, "character": c}, "end": {"line": l, "character": c + 11}})
    );
    let on_enum = hover(&mut lsp, "re_retrieve", 2);
    assert!(
        on_enum.contains("`re_retrieve` (recovery strategy)"),
        "{on_enum}"
    );

    // Definition: a chain's phase goes to the phase key; a field to its producer.
    let (l, c) = pos(CONTRACT, "phase: generate");
    let def = lsp.at("textDocument/definition", uri, l, c + 8, json!({}));
    assert_eq!(def[0]["range"]["start"], json!({"line": 8, "character": 2}));
    let (l, c) = pos(CONTRACT, "field: docs }");
    let def = lsp.at("textDocument/definition", uri, l, c + 7, json!({}));
    assert_eq!(
        def[0]["range"]["start"],
        json!({"line": 7, "character": 16})
    );

    // References of `retrieve`: key, chain source, checkpoint phase.
    let refs = lsp.at(
        "textDocument/references",
        uri,
        3,
        3,
        json!({"context": {"includeDeclaration": true}}),
    );
    assert_eq!(refs.as_array().unwrap().len(), 3, "{refs}");
    let refs = lsp.at(
        "textDocument/references",
        uri,
        3,
        3,
        json!({"context": {"includeDeclaration": false}}),
    );
    assert_eq!(refs.as_array().unwrap().len(), 2, "{refs}");

    // Rename: refused off a phase, every occurrence on one.
    assert_eq!(
        lsp.at("textDocument/prepareRename", uri, 0, 3, json!({})),
        Value::Null
    );
    let prepared = lsp.at("textDocument/prepareRename", uri, 3, 4, json!({}));
    assert_eq!(prepared["placeholder"], "retrieve");
    let edit = lsp.at(
        "textDocument/rename",
        uri,
        3,
        4,
        json!({"newName": "fetch"}),
    );
    let edits = edit["changes"][uri].as_array().unwrap();
    assert_eq!(edits.len(), 3);
    assert!(edits.iter().all(|e| e["newText"] == "fetch"));
    let refused = lsp.request_raw(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri}, "position": {"line": 3, "character": 4}, "newName": "generate"}),
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already exists")
    );
    // Names YAML would read unquoted as something other than a string.
    for retyped in ["123", "true", "null", "1e3"] {
        let refused = lsp.request_raw(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri}, "position": {"line": 3, "character": 4}, "newName": retyped}),
        );
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("YAML reads it unquoted as a number, a boolean or null"),
            "{retyped}: {refused}"
        );
    }

    let symbols = lsp.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    // Nested as the YAML nests it, in document order (the chain is written
    // before the checkpoint), each selection on the name.
    fn outline(symbols: &Value, depth: usize, out: &mut Vec<String>) {
        for s in symbols.as_array().into_iter().flatten() {
            out.push(format!(
                "{}{} ({})",
                "  ".repeat(depth),
                s["name"].as_str().unwrap(),
                s["detail"].as_str().unwrap_or("")
            ));
            outline(&s["children"], depth + 1, out);
        }
    }
    let mut lines = Vec::new();
    outline(&symbols, 0, &mut lines);
    assert_eq!(
        lines,
        [
            "retrieve (Fetch the documents)",
            "  docs (exit required)",
            "generate ()",
            "  docs (entry required)",
            "  answer (exit required)",
            "docs_flow (chain retrieve → generate)",
            "  retrieve.docs ()",
            "  generate.docs ()",
            "after_retrieve (checkpoint after `retrieve`)",
            "  docs (staleness check)",
        ]
    );
    let (l, c) = pos(CONTRACT, "docs_flow");
    assert_eq!(
        symbols[2]["selectionRange"]["start"],
        json!({"line": l, "character": c})
    );
    lsp.shutdown_and_exit();
}

#[test]
fn completion_and_code_actions() {
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    let uri = "file:///tmp/complete.contract.yaml";
    lsp.open(uri, CONTRACT);
    let parsed = codes(&lsp.diagnostics(uri, 1));
    let labels = |result: &Value| -> Vec<String> {
        result
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    // Keys valid in a staleness check; the exit fields of the checkpoint's phase; enum values.
    let (l, _) = pos(CONTRACT, "          recovery: re_retrieve");
    let keys = lsp.at("textDocument/completion", uri, l, 10, json!({}));
    assert!(labels(&keys).contains(&"on_stale".to_string()), "{keys}");
    let (l, c) = pos(CONTRACT, "field: docs\n          max_age");
    let fields = lsp.at("textDocument/completion", uri, l, c + 7, json!({}));
    assert_eq!(labels(&fields), ["docs"]);
    let (l, c) = pos(CONTRACT, "re_retrieve");
    let values = lsp.at("textDocument/completion", uri, l, c, json!({}));
    // Not `log_and_continue`: the check's staleness is blocking (C207).
    assert_eq!(labels(&values), ["re_retrieve", "re_generate", "fail"]);
    let (l, c) = pos(CONTRACT, "phase: retrieve\n    on_resume");
    let phases = lsp.at("textDocument/completion", uri, l, c + 7, json!({}));
    // Not `generate`: it does not produce the watched `docs` (R102).
    assert_eq!(labels(&phases), ["retrieve"]);
    // Half-typed YAML that no longer parses: names come from the last
    // contract that did, though that analysis itself was dropped.
    let end = CONTRACT.lines().count() as u32;
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range": {"start": {"line": end, "character": 0}, "end": {"line": end, "character": 0}}, "text": "broken: [\n"}]}),
    );
    // E001, and the findings of the text that parsed (lines above the edit).
    let mut broken = codes(&lsp.diagnostics(uri, 2));
    assert_eq!(broken.remove(0), "E001");
    assert_eq!(broken, parsed);
    let phases = lsp.at("textDocument/completion", uri, l, c + 7, json!({}));
    assert_eq!(labels(&phases), ["retrieve"]);
    // Back to the parsed text for the code actions below.
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": CONTRACT}]}),
    );
    lsp.diagnostics(uri, 3);

    // Code actions: the linter's fix, and a suppression comment.
    let (l, c) = pos(CONTRACT, "BLOCKING");
    let actions = lsp.code_actions(uri, l, c, json!({"diagnostics": []}));
    let titles = action_titles(&actions);
    assert_eq!(
        titles,
        [
            "Lowercase to `blocking` (S002)",
            "Suppress S002 on this line"
        ]
    );
    let fix = &actions[0]["edit"]["changes"][uri][0];
    assert_eq!(fix["newText"], "blocking");
    // A client asking only for other kinds (fix-all on save) gets nothing.
    let fix_all = lsp.code_actions(
        uri,
        l,
        c,
        json!({"diagnostics": [], "only": ["source.fixAll"]}),
    );
    assert_eq!(fix_all, json!([]));
    // An unused suppression is fixed by removing it, not by suppressing it.
    let (s001, s001_text) = fixture("S001/fail.contract.yaml");
    lsp.open(&s001, &s001_text);
    lsp.diagnostics(&s001, 1);
    let s001_actions = lsp.code_actions(&s001, 17, 56, json!({"diagnostics": []}));
    let s001_titles = action_titles(&s001_actions);
    assert!(
        s001_titles.iter().any(|t| t.ends_with("(S001)")),
        "{s001_titles:?}"
    );
    assert!(
        !s001_titles.iter().any(|t| t.starts_with("Suppress S001")),
        "{s001_titles:?}"
    );
    assert_eq!(actions[0]["isPreferred"], true);
    assert_eq!(actions[1].get("isPreferred"), None);
    // A did-you-mean is an unsafe fix: offered, preferred (one closest
    // name), and its title says it is a guess.
    let (r101, r101_text) = fixture("R101/fail.contract.yaml");
    lsp.open(&r101, &r101_text);
    lsp.diagnostics(&r101, 1);
    let (rl, rc) = pos(&r101_text, "phase: retreive");
    let rc = rc + 7;
    let r101_actions = lsp.code_actions(&r101, rl, rc, json!({"diagnostics": []}));
    assert_eq!(
        action_titles(&r101_actions),
        [
            "Replace with `retrieve` (R101, unsafe fix)",
            "Suppress R101 on this line"
        ]
    );
    assert_eq!(r101_actions[0]["isPreferred"], true);
    assert_eq!(
        r101_actions[0]["edit"]["changes"][&r101][0]["newText"],
        "retrieve"
    );
    let suppress = &actions[1]["edit"]["changes"][uri][0];
    assert_eq!(suppress["newText"], "  # phaselint: disable=S002");
    assert_eq!(
        suppress["range"]["start"],
        json!({"line": l, "character": c + 8})
    );
    lsp.shutdown_and_exit();
}

/// A pseudo-random but fixed sequence of small edits, with LSP (UTF-16)
/// ranges; some insert non-ASCII text.
fn edits(text: &str, count: usize) -> Vec<(String, Value)> {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut current = text.to_string();
    let mut out = Vec::new();
    for i in 0..count {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let lines: Vec<&str> = current.split('\n').collect();
        let line = (seed as usize) % lines.len();
        let chars: Vec<char> = lines[line].chars().collect();
        let col = (seed as usize >> 16) % (chars.len() + 1);
        let (insert, delete) = match i % 3 {
            0 => ("x".to_string(), 0),
            1 => (String::new(), usize::from(col < chars.len())),
            _ => ("# é😀\n".to_string(), 0),
        };
        let utf16 = |n: usize| chars[..n].iter().map(|c| c.len_utf16()).sum::<usize>();
        let bytes = |n: usize| chars[..n].iter().map(|c| c.len_utf8()).sum::<usize>();
        let line_start: usize = lines[..line].iter().map(|l| l.len() + 1).sum();
        let (start, end) = (line_start + bytes(col), line_start + bytes(col + delete));
        let range = json!({
            "start": {"line": line, "character": utf16(col)},
            "end": {"line": line, "character": utf16(col + delete)},
        });
        current.replace_range(start..end, &insert);
        out.push((current.clone(), json!({"range": range, "text": insert})));
    }
    out
}

#[test]
fn a_burst_of_500_edits_ends_with_the_diagnostics_of_a_fresh_open() {
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    let (_, text) = fixture("valid/linear-rag.contract.yaml");
    let uri = "file:///tmp/burst.contract.yaml";
    lsp.open(uri, &text);
    lsp.diagnostics(uri, 1);
    let burst = edits(&text, 500);
    for (i, (_, change)) in burst.iter().enumerate() {
        lsp.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": i + 2}, "contentChanges": [change]}),
        );
    }
    let after_burst = lsp.diagnostics(uri, 501);
    // Whatever was published on the way came in version order, once each.
    let versions: Vec<i64> = lsp
        .backlog
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
        .map(|m| m["params"]["version"].as_i64().unwrap())
        .collect();
    assert!(
        versions.windows(2).all(|w| w[0] < w[1]) && versions.iter().all(|v| *v < 501),
        "published out of order: {versions:?}"
    );
    let final_text = &burst.last().unwrap().0;
    let fresh = "file:///tmp/fresh.contract.yaml";
    lsp.open(fresh, final_text);
    let expected = lsp.diagnostics(fresh, 1);
    assert!(
        !expected.is_empty(),
        "the edits should have broken something"
    );
    let strip = |d: &[Value]| -> Vec<Value> {
        d.iter()
            .map(|d| {
                let mut d = d.clone();
                if let Some(related) = d["relatedInformation"].as_array_mut() {
                    for r in related {
                        r["location"]["uri"] = json!("");
                    }
                }
                d
            })
            .collect()
    };
    assert_eq!(strip(&after_burst), strip(&expected));
    // The server's text is the final text: an edit beyond it is clamped, not a crash.
    lsp.shutdown_and_exit();
}

#[test]
fn garbage_never_stops_the_server() {
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    // Malformed frames and bodies. A bad length leaves its body to run into
    // the next header; the server must find that header and go on.
    for bad in [
        &b"Content-Length: abc\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"$/x\"}"[..],
        b"Content-Type: text/plain\r\n\r\n{}",
        b"Content-Length: 3\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"$/x\"}",
    ] {
        lsp.stdin.write_all(bad).unwrap();
        lsp.stdin.flush().unwrap();
        let alive = lsp.request_raw("phaselint/unknownMethod", json!({}));
        assert_eq!(alive["error"]["code"], -32601, "after {bad:?}");
    }
    lsp.send_raw(b"{not json");
    lsp.send_raw(b"\xff\xfe\x00 invalid utf-8");
    lsp.send_raw(
        br#"{"jsonrpc":"2.0","id":"x","method":"textDocument/hover","params":{"textDocument":7}}"#,
    );
    let bad_params = lsp.wait_for(|m| m["id"] == "x");
    assert!(bad_params.get("error").is_some(), "{bad_params}");
    let unknown = lsp.request_raw("phaselint/unknownMethod", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    lsp.notify("textDocument/didChange", json!({"textDocument": {"uri": "file:///never/opened.yaml", "version": 2}, "contentChanges": [{"text": "x"}]}));
    lsp.notify("$/unknownNotification", json!({"a": 1}));
    // Hostile documents: NUL bytes, 5 MB, 10,000 levels of nesting.
    lsp.open(
        "file:///tmp/nul.contract.yaml",
        "schema_version: \"\u{0}\u{0}\"\nphases: {a: {}}\n\u{0}",
    );
    assert!(
        !lsp.diagnostics("file:///tmp/nul.contract.yaml", 1)
            .is_empty()
    );
    let deep = format!("a: {}{}", "[".repeat(10_000), "]".repeat(10_000));
    lsp.open("file:///tmp/deep.contract.yaml", &deep);
    assert_eq!(
        codes(&lsp.diagnostics("file:///tmp/deep.contract.yaml", 1)),
        ["E007"]
    );
    let mut big = String::from("schema_version: '1'\npipeline_id: big\nphases:\n");
    let mut i = 0;
    while big.len() < 5 * 1024 * 1024 {
        big.push_str(&format!(
            "  p{i}:\n    description: \"{}\"\n",
            "x".repeat(200)
        ));
        i += 1;
    }
    lsp.open("file:///tmp/big.contract.yaml", &big);
    lsp.diagnostics("file:///tmp/big.contract.yaml", 1);
    // Still answering.
    let symbols = lsp.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": "file:///tmp/nul.contract.yaml"}}),
    );
    assert!(symbols.is_array());
    lsp.shutdown_and_exit();
}

#[test]
fn hover_right_after_a_multi_byte_character_is_answered() {
    // Finding the word under the cursor stepped back one byte into `é`.
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    let uri = "file:///tmp/accent.contract.yaml";
    let text =
        "schema_version: '1'\npipeline_id: p\ndescription: éx\nphases:\n  a: {}\nrisk: éhigh\n";
    lsp.open(uri, text);
    lsp.diagnostics(uri, 1);
    for (line, character) in [(2, 14), (2, 15), (5, 7)] {
        let hover = lsp.request_raw(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        );
        assert!(hover.get("error").is_none(), "{hover}");
    }
    let symbols = lsp.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(symbols.is_array());
    lsp.shutdown_and_exit();
}

#[test]
fn frames_the_transport_would_choke_on_are_answered_and_the_next_is_served() {
    // Each of these passed the framing guard and then stopped
    // tower-lsp-server's reader for good (or, for the length, left the
    // guard waiting for 16 exabytes).
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    for bad in [
        &br#"{"jsonrpc":"2.0","id":2,"id":3,"method":"shutdown"}"#[..],
        br#"{"jsonrpc":"2.0","id":4,"method":"a","method":"shutdown"}"#,
        br#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":5,"method":"shutdown"}"#,
        br#"{"jsonrpc":"2.0","id":6,"method":"x","params":{},"params":{}}"#,
        br#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"shutdown"}"#,
    ] {
        lsp.send_raw(bad);
        let answer = lsp.wait_for(|m| m.get("error").is_some() && m["id"].is_null());
        assert_eq!(
            answer["error"]["code"],
            -32600,
            "{}",
            String::from_utf8_lossy(bad)
        );
        let alive = lsp.request_raw("phaselint/unknownMethod", json!({}));
        assert_eq!(
            alive["error"]["code"],
            -32601,
            "after {}",
            String::from_utf8_lossy(bad)
        );
    }
    lsp.stdin
        .write_all(b"Content-Length: 18446744073709551615\r\n\r\n{}")
        .unwrap();
    lsp.stdin.flush().unwrap();
    let alive = lsp.request_raw("phaselint/unknownMethod", json!({}));
    assert_eq!(alive["error"]["code"], -32601, "after an absurd length");
    lsp.shutdown_and_exit();
}

#[test]
fn a_panicking_request_handler_is_answered_with_an_error_and_the_server_goes_on() {
    let mut lsp = Lsp::start_with_env(&[("PHASELINT_LSP_FAULT", "textDocument/hover")]);
    lsp.initialize_with_encodings(&[]);
    let uri = "file:///tmp/fault.contract.yaml";
    lsp.open(uri, CONTRACT);
    assert_eq!(codes(&lsp.diagnostics(uri, 1)), ["S002"]);
    let hover = lsp.request_raw(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 3, "character": 3}}),
    );
    assert_eq!(hover["error"]["code"], -32603, "{hover}");
    let log = lsp.wait_for(|m| m["method"] == "window/logMessage");
    assert!(
        log["params"]["message"]
            .as_str()
            .unwrap()
            .contains("textDocument/hover handler failed"),
        "{log}"
    );
    // The document is still there and still analyzed on change.
    let symbols = lsp.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(!symbols.as_array().unwrap().is_empty());
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": CONTRACT.replace("BLOCKING", "blocking")}]}),
    );
    assert_eq!(codes(&lsp.diagnostics(uri, 2)), Vec::<String>::new());
    lsp.shutdown_and_exit();
}

#[test]
fn a_panicking_notification_handler_leaves_the_server_serving() {
    let mut lsp = Lsp::start_with_env(&[("PHASELINT_LSP_FAULT", "textDocument/didChange")]);
    lsp.initialize_with_encodings(&[]);
    let uri = "file:///tmp/fault-change.contract.yaml";
    lsp.open(uri, CONTRACT);
    assert_eq!(codes(&lsp.diagnostics(uri, 1)), ["S002"]);
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "x: 1\n"}]}),
    );
    let log = lsp.wait_for(|m| m["method"] == "window/logMessage");
    assert!(
        log["params"]["message"]
            .as_str()
            .unwrap()
            .contains("didChange")
    );
    // The change was not applied; the document is as it was, and answers.
    let hover = lsp.at("textDocument/hover", uri, 3, 3, json!({}));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("retrieve")
    );
    lsp.shutdown_and_exit();
}

#[test]
fn a_cycle_of_thousands_of_phases_is_analyzed_within_bounded_memory() {
    // The cycle that made the old fixpoint abort (its server peaked at
    // 1 GB of address space on it; this one at about 650 MB).
    let mut lsp = Lsp::start_capped(850 * 1024);
    lsp.initialize_with_encodings(&[]);
    let uri = "file:///tmp/cycle.contract.yaml";
    lsp.open(uri, &cycle_contract(20_000, 5));
    assert_eq!(codes(&lsp.diagnostics(uri, 1)), Vec::<String>::new());
    let symbols = lsp.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(symbols.as_array().unwrap().len() > 20_000);
    lsp.shutdown_and_exit();
}

#[test]
fn code_actions_for_a_whole_file_of_findings_are_capped() {
    // 2,000 unknown keys on one line: a request over the whole text once
    // built an action per finding (and for 64,000 findings, a response the
    // server could not pass on).
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    let uri = "file:///tmp/many-findings.contract.yaml";
    let keys: Vec<String> = (0..2_000).map(|i| format!("k{i}: 1")).collect();
    let text = format!(
        "{{schema_version: '1', pipeline_id: p, phases: {{a: {{}}}}, {}}}\n",
        keys.join(", ")
    );
    lsp.open(uri, &text);
    assert_eq!(lsp.diagnostics(uri, 1).len(), 2_000);
    let whole = json!({"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}});
    let actions = lsp.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": whole, "context": {"diagnostics": []}}),
    );
    assert_eq!(actions.as_array().unwrap().len(), 500);
    lsp.shutdown_and_exit();
}

#[test]
fn a_client_without_dynamic_registration_is_sent_no_request() {
    // The raw client below answers nothing; a registration request would
    // otherwise be left pending.
    let mut lsp = Lsp::start();
    lsp.initialize_with(json!({}));
    let uri = "file:///tmp/plain-client.contract.yaml";
    lsp.open(uri, CONTRACT);
    assert_eq!(codes(&lsp.diagnostics(uri, 1)), ["S002"]);
    let hover = lsp.at("textDocument/hover", uri, 3, 3, json!({}));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("retrieve")
    );
    assert_eq!(lsp.server_requests, Vec::<String>::new());
    // A client that does take registrations gets the config watchers.
    let mut watched = Lsp::start();
    watched.initialize_with_encodings(&[]);
    watched.open(uri, CONTRACT);
    watched.diagnostics(uri, 1);
    assert_eq!(watched.server_requests, ["client/registerCapability"]);
    watched.shutdown_and_exit();
    lsp.shutdown_and_exit();
}

/// The registration is queued while `initialized` is handled, so it always
/// reaches the client before the first diagnostics; it used to be sent from
/// a spawned task, which under load lost the race now and then (about 1 start
/// in 100 on two busy cores). Many starts make a regression show.
#[test]
fn the_watch_registration_comes_before_the_first_diagnostics() {
    let uri = "file:///tmp/ordered.contract.yaml";
    for start in 0..40 {
        let mut lsp = Lsp::start();
        lsp.initialize_with_encodings(&[]);
        lsp.open(uri, CONTRACT);
        lsp.diagnostics(uri, 1);
        assert_eq!(
            lsp.server_requests,
            ["client/registerCapability"],
            "start {start}: diagnostics arrived before the registration"
        );
        lsp.shutdown_and_exit();
    }
}

#[test]
fn exit_without_shutdown_ends_with_status_1() {
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    lsp.notify("exit", Value::Null);
    assert_eq!(lsp.wait_for_exit().code(), Some(1));
}

#[test]
fn other_yaml_files_get_no_diagnostics() {
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    let compose = "file:///tmp/docker-compose.yml";
    lsp.open(compose, "services:\n  web:\n    image: nginx\n");
    assert!(lsp.diagnostics(compose, 1).is_empty());
    // A contract is linted whatever its name.
    let named_oddly = "file:///tmp/pipeline.yaml";
    lsp.open(
        named_oddly,
        "schema_version: '1'\npipeline_id: p\nphases: {}\nbogus: 1\n",
    );
    assert_eq!(codes(&lsp.diagnostics(named_oddly, 1)), ["E003"]);
    lsp.shutdown_and_exit();
}

#[test]
fn configuration_changes_republish_open_documents() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("phaselint.toml");
    std::fs::write(&config, "ignore = [\"S002\"]\n").unwrap();
    let file = dir.path().join("x.contract.yaml");
    std::fs::write(&file, CONTRACT).unwrap();
    let uri = uri_of(&file);
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    lsp.open(&uri, CONTRACT);
    assert!(
        lsp.diagnostics(&uri, 1).is_empty(),
        "S002 is ignored by the config"
    );
    std::fs::write(&config, "ignore = []\n").unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri_of(&config), "type": 2}]}),
    );
    assert_eq!(codes(&lsp.diagnostics(&uri, 1)), ["S002"]);
    lsp.shutdown_and_exit();
}

#[test]
fn hover_in_plain_text_and_on_a_field_with_a_finding() {
    // A client that lists only plain text (eglot without markdown-mode).
    let mut lsp = Lsp::start();
    lsp.initialize_with(json!({"textDocument": {"hover": {"contentFormat": ["plaintext"]}}}));
    let (uri, text) = fixture("G303/fail.contract.yaml");
    lsp.open(&uri, &text);
    lsp.diagnostics(&uri, 1);
    let (l, c) = pos(&text, "- name: citations");
    let hover = lsp.at("textDocument/hover", &uri, l, c + 9, json!({}));
    assert_eq!(hover["contents"]["kind"], "plaintext");
    let value = hover["contents"]["value"].as_str().unwrap();
    // The finding, then what the field is, then the rule's page; no
    // Markdown (code spans lose their backticks: tests/lsp_plain_text.rs).
    assert!(
        value.starts_with("G303: citations is required on entry to review"),
        "{value}"
    );
    assert!(value.contains("field citations"), "{value}");
    assert!(value.contains("produced by: none"), "{value}");
    assert!(value.contains("consumed by: review"), "{value}");
    assert!(value.contains("G303: unavailable-entry-field"), "{value}");
    // (`**` stays only in globs such as `legacy/**` on the rule's page.)
    assert!(
        !value.contains("**G303") && !value.contains("**field") && !value.contains("```"),
        "{value}"
    );
    lsp.shutdown_and_exit();

    // A client that lists Markdown gets it.
    let mut lsp = Lsp::start();
    lsp.initialize_with(
        json!({"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}}),
    );
    lsp.open(&uri, &text);
    lsp.diagnostics(&uri, 1);
    let hover = lsp.at("textDocument/hover", &uri, l, c + 9, json!({}));
    assert_eq!(hover["contents"]["kind"], "markdown");
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.starts_with("**G303**"), "{value}");
    assert!(value.contains("**field `citations`**"), "{value}");
    lsp.shutdown_and_exit();
}

#[test]
fn governance_values_are_explained_and_completed() {
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    let (uri, text) = fixture("P401/fail.contract.yaml");
    lsp.open(&uri, &text);
    assert!(codes(&lsp.diagnostics(&uri, 1)).contains(&"P401".to_string()));
    // Hover on a value of each governance key says what it means.
    for (needle, meaning) in [
        ("side_effects: irreversible", "for good"),
        ("approval_policy: orchestrator", "automated approver"),
    ] {
        let (l, c) = pos(&text, needle);
        let at = c + needle.find(": ").unwrap() as u32 + 3;
        let hover = lsp.at("textDocument/hover", &uri, l, at, json!({}));
        let value = hover["contents"]["value"].as_str().unwrap_or_default();
        assert!(value.contains(meaning), "{needle}: {hover}");
    }
    // Completion offers the values of risk_class and checkpoint_mode.
    let edited = text
        .replace(
            "pipeline_id: payouts\n",
            "pipeline_id: payouts\ncheckpoint_mode: al\n",
        )
        .replace("  prepare:\n", "  prepare:\n    risk_class: hi\n");
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": edited}]}),
    );
    lsp.diagnostics(&uri, 2);
    let labels = |result: &Value| -> Vec<String> {
        result
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .map(|i| i["label"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let (l, c) = pos(&edited, "checkpoint_mode: al");
    let modes = lsp.at("textDocument/completion", &uri, l, c + 19, json!({}));
    assert_eq!(labels(&modes), ["always", "policy", "never"], "{modes}");
    let (l, c) = pos(&edited, "risk_class: hi");
    let risks = lsp.at("textDocument/completion", &uri, l, c + 14, json!({}));
    assert_eq!(
        labels(&risks),
        ["low", "medium", "high", "critical"],
        "{risks}"
    );
    lsp.shutdown_and_exit();
}

#[test]
fn a_harness_config_gets_its_diagnostics_and_json_safe_actions() {
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    let uri = "file:///tmp/project/.harness/config.json";
    let text = std::fs::read_to_string(repo().join("fixtures/H502/fail.harness.json")).unwrap();
    lsp.open(uri, &text);
    let diagnostics = lsp.diagnostics(uri, 1);
    assert_eq!(codes(&diagnostics), ["H502", "H502", "H502", "H502"]);
    let (l, c) = pos(&text, "\"post_planner\"");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({"line": l, "character": c})
    );
    // The did-you-mean rewrites the JSON string, quotes and all; no `#`
    // comment is offered, which JSON cannot hold.
    let actions = lsp.code_actions(uri, l, c + 1, json!({"diagnostics": []}));
    assert_eq!(
        action_titles(&actions),
        ["Replace with `post-planner` (H502, unsafe fix)"]
    );
    let edit = &actions[0]["edit"]["changes"][uri][0];
    assert_eq!(edit["newText"], "\"post-planner\"");
    assert_eq!(edit["range"]["start"], json!({"line": l, "character": c}));
    assert_eq!(
        edit["range"]["end"],
        json!({"line": l, "character": c + "\"post_planner\"".len() as u32})
    );
    // The same text elsewhere is not a harness config.
    let elsewhere = "file:///tmp/project/config.json";
    lsp.open(elsewhere, &text);
    assert!(lsp.diagnostics(elsewhere, 1).is_empty());
    lsp.shutdown_and_exit();
}

/// One `didChange` carrying 20,000 edits, each in the text the ones before
/// it left, on a document of several MiB: applied in one pass (it took
/// the server minutes, one line index and one move of the text per edit,
/// and it answered nothing meanwhile), and applied right: the last edits
/// depend on every earlier one's line breaks.
#[test]
fn a_change_of_20000_edits_is_applied_in_one_pass() {
    let head = "schema_version: \"1\"\npipeline_id: p\nphases:\n  retrieve: {}\ncheckpoint_integrity:\n  - checkpoint_id: c\n    phase: retrieve\n";
    let padding = format!("# {}\n", "y".repeat(97));
    let lines = (8 << 20) / padding.len();
    let mut text = String::from(head);
    text.push_str(&padding.repeat(lines));
    let uri = "file:///tmp/phaselint-test/large.contract.yaml";
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    lsp.open(uri, &text);
    let first = head.lines().count();
    let mut changes = Vec::new();
    let mut comment_lines = lines;
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    let range = |a: (usize, usize), b: (usize, usize)| json!({"start": {"line": a.0, "character": a.1}, "end": {"line": b.0, "character": b.1}});
    for k in 0..20_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let line = first + (seed % (comment_lines as u64 - 2)) as usize;
        // Split a comment line, join two, or change a character: every
        // line below moves, and all stay comments.
        changes.push(match k % 3 {
            0 => {
                comment_lines += 1;
                json!({"range": range((line, 2), (line, 2)), "text": "\n# "})
            }
            1 => {
                comment_lines -= 1;
                json!({"range": range((line, 1), (line + 1, 1)), "text": ""})
            }
            _ => json!({"range": range((line, 5), (line, 6)), "text": "xz"}),
        });
    }
    // A line on top, then the checkpoint's phase misspelt where it now is.
    let phase_line = head.lines().position(|l| l.contains("phase: ")).unwrap();
    changes.push(json!({"range": range((0, 0), (0, 0)), "text": "# top\n"}));
    // `    phase: retrieve`: "ie" at columns 15-17 becomes "ei".
    changes.push(json!({"range": range((phase_line + 1, 15), (phase_line + 1, 17)), "text": "ei"}));
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": changes}),
    );
    // Answered within the timeout only if the change did not hold the
    // server for minutes.
    let started = Instant::now();
    let hover = lsp.at(
        "textDocument/hover",
        "file:///tmp/phaselint-test/not-open.yaml",
        0,
        0,
        json!({}),
    );
    assert_eq!(hover, Value::Null);
    eprintln!("the change was applied within {:?}", started.elapsed());
    let diagnostics = lsp.diagnostics(uri, 2);
    let r101: Vec<&Value> = diagnostics.iter().filter(|d| d["code"] == "R101").collect();
    assert_eq!(r101.len(), 1, "{diagnostics:#?}");
    assert_eq!(r101[0]["range"]["start"]["line"], phase_line + 1);
    assert!(r101[0]["message"].as_str().unwrap().contains("`retreive`"));
    assert!(
        diagnostics.iter().all(|d| d["code"] != "E001"),
        "{diagnostics:#?}"
    );
    lsp.shutdown_and_exit();
}

/// The server's resident memory in KiB (Linux).
fn resident_kib(lsp: &Lsp) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", lsp.child.id())).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A document opened and closed in each of 3,000 directories leaves no
/// configuration behind (each was kept for good, about 7 KB apiece), while
/// a directory with a document still open keeps its own.
#[test]
fn closing_the_last_document_of_a_directory_drops_its_configuration() {
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    let text = "schema_version: \"1\"\npipeline_id: p\nphases:\n  a: {}\n";
    let cycle = |lsp: &mut Lsp, range: std::ops::Range<usize>| {
        for i in range {
            let uri = format!("file:///tmp/phaselint-test/dirs/d{i}/c.contract.yaml");
            lsp.open(&uri, text);
            lsp.notify(
                "textDocument/didClose",
                json!({"textDocument": {"uri": uri}}),
            );
        }
        // Messages are handled in order: this answer comes after them all.
        let hover = lsp.at(
            "textDocument/hover",
            "file:///tmp/not-open.yaml",
            0,
            0,
            json!({}),
        );
        assert_eq!(hover, Value::Null);
    };
    cycle(&mut lsp, 0..300);
    let before = resident_kib(&lsp);
    cycle(&mut lsp, 300..3300);
    if let (Some(before), Some(after)) = (before, resident_kib(&lsp)) {
        eprintln!("resident memory: {before} KiB, after 3,000 directories {after} KiB");
        assert!(
            after < before + 8 * 1024,
            "the server grew from {before} KiB to {after} KiB"
        );
    }
    let sizes = lsp.request("phaselint/cacheSizes", Value::Null);
    assert_eq!(
        sizes,
        json!({"documents": 0, "configs": 0, "directories": 0, "pending_files": 0, "reindexing": false})
    );
    // Two documents in one directory: its configuration stays until both close.
    let uri = |name: &str| format!("file:///tmp/phaselint-test/shared/{name}.contract.yaml");
    lsp.open(&uri("a"), text);
    lsp.open(&uri("b"), text);
    lsp.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri("a")}}),
    );
    let sizes = lsp.request("phaselint/cacheSizes", Value::Null);
    assert_eq!(
        sizes,
        json!({"documents": 1, "configs": 1, "directories": 1, "pending_files": 0, "reindexing": false})
    );
    lsp.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri("b")}}),
    );
    let sizes = lsp.request("phaselint/cacheSizes", Value::Null);
    assert_eq!(
        sizes,
        json!({"documents": 0, "configs": 0, "directories": 0, "pending_files": 0, "reindexing": false})
    );
    lsp.shutdown_and_exit();
}
