use std::fmt::Write;

use super::*;

#[test]
fn paths_lead_to_their_mappings() {
    let name = |path: &[&str]| mapping_at(path).map(|m| m.name);
    assert_eq!(name(&[]), Some("Contract"));
    assert_eq!(name(&["phases", "plan"]), Some("Phase"));
    assert_eq!(
        name(&["phases", "plan", "exit", "required", "-"]),
        Some("Field")
    );
    assert_eq!(
        name(&[
            "checkpoint_integrity",
            "-",
            "on_resume",
            "staleness_checks",
            "-"
        ]),
        Some("Staleness check")
    );
    assert_eq!(
        name(&["propagation_chains", "-", "waypoints", "-"]),
        Some("Chain endpoint")
    );
    assert_eq!(
        name(&["graph_topology", "nodes", "plan"]),
        Some("Topology node")
    );
    assert_eq!(name(&["phases", "plan", "nope"]), None);
    assert_eq!(name(&["phases"]), None, "phase names are the author's");
}

#[test]
fn value_types_are_found_by_path_not_by_leaf_name() {
    let enum_at = |path: &[&str], key: &str| match value_type_at(path, key) {
        Some(ValueType::Enum(kind)) => Some(*kind),
        _ => None,
    };
    assert_eq!(
        enum_at(&["phases", "p", "exit", "required", "-"], "severity"),
        Some(EnumKind::FieldSeverity)
    );
    assert_eq!(
        enum_at(
            &["graph_topology", "merge_points", "-", "merge_policy"],
            "answer"
        ),
        Some(EnumKind::MergePolicy)
    );
    // `required` is a list of fields in `entry`, a boolean in `evaluation`.
    assert!(matches!(
        value_type_at(
            &["phases", "p", "exit", "required", "-", "evaluation"],
            "required"
        ),
        Some(ValueType::Bool)
    ));
    assert_eq!(enum_at(&["phases", "p"], "severity"), None);
}

/// A value of `value_type`, as YAML at `indent`, the first line after
/// the key. Phase-valued things name the phase `a`.
fn sample(value_type: &ValueType, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match value_type {
        ValueType::String | ValueType::NonEmptyString | ValueType::TypeName => out.push_str(" s\n"),
        ValueType::FieldPath(_) => out.push_str(" x\n"),
        ValueType::PhaseName(_) => out.push_str(" a\n"),
        ValueType::Bool => out.push_str(" true\n"),
        ValueType::Int => out.push_str(" 3\n"),
        ValueType::Number => out.push_str(" 0.5\n"),
        ValueType::Duration => out.push_str(" 15m\n"),
        ValueType::Enum(kind) => {
            let _ = writeln!(out, " {}", kind.values().1[0].0);
        }
        ValueType::Any => out.push_str(" v\n"),
        ValueType::AnyMapping => out.push_str(" { k: v }\n"),
        ValueType::List(item) => {
            out.push('\n');
            for _ in 0..2 {
                let _ = write!(out, "{pad}  -");
                match item.mapping() {
                    Some(mapping) => {
                        out.push_str(" {}\n");
                        out.truncate(out.len() - 4);
                        out.push('\n');
                        every_key(mapping, indent + 4, out);
                    }
                    None => sample(item, indent + 2, out),
                }
            }
        }
        ValueType::Mapping(mapping) => {
            out.push('\n');
            every_key(mapping, indent + 2, out);
        }
        ValueType::MapOf { value, .. } => {
            let _ = write!(out, "\n{pad}  a:");
            sample(value, indent + 2, out);
        }
    }
}

fn every_key(mapping: &Mapping, indent: usize, out: &mut String) {
    for key in mapping.keys {
        let _ = write!(out, "{}{}:", " ".repeat(indent), key.name);
        sample(&key.value, indent, out);
    }
}

#[test]
fn a_contract_with_every_key_of_the_table_is_read_without_a_schema_error() {
    // The walker and the table agree: every key the table declares is
    // known to the walker and read as the type the table gives it.
    let mut text = String::new();
    every_key(&ROOT, 0, &mut text);
    let analysis = crate::analyze(&text, &crate::config::Settings::default());
    let schema_errors: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.code.is_schema_error())
        .map(|d| (d.code, d.message.as_str()))
        .collect();
    assert!(schema_errors.is_empty(), "{schema_errors:#?}\n{text}");
    if std::env::var_os("SHOW_SAMPLE").is_some() {
        println!("{text}");
    }
}

#[test]
fn every_mapping_fits_the_walkers_room_for_its_keys() {
    // The walker notes where each key is written in a fixed array; a key
    // past its end would read as never written.
    for mapping in MAPPINGS.iter().chain(HARNESS_MAPPINGS) {
        assert!(
            mapping.keys.len() <= crate::schema::MAX_KEYS_PER_MAPPING,
            "{} declares {} keys; raise MAX_KEYS_PER_MAPPING",
            mapping.name,
            mapping.keys.len()
        );
    }
}

#[test]
fn every_key_is_described_and_unique_in_its_mapping() {
    for mapping in MAPPINGS {
        for (i, key) in mapping.keys.iter().enumerate() {
            assert!(!key.description.is_empty(), "{}.{}", mapping.name, key.name);
            // Hover finds a key by the word under the cursor.
            assert!(
                key.name.len() <= crate::completion::LONGEST_WORD,
                "{}",
                key.name
            );
            assert!(
                !mapping.keys[..i].iter().any(|k| k.name == key.name),
                "{}.{} twice",
                mapping.name,
                key.name
            );
        }
    }
}

/// What the model answers for a key left out, by mapping and key, as a
/// default of the table's type; `None` for a default only documented,
/// which no code reads for an absent key (the table says why).
fn answer_for_absent_key(mapping: &str, key: &str) -> Option<DefaultValue> {
    let contract_text = "schema_version: '1'\npipeline_id: p\nphases:\n  a:\n    exit:\n      required:\n        - name: x\n  b: {}\ncheckpoint_integrity:\n  - checkpoint_id: c\n    phase: a\n    on_resume:\n      staleness_checks:\n        - field: x\n          max_age_seconds: 60\n";
    let analysis = crate::analyze(contract_text, &crate::config::Settings::default());
    let contract = analysis.contract().expect("a contract");
    let phase = &contract.phases[0];
    let on_resume = &contract.checkpoints[0].on_resume;
    let harness = crate::analyze_kind(
        "{\"checkpoints\": {\"types\": []}}",
        crate::DocumentKind::Harness,
        &crate::config::Settings::default(),
    );
    let harness = harness.harness().expect("a harness config");
    Some(match (mapping, key) {
        ("Contract", "checkpoint_mode") => DefaultValue::CheckpointMode(contract.checkpoint_mode()),
        ("Phase", "side_effects") => DefaultValue::SideEffects(phase.side_effect_class()),
        ("Phase", "risk_class") => DefaultValue::RiskClass(phase.risk()),
        ("Field", "severity") => DefaultValue::FieldSeverity(phase.exit_required()[0].severity()),
        ("On resume", "revalidate_entry") => DefaultValue::Bool(on_resume.revalidate_entry()),
        ("On resume", "approval_required") => DefaultValue::Bool(on_resume.approval_required()),
        ("Staleness check", "on_stale") => {
            DefaultValue::FieldSeverity(on_resume.staleness_checks[0].on_stale())
        }
        ("Harness checkpoints", "enabled") => DefaultValue::Bool(harness.checkpoints_enabled()),
        ("Field", "type") | ("Propagation chain", "severity") => return None,
        _ => panic!(
            "`{mapping}.{key}` declares a default: add the model's answer for it to this test"
        ),
    })
}

#[test]
fn every_default_the_table_declares_is_what_the_model_answers_for_an_absent_key() {
    // Hover, the reference and the JSON Schema print the table's default;
    // the rules and the resume check read the model's accessor.
    let mut checked = 0;
    for mapping in MAPPINGS.iter().chain(HARNESS_MAPPINGS) {
        for key in mapping.keys {
            let Some(declared) = key.default else {
                continue;
            };
            if let Some(answered) = answer_for_absent_key(mapping.name, key.name) {
                assert_eq!(answered, declared, "{}.{}", mapping.name, key.name);
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}

#[test]
fn a_default_prints_as_written_in_yaml() {
    assert_eq!(DefaultValue::Bool(true).to_string(), "true");
    assert_eq!(
        DefaultValue::SideEffects(crate::model::SideEffects::None).to_string(),
        "none"
    );
    assert_eq!(DefaultValue::Text("str").to_string(), "str");
    // Hover and the JSON Schema print them as they did when they were text.
    let hover = key_documentation(&["phases", "a"], "side_effects").unwrap_or_default();
    assert!(hover.contains("Default: `none`."), "{hover}");
    let schema = crate::json_schema::json_schema(crate::DocumentKind::Contract);
    let revalidate = &schema["$defs"]["OnResume"]["properties"]["revalidate_entry"]["anyOf"][0];
    assert_eq!(revalidate["default"], serde_json::json!(true));
    assert_eq!(
        schema["properties"]["checkpoint_mode"]["anyOf"][0]["default"],
        "policy"
    );
}
