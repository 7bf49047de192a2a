use super::*;

fn parse_ok(src: &str) -> Tree<'_> {
    match parse(src, Limits::default()) {
        Ok(Some(tree)) => tree,
        other => panic!("unexpected parse result: {other:?}"),
    }
}

#[test]
fn spans_are_byte_offsets_even_after_non_ascii_text() {
    let src = "a: \"héllo\"\nb: wörld\n";
    let tree = parse_ok(src);
    let root = tree.root();
    let entries = root.as_mapping().unwrap();
    let b = entries.get(1).unwrap();
    assert_eq!(&src[b.key.span.start..b.key.span.end], "b");
    assert_eq!(&src[b.value.span.start..b.value.span.end], "wörld");
    let a = entries.get(0).unwrap();
    assert_eq!(&src[a.value.span.start..a.value.span.end], "\"héllo\"");
}

#[test]
fn a_quoted_scalar_ends_at_its_closing_quote() {
    let src = "a: \"docs\" # phaselint: disable=R104\nb: 'it''s'   # c\nc: { d: \"x\\\"y\" , e: 'z' }\nf: &g\"x !!str \"h\" # i\nj: \"k\n  l\" # m\n";
    let tree = parse_ok(src);
    let root = tree.root();
    let entries = root.as_mapping().unwrap();
    let text = |node: Node<'_>| &src[node.span.start..node.span.end];
    assert_eq!(text(entries.get(0).unwrap().value), "\"docs\"");
    assert_eq!(text(entries.get(1).unwrap().value), "'it''s'");
    let flow = entries.get(2).unwrap().value.as_mapping().unwrap();
    assert_eq!(text(flow.get(0).unwrap().value), "\"x\\\"y\"");
    assert_eq!(text(flow.get(1).unwrap().value), "'z'");
    assert_eq!(text(entries.get(3).unwrap().value), "&g\"x !!str \"h\"");
    assert_eq!(text(entries.get(4).unwrap().value), "\"k\n  l\"");
}

#[test]
fn implicit_nulls_have_empty_spans() {
    let src = "phases: { ... }\nb:\nc: 1\n";
    let tree = parse_ok(src);
    let root = tree.root();
    let entries = root.as_mapping().unwrap();
    let inner = entries.get(0).unwrap().value.as_mapping().unwrap();
    let null = inner.get(0).unwrap().value;
    assert!(null.is_null());
    assert_eq!(null.span.start, null.span.end, "{:?}", null.span);
    let b = entries.get(1).unwrap().value;
    assert!(b.is_null());
    assert_eq!(b.span.start, b.span.end, "{:?}", b.span);
}

#[test]
fn duplicate_keys_are_kept() {
    let tree = parse_ok("a: 1\na: 2\n");
    let root = tree.root();
    assert_eq!(root.as_mapping().unwrap().len(), 2);
}

#[test]
fn core_schema_resolution() {
    let tree = parse_ok("a: ~\nb: TRUE\nc: 12\nd: 1.5\ne: 0.4.0\nf: '12'\ng: 1e3\n");
    let root = tree.root();
    let got: Vec<String> = root
        .as_mapping()
        .unwrap()
        .iter()
        .map(|e| format!("{:?}", e.value.as_scalar().unwrap().resolve()))
        .collect();
    assert_eq!(
        got,
        [
            "Null",
            "Bool(true)",
            "Int(12)",
            "Float(1.5)",
            "Str(\"0.4.0\")",
            "Str(\"12\")",
            "Float(1000.0)"
        ]
    );
}

#[test]
fn deep_nesting_is_refused_without_recursion() {
    let src = format!("a: {}{}", "[".repeat(10_000), "]".repeat(10_000));
    let result = parse(&src, Limits::default());
    assert!(
        matches!(result, Err(SyntaxError::Unloadable { .. })),
        "{result:?}"
    );
}

#[test]
fn alias_bombs_are_bounded() {
    let mut src = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let prev = i - 1;
        src.push_str(&format!(
            "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
        ));
    }
    assert!(matches!(
        parse(&src, Limits::default()),
        Err(SyntaxError::Unloadable { .. })
    ));
}

#[test]
fn syntax_errors_carry_an_offset() {
    let err = parse("a: [1, 2\nb: 3\n", Limits::default()).unwrap_err();
    assert!(matches!(err, SyntaxError::Yaml { .. }));
}

/// The 1-based line and column of the syntax error in `src`.
fn error_at(src: &str) -> (usize, usize) {
    let Err(SyntaxError::Yaml { offset, .. }) = parse(src, Limits::default()) else {
        panic!("expected a YAML syntax error in {src:?}");
    };
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

#[test]
fn a_key_without_its_colon_is_reported_on_its_own_line() {
    // At the end of a mapping, followed by a shallower key.
    assert_eq!(error_at("a:\n  b: 1\n  sever\nd: 3\n"), (3, 3));
    // In the middle of a mapping.
    assert_eq!(error_at("a:\n  b: 1\n  sever\n  c: 2\nd: 3\n"), (3, 3));
    // The last line of the file, with and without its line break.
    assert_eq!(error_at("a:\n  b: 1\n  sever\n"), (3, 3));
    assert_eq!(error_at("a:\n  b: 1\n  sever"), (3, 3));
    // Inside a list item, before the next item and at the end.
    assert_eq!(
        error_at("phases:\n  - id: a\n    descr\n  - id: b\n"),
        (3, 5)
    );
    assert_eq!(error_at("phases:\n  - id: a\n    descr\n"), (3, 5));
    // Comments and blank lines between the key and what follows.
    assert_eq!(
        error_at("a:\n  b: 1\n  sever\n\n  # note\n  c: 2\n"),
        (3, 3)
    );
    // A key written over two lines is reported where it starts.
    assert_eq!(error_at("a:\n  b: 1\n  sever\n   more\n  c: 2\n"), (3, 3));
}

#[test]
fn a_first_key_without_its_colon_is_reported_on_its_own_line() {
    // The first key of a list item runs on into the next line's key:
    // the scanner sees one plain scalar and stops at the later `:`.
    let item = "a:\n  required:\n    - nam\n      severity: blocking\n";
    assert_eq!(error_at(item), (3, 7));
    let Err(SyntaxError::Yaml { message, .. }) = parse(item, Limits::default()) else {
        panic!("expected a syntax error");
    };
    assert!(message.contains("runs on to line 4"), "{message}");
    // The first key of a mapping.
    assert_eq!(error_at("phases:\n  a:\n    descr\n    exit: {}\n"), (3, 5));
    // Blank lines in between, and a scalar over three lines.
    assert_eq!(error_at("a:\n  - nam\n\n    more\n    b: 1\n"), (2, 5));
    // A stray `:` inside a plain value on one line stays where the
    // parser stopped, on that line.
    let (line, _) = error_at("a:\n  description: a: b\n  c: 1\n");
    assert_eq!(line, 2);
    let (line, _) = error_at("a:\n  - nam\n  - b: x: y\n");
    assert_eq!(line, 3);
    // A value after `key: ` cannot be a key: a `:` on a line it runs
    // on to stays where the parser stopped.
    assert_eq!(error_at("a:\n  b: long\n   text: x\n"), (3, 8));
}

#[test]
fn an_unclosed_flow_collection_is_reported_at_its_bracket() {
    assert_eq!(error_at("a:\n  b: [1, 2\n  c: 3\nd: 4\n"), (2, 6));
    assert_eq!(error_at("a:\n  b: {x: 1\n  c: 3\nd: 4\n"), (2, 6));
    assert_eq!(error_at("a:\n  b: [1, 2\n"), (2, 6));
    assert_eq!(error_at("a:\n  b: {x: 1\n"), (2, 6));
    // Followed by a line at the same or a shallower indentation.
    assert_eq!(error_at("a:\n  b: [1, 2\n  c: 3\n"), (2, 6));
    assert_eq!(error_at("a:\n  b: [1, 2\nc: 3\n"), (2, 6));
    // The innermost one still open.
    assert_eq!(error_at("a: [1, [2, {x: 3}, [4\nb: 5\n"), (1, 20));
}

#[test]
fn an_unclosed_quote_is_reported_at_the_quote() {
    assert_eq!(error_at("a:\n  b: 'abc\n  c: 3\nd: 4\n"), (2, 6));
    assert_eq!(error_at("a:\n  b: \"abc\n  c: 3\nd: 4\n"), (2, 6));
    assert_eq!(error_at("a:\n  b: 'abc\n"), (2, 6));
    assert_eq!(error_at("a:\n  b: \"abc\n"), (2, 6));
    assert_eq!(error_at("a:\n  b: \"abc"), (2, 6));
    // A later line's `"` closes the value: the complaint about what
    // follows it is shown at the quote left open, not lines later.
    let typed = "a:\n  b: \"abc \\\" d\n    c: \"x\" and more\n  d: \"z\"\n";
    assert_eq!(error_at(typed), (2, 6));
    let Err(SyntaxError::Yaml { message, .. }) = parse(typed, Limits::default()) else {
        panic!("expected a syntax error");
    };
    assert!(message.contains("closed only on line 3"), "{message}");
    // Trailing content after a quoted value on its own line stays there.
    assert_eq!(error_at("a:\n  b: \"abc\" x\n"), (2, 12));
}

#[test]
fn a_tab_in_the_indentation_is_reported_at_the_tab() {
    assert_eq!(error_at("a:\n\tb: 1\n"), (2, 1));
    assert_eq!(error_at("a:\n  b:\n  \t c: 1\n"), (3, 3));
    // A tab that would indent the next line of a plain value.
    assert_eq!(error_at("a:\n  b: int\n\t  c: 1\n"), (3, 1));
    assert_eq!(error_at("a:\n  b: int\n   more\n \t\n  \t c: 1\n"), (5, 3));
}

#[test]
fn multiple_documents_are_refused() {
    assert!(matches!(
        parse("a: 1\n---\nb: 2\n", Limits::default()),
        Err(SyntaxError::Unloadable { .. })
    ));
}

#[test]
fn the_first_byte_shortcut_resolves_every_plain_scalar_as_trying_every_form_does() {
    // Each ASCII first byte before the tails of every core-schema form:
    // whatever the shortcut calls text, the full resolution must too, and
    // `is_null` must agree with it.
    let tails = [
        "", "1", "12", ".5", "e3", "1e-3", "x1F", "o17", "ull", "ULL", "rue", "RUE", "alse", "inf",
        ".inf", "Inf", "nan", "NaN", "word", " spaced",
    ];
    let mut texts: Vec<String> = [
        "", "~", ".inf", "-.Inf", ".NaN", "0x1F", "0o17", "+1", "-1.5",
    ]
    .iter()
    .map(|t| t.to_string())
    .collect();
    for first in 0x20u8..0x7f {
        for tail in tails {
            texts.push(format!("{}{tail}", first as char));
        }
    }
    for text in &texts {
        let scalar = Scalar { text, plain: true };
        let resolved = scalar.resolve();
        let full = scalar::resolve_plain(text);
        // NaN is not equal to itself: compare the debug forms.
        assert_eq!(format!("{resolved:?}"), format!("{full:?}"), "{text:?}");
        let yaml = format!("k: {text}\n");
        if let Ok(Some(tree)) = parse(&yaml, Limits::default())
            && let Some(value) = tree.root().as_mapping().and_then(|m| m.get_key("k"))
            && value
                .as_scalar()
                .is_some_and(|s| s.plain && s.text == text.as_str())
        {
            assert_eq!(value.is_null(), full == Resolved::Null, "{text:?}");
        }
    }
}
