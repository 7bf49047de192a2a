//! Writing a new value into a scalar as the file spells it: the edits that
//! make the key or value at a span read back as a given string, in the
//! scalar's own style (plain, single- or double-quoted, literal or folded
//! block) when that style can carry it, quoted when it cannot.
//!
//! Every fix that renames or rewrites a scalar goes through here, so that
//! applying it never breaks the YAML (`deploy: prod` written plain is a
//! syntax error, `#review` a comment, `yes` a boolean to a YAML 1.1
//! loader) and never changes an escape sequence instead of the value.

use crate::diagnostic::{Applicability, Edit, Fix};
use crate::syntax::{Resolved, Scalar, Span};

/// How the scalar at a span is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    /// A literal (`|`) or folded (`>`) block scalar: `header` covers its
    /// indicators (`>`, `|2-`), `content` its lines (blank ones included)
    /// from the one after the header's up to the last line break the
    /// parser counted as its own, and `indentation` is its first content
    /// line's.
    Block {
        header: Span,
        content: Span,
        indentation: Span,
        /// Whether the header's indentation indicator still holds for the
        /// value written at `indentation`.
        keep_digit: bool,
    },
}

/// A fix that makes the scalar at `span` read `value`, or `None` when the
/// span does not hold a scalar that can be rewritten (an implicit null,
/// which is written nowhere).
pub(crate) fn fix(
    title: impl Into<String>,
    applicability: Applicability,
    source: &str,
    span: Span,
    value: &str,
) -> Option<Fix> {
    Some(Fix {
        title: title.into(),
        applicability,
        edits: edits(source, span, value)?,
    })
}

/// The edits that make the scalar at `span` (as the parser spans a key or
/// value) read `value`. `None` when nothing is written there (an implicit
/// null) or only properties are (`&a` alone).
pub(crate) fn edits(source: &str, span: Span, value: &str) -> Option<Vec<Edit>> {
    source.get(span.start..span.end)?;
    // A node's span starts at its anchor or tag; those stay as they are.
    let span = without_properties(source, span)?;
    let replace = |span: Span, replacement: String| Edit { span, replacement };
    Some(match style(source, span) {
        Style::Plain => vec![replace(span, flow(value, Style::Plain))],
        Style::SingleQuoted => vec![replace(span, flow(value, Style::SingleQuoted))],
        Style::DoubleQuoted => vec![replace(span, flow(value, Style::DoubleQuoted))],
        Style::Block {
            header,
            content,
            indentation,
            keep_digit,
        } => {
            let indicator = &source[header.start..header.start + 1];
            let indicator_digit = source[header.start + 1..header.end]
                .chars()
                .find(char::is_ascii_digit)
                .filter(|_| keep_digit);
            if block_can_carry(value) && content.start < content.end {
                // Strip chomping: the value has no final line break.
                let mut new_header = String::from(indicator);
                new_header.extend(indicator_digit);
                new_header.push('-');
                let indentation = &source[indentation.start..indentation.end];
                vec![
                    replace(header, new_header),
                    replace(content, format!("{indentation}{value}")),
                ]
            } else {
                // Header and lines become one flow scalar where the header
                // was (its comment goes with them).
                let whole = Span::new(header.start, content.end);
                vec![replace(whole, flow(value, Style::Plain))]
            }
        }
    })
}

/// `span` after the node's properties (`&anchor`, `!tag`, and the space
/// or comment lines after them); `None` when nothing follows them.
fn without_properties(source: &str, span: Span) -> Option<Span> {
    let bytes = &source.as_bytes()[..span.end];
    let mut i = span.start;
    while matches!(bytes.get(i), Some(b'&' | b'!')) {
        if bytes.get(i..i + 2) == Some(b"!<") {
            i += source[i..span.end].find('>')? + 1;
        } else {
            while i < span.end && !matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
                i += 1;
            }
        }
        loop {
            match bytes.get(i) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => i += 1,
                Some(b'#') => {
                    while i < span.end && !matches!(bytes[i], b'\n' | b'\r') {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
    }
    (i < span.end).then_some(Span::new(i, span.end))
}

/// The style of the scalar at `span` (without properties). Quoted
/// scalars' spans include their quotes. A block scalar is spanned from its
/// header when properties come before it or it has no content lines, and
/// otherwise from its first line of content, past its last line break,
/// with its header on the last non-blank line before.
fn style(source: &str, span: Span) -> Style {
    // A block scalar's content may start with anything, a quote or `|`
    // included: that case first.
    if let Some(block) = block(source, span) {
        return block;
    }
    match source.as_bytes()[span.start] {
        b'"' => Style::DoubleQuoted,
        b'\'' => Style::SingleQuoted,
        // Otherwise only a header starts with `|` or `>`, with nothing
        // but indicators, blanks and a comment after it on its line: the
        // parser also reads `|ield` in a flow mapping as a plain scalar.
        b'|' | b'>' if is_block_header(source, span) => block_from_header(source, span),
        _ => Style::Plain,
    }
}

/// Whether the scalar at `span` starts with a block scalar header: its
/// first line is a header (`|`, `>-`, `|2+`) and at most a comment.
fn is_block_header(source: &str, span: Span) -> bool {
    let text = &source[span.start..span.end];
    let line = text.split(['\n', '\r']).next().unwrap_or_default();
    header_on_line(line).is_some_and(|header| header.start == 0)
}

/// A block scalar spanned from its header.
fn block_from_header(source: &str, span: Span) -> Style {
    let bytes = source.as_bytes();
    let mut header_end = span.start + 1;
    while header_end < span.end
        && header_end < span.start + 3
        && matches!(bytes[header_end], b'1'..=b'9' | b'+' | b'-')
    {
        header_end += 1;
    }
    let line_end = source[header_end..]
        .find(['\n', '\r'])
        .map_or(source.len(), |i| header_end + i);
    let after_header = match bytes.get(line_end..line_end + 2) {
        Some(b"\r\n") => line_end + 2,
        _ => (line_end + 1).min(source.len()),
    };
    // The first line with content, whose indentation the value takes.
    let mut first = None;
    let mut at = after_header;
    while at < span.end {
        let end = source[at..span.end].find('\n').map_or(span.end, |i| at + i);
        let line = &source[at..end];
        let indent = line.len() - line.trim_start_matches(' ').len();
        if !line.trim_matches([' ', '\t', '\r']).is_empty() {
            first = Some(Span::new(at, at + indent));
            break;
        }
        at = end + 1;
    }
    let Some(indentation) = first else {
        // No content: the header and its line become a flow scalar.
        return Style::Block {
            header: Span::new(span.start, line_end),
            content: Span::new(line_end, line_end),
            indentation: Span::empty(line_end),
            keep_digit: false,
        };
    };
    let text = &source[after_header..span.end];
    let content_end = match text.rfind(['\n', '\r']) {
        Some(i) if i > 0 && text.as_bytes()[i] == b'\n' && text.as_bytes()[i - 1] == b'\r' => {
            after_header + i - 1
        }
        Some(i) => after_header + i,
        None => span.end,
    };
    // The last line break comes before the first content line only when
    // the text ends on that line.
    let content_end = if content_end <= indentation.end {
        span.end
    } else {
        content_end
    };
    Style::Block {
        header: Span::new(span.start, header_end),
        content: Span::new(after_header, content_end),
        indentation,
        // The value is written at the first line's whole indentation,
        // which an indentation indicator would count partly as content.
        keep_digit: false,
    }
}

fn block(source: &str, span: Span) -> Option<Style> {
    let text = &source[span.start..span.end];
    // A plain scalar ends at its last character; a block scalar's span
    // runs past its last line break (unless the file ends first).
    let ends_with_break = text.trim_end_matches([' ', '\t']).ends_with(['\n', '\r']);
    if !ends_with_break && span.end < source.len() {
        return None;
    }
    // Its first content line holds only indentation before it.
    let line_start = source[..span.start].rfind('\n').map_or(0, |i| i + 1);
    if !source[line_start..span.start].bytes().all(|b| b == b' ') {
        return None;
    }
    // The header: on the last non-blank line before (blank lines between
    // header and content hold only spaces).
    let mut end = line_start;
    let (header, after_header) = loop {
        if end == 0 {
            return None;
        }
        let line_end = end - 1;
        let start = source[..line_end].rfind('\n').map_or(0, |i| i + 1);
        let line = source[start..line_end].trim_end_matches('\r');
        if line.trim_matches([' ', '\t']).is_empty() {
            end = start;
            continue;
        }
        let header = header_on_line(line)?;
        break (
            Span::new(start + header.start, start + header.end),
            line_end + 1,
        );
    };
    let content_end = match text.rfind(['\n', '\r']) {
        // `\r\n`: the edit stops before the pair.
        Some(i) if i > 0 && text.as_bytes()[i] == b'\n' && text.as_bytes()[i - 1] == b'\r' => {
            span.start + i - 1
        }
        Some(i) => span.start + i,
        None => span.end,
    };
    Some(Style::Block {
        header,
        content: Span::new(after_header, content_end),
        indentation: Span::new(line_start, span.start),
        keep_digit: true,
    })
}

/// Where a block scalar header (`|`, `>-`, `|2+`) is on a line, read from
/// the left as the scanner would: indentation, `-`/`?`/`:` indicators, a
/// key (quoted or plain), anchors and tags, then the header and at most a
/// comment. `None` when the line does not end with one.
fn header_on_line(line: &str) -> Option<std::ops::Range<usize>> {
    let bytes = line.as_bytes();
    let blank = |i: usize| i >= bytes.len() || matches!(bytes[i], b' ' | b'\t');
    let mut i = 0;
    loop {
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        let &b = bytes.get(i)?;
        match b {
            b'|' | b'>' => {
                let start = i;
                i += 1;
                let mut seen_digit = false;
                let mut seen_chomp = false;
                while let Some(&c) = bytes.get(i) {
                    match c {
                        b'1'..=b'9' if !seen_digit => seen_digit = true,
                        b'+' | b'-' if !seen_chomp => seen_chomp = true,
                        _ => break,
                    }
                    i += 1;
                }
                let end = i;
                let rest = &line[end..];
                let after = rest.trim_start_matches([' ', '\t']);
                let commented = after.starts_with('#') && after.len() < rest.len();
                return (after.is_empty() || commented).then_some(start..end);
            }
            b'-' | b'?' | b':' if blank(i + 1) => i += 1,
            b'&' | b'!' => {
                if bytes.get(i + 1) == Some(&b'<') {
                    i += line[i..].find('>')? + 1;
                } else {
                    while !blank(i) {
                        i += 1;
                    }
                }
            }
            b'#' => return None,
            b'"' => {
                i += 1;
                loop {
                    match bytes.get(i)? {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'\'' => {
                i += 1;
                loop {
                    match bytes.get(i)? {
                        b'\'' if bytes.get(i + 1) == Some(&b'\'') => i += 2,
                        b'\'' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            _ => {
                // A plain key: up to `: ` (or `:` at the end of the line).
                loop {
                    if i >= bytes.len() {
                        return None;
                    }
                    if bytes[i] == b':' && blank(i + 1) {
                        break;
                    }
                    if bytes[i] == b'#' && i > 0 && matches!(bytes[i - 1], b' ' | b'\t') {
                        return None;
                    }
                    i += 1;
                }
            }
        }
    }
}

/// Whether a block scalar's single line can carry `value`: one line, no
/// leading white space (it would be read as indentation), every character
/// one YAML may hold unescaped.
fn block_can_carry(value: &str) -> bool {
    !value.is_empty()
        && !value.starts_with([' ', '\t'])
        && value
            .chars()
            .all(|c| printable(c) && !is_break(c) && c != '\t')
}

/// `value` as a flow scalar: plain when `style` is plain and the text reads
/// back as that string in any context (block or flow, key or value, YAML
/// 1.2 or a YAML 1.1 loader); single-quoted when asked and it can carry
/// it; double-quoted otherwise, with only the escapes JSON shares, so a
/// JSON document stays JSON.
fn flow(value: &str, style: Style) -> String {
    match style {
        Style::Plain if plain_reads_back(value) => value.to_string(),
        Style::SingleQuoted if single_can_carry(value) => {
            format!("'{}'", value.replace('\'', "''"))
        }
        _ => double_quoted(value),
    }
}

/// Characters YAML allows unescaped (its `c-printable`); the rest must be
/// escaped, and only a double-quoted scalar can.
fn printable(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        // A byte-order mark inside a document is for a reader to drop.
        && c != '\u{FEFF}'
}

/// Line breaks, and the Unicode separators YAML 1.1 and some readers treat as ones.
fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn single_can_carry(value: &str) -> bool {
    value
        .chars()
        .all(|c| printable(c) && !is_break(c) && c != '\t')
}

/// Whether `value`, written plain, is read back as the string `value`.
fn plain_reads_back(value: &str) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    if value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']) {
        return false;
    }
    // Indicators that start something else, and `-`/`?`/`:`/`.`, which
    // start a sequence entry, key or value, or a document end (`...`),
    // or a number.
    if "-?:,[]{}#&*!|>'\"%@`.<=~+".contains(first) || first.is_ascii_digit() {
        return false;
    }
    let bytes = value.as_bytes();
    for (i, c) in value.char_indices() {
        if !printable(c) || is_break(c) || c == '\t' {
            return false;
        }
        match c {
            // Flow indicators end a plain scalar inside `[…]` or `{…}`.
            ',' | '[' | ']' | '{' | '}' => return false,
            // `: ` ends a key; a `:` last, or before a flow indicator, too.
            ':' if matches!(
                bytes.get(i + 1),
                None | Some(b' ' | b'\t' | b',' | b'[' | b']' | b'{' | b'}')
            ) =>
            {
                return false;
            }
            // ` #` starts a comment.
            '#' if i > 0 && matches!(bytes[i - 1], b' ' | b'\t') => return false,
            _ => {}
        }
    }
    let resolved = Scalar {
        text: value,
        plain: true,
    };
    if !matches!(resolved.resolve(), Resolved::Str(_)) {
        return false;
    }
    // What a YAML 1.1 loader (PyYAML, which ContextCore uses) reads as a
    // boolean or null.
    !matches!(
        value.to_ascii_lowercase().as_str(),
        "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
    )
}

/// `value` double-quoted, escaping what YAML and JSON both require or
/// allow: `"`, `\`, control characters and YAML's non-printable ones.
fn double_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if !printable(c) || is_break(c) || c.is_control() => {
                // Outside the printable set every character is in the
                // Basic Multilingual Plane: one `\u` escape each.
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scalar at `needle`'s first occurrence rewritten to `value`, and
    /// the text after.
    fn rewrite(source: &str, span: Span, value: &str) -> String {
        let edits = edits(source, span, value).unwrap();
        let mut text = source.to_string();
        let mut sorted = edits.clone();
        sorted.sort_by_key(|e| std::cmp::Reverse(e.span.start));
        for edit in sorted {
            text.replace_range(edit.span.start..edit.span.end, &edit.replacement);
        }
        text
    }

    /// The span of the value of key `a` in a one-key mapping, after
    /// parsing, and the scalar it reads as.
    fn value_of(source: &str) -> (Span, Option<(String, bool)>) {
        let tree = crate::syntax::parse(source, crate::syntax::Limits::default())
            .unwrap()
            .unwrap();
        let value = tree.root().as_mapping().unwrap().get(0).unwrap().value;
        let scalar = value.as_scalar().map(|s| (s.text.to_string(), s.plain));
        (value.span, scalar)
    }

    fn read_back(source: &str) -> String {
        let (_, scalar) = value_of(source);
        let (text, plain) = scalar.unwrap();
        let scalar = Scalar { text: &text, plain };
        match scalar.resolve() {
            Resolved::Str(s) => s.to_string(),
            other => panic!("{other:?} in {source:?}"),
        }
    }

    #[test]
    fn each_style_reads_back_the_new_value() {
        let values = [
            "retrieve",
            "deploy: prod",
            "#review",
            "a #b",
            "yes",
            "12",
            "null",
            "it's",
            "say \"hi\"",
            "back\\slash",
            "-x",
            "- x",
            "? x",
            ": x",
            " lead",
            "trail ",
            "a,b",
            "[x]",
            "&a",
            "*a",
            "!t",
            "|",
            ">",
            "%x",
            "@x",
            "`x",
            "tab\there",
            "line\nbreak",
            "bell\u{7}",
            "nel\u{85}",
            "bom\u{FEFF}",
            "é😀",
            "...",
            "---",
            "a:",
            "a:b",
            "",
        ];
        let documents = [
            "a: old\nb: 1\n",
            "a: 'old'\nb: 1\n",
            "a: \"o\\u006Cd\"\nb: 1\n",
            "a: >\n  old\nb: 1\n",
            "a: |2-\n   old\n\n\nb: 1\n",
            "a: |+ # keep\n\n  old\n  more\n\nb: 1\n",
            "a: >\r\n  old\r\nb: 1\r\n",
            "a: [old, x]\nb: 1\n",
            "a: {k: old}\nb: 1\n",
            "a: |\n  old",
            "a: old",
            "a: &x !!str old\nb: 1\n",
            "a: &x 'old'\nb: 1\n",
            "a: &x\n  old\nb: 1\n",
            "a: &x # c\n  old\nb: 1\n",
            "a: &x |\n  old\nb: 1\n",
            "a: !!str >2-\n     old\n\nb: 1\n",
            "a: &x |+ # c\r\n\r\n  old\r\nb: 1\r\n",
            "a: !<tag:x> |\n  old",
            "a: >-\n  >old\nb: 1\n",
            "a: |\n  \"old\"\nb: 1\n",
            "a: |\n  'old'",
        ];
        for document in documents {
            for value in values {
                let tree = crate::syntax::parse(document, crate::syntax::Limits::default())
                    .unwrap()
                    .unwrap();
                let first = tree.root().as_mapping().unwrap().get(0).unwrap().value;
                let span = match first.kind() {
                    crate::syntax::NodeKind::Sequence(items) => items.get(0).unwrap().span,
                    crate::syntax::NodeKind::Mapping(entries) => entries.get(0).unwrap().value.span,
                    _ => first.span,
                };
                if value.is_empty() {
                    continue;
                }
                let text = rewrite(document, span, value);
                let tree = crate::syntax::parse(&text, crate::syntax::Limits::default())
                    .unwrap_or_else(|e| panic!("{value:?} in {document:?}: {text:?}: {e:?}"))
                    .unwrap();
                let entries = tree.root().as_mapping().unwrap();
                assert_eq!(
                    entries.len(),
                    if document.contains("b: 1") { 2 } else { 1 },
                    "{text:?}"
                );
                let node = entries.get(0).unwrap().value;
                let node = match node.kind() {
                    crate::syntax::NodeKind::Sequence(items) => {
                        assert_eq!(items.len(), 2, "{text:?}");
                        items.get(0).unwrap()
                    }
                    crate::syntax::NodeKind::Mapping(entries) => entries.get(0).unwrap().value,
                    _ => node,
                };
                let got = node.as_scalar().unwrap().resolve();
                assert_eq!(
                    got,
                    Resolved::Str(value),
                    "{value:?} in {document:?}: {text:?}"
                );
            }
        }
    }

    #[test]
    fn styles_are_kept_when_they_can_carry_the_value() {
        let (span, _) = value_of("a: 'old'\n");
        assert_eq!(rewrite("a: 'old'\n", span, "it's"), "a: 'it''s'\n");
        let source = "a: \"\\U00000042LOCKING\"\n";
        let (span, _) = value_of(source);
        assert_eq!(rewrite(source, span, "blocking"), "a: \"blocking\"\n");
        let source = "a: > # note\n    BLOCKING\nb: 1\n";
        let (span, _) = value_of(source);
        assert_eq!(
            rewrite(source, span, "blocking"),
            "a: >- # note\n    blocking\nb: 1\n"
        );
        assert_eq!(read_back(&rewrite(source, span, "blocking")), "blocking");
        let source = "a: deploy prod\n";
        let (span, _) = value_of(source);
        assert_eq!(
            rewrite(source, span, "deploy: prod"),
            "a: \"deploy: prod\"\n"
        );
    }

    #[test]
    fn an_empty_block_scalar_is_rewritten_as_a_flow_scalar_or_not_at_all() {
        // Spanned from its header at the end of the file.
        let source = "a: |+";
        let (span, _) = value_of(source);
        assert_eq!(rewrite(source, span, "retrieve"), "a: retrieve");
        // Spanned nowhere (an empty span where the next line starts): no
        // edit, rather than one in the wrong place.
        for source in ["a: |\nb: 1\n", "a: >- # c\n\nb: 1\n"] {
            let (span, scalar) = value_of(source);
            assert_eq!(scalar.unwrap().0, "");
            assert_eq!(edits(source, span, "retrieve"), None, "{source:?}");
        }
    }

    /// The parser reads `|ield` in a flow mapping as a plain scalar: it is
    /// rewritten as one, not as a block header that runs to the line's end
    /// (found by fuzzing `fixes`).
    #[test]
    fn a_plain_scalar_starting_with_a_block_indicator_is_rewritten_as_plain() {
        let source = "a: {|ield: x, >b: y}\n";
        let at = source.find("|ield").unwrap();
        let text = rewrite(source, Span::new(at, at + 5), "field");
        assert_eq!(text, "a: {field: x, >b: y}\n");
        let at = source.find(">b").unwrap();
        let text = rewrite(source, Span::new(at, at + 2), "b");
        assert_eq!(text, "a: {|ield: x, b: y}\n");
        assert!(is_block_header("a: |-  # note\n  x\n", Span::new(3, 16)));
        assert!(is_block_header("a: >2\n  x\n", Span::new(3, 9)));
        assert!(!is_block_header("a: |x\n", Span::new(3, 5)));
        assert!(!is_block_header("a: |#x\n", Span::new(3, 6)));
    }

    #[test]
    fn headers_are_found_after_keys_indicators_and_properties() {
        for (line, header) in [
            ("a: |", Some("|")),
            ("  - >-", Some(">-")),
            ("\"k: | #\": |2+ # c > d", Some("|2+")),
            ("'it''s': >", Some(">")),
            ("k: &x !!str |", Some("|")),
            ("k: !<tag:x> >", Some(">")),
            ("? |", Some("|")),
            ("k: v |", None),
            ("# a: |", None),
            ("k: |x", None),
            ("k #c: |", None),
        ] {
            assert_eq!(header_on_line(line).map(|r| &line[r]), header, "{line:?}");
        }
    }
}
