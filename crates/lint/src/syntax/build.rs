//! Folding saphyr-parser's event stream into the arena: the builder's
//! frames, character-to-byte offsets, alias expansion under the limits,
//! and the exact spans of quoted scalars and block collections.

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError};

use super::error_position::{line_number, unclosed_double_quote, where_the_problem_is};
use super::{
    COPIED, KIND_MAPPING, KIND_SCALAR, KIND_SEQUENCE, KIND_SHIFT, LEN_MASK, Limits, PLAIN, Raw,
    Span, Tree,
};

/// Why a document could not be turned into a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxError {
    /// The YAML parser rejected the input (E001).
    Yaml { message: String, offset: usize },
    /// Valid YAML that phaselint cannot load as a contract (E007).
    Unloadable { message: String, span: Span },
}

/// Converts saphyr's character indices to byte offsets: the byte offset of
/// every 1024th character, and a cursor, since the parser's positions
/// mostly move forward (a table entry per character cost 4 bytes each, 128
/// MiB for a 32 MiB file with one accented letter).
pub(super) struct OffsetMap<'s> {
    source: &'s [u8],
    /// Empty when the source is ASCII (characters and bytes coincide).
    checkpoints: Vec<u32>,
    chars: usize,
    /// The last character index asked for and its byte offset.
    cursor: (usize, usize),
}

pub(super) const CHECKPOINT_EVERY: usize = 1024;

impl<'s> OffsetMap<'s> {
    fn new(source: &'s str) -> Self {
        let mut checkpoints = Vec::new();
        let mut chars = source.len();
        if !source.is_ascii() {
            chars = 0;
            for (b, _) in source.char_indices() {
                if chars.is_multiple_of(CHECKPOINT_EVERY) {
                    checkpoints.push(b as u32);
                }
                chars += 1;
            }
        }
        OffsetMap {
            source: source.as_bytes(),
            checkpoints,
            chars,
            cursor: (0, 0),
        }
    }

    fn byte(&mut self, char_index: usize) -> usize {
        if self.checkpoints.is_empty() {
            return char_index.min(self.source.len());
        }
        if char_index >= self.chars {
            return self.source.len();
        }
        let (mut c, mut b) = self.cursor;
        if !(c <= char_index && char_index - c < CHECKPOINT_EVERY) {
            let at = char_index / CHECKPOINT_EVERY;
            c = at * CHECKPOINT_EVERY;
            b = self.checkpoints[at] as usize;
        }
        while c < char_index {
            b += match self.source[b] {
                0..0xc0 => 1,
                0xc0..0xe0 => 2,
                0xe0..0xf0 => 3,
                _ => 4,
            };
            c += 1;
        }
        self.cursor = (c, b);
        b
    }

    fn span(&mut self, span: saphyr_parser::Span) -> Span {
        let start = self.byte(span.start.index());
        Span::new(start, self.byte(span.end.index()))
    }
}

pub(super) struct Frame {
    start: usize,
    anchor: usize,
    mapping: bool,
    /// Where its children begin in the builder's `pending`.
    first: usize,
}

/// Where a quoted scalar really ends: just after its closing quote. The
/// parser's span runs on over the blanks and the comment after it (`"docs"
/// # phaselint: disable=R104`), which would hide that comment from the
/// suppressions and make an edit of the value delete it. Inside a
/// double-quoted scalar every `"` but the last is escaped; inside a
/// single-quoted one every `'` but the last is doubled. The span may start
/// at an anchor or tag written before the opening quote.
pub(super) fn closing_quote_end(source: &str, span: Span, style: ScalarStyle) -> usize {
    let quote = if style == ScalarStyle::DoubleQuoted {
        b'"'
    } else {
        b'\''
    };
    let bytes = &source.as_bytes()[span.start.min(source.len())..span.end.min(source.len())];
    // Past the anchor and tag, whose names may hold a quote character.
    let mut opening = 0;
    while matches!(bytes.get(opening), Some(b'&' | b'!')) {
        while bytes.get(opening).is_some_and(|b| !b.is_ascii_whitespace()) {
            opening += 1;
        }
        while bytes.get(opening).is_some_and(u8::is_ascii_whitespace) {
            opening += 1;
        }
    }
    if bytes.get(opening) != Some(&quote) {
        return span.end;
    }
    let mut at = opening + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' if quote == b'"' => at += 2,
            b'\'' if quote == b'\'' && bytes.get(at + 1) == Some(&b'\'') => at += 2,
            b if b == quote => return span.start + at + 1,
            _ => at += 1,
        }
    }
    span.end
}

/// Parses one YAML document into a spanned tree.
///
/// Returns `Ok(None)` for an empty document (no content at all).
pub fn parse(source: &str, limits: Limits) -> Result<Option<Tree<'_>>, SyntaxError> {
    if source.len() > limits.max_bytes || source.len() >= (LEN_MASK as usize) {
        return Err(SyntaxError::Unloadable {
            message: crate::input::oversized(Some(source.len() as u64), limits.max_bytes as u64),
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
    let mut offsets = OffsetMap::new(source);
    let mut parser = Parser::new_from_str(source);
    let mut nodes: Vec<Raw> = Vec::new();
    let mut texts = String::new();
    // The finished children of the open collections, innermost last; a
    // collection's run moves to `nodes` when it closes.
    let mut pending: Vec<Raw> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: Vec<(usize, Raw, usize)> = Vec::new();
    let mut alias_budget = limits.max_alias_nodes;
    let mut root: Option<Raw> = None;
    let mut documents = 0usize;
    let mut count = 0usize;

    while let Some(event) = parser.next_event() {
        let (event, raw_span) = event.map_err(|e: ScanError| {
            let offset = offsets.byte(e.marker().index());
            // The scanner has a nesting limit of its own for flow collections.
            if e.info().contains("recursion limit") {
                SyntaxError::Unloadable {
                    message: format!("nesting is deeper than {} levels", limits.max_depth),
                    span: Span::empty(offset),
                }
            } else if let Some(opening) = unclosed_double_quote(source, e.info(), offset) {
                SyntaxError::Yaml {
                    message: format!(
                        "a double-quoted value opened here is closed only on line {} \
                         (a closing `\"` missing here?); what follows that quote is \
                         not valid YAML",
                        line_number(source, offset)
                    ),
                    offset: opening,
                }
            } else {
                let open = stack.iter().rev().map(|frame| frame.start);
                SyntaxError::Yaml {
                    message: e.info().to_string(),
                    offset: where_the_problem_is(source, e.info(), offset, open),
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
                let span = match style {
                    ScalarStyle::Plain if text.is_empty() => Span::empty(span.start),
                    ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                        Span::new(span.start, closing_quote_end(source, span, style))
                    }
                    _ => span,
                };
                let plain = style == ScalarStyle::Plain;
                let (data, copied) = match text_in_source(source, span, &text, plain) {
                    Some(at) => (at, 0),
                    None => {
                        let at = texts.len();
                        texts.push_str(&text);
                        (at, COPIED)
                    }
                };
                let raw = Raw {
                    start: span.start as u32,
                    end: span.end as u32,
                    data: data as u32,
                    meta: (KIND_SCALAR << KIND_SHIFT)
                        | if plain { PLAIN } else { 0 }
                        | copied
                        | text.len() as u32,
                };
                Some((raw, anchor))
            }
            Event::Alias(id) => {
                let Some(&(_, raw, size)) = anchors.iter().rev().find(|(a, _, _)| *a == id) else {
                    return Err(SyntaxError::Yaml {
                        message: "alias refers to an unknown anchor".into(),
                        offset: span.start,
                    });
                };
                if size > alias_budget {
                    return Err(SyntaxError::Unloadable {
                        message: format!(
                            "YAML aliases expand to more than {} nodes",
                            limits.max_alias_nodes
                        ),
                        span,
                    });
                }
                alias_budget -= size;
                Some((raw.with_span(span), 0))
            }
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                if let Some(frame) = stack.last()
                    && frame.mapping
                    && (pending.len() - frame.first).is_multiple_of(2)
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
                stack.push(Frame {
                    start: span.start,
                    anchor,
                    mapping: matches!(event, Event::MappingStart(..)),
                    first: pending.len(),
                });
                None
            }
            Event::MappingEnd | Event::SequenceEnd => match stack.pop() {
                Some(frame) => {
                    debug_assert!(
                        !frame.mapping || (pending.len() - frame.first).is_multiple_of(2)
                    );
                    let children = &pending[frame.first..];
                    let end = children.last().map_or(span.end, |n| n.end as usize);
                    let end = end.max(span.end.min(source.len())).max(frame.start);
                    let end = collection_end(source, frame.start, end);
                    let first = nodes.len();
                    nodes.extend_from_slice(children);
                    let len = children.len();
                    pending.truncate(frame.first);
                    let kind = if frame.mapping {
                        KIND_MAPPING
                    } else {
                        KIND_SEQUENCE
                    };
                    Some((
                        Raw {
                            start: frame.start as u32,
                            end: end as u32,
                            data: first as u32,
                            meta: (kind << KIND_SHIFT) | len as u32,
                        },
                        frame.anchor,
                    ))
                }
                None => None,
            },
        };
        let Some((raw, anchor)) = completed else {
            continue;
        };
        count += 1;
        if count > limits.max_nodes {
            return Err(SyntaxError::Unloadable {
                message: format!(
                    "the file has more than {} YAML nodes (keys, values and collections)",
                    limits.max_nodes
                ),
                span: raw.span(),
            });
        }
        if anchor != 0 {
            let size = subtree_size(&nodes, raw);
            anchors.push((anchor, raw, size));
        }
        match stack.last() {
            None => root = Some(raw),
            Some(frame) => {
                if frame.mapping
                    && (pending.len() - frame.first).is_multiple_of(2)
                    && raw.kind() != KIND_SCALAR
                {
                    return Err(SyntaxError::Unloadable {
                        message: "mapping keys must be plain strings, not collections".into(),
                        span: raw.span(),
                    });
                }
                pending.push(raw);
            }
        }
    }
    drop(pending);
    nodes.shrink_to_fit();
    texts.shrink_to_fit();
    Ok(root.map(|root| Tree {
        source,
        nodes,
        texts,
        root,
    }))
}

/// Where `text`, the scalar at `span`, is written verbatim in the source:
/// a plain scalar on one line, a quoted one without escapes or folding.
pub(super) fn text_in_source(source: &str, span: Span, text: &str, plain: bool) -> Option<usize> {
    let written = source.get(span.start..span.end)?;
    if plain {
        return (written == text).then_some(span.start);
    }
    let inner = written
        .strip_prefix(['\'', '"'])
        .and_then(|w| w.strip_suffix(['\'', '"']))?;
    (inner == text).then_some(span.start + 1)
}

/// The nodes under `raw`, itself included, as alias expansion counts them
/// (a mapping entry counts once for its key).
pub(super) fn subtree_size(nodes: &[Raw], raw: Raw) -> usize {
    let mut size = 0;
    let mut stack = vec![raw];
    while let Some(raw) = stack.pop() {
        size += 1;
        if raw.kind() != KIND_SCALAR {
            let first = raw.data as usize;
            if let Some(children) = nodes.get(first..first + raw.len()) {
                stack.extend_from_slice(children);
            }
        }
    }
    size
}

/// Block collections end where the parser saw the next token, which may lie
/// after trailing comments and blank lines; trim those so a collection's
/// span ends at its last character of content.
pub(super) fn collection_end(source: &str, start: usize, end: usize) -> usize {
    let bytes = source.as_bytes();
    let mut end = end.min(bytes.len());
    while end > start && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}
