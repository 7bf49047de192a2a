use super::*;
use crate::config::Settings;

fn at_cursor(text_with_cursor: &str) -> (String, usize) {
    let offset = text_with_cursor.find('|').unwrap();
    (text_with_cursor.replacen('|', "", 1), offset)
}

fn context(text_with_cursor: &str) -> CursorContext {
    let (text, offset) = at_cursor(text_with_cursor);
    cursor_context(&text, offset)
}

#[test]
fn paths_follow_indentation_and_list_items() {
    let c =
        context("phases:\n  plan:\n    exit:\n      required:\n        - name: x\n          ty|");
    assert_eq!(c.path, ["phases", "plan", "exit", "required", "-"]);
    assert_eq!(
        c.position,
        CursorPosition::Key {
            prefix: "ty".into()
        }
    );

    let c = context("propagation_chains:\n  - chain_id: c\n    source:\n      phase: re|");
    assert_eq!(c.path, ["propagation_chains", "-", "source"]);
    assert_eq!(
        c.position,
        CursorPosition::Value {
            key: "phase".into(),
            prefix: "re".into()
        }
    );

    let c = context("phases:\n  plan:\n    entry:\n      required:\n        - |");
    assert_eq!(c.path, ["phases", "plan", "entry", "required", "-"]);

    let c = context("graph_topology:\n  merge_points:\n    - node: g\n      sources:\n        - |");
    assert_eq!(c.path, ["graph_topology", "merge_points", "-"]);
    assert_eq!(
        c.position,
        CursorPosition::Value {
            key: "sources".into(),
            prefix: String::new()
        }
    );

    let c = context("a: 1\n# comment\n|");
    assert_eq!(c.path, Vec::<String>::new());
}

const CONTRACT: &str = "\
schema_version: '1'
pipeline_id: p
phases:
  retrieve:
    description: Fetch documents
    exit: { required: [{ name: docs }], optional: [{ name: scores }] }
  generate: {}
checkpoint_integrity:
  - checkpoint_id: k
    phase: retrieve
    on_resume:
      staleness_checks:
        - field: docs
          max_age_seconds: 5
";

fn labels(items: &[Completion]) -> Vec<&str> {
    items.iter().map(|c| c.label.as_str()).collect()
}

#[test]
fn completes_keys_phases_fields_and_enums() {
    let analysis = crate::analyze(CONTRACT, &Settings::default());
    let contract = analysis.contract();
    let complete_at = |text: &str| {
        let (text, offset) = at_cursor(text);
        complete(&text, offset, contract)
    };
    let root = complete_at("schema_version: '1'\n|");
    assert!(labels(&root).contains(&"checkpoint_integrity"));
    assert!(!labels(&root).contains(&"schema_version"), "already there");
    // Keys the mapping has above and below the cursor are not offered
    // again; those of nested or neighbouring mappings are.
    let siblings = complete_at(
        "phases:\n  plan:\n    description: x\n    entry:\n      required: []\n    |\n    exit: {}\n  other:\n    long_running: true\n",
    );
    // The phase's keys in table order, so a key added to the table is
    // expected here without editing this test.
    let phase_keys_but = |written: &[&str]| -> Vec<&str> {
        crate::format::PHASE
            .keys
            .iter()
            .map(|k| k.name)
            .filter(|name| !written.contains(name))
            .collect()
    };
    assert_eq!(
        labels(&siblings),
        phase_keys_but(&["description", "entry", "exit"])
    );
    assert!(labels(&siblings).contains(&"risk_class"));
    let in_item = complete_at(
        "checkpoint_integrity:\n  - checkpoint_id: a\n    phase: p\n    |\n  - checkpoint_id: b\n    on_resume: {}\n",
    );
    assert_eq!(labels(&in_item), ["on_resume"]);
    let phase_keys = complete_at("phases:\n  plan:\n    |");
    assert_eq!(labels(&phase_keys), phase_keys_but(&[]));
    assert_eq!(labels(&phase_keys)[..3], ["description", "entry", "exit"]);
    assert_eq!(
        labels(&complete_at("checkpoint_integrity:\n  - phase: |")),
        ["retrieve", "generate"]
    );
    let fields = format!("{CONTRACT}        - field: |");
    assert_eq!(labels(&complete_at(&fields)), ["docs", "scores"]);
    let severity = complete_at(
        "phases:\n  a:\n    exit:\n      required:\n        - name: x\n          severity: |",
    );
    assert_eq!(labels(&severity), ["blocking", "warning", "advisory"]);
    assert!(severity[0].documentation.is_some());
    let recovery = complete_at(
        "checkpoint_integrity:\n  - checkpoint_id: k\n    on_resume:\n      staleness_checks:\n        - on_stale: blocking\n          recovery: re|",
    );
    // `log_and_continue` cannot recover a blocking field (C207).
    assert_eq!(labels(&recovery), ["re_retrieve", "re_generate", "fail"]);
    // By where the key is, not by its name alone: `recovery` under an
    // unknown key is not the format's.
    assert!(complete_at("x:\n  recovery: re|").is_empty());
    let merge = complete_at(
        "graph_topology:\n  merge_points:\n    - node: m\n      merge_policy:\n        answer: |",
    );
    assert_eq!(
        labels(&merge),
        [
            "required_from_any",
            "required_from_all",
            "prefer_latest",
            "union_all"
        ]
    );
    // Keys carry their type and description from the format.
    let keys = complete_at("checkpoint_integrity:\n  - checkpoint_id: k\n    on_resume:\n      |");
    let approval = keys.iter().find(|k| k.label == "approval_policy").unwrap();
    assert_eq!(
        approval.detail.as_deref(),
        Some("`human` | `orchestrator` | `human_or_orchestrator` | `auto_if_fresh`")
    );
    assert_eq!(
        approval.documentation.as_deref(),
        Some("Who may approve the resume.")
    );
}

#[test]
fn a_value_completes_from_its_declared_type_whatever_its_key_is_called() {
    // `values_of_type` is handed no key name: a key added to the format
    // with one of these types offers what the existing keys of it offer.
    let analysis = crate::analyze(CONTRACT, &Settings::default());
    let contract = analysis.contract();
    let staleness = [
        "checkpoint_integrity",
        "-",
        "on_resume",
        "staleness_checks",
        "-",
    ];
    let text = format!("{CONTRACT}          watched_too: ");
    let offered = |value_type: &ValueType, path: &[&str]| -> Vec<String> {
        values_of_type(value_type, &text, text.len(), path, contract)
            .into_iter()
            .map(|c| c.label)
            .collect()
    };
    let (field_text, field_offset) = at_cursor(&format!("{CONTRACT}        - field: |"));
    let by_the_field_key = complete(&field_text, field_offset, contract);
    assert_eq!(
        offered(
            &ValueType::FieldPath(FieldNames::CheckpointPhaseExit),
            &staleness
        ),
        labels(&by_the_field_key)
    );
    assert_eq!(labels(&by_the_field_key), ["docs", "scores"]);
    let field = ["phases", "retrieve", "exit", "required", "-"];
    assert_eq!(offered(&ValueType::TypeName, &field), TYPE_NAMES);
    assert_eq!(
        offered(&ValueType::PhaseName(PhaseNames::Any), &[]),
        ["retrieve", "generate"]
    );
    assert!(offered(&ValueType::String, &field).is_empty());
}

#[test]
fn keys_the_author_names_complete_from_their_declared_key_type() {
    let analysis = crate::analyze(CONTRACT, &Settings::default());
    let contract = analysis.contract();
    let complete_at = |text: &str| {
        let (text, offset) = at_cursor(text);
        complete(&text, offset, contract)
    };
    // A topology node names a declared phase.
    let nodes = complete_at("graph_topology:\n  nodes:\n    |");
    assert_eq!(labels(&nodes), ["retrieve", "generate"]);
    assert_eq!(nodes[0].insert_text.as_deref(), Some("retrieve:"));
    // A phase's own name and a merge policy's field are new names.
    assert!(complete_at("phases:\n  |").is_empty());
    assert!(
        complete_at(
            "graph_topology:\n  merge_points:\n    - node: m\n      merge_policy:\n        |"
        )
        .is_empty()
    );
}

#[test]
fn a_chain_endpoint_field_completes_from_its_phase() {
    let text = "\
schema_version: '1'
pipeline_id: p
phases:
  retrieve:
    exit: { required: [{ name: docs }], optional: [{ name: scores }] }
  generate:
    entry: { required: [{ name: docs }] }
    exit: { required: [{ name: answer }] }
propagation_chains:
  - chain_id: c
    source:
      phase: retrieve
      field: docs
    destination:
      phase: generate
      field: answer
";
    let analysis = crate::analyze(text, &Settings::default());
    let contract = analysis.contract();
    let at = |needle: &str| {
        let offset = text.find(needle).unwrap() + needle.len();
        labels(&complete(text, offset, contract))
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // A source names what its phase produces; a destination anything
    // its phase declares (R104).
    assert_eq!(at("phase: retrieve\n      field: "), ["docs", "scores"]);
    assert_eq!(at("phase: generate\n      field: "), ["answer", "docs"]);
}

#[test]
fn source_phase_offers_producers_before_the_reader_best_first() {
    // a -> b -> d and a -> c -> d: `x` is guaranteed by `a` (on every
    // path to `d`), only possibly by `b` (one branch), produced by `e`
    // after `d`, and `d` reads it itself.
    let text = "\
schema_version: '1'
pipeline_id: p
phases:
  a:
    exit: { required: [{ name: x }] }
  b:
    exit: { optional: [{ name: x }] }
  c: {}
  d:
    entry:
      required:
        - name: x
          source_phase: a
    exit: { optional: [{ name: x }] }
  e:
    exit: { required: [{ name: x }] }
graph_topology:
  edges:
    - { from: a, to: b }
    - { from: a, to: c }
    - { from: b, to: d }
    - { from: c, to: d }
    - { from: d, to: e }
";
    let analysis = crate::analyze(text, &Settings::default());
    let offset = text.find("source_phase: ").unwrap() + "source_phase: ".len();
    let items = complete(text, offset, analysis.contract());
    assert_eq!(labels(&items), ["a", "b"]);
    assert_eq!(
        items[0].detail.as_deref(),
        Some("produces `x` on every path")
    );
    assert!(items[0].sort_text < items[1].sort_text);
}

#[test]
fn a_chain_stop_phase_offers_phases_that_keep_the_chain_clean() {
    // a -> b -> d, a -> c -> d (dropping `x`), d -> e; `f` is apart.
    let contract = |source: &str, destination: &str| {
        format!(
            "\
schema_version: '1'
pipeline_id: p
phases:
  a:
    exit: {{ required: [{{ name: x }}] }}
  b:
    exit: {{ optional: [{{ name: x }}] }}
  c:
    exit: {{ optional: [{{ name: x }}] }}
  d:
    entry: {{ required: [{{ name: x }}] }}
  e:
    exit: {{ optional: [{{ name: x }}] }}
  f: {{}}
graph_topology:
  edges:
    - {{ from: a, to: b }}
    - {{ from: a, to: c }}
    - {{ from: b, to: d }}
    - {{ from: c, to: d, drops: [x] }}
    - {{ from: d, to: e }}
propagation_chains:
  - chain_id: k
    source:
      phase: {source}
      field: x
    destination:
      phase: {destination}
      field: x
",
        )
    };
    let complete_at = |text: &str| {
        let (text, offset) = at_cursor(text);
        let analysis = crate::analyze(&text, &Settings::default());
        labels(&complete(&text, offset, analysis.contract()))
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // A source produces `x` and reaches `d` along a path keeping it:
    // not `c` (G308: its only way drops `x`), not `e` (G307), not `d`
    // or `f` (R104).
    assert_eq!(complete_at(&contract("|", "d")), ["a", "b"]);
    // A destination after `b` reads or writes `x` and is reached.
    assert_eq!(complete_at(&contract("b", "|")), ["b", "d", "e"]);
    // With no field yet, only the route counts: what reaches `d`.
    let no_field = contract("|", "d").replacen("|\n      field: x\n", "|\n", 1);
    assert_eq!(complete_at(&no_field), ["a", "b", "c", "d"]);
}

#[test]
fn checkpoint_phase_offers_phases_that_produce_what_it_watches() {
    let text = "\
schema_version: '1'
pipeline_id: p
phases:
  plan: {}
  retrieve:
    exit: { required: [{ name: docs }] }
  index:
    exit: { required: [{ name: docs }, { name: scores }] }
  generate: {}
checkpoint_integrity:
  - checkpoint_id: k
    phase: retrieve
    on_resume:
      staleness_checks:
        - field: docs
          max_age_seconds: 5
";
    let analysis = crate::analyze(text, &Settings::default());
    let offset = text.find("phase: retrieve").unwrap() + "phase: ".len();
    let items = complete(text, offset, analysis.contract());
    assert_eq!(labels(&items), ["retrieve", "index"]);
    // Without staleness checks, every phase, those with exit fields first.
    let bare = text.split("    on_resume").next().unwrap();
    let analysis = crate::analyze(bare, &Settings::default());
    let items = complete(bare, offset, analysis.contract());
    let mut ranked = items.clone();
    ranked.sort_by(|a, b| a.sort_text.cmp(&b.sort_text));
    assert_eq!(labels(&ranked), ["retrieve", "index", "plan", "generate"]);
}

#[test]
fn staleness_enums_agree_with_each_other() {
    let base = "checkpoint_integrity:\n  - checkpoint_id: k\n    on_resume:\n      staleness_checks:\n        - field: f\n";
    let at = |lines: &str| {
        let text = format!("{base}{lines}");
        let offset = text.find('|').unwrap();
        let text = text.replacen('|', "", 1);
        labels(&complete(&text, offset, None))
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        at("          recovery: fail\n          on_stale: |"),
        ["blocking"]
    );
    assert_eq!(
        at("          on_stale: warning\n          recovery: |"),
        ["re_retrieve", "re_generate", "log_and_continue"]
    );
    // Blocking is the default: no `log_and_continue` without `on_stale`.
    assert_eq!(
        at("          recovery: |"),
        ["re_retrieve", "re_generate", "fail"]
    );
}

#[test]
fn comments_get_no_contract_completion() {
    let analysis = crate::analyze(CONTRACT, &Settings::default());
    let contract = analysis.contract();
    let text = format!("{CONTRACT}  - checkpoint_id: j\n    phase: retrieve  # after ");
    assert!(complete(&text, text.len(), contract).is_empty());
    let text = format!("{CONTRACT}# phases:\n#   ");
    assert!(complete(&text, text.len(), contract).is_empty());
    // A `#` inside a quoted value is text.
    let text = format!("{CONTRACT}  - checkpoint_id: 'a #b'\n    phase: ");
    assert_eq!(labels(&complete(&text, text.len(), contract)), ["retrieve"]);
}

#[test]
fn suppression_codes_rank_the_findings_where_the_comment_applies() {
    let text =
        "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\n# phaselint: disable=\nx: 1\n";
    let analysis = crate::analyze(text, &Settings::default());
    let offset = text.find("disable=").unwrap() + "disable=".len();
    let items = complete_suppression_code(&analysis, offset).unwrap();
    assert_eq!(items[0].label, "E003", "the unknown key on the next line");
    assert_eq!(items[0].detail.as_deref(), Some("unknown-key"));
    assert!(items.iter().all(|i| i.label != "E001" && i.label != "S001"));
    // Typed so far: only codes that start with it.
    let typed = text.replace("disable=", "disable=c2");
    let analysis = crate::analyze(&typed, &Settings::default());
    let offset = typed.find("disable=c2").unwrap() + "disable=c2".len();
    let items = complete_suppression_code(&analysis, offset).unwrap();
    assert!(!items.is_empty() && items.iter().all(|i| i.label.starts_with("C2")));
    // Not in the list: nothing to say.
    assert!(complete_suppression_code(&analysis, 3).is_none());
}

#[test]
fn words_after_multi_byte_characters() {
    // The character before the word is two bytes wide.
    assert!(!may_be_enum_value("description: éx\n", 15));
    assert!(may_be_enum_value("severity: éblocking\n", 17));
    assert!(may_be_enum_value("a: 😀human", 7));
    assert!(!may_be_enum_value(&"a".repeat(100), 50));
    for offset in 0..="d: éé€😀x".len() {
        let _ = may_be_enum_value("d: éé€😀x", offset);
    }
}

#[test]
fn enum_values_under_the_cursor() {
    let source = "phases:\n  a:\n    risk_class: HIGH\n";
    let root = crate::syntax::parse(source, crate::syntax::Limits::default())
        .unwrap()
        .unwrap();
    let offset = source.find("HIGH").unwrap() + 1;
    let EnumValueAt {
        what,
        value,
        meaning: doc,
        span,
    } = enum_value_at(root.root(), offset).unwrap();
    assert_eq!(&source[span.start..span.end], "HIGH", "the value's range");
    assert_eq!((what, value), ("risk class", "high"));
    assert!(doc.contains("approval gate"));
    assert!(enum_value_at(root.root(), 3).is_none());
    // The cheap test agrees, without the tree.
    assert!(may_be_enum_value(source, offset));
    assert!(may_be_enum_value(source, source.find("HIGH").unwrap()));
    assert!(!may_be_enum_value(source, source.find("risk").unwrap()));
    assert!(!may_be_enum_value(source, 3));
}
