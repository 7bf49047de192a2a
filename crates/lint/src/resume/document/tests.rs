use super::*;

#[test]
fn canonical_json_of_a_tree_is_that_of_its_value() {
    let documents = [
        "a: 1\nb: [x, 'y', \"z\\n\", 1.5, .inf, .nan, 0x1f, ~, true, {}]\nc: {z: 1, a: {y: 2, b: 3}}\n",
        "k: &x {b: 1, a: [1, 2]}\nj: *x\n\"ü\": é\nz: |\n  block\n  text\nlong: 123456789012345678901234567890\n",
        "[1, -2, +3, 1e3, '1e3', null, Null, FALSE, \"\\u263a\"]\n",
    ];
    for text in documents {
        let tree = syntax::parse(text, Limits::default()).unwrap().unwrap();
        let mut streamed = String::new();
        write_canonical_node(tree.root(), &mut |piece| streamed.push_str(piece)).unwrap();
        let value = node_to_value(tree.root()).unwrap();
        assert_eq!(streamed, canonical_json(&value), "{text}");
    }
    let tree = syntax::parse("a: {b: 1, c: 2, b: 3}\n", Limits::default())
        .unwrap()
        .unwrap();
    let mut sink = |_: &str| {};
    assert_eq!(
        write_canonical_node(tree.root(), &mut sink),
        node_to_value(tree.root()).map(|_| ())
    );
}

#[test]
fn yaml_scalars_resolve_by_the_core_schema() {
    let v = parse_document(
        "a: 1\nb: '1'\nc: ~\nd: true\ne: 1.5\nf: [x, 2]\n",
        DocumentFormat::Yaml,
    )
    .unwrap();
    assert_eq!(
        canonical_json(&v),
        r#"{"a":1,"b":"1","c":null,"d":true,"e":1.5,"f":["x",2]}"#
    );
}

#[test]
fn duplicate_yaml_keys_are_refused() {
    let err = parse_document("a: 1\nb: 2\na: 3\n", DocumentFormat::Yaml).unwrap_err();
    assert_eq!(
        err,
        DocumentError::DuplicateKey {
            key: "a".into(),
            line: 3
        }
    );
}

#[test]
fn duplicate_json_keys_are_refused_at_any_depth() {
    let err = parse_document(
        r#"{"_cc_propagation": {"f": {"set_at": "a"}, "f": {"set_at": "b"}}}"#,
        DocumentFormat::Json,
    )
    .unwrap_err();
    assert_eq!(
        err,
        DocumentError::Json("key `f` appears twice in one object at line 1 column 46".into())
    );
    // Values and nesting are read as serde_json reads them.
    let v = parse_document(
        r#"{"a": [1, -2, 1.5, "x", null, true, {"b": {}}]}"#,
        DocumentFormat::Json,
    )
    .unwrap();
    assert_eq!(
        canonical_json(&v),
        r#"{"a":[1,-2,1.5,"x",null,true,{"b":{}}]}"#
    );
}

#[test]
fn what_a_document_takes_in_memory_is_bounded_in_both_formats() {
    let maps = format!("[{}{{}}]", "{},".repeat(10_000));
    let budget = 100_000;
    for (text, format) in [
        (maps.as_str(), DocumentFormat::Json),
        (maps.as_str(), DocumentFormat::Yaml),
        (
            "a: &a [1, 2, 3, 4, 5, 6, 7, 8]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n",
            DocumentFormat::Yaml,
        ),
    ] {
        let small = if format == DocumentFormat::Yaml && text.starts_with('a') {
            1_000
        } else {
            budget
        };
        assert_eq!(
            parse_document_within(text, format, small),
            Err(DocumentError::TooLarge { budget: small }),
            "{format:?}"
        );
    }
    // The same documents within a budget that holds them.
    assert!(parse_document_within(&maps, DocumentFormat::Json, 10_000_000).is_ok());
    assert!(parse_document_within(&maps, DocumentFormat::Yaml, 10_000_000).is_ok());
    let message = DocumentError::TooLarge {
        budget: 5 * 32 * 1024 * 1024,
    }
    .to_string();
    assert!(
        message.contains("more than 167772160 bytes (160 MiB) in memory"),
        "{message}"
    );
}

#[test]
fn yaml_documents_keep_the_contract_readers_limits() {
    let deep = format!("{}1{}", "[".repeat(100), "]".repeat(100));
    assert!(matches!(
        parse_document(&deep, DocumentFormat::Yaml),
        Err(DocumentError::Unloadable(m)) if m.contains("nesting")
    ));
    assert!(matches!(
        parse_document("a: 1\n---\nb: 2\n", DocumentFormat::Yaml),
        Err(DocumentError::Unloadable(m)) if m.contains("several")
    ));
    assert!(matches!(
        parse_document("a: 1\0", DocumentFormat::Yaml),
        Err(DocumentError::Yaml { .. })
    ));
    assert!(matches!(
        parse_document("? [a]\n: 1\n", DocumentFormat::Yaml),
        Err(DocumentError::Unloadable(m)) if m.contains("keys must be plain strings")
    ));
    // Keys are their text as written; aliases copy values.
    let v = parse_document("1: x\n~: y\nb: &v [1]\nc: *v\n", DocumentFormat::Yaml).unwrap();
    assert_eq!(canonical_json(&v), r#"{"1":"x","b":[1],"c":[1],"~":"y"}"#);
}

#[test]
fn detection_and_truncated_json() {
    assert!(matches!(
        parse_document("{\"a\": 1", DocumentFormat::Detect),
        Err(DocumentError::Json(_))
    ));
    assert!(parse_document("  a: 1", DocumentFormat::Detect).is_ok());
    assert_eq!(
        parse_document(" \n ", DocumentFormat::Detect),
        Err(DocumentError::Empty)
    );
}

#[test]
fn canonical_json_sorts_nested_keys_and_escapes() {
    let v: Value =
        serde_json::from_str(r#"{"b": {"z": 1, "a": "x\"y"}, "a": [ {"d":1,"c":2} ]}"#).unwrap();
    assert_eq!(
        canonical_json(&v),
        r#"{"a":[{"c":2,"d":1}],"b":{"a":"x\"y","z":1}}"#
    );
}
