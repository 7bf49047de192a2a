//! The language server across a workspace, as an editor drives it through
//! the real `phaselint lsp` process: workspace symbols, pulled and pushed
//! findings of contracts that are not open, watched-file changes, folding
//! and selection ranges, code lenses, and the open document first.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/lsp_client.rs"]
mod lsp_client;
use lsp_client::{Lsp, uri_of};

const TIMEOUT: Duration = Duration::from_secs(60);

fn corpus(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(relative)
}

/// The largest real contract (721 lines, no E-codes).
const LARGEST: &str = "valid/artisan-pipeline.ed6cc63c.contract.yaml";
/// A real file named like a contract whose root is not a context
/// contract's: `phaselint lint DIR` leaves it out.
const OTHER_KIND: &str = "invalid/artisan.c010165b.contract.yaml";
/// A real contract with findings (E003, R104).
const WITH_FINDINGS: &str = "invalid/artisan-pipeline.58f6bfe9.contract.yaml";

/// What only these tests ask of the shared client.
impl Lsp {
    fn initialize(&mut self, root: &Path, capabilities: Value) {
        self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri_of(root),
                "workspaceFolders": [{"uri": uri_of(root), "name": "workspace"}],
                "capabilities": capabilities,
            }),
        );
        self.notify("initialized", json!({}));
    }

    /// Asks for workspace symbols until `query` finds one in the contract
    /// whose `pipeline_id` is `container` (the index is built in the
    /// background), and returns that answer.
    fn symbols_once_indexed(&mut self, query: &str, container: &str) -> Vec<Value> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let found = self.request("workspace/symbol", json!({"query": query}));
            let found = found.as_array().cloned().unwrap_or_default();
            if found.iter().any(|s| s["containerName"] == container) {
                return found;
            }
            assert!(Instant::now() < deadline, "the workspace was never indexed");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A workspace of real contracts: `pipelines/main.contract.yaml` (the
/// largest, with its `pipeline_id` made `main`), `pipelines/broken` (one
/// with findings), and three more that must not be seen: one in
/// `.gitignore`, one in the configuration's `exclude`, and another tool's
/// file named like a contract.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("pipelines")).unwrap();
    std::fs::create_dir_all(root.join("excluded")).unwrap();
    let largest = std::fs::read_to_string(corpus(LARGEST)).unwrap();
    let renamed = |id: &str| pipeline_id(&largest, id);
    std::fs::write(root.join("pipelines/main.contract.yaml"), renamed("main")).unwrap();
    std::fs::copy(
        corpus(WITH_FINDINGS),
        root.join("pipelines/broken.contract.yaml"),
    )
    .unwrap();
    // Another tool's file named like a contract: `lint DIR` skips it.
    std::fs::copy(
        corpus(OTHER_KIND),
        root.join("pipelines/another-tool.contract.yaml"),
    )
    .unwrap();
    std::fs::write(root.join("ignored.contract.yaml"), renamed("ignored")).unwrap();
    std::fs::write(root.join(".gitignore"), "ignored.contract.yaml\n").unwrap();
    std::fs::write(
        root.join("excluded/hidden.contract.yaml"),
        renamed("excluded"),
    )
    .unwrap();
    std::fs::write(root.join("phaselint.toml"), "exclude = [\"excluded/**\"]\n").unwrap();
    dir
}

/// `text` with its `pipeline_id` set to `id`.
fn pipeline_id(text: &str, id: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.starts_with("pipeline_id:"))
        .expect("the contract has a pipeline_id");
    text.replacen(line, &format!("pipeline_id: {id}"), 1)
}

/// The first phase name of a contract (the first key under `phases:`).
fn first_phase(text: &str) -> String {
    let after = &text[text.find("\nphases:").unwrap() + 8..];
    let line = after
        .lines()
        .find(|l| l.starts_with("  ") && !l.trim_start().starts_with('#') && l.contains(':'))
        .unwrap();
    line.trim().trim_end_matches(':').to_string()
}

/// `(code, line, column)` of the CLI's findings for `file`, 1-based.
fn cli_findings(file: &Path) -> BTreeSet<(String, u64, u64)> {
    let output = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args(["lint", "--format", "json"])
        .arg(file)
        .current_dir(file.parent().unwrap())
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["start"]["line"].as_u64().unwrap(),
                d["start"]["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The same triples from LSP diagnostics (0-based positions).
fn lsp_findings(diagnostics: &[Value]) -> BTreeSet<(String, u64, u64)> {
    diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap() + 1,
                d["range"]["start"]["character"].as_u64().unwrap() + 1,
            )
        })
        .collect()
}

#[test]
fn workspace_symbols_come_from_the_contracts_the_cli_lints() {
    let dir = workspace();
    let root = dir.path();
    let main = root.join("pipelines/main.contract.yaml");
    let phase = first_phase(&std::fs::read_to_string(&main).unwrap());
    let mut lsp = Lsp::start().with_timeout(TIMEOUT);
    lsp.initialize(root, json!({}));
    let found = lsp.symbols_once_indexed(&phase, "main");
    let containers: BTreeSet<&str> = found
        .iter()
        .map(|s| s["containerName"].as_str().unwrap())
        .collect();
    assert!(containers.contains("main"), "{found:#?}");
    assert!(!containers.contains("ignored"), "{containers:?}");
    assert!(!containers.contains("excluded"), "{containers:?}");
    let uris: BTreeSet<&str> = found
        .iter()
        .map(|s| s["location"]["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(uri_of(&main).as_str()), "{uris:?}");
    for uri in &uris {
        assert!(
            !uri.contains("ignored") && !uri.contains("excluded"),
            "{uri}"
        );
    }
    // The exact name ranks first, and its range is the phase's key.
    let best = &found[0];
    assert_eq!(best["name"], phase);
    let line = best["location"]["range"]["start"]["line"].as_u64().unwrap() as usize;
    let text = std::fs::read_to_string(&main).unwrap();
    assert!(
        text.lines()
            .nth(line)
            .unwrap()
            .trim_start()
            .starts_with(&format!("{phase}:")),
        "line {line}"
    );
    // A subsequence matches too, case-insensitively.
    let scattered: String = phase.to_uppercase().chars().step_by(2).collect();
    let found = lsp.request("workspace/symbol", json!({"query": scattered}));
    assert!(
        found
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == phase.as_str()),
        "{scattered}: {found:#?}"
    );
    // The open document's text wins over the file on disk.
    let edited = std::fs::read_to_string(&main).unwrap().replacen(
        &format!("  {phase}:"),
        "  freshly_typed_phase:",
        1,
    );
    lsp.open(&uri_of(&main), &edited);
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let found = lsp.request("workspace/symbol", json!({"query": "freshly_typed"}));
        if found.as_array().is_some_and(|a| !a.is_empty()) {
            assert_eq!(found[0]["location"]["uri"], uri_of(&main));
            break;
        }
        assert!(Instant::now() < deadline, "the open text was not searched");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn pulled_findings_of_unopened_contracts_equal_the_cli_findings() {
    let dir = workspace();
    let root = dir.path();
    let broken = root.join("pipelines/broken.contract.yaml");
    let mut lsp = Lsp::start().with_timeout(TIMEOUT);
    lsp.initialize(
        root,
        json!({"textDocument": {"diagnostic": {"dynamicRegistration": false}}}),
    );
    let phase =
        first_phase(&std::fs::read_to_string(root.join("pipelines/main.contract.yaml")).unwrap());
    lsp.symbols_once_indexed(&phase, "main");
    // Both contracts are indexed once the last of them is (sorted walk).
    let deadline = Instant::now() + TIMEOUT;
    let report = loop {
        let report = lsp.request("workspace/diagnostic", json!({"previousResultIds": []}));
        if report["items"].as_array().is_some_and(|i| i.len() >= 2) {
            break report;
        }
        assert!(Instant::now() < deadline, "{report:#}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let items = report["items"].as_array().unwrap();
    // Exactly the files the CLI lints (the walk is sorted, so the other
    // tool's file was read before `main`).
    let reported: BTreeSet<&str> = items.iter().map(|i| i["uri"].as_str().unwrap()).collect();
    let main = uri_of(&root.join("pipelines/main.contract.yaml"));
    assert_eq!(
        reported,
        BTreeSet::from([uri_of(&broken).as_str(), main.as_str()])
    );
    let broken_report = items.iter().find(|i| i["uri"] == uri_of(&broken)).unwrap();
    assert_eq!(broken_report["kind"], "full");
    let pulled = lsp_findings(broken_report["items"].as_array().unwrap());
    let expected = cli_findings(&broken);
    assert!(!expected.is_empty());
    assert_eq!(pulled, expected);
    let main_report = items
        .iter()
        .find(|i| i["uri"] == uri_of(&root.join("pipelines/main.contract.yaml")))
        .unwrap();
    assert_eq!(
        lsp_findings(main_report["items"].as_array().unwrap()),
        cli_findings(&root.join("pipelines/main.contract.yaml"))
    );
    // Asked again with the result ids it gave, nothing changed.
    let previous: Vec<Value> = items
        .iter()
        .map(|i| json!({"uri": i["uri"], "value": i["resultId"]}))
        .collect();
    let again = lsp.request(
        "workspace/diagnostic",
        json!({"previousResultIds": previous}),
    );
    for item in again["items"].as_array().unwrap() {
        assert_eq!(item["kind"], "unchanged", "{item:#}");
    }
    // The document pull of a contract that is not open answers the same.
    let document = lsp.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri_of(&broken)}}),
    );
    assert_eq!(
        lsp_findings(document["items"].as_array().unwrap()),
        expected
    );
    // Once open, its findings are pushed with the document's version, and
    // pulled reports of it are empty, so the editor shows them once.
    let text = std::fs::read_to_string(&broken).unwrap();
    lsp.open(&uri_of(&broken), &text);
    assert_eq!(lsp_findings(&lsp.published(&uri_of(&broken))), expected);
    let document = lsp.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri_of(&broken)}}),
    );
    assert_eq!(document["items"], json!([]));
    let report = lsp.request("workspace/diagnostic", json!({"previousResultIds": []}));
    let pulled = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["uri"] == uri_of(&broken))
        .unwrap();
    assert_eq!(pulled["items"], json!([]));
}

#[test]
fn a_push_client_gets_unopened_findings_after_initialized_and_on_file_changes() {
    let dir = workspace();
    let root = dir.path();
    let broken = root.join("pipelines/broken.contract.yaml");
    let uri = uri_of(&broken);
    let mut lsp = Lsp::start().with_timeout(TIMEOUT);
    lsp.initialize(
        root,
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}),
    );
    let published = lsp.published(&uri);
    assert_eq!(lsp_findings(&published), cli_findings(&broken));
    assert!(!published.is_empty());
    // The file is fixed on disk: the watcher's event republishes it.
    let valid = std::fs::read_to_string(corpus(LARGEST)).unwrap();
    std::fs::write(&broken, &valid).unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri, "type": 2}]}),
    );
    let republished = lsp.published(&uri);
    assert_eq!(lsp_findings(&republished), cli_findings(&broken));
    // Broken again, then deleted: its findings are cleared.
    std::fs::copy(corpus(WITH_FINDINGS), &broken).unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri, "type": 2}]}),
    );
    assert!(!lsp.published(&uri).is_empty());
    std::fs::remove_file(&broken).unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri, "type": 3}]}),
    );
    assert_eq!(lsp.published(&uri), Vec::<Value>::new());
    // Files the walk does not select are never published, even when an
    // event names them.
    let ignored = uri_of(&root.join("ignored.contract.yaml"));
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": ignored, "type": 2}]}),
    );
    lsp.request("workspace/symbol", json!({"query": "x"}));
    assert!(
        !lsp.backlog
            .iter()
            .any(|m| m["params"]["uri"] == ignored.as_str()),
        "{:#?}",
        lsp.backlog
    );
}

#[test]
fn the_open_document_is_published_before_a_workspace_of_many_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let broken = std::fs::read(corpus(WITH_FINDINGS)).unwrap();
    for i in 0..300 {
        std::fs::write(root.join(format!("c{i:03}.contract.yaml")), &broken).unwrap();
    }
    let open = root.join("zz-open.contract.yaml");
    std::fs::write(&open, &broken).unwrap();
    let text = String::from_utf8(broken).unwrap();
    let mut lsp = Lsp::start().with_timeout(TIMEOUT);
    lsp.initialize(root, json!({}));
    lsp.open(&uri_of(&open), &text);
    // Every workspace file has findings, so each is published; the open
    // document's (with its version) must come first.
    let deadline = Instant::now() + TIMEOUT;
    let first = loop {
        let message = lsp.receive(deadline);
        if message["method"] == "textDocument/publishDiagnostics" {
            break message;
        }
    };
    assert_eq!(first["params"]["uri"], uri_of(&open), "{first:#}");
    assert_eq!(first["params"]["version"], 1);
    // And the workspace is published after it.
    let later = lsp.published(&uri_of(&root.join("c000.contract.yaml")));
    assert!(!later.is_empty());
    // A document opened while the workspace is being read jumps the
    // queue: at most the file being analyzed (and one whose publishing
    // raced with the open) is published before it, not the rest.
    let second = root.join("zz-second.contract.yaml");
    lsp.open(&uri_of(&second), &text);
    // Messages are handled in order: once this is answered, the open has
    // been applied. What the server published before then is not counted.
    lsp.request("workspace/symbol", json!({"query": "zz"}));
    let mut published = lsp
        .backlog
        .iter()
        .any(|m| m["params"]["uri"] == uri_of(&second));
    let mut workspace_before = 0;
    while !published {
        let message = lsp.receive(deadline);
        if message["method"] != "textDocument/publishDiagnostics" {
            continue;
        }
        if message["params"]["uri"] == uri_of(&second) {
            published = true;
        } else {
            workspace_before += 1;
        }
    }
    assert!(
        workspace_before <= 2,
        "{workspace_before} workspace files first"
    );
    // The workspace goes on after it, to its last file.
    lsp.published(&uri_of(&root.join("c299.contract.yaml")));
}

/// Whether `inner` lies within `outer` (LSP ranges as JSON).
fn within(inner: &Value, outer: &Value) -> bool {
    let at = |p: &Value| {
        (
            p["line"].as_u64().unwrap(),
            p["character"].as_u64().unwrap(),
        )
    };
    at(&outer["start"]) <= at(&inner["start"]) && at(&inner["end"]) <= at(&outer["end"])
}

#[test]
fn folding_and_selection_ranges_follow_the_yaml_of_a_real_contract() {
    let path = corpus(LARGEST);
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = uri_of(&path);
    let mut lsp = Lsp::start().with_timeout(TIMEOUT);
    lsp.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    lsp.notify("initialized", json!({}));
    lsp.open(&uri, &text);
    let folds = lsp.request(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": uri}}),
    );
    let folds: Vec<(u64, u64)> = folds
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["startLine"].as_u64().unwrap(),
                f["endLine"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(folds.len() > 50, "{}", folds.len());
    // Each folds more than one line, and any two are nested or apart.
    for &(start, end) in &folds {
        assert!(start < end);
    }
    for a in &folds {
        for b in &folds {
            let apart = a.1 < b.0 || b.1 < a.0 || a.1 == b.0 || b.1 == a.0;
            let nested = (a.0 <= b.0 && b.1 <= a.1) || (b.0 <= a.0 && a.1 <= b.1);
            assert!(apart || nested, "{a:?} and {b:?} overlap");
        }
    }
    // Each phase folds from its key to the line before the next phase.
    let lines: Vec<&str> = text.lines().collect();
    let phase_lines: Vec<usize> = {
        let start = lines.iter().position(|l| *l == "phases:").unwrap();
        let end = lines[start + 1..]
            .iter()
            .position(|l| !l.is_empty() && !l.starts_with(' ') && !l.starts_with('#'))
            .map_or(lines.len(), |i| start + 1 + i);
        (start + 1..end)
            .filter(|&i| {
                let l = lines[i];
                l.starts_with("  ")
                    && !l.starts_with("   ")
                    && l.trim_end().ends_with(':')
                    && !l.trim_start().starts_with('#')
            })
            .collect()
    };
    assert!(phase_lines.len() >= 5, "{phase_lines:?}");
    for &line in &phase_lines {
        assert!(
            folds
                .iter()
                .any(|&(start, end)| start == line as u64 && end > start + 1),
            "phase on line {line} has no fold"
        );
    }
    // Selection ranges: from the phase name up to the whole document,
    // each inside the next.
    let positions: Vec<Value> = phase_lines
        .iter()
        .map(|&line| json!({"line": line, "character": 3}))
        .collect();
    let ranges = lsp.request(
        "textDocument/selectionRange",
        json!({"textDocument": {"uri": uri}, "positions": positions}),
    );
    let ranges = ranges.as_array().unwrap();
    assert_eq!(ranges.len(), phase_lines.len());
    for (range, &line) in ranges.iter().zip(&phase_lines) {
        let name = lines[line].trim().trim_end_matches(':');
        assert_eq!(range["range"]["start"]["line"], line as u64);
        assert_eq!(
            range["range"]["end"]["character"].as_u64().unwrap()
                - range["range"]["start"]["character"].as_u64().unwrap(),
            name.len() as u64
        );
        let mut chain = vec![range.clone()];
        while let Some(parent) = chain.last().unwrap().get("parent").cloned() {
            chain.push(parent);
        }
        assert!(chain.len() >= 4, "{chain:#?}");
        for pair in chain.windows(2) {
            assert!(within(&pair[0]["range"], &pair[1]["range"]));
            assert_ne!(pair[0]["range"], pair[1]["range"]);
        }
        let document = &chain.last().unwrap()["range"];
        assert_eq!(document["start"], json!({"line": 0, "character": 0}));
        assert!(document["end"]["line"].as_u64().unwrap() >= lines.len() as u64 - 1);
    }
    // Text that does not parse still gets an answer, never an error.
    let broken = text.replacen("phases:", "phases: [", 1);
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": broken}]}),
    );
    lsp.request(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": uri}}),
    );
    let ranges = lsp.request(
        "textDocument/selectionRange",
        json!({"textDocument": {"uri": uri}, "positions": [{"line": 10, "character": 2}]}),
    );
    assert_eq!(ranges.as_array().unwrap().len(), 1);
}

#[test]
fn code_lenses_name_the_readers_hover_lists() {
    let path = corpus(LARGEST);
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = uri_of(&path);
    let mut lsp = Lsp::start().with_timeout(TIMEOUT);
    lsp.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {"textDocument": {"codeLens": {}, "hover": {"contentFormat": ["plaintext"]}}}}),
    );
    lsp.notify("initialized", json!({}));
    lsp.open(&uri, &text);
    let lenses = lsp.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let lenses = lenses.as_array().unwrap();
    assert!(lenses.len() > 10, "{}", lenses.len());
    let mut read = 0;
    for lens in lenses {
        let title = lens["command"]["title"].as_str().unwrap();
        let start = &lens["range"]["start"];
        let hover = lsp.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": start}),
        );
        let hover = hover["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let consumed = hover
            .lines()
            .find_map(|l| l.trim().strip_prefix("• consumed by: "))
            .unwrap_or_else(|| panic!("no consumers in hover: {hover}"));
        let mut hovered: Vec<String> = if consumed == "none" {
            Vec::new()
        } else {
            consumed
                .split(", ")
                .map(|n| n.trim_matches('`').to_string())
                .collect()
        };
        hovered.sort();
        hovered.dedup();
        if hovered.is_empty() {
            assert_eq!(title, "read by no phase");
            continue;
        }
        read += 1;
        let (count, names) = title
            .strip_prefix("read by ")
            .and_then(|t| t.split_once(": "))
            .unwrap_or_else(|| panic!("{title}"));
        assert_eq!(
            count.split(' ').next().unwrap(),
            hovered.len().to_string(),
            "{title} / {hover}"
        );
        if hovered.len() <= 5 {
            let mut listed: Vec<String> = names.split(", ").map(str::to_string).collect();
            listed.sort();
            assert_eq!(listed, hovered, "{title}");
        }
    }
    assert!(read > 0, "no exit field is read by any phase");
}

#[test]
fn a_client_without_code_lenses_gets_the_readers_as_inlay_hints() {
    let path = corpus(LARGEST);
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = uri_of(&path);
    let mut lsp = Lsp::start().with_timeout(TIMEOUT);
    let result = lsp.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {"textDocument": {"inlayHint": {}}}}),
    );
    assert!(
        result["capabilities"]["inlayHintProvider"] == true,
        "{result:#}"
    );
    assert!(
        result["capabilities"].get("codeLensProvider").is_none(),
        "{result:#}"
    );
    lsp.notify("initialized", json!({}));
    lsp.open(&uri, &text);
    let lines = text.lines().count();
    let hints = lsp.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}}}),
    );
    let hints = hints.as_array().unwrap();
    assert!(hints.len() > 10, "{}", hints.len());
    // The same readers as the code lens of a client that has them.
    let mut lenses_client = Lsp::start().with_timeout(TIMEOUT);
    lenses_client.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {"textDocument": {"codeLens": {}}}}),
    );
    lenses_client.notify("initialized", json!({}));
    lenses_client.open(&uri, &text);
    let lenses = lenses_client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let lens_titles: Vec<String> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap().to_string())
        .collect();
    let hint_titles: Vec<String> = hints
        .iter()
        .map(|h| {
            h["label"]
                .as_str()
                .unwrap()
                .trim_start_matches("← ")
                .to_string()
        })
        .collect();
    assert_eq!(hint_titles, lens_titles);
    // Only the hints within the range asked for.
    let first_line = hints[0]["position"]["line"].as_u64().unwrap();
    let some = lsp.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": first_line, "character": 0}, "end": {"line": first_line, "character": 0}}}),
    );
    assert!(!some.as_array().unwrap().is_empty());
    assert!(some.as_array().unwrap().len() < hints.len());
}

#[test]
fn a_flood_of_change_events_is_one_batch_behind_the_open_document() {
    let dir = workspace();
    let root = dir.path();
    let broken = uri_of(&root.join("pipelines/broken.contract.yaml"));
    let open = root.join("pipelines/open.contract.yaml");
    let text = std::fs::read_to_string(corpus(WITH_FINDINGS)).unwrap();
    let mut lsp = Lsp::start().with_timeout(TIMEOUT);
    lsp.initialize(
        root,
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}),
    );
    lsp.open(&uri_of(&open), &text);
    lsp.published(&uri_of(&open));
    // The walk after `initialized` publishes the file once.
    assert!(!lsp.published(&broken).is_empty());
    lsp.backlog.clear();
    const EVENTS: usize = 3_000;
    for _ in 0..EVENTS {
        lsp.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": broken, "type": 2}]}),
        );
    }
    // An edit right after the flood: its findings come before all but a
    // handful of the flood's publishes.
    lsp.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri_of(&open), "version": 2},
            "contentChanges": [{"text": format!("# edited\n{text}")}],
        }),
    );
    let deadline = Instant::now() + TIMEOUT;
    let mut flood_before = 0;
    loop {
        let message = lsp.receive(deadline);
        if message["method"] != "textDocument/publishDiagnostics" {
            continue;
        }
        if message["params"]["uri"] == broken.as_str() {
            flood_before += 1;
        } else if message["params"]["uri"] == uri_of(&open) && message["params"]["version"] == 2 {
            break;
        }
    }
    assert!(
        flood_before <= 3,
        "{flood_before} publishes of the flood first"
    );
    // The events are coalesced: once nothing is pending any more, the
    // file was published far fewer times than it was reported.
    loop {
        let sizes = lsp.request("phaselint/cacheSizes", Value::Null);
        if sizes["pending_files"] == 0 && sizes["reindexing"] == false {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the events never drained: {sizes}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let published = flood_before
        + lsp
            .backlog
            .iter()
            .filter(|m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == broken.as_str()
            })
            .count();
    assert!(
        (1..=10).contains(&published),
        "{published} publishes for {EVENTS} events"
    );
}
