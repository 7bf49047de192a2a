//! Plain text means plain text: hover and completion documentation as a
//! client without Markdown gets them from the real `phaselint lsp` (no
//! backticks, link targets, emphasis, heading marks or rules left), what a
//! Markdown client gets (Markdown, without links to anchors it cannot
//! follow), and diagnostics' `codeDescription` at the repository the
//! workspace declares.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

#[path = "support/lsp_client.rs"]
mod lsp_client;
use lsp_client::Lsp;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture(relative: &str) -> (String, String) {
    let path = repo().join("fixtures").join(relative);
    let uri = format!("file://{}", std::path::absolute(&path).unwrap().display());
    (uri, std::fs::read_to_string(&path).unwrap())
}

/// The position of `into` bytes into the first `needle` (ASCII lines).
fn pos(text: &str, needle: &str, into: usize) -> (u32, u32) {
    let offset = text.find(needle).unwrap_or_else(|| panic!("{needle}")) + into;
    let line = text[..offset].matches('\n').count();
    let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1);
    (line as u32, column as u32)
}

/// The Markdown syntax a plain-text client would show as written.
fn markdown_left(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for markup in ["`", "](", "---"] {
        if text.contains(markup) {
            found.push(markup.to_string());
        }
    }
    // `**` opening emphasis (`**error**`), not inside a glob (`legacy/**`).
    for (at, _) in text.match_indices("**") {
        let before = text[..at].chars().next_back();
        let after = text[at + 2..].chars().next();
        if before.is_none_or(char::is_whitespace) && after.is_some_and(char::is_alphanumeric) {
            found.push(format!("** at {at}"));
        }
    }
    // Headings of rule pages (`# R101: …`, `## What it checks`); a `# ` at
    // the start of a line can be text (a suppression comment in a code span).
    for line in text.lines() {
        if line.starts_with("## ") || line.starts_with("# R101") {
            found.push(format!("heading {line:?}"));
        }
    }
    found
}

fn plain_text_client() -> Lsp {
    Lsp::start_with(json!({"textDocument": {
        "hover": {"contentFormat": ["plaintext"]},
        "completion": {"completionItem": {"documentationFormat": ["plaintext"]}},
    }}))
}

fn hover(lsp: &mut Lsp, uri: &str, at: (u32, u32)) -> (String, String) {
    let answer = lsp.at_raw("textDocument/hover", uri, at, json!({}));
    let contents = &answer["result"]["contents"];
    (
        contents["kind"].as_str().unwrap_or_default().to_string(),
        contents["value"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn a_rule_page_and_key_documentation_reach_a_plain_text_client_without_markdown() {
    let mut lsp = plain_text_client();
    // A finding: its message (with code spans), then the rule's page
    // (headings, code spans, fenced examples).
    let (uri, text) = fixture("R101/fail.contract.yaml");
    lsp.open(&uri, &text);
    lsp.published(&uri);
    let (kind, value) = hover(
        &mut lsp,
        &uri,
        pos(&text, "phase: retreive", "phase: ".len() + 2),
    );
    assert_eq!(kind, "plaintext");
    assert!(
        markdown_left(&value).is_empty(),
        "{:?} in:\n{value}",
        markdown_left(&value)
    );
    let rule = phaselint_lint::rules::rule("R101").unwrap();
    assert!(value.contains(&format!("R101: {}", rule.name)), "{value}");
    assert!(value.contains("What it checks"), "{value}");

    // A key whose type is a mapping of the format (an `#anchor` link in the
    // reference) and whose description has code spans.
    let (uri, text) = fixture("valid/branch-merge.contract.yaml");
    lsp.open(&uri, &text);
    lsp.published(&uri);
    for key in ["graph_topology", "staleness_checks", "merge_policy"] {
        let (kind, value) = hover(&mut lsp, &uri, pos(&text, &format!("{key}:"), 2));
        assert_eq!(kind, "plaintext", "{key}");
        assert!(value.starts_with(key), "{key}: {value}");
        assert!(
            markdown_left(&value).is_empty(),
            "{key}: {:?} in:\n{value}",
            markdown_left(&value)
        );
        let markdown = phaselint_lint::format::key_documentation(
            match key {
                "graph_topology" => &[],
                "staleness_checks" => &["checkpoint_integrity", "-", "on_resume"],
                _ => &["graph_topology", "merge_points", "-"],
            },
            key,
        )
        .unwrap();
        // The words of a link stay: its text, where the anchor was.
        if let Some(open) = markdown.find("](#") {
            let text_start = markdown[..open].rfind('[').unwrap() + 1;
            let link_text = &markdown[text_start..open];
            assert!(value.contains(link_text), "{key}: {link_text} in {value}");
        }
    }

    // Completion of the keys of `on_resume`: detail and documentation.
    let at = pos(&text, "staleness_checks:", 0);
    let items = lsp.at_raw("textDocument/completion", &uri, at, json!({}));
    let items = items["result"].as_array().unwrap();
    assert!(!items.is_empty());
    let mut with_documentation = 0;
    for item in items {
        let detail = item["detail"].as_str().unwrap_or_default();
        assert!(markdown_left(detail).is_empty(), "{item}");
        if let Some(documentation) = item.get("documentation") {
            with_documentation += 1;
            assert_eq!(documentation["kind"], "plaintext", "{item}");
            let value = documentation["value"].as_str().unwrap();
            assert!(markdown_left(value).is_empty(), "{item}");
        }
    }
    assert!(with_documentation > 0);
    let staleness = items
        .iter()
        .find(|i| i["label"] == "staleness_checks")
        .expect("staleness_checks offered");
    assert!(
        staleness["detail"]
            .as_str()
            .unwrap()
            .starts_with("list of "),
        "{staleness}"
    );
}

#[test]
fn a_markdown_client_gets_markdown_without_anchors() {
    let mut lsp = Lsp::start_with(json!({"textDocument": {
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "completion": {"completionItem": {"documentationFormat": ["markdown"]}},
    }}));
    let (uri, text) = fixture("valid/branch-merge.contract.yaml");
    lsp.open(&uri, &text);
    lsp.published(&uri);
    let (kind, value) = hover(&mut lsp, &uri, pos(&text, "graph_topology:", 2));
    assert_eq!(kind, "markdown");
    assert!(value.contains("**`graph_topology`**"), "{value}");
    assert!(!value.contains("](#"), "{value}");
    let items = lsp.at_raw(
        "textDocument/completion",
        &uri,
        pos(&text, "staleness_checks:", 0),
        json!({}),
    );
    let documented: Vec<&Value> = items["result"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i.get("documentation"))
        .collect();
    assert!(!documented.is_empty());
    assert!(documented.iter().all(|d| d["kind"] == "markdown"));
}

#[test]
fn code_description_links_to_the_repository_the_workspace_declares() {
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    let repository = manifest
        .lines()
        .find_map(|l| l.strip_prefix("repository = "))
        .unwrap()
        .trim_matches('"');
    let mut lsp = Lsp::start_with(json!({}));
    let (uri, text) = fixture("R101/fail.contract.yaml");
    lsp.open(&uri, &text);
    let diagnostics = lsp.published(&uri);
    assert!(!diagnostics.is_empty());
    for d in &diagnostics {
        let code = d["code"].as_str().unwrap();
        assert_eq!(
            d["codeDescription"]["href"],
            format!("{repository}/blob/main/rules/{code}.md"),
            "{d}"
        );
    }
}
