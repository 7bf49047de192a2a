//! Text from an input, made safe to show: a contract in a pull request, a
//! handoff or a manifest written by the run being checked must not be able
//! to move the cursor, rewrite a line a reviewer reads, set the clipboard or
//! plant a hyperlink. Every C0 control (but tab, and newline where the
//! output is line-oriented text), DEL, every C1 control and the Unicode
//! bidirectional overrides and isolates ("Trojan Source") are shown as
//! `\u{..}` instead of being written.

use std::borrow::Cow;

/// Whether a newline in the text may stay a newline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Newlines {
    /// Kept (a multi-line help or message in a block of text).
    Keep,
    /// Escaped too (a value shown inside one line).
    Escape,
}

fn needs_escape(c: char, newlines: Newlines) -> bool {
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
    let Some(first) = text.find(|c| needs_escape(c, newlines)) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if needs_escape(c, newlines) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A value shown within one line (names, paths, ids): newlines escaped too.
pub fn inline(text: &str) -> Cow<'_, str> {
    escape_controls(text, Newlines::Escape)
}

/// A block of text (a message or help that may span lines): newlines kept.
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
    fn clean_text_is_borrowed() {
        assert!(matches!(inline("deploy_prod → é"), Cow::Borrowed(_)));
    }
}
