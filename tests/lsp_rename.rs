//! Field rename as an editor drives it: `textDocument/prepareRename` and
//! `textDocument/rename` through the real `phaselint lsp` process on real
//! contracts, the WorkspaceEdit applied, and `phaselint lint --format json`
//! run on the text before and after: the same findings, but for the name.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

#[path = "support/lsp_client.rs"]
mod lsp_client;
use lsp_client::Lsp;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn corpus(name: &str) -> PathBuf {
    repo().join("../shared/corpus/valid").join(name)
}

/// The LSP position (UTF-16) of byte `offset` of `text`.
fn position(text: &str, offset: usize) -> (u32, u32) {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..offset].matches('\n').count();
    let column = text[line_start..offset].encode_utf16().count();
    (line as u32, column as u32)
}

/// The byte offset of an LSP position.
fn offset(text: &str, at: &Value) -> usize {
    let line = at["line"].as_u64().unwrap() as usize;
    let character = at["character"].as_u64().unwrap() as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= character || c == '\n' {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// `text` with a WorkspaceEdit's edits for `uri` applied.
fn apply(text: &str, edit: &Value, uri: &str) -> String {
    let mut edits: Vec<(usize, usize, String)> = edit["changes"][uri]
        .as_array()
        .unwrap_or_else(|| panic!("no edits for {uri}: {edit}"))
        .iter()
        .map(|e| {
            (
                offset(text, &e["range"]["start"]),
                offset(text, &e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|(start, _, _)| std::cmp::Reverse(*start));
    let mut out = text.to_string();
    for (start, end, new_text) in edits {
        out.replace_range(start..end, &new_text);
    }
    out
}

/// `phaselint lint --format json` findings of `text`: code, severity,
/// line and message, in order.
fn findings(text: &str, name: &str) -> Vec<(String, String, u64, String)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args(["lint", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)));
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["start"]["line"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Renames the field at the `nth` occurrence of `needle` (the cursor
/// `into` bytes into it) to `new_name`, checks what prepareRename offered,
/// and that the CLI's findings are the same before and after, the name
/// aside. The renamed text.
fn rename_and_compare(
    path: &Path,
    needle: &str,
    into: usize,
    expected_path: &str,
    new_name: &str,
) -> (String, String) {
    let before = std::fs::read_to_string(path).unwrap();
    assert!(
        !before.contains(new_name),
        "{new_name} must be new to the text, so that mapping it back is exact"
    );
    let uri = format!("file://{}", path.display());
    let mut lsp = Lsp::start_with(json!({}));
    lsp.open(&uri, &before);
    let at = position(&before, before.find(needle).unwrap() + into);
    let prepared = lsp.at_raw("textDocument/prepareRename", &uri, at, json!({}));
    assert_eq!(
        prepared["result"]["placeholder"], expected_path,
        "{prepared}"
    );
    let range = &prepared["result"]["range"];
    assert_eq!(
        &before[offset(&before, &range["start"])..offset(&before, &range["end"])],
        expected_path
    );
    let renamed = lsp.at_raw(
        "textDocument/rename",
        &uri,
        at,
        json!({"newName": new_name}),
    );
    assert!(renamed.get("error").is_none(), "{renamed}");
    let after = apply(&before, &renamed["result"], &uri);
    assert_ne!(after, before);
    // Nothing but the name changed: the new name mapped back gives the
    // original text exactly (quoting included).
    assert_eq!(after.replace(new_name, expected_path), before);
    let file = path.file_name().unwrap().to_str().unwrap();
    let old_findings = findings(&before, file);
    let new_findings: Vec<_> = findings(&after, file)
        .into_iter()
        .map(|(code, severity, line, message)| {
            (
                code,
                severity,
                line,
                message.replace(new_name, expected_path),
            )
        })
        .collect();
    assert_eq!(
        new_findings, old_findings,
        "findings changed by renaming {expected_path}"
    );
    (before, after)
}

/// The lines of `before` holding `key` and `old` whose counterpart in
/// `after` holds `new` instead: how many places of that kind were renamed.
fn renamed_lines(before: &str, after: &str, key: &str, old: &str, new: &str) -> usize {
    before
        .lines()
        .zip(after.lines())
        .filter(|(b, a)| b.contains(key) && b.contains(old) && a.contains(new) && !a.contains(old))
        .count()
}

/// The fields declared with a `source_phase:`, in file order.
fn source_phase_readers(text: &str) -> Vec<String> {
    text.match_indices("source_phase:")
        .map(|(at, _)| {
            let reader = text[..at].rfind("- name: ").unwrap();
            text[reader + "- name: ".len()..]
                .lines()
                .next()
                .unwrap()
                .trim()
                .to_string()
        })
        .collect()
}

#[test]
fn a_field_read_through_source_phase_is_renamed_in_the_largest_real_contract() {
    let path = corpus("artisan-pipeline.ed6cc63c.contract.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    // A reader whose field is also declared under its own name elsewhere
    // (its producer).
    let declared = |field: &str| text.matches(&format!("- name: {field}\n")).count();
    let readers = source_phase_readers(&text);
    let field = readers.iter().find(|f| declared(f) >= 2).unwrap();
    let needle = format!("- name: {field}\n");
    // On its last segment: the whole path.
    let into = "- name: ".len() + field.len() - 1;
    let (before, after) = rename_and_compare(&path, &needle, into, field, "renamed_reader_field");
    let renamed = renamed_lines(&before, &after, "- name:", field, "renamed_reader_field");
    assert_eq!(renamed, declared(field), "every declaration");
}

#[test]
fn a_sub_field_is_not_moved_out_of_a_declared_parent() {
    let path = corpus("artisan-pipeline.ed6cc63c.contract.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    // A dotted reader whose parent is declared: renaming it under the same
    // parent is fine, out of it would change what the parent provides.
    let readers = source_phase_readers(&text);
    let (field, parent) = readers
        .iter()
        .filter_map(|f| Some((f, f.rsplit_once('.')?.0)))
        .find(|(_, parent)| text.contains(&format!("- name: {parent}\n")))
        .unwrap();
    let needle = format!("- name: {field}\n");
    let into = "- name: ".len() + field.len() - 1;
    let within = format!("{parent}.renamed_reader_field");
    rename_and_compare(&path, &needle, into, field, &within);
    let mut lsp = Lsp::start_with(json!({}));
    let uri = format!("file://{}", path.display());
    lsp.open(&uri, &text);
    let at = position(&text, text.find(&needle).unwrap() + into);
    let refused = lsp.at_raw(
        "textDocument/rename",
        &uri,
        at,
        json!({"newName": "elsewhere"}),
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("`{parent}` at line ")),
        "{message}"
    );
}

#[test]
fn a_chain_endpoint_renames_the_segment_under_the_cursor() {
    let path = corpus("artisan-pipeline.ed6cc63c.contract.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let chains = text.find("propagation_chains:").unwrap();
    let endpoint = chains + text[chains..].find("field: ").unwrap() + "field: ".len();
    let name = text[endpoint..].lines().next().unwrap().trim();
    let (parent, _) = name.split_once('.').expect("a dotted chain endpoint");
    let needle = format!("field: {name}");
    // On the first segment: the containing field and all its sub-paths.
    let (before, after) = rename_and_compare(
        &path,
        &needle,
        "field: ".len() + 1,
        parent,
        "renamed_parent",
    );
    assert!(renamed_lines(&before, &after, "field:", parent, "renamed_parent") >= 2);
    assert!(renamed_lines(&before, &after, "- name:", parent, "renamed_parent") >= 1);
}

#[test]
fn a_staleness_check_field_is_renamed_by_its_segment() {
    let path = corpus("req10-example.contract.yaml");
    let (before, after) = rename_and_compare(
        &path,
        "field: \"rag.index_snapshot\"",
        "field: \"".len() + 1,
        "rag",
        "retrieval_index",
    );
    assert_eq!(
        renamed_lines(&before, &after, "field:", "rag.", "retrieval_index."),
        1
    );
    assert_eq!(
        renamed_lines(&before, &after, "- name:", "rag.", "retrieval_index."),
        1
    );
    // The whole path, on its last segment: a field only a staleness check
    // names (its R102 message names it, and changes with it).
    let (before, after) = rename_and_compare(
        &path,
        "field: \"model.version\"",
        "field: \"model.v".len(),
        "model.version",
        "model.revision_id",
    );
    assert!(after.contains("field: \"model.revision_id\""));
    assert_ne!(before, after);
}

#[test]
fn a_field_in_preserves_drops_and_merge_policies_is_renamed() {
    let path = repo().join("fixtures/valid/branch-merge.contract.yaml");
    let (before, after) = rename_and_compare(
        &path,
        "- name: retrieval_confidence",
        "- name: ".len(),
        "retrieval_confidence",
        "renamed_confidence",
    );
    assert_eq!(
        renamed_lines(
            &before,
            &after,
            "preserves:",
            "retrieval_confidence",
            "renamed_confidence"
        ),
        1
    );
    assert_eq!(
        renamed_lines(
            &before,
            &after,
            "retrieval_confidence: prefer_latest",
            "retrieval_confidence",
            "renamed_confidence"
        ),
        1
    );
    assert_eq!(
        renamed_lines(
            &before,
            &after,
            "optional: [",
            "retrieval_confidence",
            "renamed_confidence"
        ),
        2
    );
    let (before, after) = rename_and_compare(
        &path,
        "- name: domain",
        "- name: ".len(),
        "domain",
        "subject_area",
    );
    assert_eq!(
        renamed_lines(&before, &after, "preserves:", "domain", "subject_area"),
        2
    );
}

#[test]
fn a_field_a_verification_reads_from_context_is_renamed_inside_the_expression() {
    let path = repo().join("fixtures/P403/pass.contract.yaml");
    let (_, after) = rename_and_compare(
        &path,
        "- name: retrieved_context",
        "- name: ".len(),
        "retrieved_context",
        "passages",
    );
    assert!(
        after.contains("context.get(\"passages\", []) is not None"),
        "{after}"
    );
}

#[test]
fn renames_that_would_change_the_contract_are_refused_with_a_reason() {
    let path = repo().join("fixtures/valid/branch-merge.contract.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = format!("file://{}", path.display());
    let mut lsp = Lsp::start_with(json!({}));
    lsp.open(&uri, &text);
    let on_domain = position(
        &text,
        text.find("- name: domain").unwrap() + "- name: ".len(),
    );
    let refusal = |lsp: &mut Lsp, new_name: &str| {
        let answer = lsp.at_raw(
            "textDocument/rename",
            &uri,
            on_domain,
            json!({"newName": new_name}),
        );
        assert!(
            answer.get("result").is_none_or(Value::is_null),
            "{new_name}: {answer}"
        );
        answer["error"]["message"].as_str().unwrap().to_string()
    };
    let collision = refusal(&mut lsp, "complexity_tier");
    assert!(
        collision.contains("collide with the field `complexity_tier`")
            && collision.contains("line "),
        "{collision}"
    );
    let under_existing = refusal(&mut lsp, "answer.domain");
    assert!(under_existing.contains("`answer`"), "{under_existing}");
    for invalid in ["", "a..b", "tasks.*", "has space"] {
        let message = refusal(&mut lsp, invalid);
        assert!(
            message.contains("not a valid field name"),
            "{invalid}: {message}"
        );
    }
    // Off any name: nothing to rename, and no error.
    let off = lsp.at_raw("textDocument/prepareRename", &uri, (1, 3), json!({}));
    assert_eq!(off["result"], Value::Null, "{off}");
}
