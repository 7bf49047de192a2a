//! Completion that never proposes a finding, and suppression comments as
//! first-class citizens of the editor: every completion item offered at
//! the places of the real corpus contracts where a user types a phase, a
//! field, a key or an enum value is accepted as a client would, and the
//! contract is linted again; then hover and completion inside
//! `# phaselint: disable=` comments through the real `phaselint lsp`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use phaselint_lint::completion::{Completion, complete};
use phaselint_lint::config::Settings;
use phaselint_lint::syntax::Span;
use serde_json::{Value, json};

#[path = "support/lsp_client.rs"]
mod lsp_client;
use lsp_client::{Lsp, uri_of};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The corpus's valid contracts, by path.
fn corpus() -> Vec<(PathBuf, String)> {
    let dir = repo().join("../shared/corpus/valid");
    let mut contracts: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path, text)
        })
        .collect();
    contracts.sort();
    assert!(!contracts.is_empty(), "no contracts in {}", dir.display());
    contracts
}

/// The findings of a text as (code, message), counted.
fn findings(text: &str) -> BTreeMap<(String, String), usize> {
    let mut found = BTreeMap::new();
    for d in phaselint_lint::analyze(text, &Settings::default()).diagnostics {
        *found.entry((d.code.to_string(), d.message)).or_default() += 1;
    }
    found
}

/// What `after` has that `before` has not.
fn new_findings(
    before: &BTreeMap<(String, String), usize>,
    after: &BTreeMap<(String, String), usize>,
) -> Vec<(String, String)> {
    after
        .iter()
        .filter(|(finding, count)| before.get(*finding).is_none_or(|b| b < *count))
        .map(|(finding, _)| finding.clone())
        .collect()
}

/// Where a user types: the kind of place, the text with the value not yet
/// typed (its span erased, or a new line opened), and the cursor.
struct Place {
    kind: &'static str,
    text: String,
    cursor: usize,
}

fn erased(kind: &'static str, source: &str, span: Span) -> Place {
    let mut text = source.to_string();
    text.replace_range(span.start..span.end, "");
    Place {
        kind,
        text,
        cursor: span.start,
    }
}

/// Every place of one contract where completion is tried: each
/// `source_phase:` value, chain endpoint `field:` and `phase:`, checkpoint `phase:`,
/// field `severity:` and staleness `on_stale:`/`recovery:` value (erased),
/// and a new key line at the top of each phase's body.
fn places(source: &str) -> Vec<Place> {
    let analysis = phaselint_lint::analyze(source, &Settings::default());
    let contract = analysis.contract().expect("a valid contract parses");
    let mut places = Vec::new();
    for phase in &contract.phases {
        for field in phase.all_fields() {
            if let Some(claim) = field.source_phase() {
                places.push(erased("source_phase", source, claim.span));
            }
            if let Some(severity) = &field.severity {
                places.push(erased("field severity", source, severity.span));
            }
        }
        // A new line right under `name:`, indented as the phase's keys.
        let line_end = source[phase.name_span.end..]
            .find('\n')
            .map_or(source.len(), |i| phase.name_span.end + i);
        let name_column = phase.name_span.start
            - source[..phase.name_span.start]
                .rfind('\n')
                .map_or(0, |i| i + 1);
        let indent = " ".repeat(name_column + 2);
        if source[line_end..].starts_with(&format!("\n{indent}")) {
            let mut text = source.to_string();
            text.insert_str(line_end + 1, &format!("{indent}\n"));
            places.push(Place {
                kind: "key in a phase",
                text,
                cursor: line_end + 1 + indent.len(),
            });
        }
    }
    for stop in contract.chains.iter().flat_map(|c| c.stops()) {
        if let Some(field) = &stop.field {
            places.push(erased("chain endpoint field", source, field.span));
        }
        if let Some(phase) = &stop.phase {
            places.push(erased("chain endpoint phase", source, phase.span));
        }
    }
    for checkpoint in &contract.checkpoints {
        if let Some(phase) = &checkpoint.phase {
            places.push(erased("checkpoint phase", source, phase.span));
        }
        for check in &checkpoint.on_resume.staleness_checks {
            if let Some(on_stale) = &check.on_stale {
                places.push(erased("staleness on_stale", source, on_stale.span));
            }
            if let Some(recovery) = &check.recovery {
                places.push(erased("staleness recovery", source, recovery.span));
            }
        }
    }
    places
}

/// The text once `item` is accepted at `cursor`, as a client applies an
/// item without a text edit: its insert text, or else its label.
fn accept(text: &str, cursor: usize, item: &Completion) -> String {
    let mut accepted = text.to_string();
    accepted.insert_str(cursor, item.insert_text.as_deref().unwrap_or(&item.label));
    accepted
}

/// Covers, in every valid corpus contract: each `source_phase:` value, each
/// chain endpoint `field:` and `phase:` (source, waypoints, destination), each
/// checkpoint `phase:`, each field `severity:`, each staleness check's
/// `on_stale:` and `recovery:` value, and a new key line in each phase.
/// The value is erased, completion asked at its place with the last
/// contract that parsed (the original, as in the editor), and every item
/// accepted; the findings after must be those of the text with the value
/// erased (what the incomplete place itself causes is not counted), except
/// that a key accepted without its value yet may be reported on its line.
#[test]
fn accepting_any_completion_item_adds_no_finding() {
    let mut accepted_by_kind: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for (path, source) in corpus() {
        let original = phaselint_lint::analyze(&source, &Settings::default());
        let contract = original.contract();
        for place in places(&source) {
            let items = complete(&place.text, place.cursor, contract);
            let counts = accepted_by_kind.entry(place.kind).or_default();
            counts.0 += 1;
            if items.is_empty() {
                continue;
            }
            let before = findings(&place.text);
            for item in &items {
                counts.1 += 1;
                let accepted = accept(&place.text, place.cursor, item);
                let after = findings(&accepted);
                let line = accepted[..place.cursor].matches('\n').count();
                let mut added = new_findings(&before, &after);
                if place.kind == "key in a phase" {
                    // The key's value is still to be typed: a finding on the
                    // new line about it is the user's next keystrokes.
                    let on_line: Vec<String> =
                        phaselint_lint::analyze(&accepted, &Settings::default())
                            .diagnostics
                            .iter()
                            .filter(|d| accepted[..d.span.start].matches('\n').count() == line)
                            .map(|d| d.message.clone())
                            .collect();
                    added.retain(|(_, message)| !on_line.contains(message));
                }
                if !added.is_empty() {
                    failures.push(format!(
                        "{} line {}: {} `{}` adds {added:?}",
                        path.file_name().unwrap().to_string_lossy(),
                        line + 1,
                        place.kind,
                        item.label
                    ));
                }
            }
        }
    }
    eprintln!("places and accepted items by kind: {accepted_by_kind:#?}");
    for kind in [
        "source_phase",
        "field severity",
        "key in a phase",
        "chain endpoint field",
        "chain endpoint phase",
        "staleness on_stale",
        "staleness recovery",
    ] {
        let (places, accepted) = accepted_by_kind.get(kind).copied().unwrap_or_default();
        assert!(
            places > 0 && accepted > 0,
            "{kind}: {places} places, {accepted} items accepted"
        );
    }
    // The corpus's only checkpoints (req10-example) each watch a field that
    // no phase produces, so no phase can take them without R102: their
    // places are tried and must offer nothing (the unit tests in
    // `completion.rs` accept checkpoint phases where some phase fits).
    let (places, _) = accepted_by_kind
        .get("checkpoint phase")
        .copied()
        .unwrap_or_default();
    assert!(places > 0, "no checkpoint `phase:` in the corpus");
    assert!(
        failures.is_empty(),
        "{} items add findings:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The (line, UTF-16 column) of byte `offset` in an ASCII-or-not text.
fn position(text: &str, offset: usize) -> (u32, u32) {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..offset].matches('\n').count();
    let column: usize = text[line_start..offset].chars().map(char::len_utf16).sum();
    (line as u32, column as u32)
}

fn largest_contract() -> (PathBuf, String) {
    let path = repo().join("../shared/corpus/valid/artisan-pipeline.ed6cc63c.contract.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    (path, text)
}

/// The end of the line holding byte `offset`.
fn line_end(text: &str, offset: usize) -> usize {
    text[offset..].find('\n').map_or(text.len(), |i| offset + i)
}

fn hover_text(hover: &Value) -> String {
    hover["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn labels(items: &Value) -> Vec<String> {
    let mut items = items.as_array().cloned().unwrap_or_default();
    items.sort_by_key(|i| i["sortText"].as_str().unwrap_or("").to_string());
    items
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

/// Hover and completion inside `# phaselint: disable=` comments of the
/// largest real contract: a used code shows its rule's code, name and
/// summary; an unused one adds its S001 finding; after `=` and after a
/// comma the rule codes come, those found where the comment applies first,
/// never a phase name, never a code already listed or one a comment cannot
/// silence; elsewhere in a comment, nothing.
#[test]
fn suppression_comments_answer_hover_and_completion_with_rule_codes() {
    let (path, source) = largest_contract();
    let analysis = phaselint_lint::analyze(&source, &Settings::default());
    let r110 = analysis
        .diagnostics
        .iter()
        .find(|d| d.code == "R110")
        .expect("the contract has an R110 finding");
    let r104 = analysis
        .diagnostics
        .iter()
        .find(|d| d.code == "R104")
        .expect("the contract has an R104 finding");
    // Silence the R110 finding; leave a C204 comment on a line with no C204;
    // start a new comment at the end of the R104 finding's line.
    let mut text = source.clone();
    let r104_end = line_end(&text, r104.span.start);
    text.insert_str(r104_end, "  # phaselint: disable=");
    let r110_end = line_end(&text, r110.span.start);
    text.insert_str(r110_end, "  # phaselint: disable=R110");
    let pipeline_end = line_end(&text, text.find("pipeline_id:").unwrap());
    text.insert_str(pipeline_end, "  # phaselint: disable=C204");
    let uri = uri_of(&path);
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&["utf-16"]);
    lsp.open(&uri, &text);
    let diagnostics = lsp.diagnostics(&uri, 1);
    assert!(
        !diagnostics.iter().any(|d| d["code"] == "R110"
            && d["range"]["start"]["line"] == json!(position(&text, r110_end).0)),
        "the R110 finding is silenced"
    );

    let used = text.find("disable=R110").unwrap() + "disable=R1".len();
    let (line, character) = position(&text, used);
    let hover = hover_text(&lsp.at("textDocument/hover", &uri, line, character, json!({})));
    let rule = phaselint_lint::rules::rule("R110").unwrap();
    assert!(
        hover.contains("R110") && hover.contains(rule.name) && hover.contains(rule.summary),
        "{hover}"
    );
    assert!(!hover.contains("S001"), "a used suppression: {hover}");
    assert!(
        !hover.contains("## "),
        "the summary, not the whole page: {hover}"
    );

    let unused = text.find("disable=C204").unwrap() + "disable=C".len();
    let (line, character) = position(&text, unused);
    let hover = hover_text(&lsp.at("textDocument/hover", &uri, line, character, json!({})));
    let c204 = phaselint_lint::rules::rule("C204").unwrap();
    assert!(
        hover.contains(c204.name) && hover.contains(c204.summary) && hover.contains("S001"),
        "{hover}"
    );

    // Completion right after `=` on the R104 finding's line.
    let empty = text.find("disable=\n").unwrap() + "disable=".len();
    let (line, character) = position(&text, empty);
    let items = lsp.at("textDocument/completion", &uri, line, character, json!({}));
    let offered = labels(&items);
    assert_eq!(
        offered.first().map(String::as_str),
        Some("R104"),
        "{offered:?}"
    );
    let first = &items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "R104")
        .unwrap();
    let r104_rule = phaselint_lint::rules::rule("R104").unwrap();
    assert_eq!(first["labelDetails"]["description"], r104_rule.name);
    let phases: Vec<&str> = analysis
        .contract()
        .unwrap()
        .phases
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    for label in &offered {
        assert!(
            !phases.contains(&label.as_str()),
            "a phase name in a comment: {label}"
        );
        let rule = phaselint_lint::rules::rule(label).unwrap();
        assert!(
            rule.suppressible && !rule.always_on,
            "{label} cannot be suppressed"
        );
    }
    let suppressible = phaselint_lint::rules::RULES
        .iter()
        .filter(|r| {
            r.suppressible && !r.always_on && r.family != phaselint_lint::rules::Family::Diff
        })
        .count();
    assert_eq!(
        offered.len(),
        suppressible,
        "every code a comment can silence"
    );

    // After a comma, the codes already listed are not offered again.
    let mut listed = text.clone();
    listed.insert_str(empty, "R104,");
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": listed}]}),
    );
    lsp.diagnostics(&uri, 2);
    let (line, character) = position(&listed, empty + "R104,".len());
    let offered = labels(&lsp.at("textDocument/completion", &uri, line, character, json!({})));
    assert!(!offered.contains(&"R104".to_string()), "{offered:?}");
    assert_eq!(offered.len(), suppressible - 1);

    // A comment after a `phase:` value is no place for phase names.
    let phase_line = listed.find("\n      phase: ").unwrap() + 1;
    let mut commented = listed.clone();
    let end = line_end(&commented, phase_line);
    commented.insert_str(end, "  # see ");
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": commented}]}),
    );
    lsp.diagnostics(&uri, 3);
    let (line, character) = position(&commented, end + "  # see ".len());
    let items = lsp.at("textDocument/completion", &uri, line, character, json!({}));
    assert_eq!(labels(&items), Vec::<String>::new());
}

/// The diagnostics the server publishes as (code, message).
fn published(diagnostics: &[Value]) -> BTreeMap<(String, String), usize> {
    let mut found = BTreeMap::new();
    for d in diagnostics {
        let key = (
            d["code"].as_str().unwrap_or_default().to_string(),
            d["message"].as_str().unwrap_or_default().to_string(),
        );
        *found.entry(key).or_default() += 1;
    }
    found
}

/// Through the real server, on the largest real contract: at the first
/// `source_phase:` value that names a producer, and at the first chain
/// destination `field:`, the value is erased, completion asked, and each
/// item applied as the client would (its insert text or label); the
/// published findings must be those of the erased text.
#[test]
fn items_accepted_through_the_server_add_no_finding() {
    let (path, source) = largest_contract();
    let analysis = phaselint_lint::analyze(&source, &Settings::default());
    let contract = analysis.contract().unwrap();
    let r110_spans: Vec<Span> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.code == "R110")
        .map(|d| d.span)
        .collect();
    let claim = contract
        .phases
        .iter()
        .flat_map(|p| p.all_fields())
        .filter_map(|f| f.source_phase())
        .find(|c| !r110_spans.iter().any(|s| s.start == c.span.start))
        .expect("a source_phase that names a producer");
    let destination = contract
        .chains
        .iter()
        .filter_map(|c| c.destination.as_ref())
        .filter_map(|d| d.field.as_ref())
        .next()
        .expect("a chain destination field");
    let uri = uri_of(&path);
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&["utf-16"]);
    lsp.open(&uri, &source);
    lsp.diagnostics(&uri, 1);
    let mut version = 1;
    let mut accepted = 0;
    for span in [claim.span, destination.span] {
        let mut erased = source.clone();
        erased.replace_range(span.start..span.end, "");
        version += 1;
        lsp.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": erased}]}),
        );
        let before = published(&lsp.diagnostics(&uri, version));
        let (line, character) = position(&erased, span.start);
        let items = lsp.at("textDocument/completion", &uri, line, character, json!({}));
        let items = items.as_array().cloned().unwrap_or_default();
        assert!(!items.is_empty(), "no completion at line {}", line + 1);
        for item in items {
            let insert = item["insertText"]
                .as_str()
                .or(item["label"].as_str())
                .unwrap();
            let mut text = erased.clone();
            text.insert_str(span.start, insert);
            version += 1;
            lsp.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
            );
            let after = published(&lsp.diagnostics(&uri, version));
            let added = new_findings(&before, &after);
            assert!(
                added.is_empty(),
                "`{insert}` at line {}: {added:?}",
                line + 1
            );
            accepted += 1;
        }
    }
    eprintln!("{accepted} items accepted through the server");
}
