//! Escaping for XML: the JUnit report and Graphviz's HTML-like labels
//! (which Graphviz reads with an XML parser).

use std::fmt::Write as _;

pub(crate) fn attribute(value: &str) -> String {
    escape(value, true)
}

pub(crate) fn text(content: &str) -> String {
    escape(content, false)
}

/// Escapes an attribute value or element content. Characters XML 1.0 forbids
/// outright (most C0 controls, lone surrogates cannot occur in a `str`,
/// U+FFFE/U+FFFF) become U+FFFD: a contract may hold them in a quoted
/// string, and one of them would make the whole report unreadable.
fn escape(text: &str, in_attribute: bool) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' if in_attribute => escaped.push_str("&quot;"),
            // Kept as references in attribute values, where a literal one
            // would be normalised to a space.
            '\n' | '\t' | '\r' if in_attribute => {
                let _ = write!(escaped, "&#{};", u32::from(c));
            }
            '\n' | '\t' | '\r' => escaped.push(c),
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => escaped.push('\u{fffd}'),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::{attribute, text};

    #[test]
    fn markup_and_characters_xml_cannot_carry_are_escaped() {
        assert_eq!(
            attribute("a<b & \"c\"\n\u{1}\u{ffff}"),
            "a&lt;b &amp; &quot;c&quot;&#10;\u{fffd}\u{fffd}"
        );
        assert_eq!(text("a\n'b' \"c\"\u{0}"), "a\n'b' \"c\"\u{fffd}");
    }
}
