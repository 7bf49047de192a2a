//! Text from an input, made safe to show: a contract in a pull request, a
//! handoff or a manifest written by the run being checked must not be able
//! to move the cursor, rewrite a line a reviewer reads, set the clipboard or
//! plant a hyperlink. Every C0 control (but tab, and newline where the
//! output is line-oriented text), DEL, every C1 control and the Unicode
//! bidirectional overrides and isolates ("Trojan Source") are shown as
//! `\u{..}` instead of being written.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether a newline in the text may stay a newline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Newlines {
    /// Kept (a multi-line help or message in a block of text), and so is a
    /// carriage return just before one (a CRLF line break: it moves the
    /// cursor to where the newline puts it anyway).
    Keep,
    /// Escaped too (a value shown inside one line).
    Escape,
}

/// Whether `c` is shown as `\u{..}` rather than written.
pub(crate) fn needs_escape(c: char, newlines: Newlines) -> bool {
    match c {
        '\t' => false,
        '\n' => newlines == Newlines::Escape,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidirectional embeddings, overrides and isolates, and the marks:
        // they reorder what is displayed without being seen.
        '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// `text` with every character a terminal would act on shown as `\u{XX}`.
/// Borrowed when nothing needs escaping, which is nearly always.
pub fn escape_controls(text: &str, newlines: Newlines) -> Cow<'_, str> {
    let crlf = |at: usize| newlines == Newlines::Keep && text[at..].starts_with("\r\n");
    let Some(first) = text
        .char_indices()
        .find(|&(at, c)| needs_escape(c, newlines) && !crlf(at))
        .map(|(at, _)| at)
    else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    push_escaped(&mut out, &text[first..], newlines);
    Cow::Owned(out)
}

/// Appends `text` to `out` as `escape_controls` shows it.
pub fn push_escaped(out: &mut String, text: &str, newlines: Newlines) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let line_break = c == '\r' && newlines == Newlines::Keep && chars.peek() == Some(&'\n');
        if needs_escape(c, newlines) && !line_break {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
}

/// How many bytes `c` takes once shown by `inline`: its own length, or
/// that of its `\u{XX}` text. Lets a renderer move an offset in a text to
/// where it is in the shown text without building a map.
pub fn inline_len(c: char) -> usize {
    if needs_escape(c, Newlines::Escape) {
        let hex_digits = (32 - u32::from(c).leading_zeros()).div_ceil(4).max(1) as usize;
        "\\u{}".len() + hex_digits
    } else {
        c.len_utf8()
    }
}

/// A value shown within one line (names, paths, ids): newlines escaped too.
pub fn inline(text: &str) -> Cow<'_, str> {
    escape_controls(text, Newlines::Escape)
}

/// A block of text that may span lines (a diff, an error quoting a file):
/// newlines kept. A finding's message, help and labels are each one line
/// (no rule writes a newline in one), so they are shown with `inline`: a
/// newline in one came from a name in the input.
pub fn block(text: &str) -> Cow<'_, str> {
    escape_controls(text, Newlines::Keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_osc_and_c1_are_shown_not_written() {
        let hostile = "a\u{1b}]52;c;aGk=\u{7}b\u{1b}[1A\u{1b}[2Kc\u{9b}31md\u{7f}";
        let shown = inline(hostile);
        assert_eq!(
            shown,
            "a\\u{1b}]52;c;aGk=\\u{7}b\\u{1b}[1A\\u{1b}[2Kc\\u{9b}31md\\u{7f}"
        );
        assert!(!shown.chars().any(char::is_control));
    }

    #[test]
    fn tabs_stay_and_newlines_stay_only_in_blocks() {
        assert_eq!(inline("a\tb"), "a\tb");
        assert_eq!(inline("a\nb"), "a\\u{a}b");
        assert_eq!(block("a\nb\r"), "a\nb\\u{d}");
    }

    #[test]
    fn bidi_overrides_are_shown() {
        assert_eq!(inline("x\u{202e}y\u{2066}"), "x\\u{202e}y\\u{2066}");
    }

    #[test]
    fn inline_len_is_the_length_of_what_is_written() {
        for c in [
            'a', '\t', '\n', '\r', '\u{0}', '\u{1b}', '\u{7f}', '\u{9b}', 'é', '\u{202e}', '→',
            '😀',
        ] {
            assert_eq!(inline_len(c), inline(&c.to_string()).len(), "{c:?}");
        }
    }

    #[test]
    fn a_crlf_line_break_stays_in_a_block() {
        assert_eq!(block("a\r\nb\rc\r"), "a\r\nb\\u{d}c\\u{d}");
        assert_eq!(inline("a\r\nb"), "a\\u{d}\\u{a}b");
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(inline("deploy_prod → é"), Cow::Borrowed(_)));
    }
}
