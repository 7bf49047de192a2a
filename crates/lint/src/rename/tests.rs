use super::*;

const SOURCE: &str = "\
schema_version: '1'
pipeline_id: p
phases:
  retrieve:
    exit: { required: [{ name: docs }, { name: 'meta.count' }] }
  generate:
    entry: { required: [{ name: docs.items, source_phase: retrieve }] }
    exit: { required: [{ name: answer }] }
propagation_chains:
  - chain_id: c
    source: { phase: retrieve, field: docs }
    destination: { phase: generate, field: docs.items }
    verification: \"len(context['docs']) > 0 and context.get('docs.items') == dest\"
checkpoint_integrity:
  - checkpoint_id: k
    phase: retrieve
    on_resume: { staleness_checks: [{ field: \"docs\", max_age_seconds: 5 }] }
";

fn apply(source: &str, edits: &[Edit]) -> String {
    let mut text = source.to_string();
    for edit in edits.iter().rev() {
        text.replace_range(edit.span.start..edit.span.end, &edit.replacement);
    }
    text
}

fn at(needle: &str) -> usize {
    SOURCE.find(needle).unwrap()
}

#[test]
fn a_field_is_renamed_everywhere_with_its_sub_paths_and_verification_keys() {
    let edits = rename_field(SOURCE, at("name: docs }") + 6, "sources").unwrap();
    let text = apply(SOURCE, &edits);
    assert!(text.contains("{ name: sources }"));
    assert!(text.contains("{ name: sources.items, source_phase"));
    assert!(text.contains("field: sources }"));
    assert!(text.contains("field: sources.items }"));
    assert!(
        text.contains("\"len(context['sources']) > 0 and context.get('sources.items') == dest\"")
    );
    assert!(text.contains("field: \"sources\""));
    assert!(text.contains("'meta.count'"), "an unrelated field stays");
}

#[test]
fn a_membership_test_on_context_is_a_key_read() {
    let keys: Vec<String> =
        context_keys("'docs' in context and 'a.b' not in context and 1 < 2 and 'x' in y")
            .into_iter()
            .map(|k| k.name)
            .collect();
    assert_eq!(keys, ["docs", "a.b"]);
    let source = SOURCE.replace(
        "len(context['docs']) > 0 and",
        "'docs' in context and len(context['docs']) > 0 and",
    );
    let edits = rename_field(&source, source.find("name: docs }").unwrap() + 6, "sources").unwrap();
    let text = apply(&source, &edits);
    assert!(
        text.contains("'sources' in context and len(context['sources']) > 0"),
        "{text}"
    );
}

#[test]
fn the_segment_under_the_cursor_chooses_the_path() {
    let analysis = crate::analyze(SOURCE, &Settings::default());
    let contract = analysis.contract().unwrap();
    let index = SymbolIndex::build(contract);
    let on_items = at("docs.items, source_phase") + "docs.it".len();
    let target = target(SOURCE, contract, &index, on_items).unwrap().unwrap();
    assert_eq!(target.path.as_str(), "docs.items");
    let on_docs = at("docs.items, source_phase") + 1;
    let target_docs = super::target(SOURCE, contract, &index, on_docs)
        .unwrap()
        .unwrap();
    assert_eq!(target_docs.path.as_str(), "docs");
    assert_eq!(
        &SOURCE[target_docs.span.start..target_docs.span.end],
        "docs"
    );
    let in_verification = at("'docs']") + 2;
    let key = super::target(SOURCE, contract, &index, in_verification)
        .unwrap()
        .unwrap();
    assert_eq!(key.path.as_str(), "docs");
}

#[test]
fn renaming_a_sub_path_rewrites_only_it() {
    let edits = rename_field(SOURCE, at("docs.items, source_phase") + 7, "docs.entries").unwrap();
    let text = apply(SOURCE, &edits);
    assert!(text.contains("{ name: docs.entries, source_phase"));
    assert!(text.contains("field: docs.entries }"));
    assert!(text.contains("context.get('docs.entries')"));
    assert!(text.contains("{ name: docs }"));
}

#[test]
fn collisions_and_relations_through_segments_are_refused() {
    let on_docs = at("name: docs }") + 6;
    let collide = rename_field(SOURCE, on_docs, "answer").unwrap_err();
    assert!(
        collide.contains("collide with the field `answer`"),
        "{collide}"
    );
    let into_meta = rename_field(SOURCE, on_docs, "meta").unwrap_err();
    assert!(into_meta.contains("`meta.count`"), "{into_meta}");
    // `docs` contains `docs.items`; moving `docs.items` out of it would
    // change what the producer of `docs` provides.
    let out = rename_field(SOURCE, at("docs.items, source_phase") + 7, "items").unwrap_err();
    assert!(
        out.contains("`docs` at line 5 contains `docs.items`"),
        "{out}"
    );
    let invalid = rename_field(SOURCE, on_docs, "a..b").unwrap_err();
    assert!(invalid.contains("not a valid field name"), "{invalid}");
    let wildcard = rename_field(SOURCE, on_docs, "a.*").unwrap_err();
    assert!(wildcard.contains("not a valid field name"), "{wildcard}");
}

#[test]
fn a_wildcard_keeps_its_matches_or_the_rename_is_refused() {
    let source = SOURCE.replace(
        "{ name: docs.items, source_phase: retrieve }",
        "{ name: docs.items, source_phase: retrieve }, { name: '*.count' }",
    );
    let on_count = source.find("'meta.count'").unwrap() + "'meta.c".len();
    // `*.count` matches `stats.count` as it matched `meta.count`.
    let edits = rename_field(&source, on_count - "count".len() - 2, "stats").unwrap();
    assert!(apply(&source, &edits).contains("'stats.count'"));
    // It would not match `meta.total`.
    let reason = rename_field(&source, on_count, "meta.total").unwrap_err();
    assert!(
        reason.contains("`*.count` at line 7 matches `meta.count` through a wildcard"),
        "{reason}"
    );
    // A wildcard path is not renamed itself.
    let on_wildcard = source.find("'*.count'").unwrap() + 1;
    let reason = rename_field(&source, on_wildcard, "x").unwrap_err();
    assert!(reason.contains("wildcard segment"), "{reason}");
}

#[test]
fn a_key_spelt_with_an_escape_is_refused_not_edited() {
    let source = SOURCE.replace("context['docs']", "context['d\\\\x6fcs']");
    let reason = rename_field(&source, at("name: docs }") + 6, "sources").unwrap_err();
    assert!(reason.contains("does not map one to one"), "{reason}");
    // A YAML escape inside the key: the key reads `docs`, written `d\x6fcs`.
    let source = SOURCE.replace("context['docs']", "context['d\\x6fcs']");
    let reason = rename_field(&source, at("name: docs }") + 6, "sources").unwrap_err();
    assert!(reason.contains("does not map one to one"), "{reason}");
}

#[test]
fn a_key_in_a_literal_block_is_edited_in_place_and_a_folded_one_refused() {
    let literal = SOURCE.replace(
            "    verification: \"len(context['docs']) > 0 and context.get('docs.items') == dest\"\n",
            "    verification: |\n      (\n        len(context['docs']) > 0\n        and context.get('docs.items') == dest\n      )\n",
        );
    let on_docs = literal.find("name: docs }").unwrap() + 6;
    let edits = rename_field(&literal, on_docs, "sources").unwrap();
    let text = apply(&literal, &edits);
    assert!(text.contains("\n        len(context['sources']) > 0\n        and context.get('sources.items') == dest\n"), "{text}");
    // Folded, lines at one indentation are joined: the value's lines are
    // not the source's.
    let folded = SOURCE.replace(
            "    verification: \"len(context['docs']) > 0 and context.get('docs.items') == dest\"\n",
            "    verification: >\n      len(context['docs']) > 0\n      and context.get('docs.items') == dest\n",
        );
    let reason = rename_field(&folded, on_docs, "sources").unwrap_err();
    assert!(reason.contains("does not map one to one"), "{reason}");
}

#[test]
fn yaml_escapes_before_the_key_still_map_exactly() {
    let source = SOURCE.replace("len(context", "\\x6cen(context");
    let edits = rename_field(&source, source.find("name: docs }").unwrap() + 6, "sources").unwrap();
    let text = apply(&source, &edits);
    assert!(text.contains("\\x6cen(context['sources'])"), "{text}");
}
