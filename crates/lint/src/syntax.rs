//! The spanned YAML layer: a small document tree built from saphyr-parser's
//! event stream, in which every key and every value keeps its byte span.
//!
//! We build our own tree instead of using marked-yaml's because a linter
//! needs what a loader throws away: duplicate keys are kept (E002 reports
//! both), scalar values carry their end position, and nesting depth and
//! alias expansion are bounded with a diagnostic instead of a stack overflow.

use std::sync::Arc;

use compact_str::CompactString;
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError};

/// A half-open byte range into the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    pub const fn empty(at: usize) -> Self {
        Span { start: at, end: at }
    }

    pub fn contains(&self, offset: usize) -> bool {
        self.start <= offset && offset < self.end.max(self.start + 1)
    }
}

/// Limits that keep hostile input from exhausting the machine
/// (docs/reliability.md lists them).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_bytes: usize,
    pub max_depth: usize,
    /// Nodes that alias expansion may copy in total ("billion laughs").
    pub max_alias_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 32 * 1024 * 1024,
            max_depth: 64,
            max_alias_nodes: 100_000,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub span: Span,
    pub kind: NodeKind,
}

/// Collections are shared, not copied, when a node is cloned (an alias, a
/// value the model keeps): a tree is never changed once built. An `Arc` of
/// the `Vec` the parser filled (shrunk in place), not an `Arc<[_]>`, which
/// would copy every collection once more.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Scalar(Scalar),
    Mapping(Arc<Vec<Entry>>),
    Sequence(Arc<Vec<Node>>),
}

/// Texts are inline up to 24 bytes: most scalars and keys are short, and a
/// heap allocation for each would cost more than the text (a 32 MiB file of
/// `[x,x,…]` is 16 million scalars).
#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    pub text: CompactString,
    /// Plain scalars are subject to YAML 1.2 core-schema resolution
    /// (`null`, `true`, `12`); quoted and block scalars are always strings.
    pub plain: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: Key,
    pub value: Node,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub text: CompactString,
    pub span: Span,
}

/// A scalar after core-schema resolution.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
}

impl Scalar {
    pub fn resolve(&self) -> Resolved<'_> {
        if !self.plain {
            return Resolved::Str(&self.text);
        }
        let t = self.text.as_str();
        match t {
            "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
            "true" | "True" | "TRUE" => return Resolved::Bool(true),
            "false" | "False" | "FALSE" => return Resolved::Bool(false),
            ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
                return Resolved::Float(f64::INFINITY);
            }
            "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
            ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
            _ => {}
        }
        if let Some(int) = parse_core_int(t) {
            return Resolved::Int(int);
        }
        if looks_like_core_float(t)
            && let Ok(f) = t.parse::<f64>()
        {
            return Resolved::Float(f);
        }
        Resolved::Str(t)
    }
}

fn parse_core_int(t: &str) -> Option<i64> {
    if let Some(hex) = t.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    if let Some(oct) = t.strip_prefix("0o") {
        return i64::from_str_radix(oct, 8).ok();
    }
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<i64>().ok()
}

/// YAML 1.2 core float: `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
fn looks_like_core_float(t: &str) -> bool {
    let s = t.strip_prefix(['-', '+']).unwrap_or(t);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (mantissa, None),
    };
    let all_digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match frac_part {
        Some(frac) => {
            all_digits(int_part) && all_digits(frac) && !(int_part.is_empty() && frac.is_empty())
        }
        None => !int_part.is_empty() && all_digits(int_part),
    };
    let exponent_ok = match exponent {
        Some(e) => {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && all_digits(e)
        }
        None => true,
    };
    mantissa_ok && exponent_ok && (frac_part.is_some() || exponent.is_some())
}

impl Node {
    pub fn as_mapping(&self) -> Option<&[Entry]> {
        match &self.kind {
            NodeKind::Mapping(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn as_sequence(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Sequence(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            NodeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.as_scalar().map(Scalar::resolve), Some(Resolved::Null))
    }

    /// A short name for the node's YAML type, for messages.
    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            NodeKind::Mapping(_) => "a mapping",
            NodeKind::Sequence(_) => "a list",
            NodeKind::Scalar(s) => match s.resolve() {
                Resolved::Null => "null",
                Resolved::Bool(_) => "a boolean",
                Resolved::Int(_) => "an integer",
                Resolved::Float(_) => "a number",
                Resolved::Str(_) => "a string",
            },
        }
    }

    fn count(&self) -> usize {
        match &self.kind {
            NodeKind::Scalar(_) => 1,
            NodeKind::Sequence(items) => 1 + items.iter().map(Node::count).sum::<usize>(),
            NodeKind::Mapping(entries) => {
                1 + entries.iter().map(|e| 1 + e.value.count()).sum::<usize>()
            }
        }
    }
}

/// The spans of every quoted and block scalar, sorted by start: where a
/// `#` is text rather than a comment. Iterative, like the builder.
pub fn string_spans(root: &Node) -> Vec<Span> {
    let mut spans = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match &node.kind {
            NodeKind::Scalar(scalar) if !scalar.plain => spans.push(node.span),
            NodeKind::Scalar(_) => {}
            NodeKind::Sequence(items) => stack.extend(items.iter()),
            NodeKind::Mapping(entries) => {
                for entry in entries.iter() {
                    stack.push(&entry.value);
                }
            }
        }
    }
    spans.sort_unstable_by_key(|s| s.start);
    spans
}

/// Why a document could not be turned into a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxError {
    /// The YAML parser rejected the input (E001).
    Yaml { message: String, offset: usize },
    /// Valid YAML that phaselint cannot load as a contract (E007).
    Unloadable { message: String, span: Span },
}

/// Converts saphyr's character indices to byte offsets.
struct OffsetMap {
    /// Empty when the source is ASCII (characters and bytes coincide).
    byte_of_char: Vec<u32>,
    len: usize,
}

impl OffsetMap {
    fn new(source: &str) -> Self {
        let byte_of_char = if source.is_ascii() {
            Vec::new()
        } else {
            source
                .char_indices()
                .map(|(b, _)| b as u32)
                .chain(std::iter::once(source.len() as u32))
                .collect()
        };
        OffsetMap {
            byte_of_char,
            len: source.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        if self.byte_of_char.is_empty() {
            char_index.min(self.len)
        } else {
            self.byte_of_char
                .get(char_index)
                .map_or(self.len, |&b| b as usize)
        }
    }

    fn span(&self, span: saphyr_parser::Span) -> Span {
        Span::new(self.byte(span.start.index()), self.byte(span.end.index()))
    }
}

enum Frame {
    Mapping {
        start: usize,
        anchor: usize,
        entries: Vec<Entry>,
        pending_key: Option<Key>,
    },
    Sequence {
        start: usize,
        anchor: usize,
        items: Vec<Node>,
    },
}

/// Parses one YAML document into a spanned tree.
///
/// Returns `Ok(None)` for an empty document (no content at all).
pub fn parse(source: &str, limits: Limits) -> Result<Option<Node>, SyntaxError> {
    if source.len() > limits.max_bytes {
        return Err(SyntaxError::Unloadable {
            message: crate::oversized(Some(source.len() as u64), limits.max_bytes as u64),
            span: Span::empty(0),
        });
    }
    // saphyr reads NUL as the end of the input and then reports a confusing
    // "unexpected end of stream" far from the cause; YAML forbids it anyway.
    if let Some(offset) = source.find('\0') {
        return Err(SyntaxError::Yaml {
            message: "a NUL byte (U+0000) is not allowed in YAML; is this a binary file?"
                .to_string(),
            offset,
        });
    }
    let offsets = OffsetMap::new(source);
    let mut parser = Parser::new_from_str(source);
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: Vec<(usize, Node, usize)> = Vec::new();
    let mut alias_budget = limits.max_alias_nodes;
    let mut root: Option<Node> = None;
    let mut documents = 0usize;

    while let Some(event) = parser.next_event() {
        let (event, raw_span) = event.map_err(|e: ScanError| {
            let offset = offsets.byte(e.marker().index());
            // The scanner has a nesting limit of its own for flow collections.
            if e.info().contains("recursion limit") {
                SyntaxError::Unloadable {
                    message: format!("nesting is deeper than {} levels", limits.max_depth),
                    span: Span::empty(offset),
                }
            } else {
                SyntaxError::Yaml {
                    message: e.info().to_string(),
                    offset,
                }
            }
        })?;
        let span = offsets.span(raw_span);
        let completed = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => None,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(SyntaxError::Unloadable {
                        message: "expected one YAML document, but this file has several (separated by `---`)"
                            .into(),
                        span,
                    });
                }
                None
            }
            Event::Scalar(text, style, anchor, _tag) => {
                // An implicit null (`b:` with nothing after it) is written
                // nowhere; the parser gives it the next token's span.
                let span = if text.is_empty() && style == ScalarStyle::Plain {
                    Span::empty(span.start)
                } else {
                    span
                };
                let node = Node {
                    span,
                    kind: NodeKind::Scalar(Scalar {
                        text: CompactString::from(text),
                        plain: style == ScalarStyle::Plain,
                    }),
                };
                Some((node, anchor))
            }
            Event::Alias(id) => {
                let Some((_, node, size)) = anchors.iter().rev().find(|(a, _, _)| *a == id) else {
                    return Err(SyntaxError::Yaml {
                        message: "alias refers to an unknown anchor".into(),
                        offset: span.start,
                    });
                };
                if *size > alias_budget {
                    return Err(SyntaxError::Unloadable {
                        message: format!(
                            "YAML aliases expand to more than {} nodes",
                            limits.max_alias_nodes
                        ),
                        span,
                    });
                }
                alias_budget -= size;
                let mut copy = node.clone();
                copy.span = span;
                Some((copy, 0))
            }
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                if let Some(Frame::Mapping {
                    pending_key: None, ..
                }) = stack.last()
                {
                    return Err(SyntaxError::Unloadable {
                        message: "mapping keys must be plain strings, not collections".into(),
                        span,
                    });
                }
                if stack.len() >= limits.max_depth {
                    return Err(SyntaxError::Unloadable {
                        message: format!("nesting is deeper than {} levels", limits.max_depth),
                        span,
                    });
                }
                let start = span.start;
                stack.push(if matches!(event, Event::MappingStart(..)) {
                    Frame::Mapping {
                        start,
                        anchor,
                        entries: Vec::new(),
                        pending_key: None,
                    }
                } else {
                    Frame::Sequence {
                        start,
                        anchor,
                        items: Vec::new(),
                    }
                });
                None
            }
            Event::MappingEnd | Event::SequenceEnd => match stack.pop() {
                Some(Frame::Mapping {
                    start,
                    anchor,
                    entries,
                    pending_key,
                }) => {
                    debug_assert!(pending_key.is_none());
                    let end = entries.last().map_or(span.end, |e| e.value.span.end);
                    let end = end.max(span.end.min(source.len())).max(start);
                    Some((
                        Node {
                            span: Span::new(start, collection_end(source, start, end)),
                            kind: NodeKind::Mapping(Arc::new(shrunk(entries))),
                        },
                        anchor,
                    ))
                }
                Some(Frame::Sequence {
                    start,
                    anchor,
                    items,
                }) => {
                    let end = items.last().map_or(span.end, |n| n.span.end);
                    let end = end.max(span.end.min(source.len())).max(start);
                    Some((
                        Node {
                            span: Span::new(start, collection_end(source, start, end)),
                            kind: NodeKind::Sequence(Arc::new(shrunk(items))),
                        },
                        anchor,
                    ))
                }
                None => None,
            },
        };
        let Some((node, anchor)) = completed else {
            continue;
        };
        if anchor != 0 {
            let size = node.count();
            anchors.push((anchor, node.clone(), size));
        }
        match stack.last_mut() {
            None => root = Some(node),
            Some(Frame::Sequence { items, .. }) => items.push(node),
            Some(Frame::Mapping {
                entries,
                pending_key,
                ..
            }) => match pending_key.take() {
                Some(key) => entries.push(Entry { key, value: node }),
                None => {
                    let NodeKind::Scalar(scalar) = node.kind else {
                        return Err(SyntaxError::Unloadable {
                            message: "mapping keys must be plain strings, not collections".into(),
                            span: node.span,
                        });
                    };
                    *pending_key = Some(Key {
                        text: scalar.text,
                        span: node.span,
                    });
                }
            },
        }
    }
    Ok(root)
}

/// A collection without the slack its growth left.
fn shrunk<T>(mut items: Vec<T>) -> Vec<T> {
    items.shrink_to_fit();
    items
}

/// Block collections end where the parser saw the next token, which may lie
/// after trailing comments and blank lines; trim those so a collection's
/// span ends at its last character of content.
fn collection_end(source: &str, start: usize, end: usize) -> usize {
    let bytes = source.as_bytes();
    let mut end = end.min(bytes.len());
    while end > start && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(src: &str) -> Node {
        match parse(src, Limits::default()) {
            Ok(Some(node)) => node,
            other => panic!("unexpected parse result: {other:?}"),
        }
    }

    #[test]
    fn spans_are_byte_offsets_even_after_non_ascii_text() {
        let src = "a: \"héllo\"\nb: wörld\n";
        let root = parse_ok(src);
        let entries = root.as_mapping().unwrap();
        let b = &entries[1];
        assert_eq!(&src[b.key.span.start..b.key.span.end], "b");
        assert_eq!(&src[b.value.span.start..b.value.span.end], "wörld");
        let a = &entries[0];
        assert_eq!(&src[a.value.span.start..a.value.span.end], "\"héllo\"");
    }

    #[test]
    fn implicit_nulls_have_empty_spans() {
        let src = "phases: { ... }\nb:\nc: 1\n";
        let root = parse_ok(src);
        let entries = root.as_mapping().unwrap();
        let inner = entries[0].value.as_mapping().unwrap();
        let null = &inner[0].value;
        assert!(null.is_null());
        assert_eq!(null.span.start, null.span.end, "{:?}", null.span);
        let b = &entries[1].value;
        assert!(b.is_null());
        assert_eq!(b.span.start, b.span.end, "{:?}", b.span);
    }

    #[test]
    fn duplicate_keys_are_kept() {
        let root = parse_ok("a: 1\na: 2\n");
        assert_eq!(root.as_mapping().unwrap().len(), 2);
    }

    #[test]
    fn core_schema_resolution() {
        let root = parse_ok("a: ~\nb: TRUE\nc: 12\nd: 1.5\ne: 0.4.0\nf: '12'\ng: 1e3\n");
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

    #[test]
    fn multiple_documents_are_refused() {
        assert!(matches!(
            parse("a: 1\n---\nb: 2\n", Limits::default()),
            Err(SyntaxError::Unloadable { .. })
        ));
    }
}
