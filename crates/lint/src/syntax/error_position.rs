//! Where a scan error is shown: where the author is typing (an open
//! bracket, an unclosed quote, a tab), not where the parser noticed.

/// Where a scan error is shown: on the line the author is writing, which
/// is not always where the parser noticed. A flow collection left open
/// (`[a, b` or `{a: 1` being typed) is noticed lines later, where its
/// content stops making sense: the error is shown at its opening bracket,
/// the innermost still open (`open` lists the open collections' starts,
/// innermost first). A tab in the indentation is shown where the tab is,
/// not at the content after it. (A key without its colon is reported at
/// the key by the vendored scanner itself, also a first key that the next
/// line continues as one plain scalar, up to that line's `:`: see
/// vendor/saphyr-parser/PATCH.md.)
pub(super) fn where_the_problem_is(
    source: &str,
    message: &str,
    offset: usize,
    mut open: impl Iterator<Item = usize>,
) -> usize {
    let offset = offset.min(source.len());
    let about_flow = ["flow sequence", "flow mapping", "flow construct"]
        .iter()
        .any(|m| message.contains(m))
        // A line less indented than the block around an open `[`.
        || message == "invalid indentation";
    // Nothing nests in a flow collection but flow collections, so the
    // innermost open collection tells whether the scanner was in one.
    if about_flow
        && let Some(start) = open.next()
        && start < offset
        && matches!(source.as_bytes().get(start), Some(b'[' | b'{'))
    {
        return start;
    }
    if message.contains("plain scalar, found a tab") {
        // Reported at the scalar's start; the tab indents a line it
        // continues on, the first whose indentation holds one and that
        // is not blank (blank lines may hold tabs).
        let mut line_start = source[offset..].find('\n').map(|i| offset + i + 1);
        while let Some(start) = line_start {
            let line = source[start..].split('\n').next().unwrap_or_default();
            let indentation = line.len() - line.trim_start_matches([' ', '\t']).len();
            let blank = line[indentation..].trim_end_matches('\r').is_empty();
            if let Some(tab) = line[..indentation].find('\t')
                && !blank
            {
                return start + tab;
            }
            line_start = source[start..].find('\n').map(|i| start + i + 1);
        }
        return offset;
    }
    if message.contains("tab") {
        let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
        let indentation = &source[line_start..offset];
        if indentation.bytes().all(|b| b == b' ' || b == b'\t')
            && let Some(tab) = indentation.find('\t')
        {
            return line_start + tab;
        }
    }
    offset
}

/// A double-quoted scalar may run over several lines, so a `"` left
/// unclosed while typing takes everything up to the next `"` in the file,
/// and the scanner complains only there, about what follows it. When that
/// scalar opened on an earlier line, its opening quote is where the author
/// is most likely typing: the position of that quote.
pub(super) fn unclosed_double_quote(source: &str, message: &str, offset: usize) -> Option<usize> {
    if !message.contains("after double-quoted scalar") {
        return None;
    }
    let bytes = source.as_bytes();
    let escaped = |at: usize| {
        let backslashes = bytes[..at]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        backslashes % 2 == 1
    };
    // The scalar's closing quote is the last unescaped `"` before the
    // trailing content; inside a double-quoted scalar every `"` is escaped,
    // so the unescaped one before it opened the scalar.
    let before = &source[..offset.min(source.len())];
    let closing = (0..before.len())
        .rev()
        .find(|&at| bytes[at] == b'"' && !escaped(at))?;
    let opening = (0..closing)
        .rev()
        .find(|&at| bytes[at] == b'"' && !escaped(at))?;
    source[opening..closing].contains('\n').then_some(opening)
}

pub(super) fn line_number(source: &str, offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &source.as_bytes()[..offset.min(source.len())]).count() + 1
}
