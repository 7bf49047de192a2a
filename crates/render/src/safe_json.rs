//! JSON whose bytes hold nothing a terminal acts on. serde_json escapes
//! C0 controls, but writes DEL, the C1 controls (U+0080–U+009F: U+009B is
//! a CSI on many terminals) and the bidi overrides as they are; a report
//! `cat` in a CI log or a terminal would then act on them. Here they are
//! written as `\uXXXX` escapes too: the JSON means exactly the same values
//! (a tool reading it gets the contract's text unchanged), and its bytes
//! are safe to show.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use crate::terminal::{Newlines, needs_escape};

/// Pretty-printed JSON, control characters escaped.
pub fn to_writer_pretty<W: Write, T: Serialize + ?Sized>(out: W, value: &T) -> io::Result<()> {
    let mut serializer = serializer(out);
    value.serialize(&mut serializer).map_err(io::Error::other)
}

/// A pretty-printing serializer that escapes control characters, for
/// values serialized piece by piece.
pub(crate) fn serializer<W: Write>(out: W) -> serde_json::Serializer<W, Escaping> {
    serde_json::Serializer::with_formatter(out, Escaping(PrettyFormatter::new()))
}

/// serde_json's pretty formatter, but for the string fragments it writes
/// unescaped.
pub(crate) struct Escaping(PrettyFormatter<'static>);

impl Formatter for Escaping {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if needs_escape(c, Newlines::Escape) {
                writer.write_all(&fragment.as_bytes()[start..at])?;
                // Every such character is in the Basic Multilingual Plane.
                write!(writer, "\\u{:04x}", u32::from(c))?;
                start = at + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_key(writer)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_are_escaped_and_the_value_is_unchanged() {
        let value = serde_json::json!({
            "m": "a\u{1b}]52;c;aGk=\u{7}b\u{9b}31m\u{7f}\u{202e}é→\"\\\n",
        });
        let mut out = Vec::new();
        super::to_writer_pretty(&mut out, &value).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' || c == '\u{202e}'),
            "{text}"
        );
        assert!(
            text.contains(r#""a\u001b]52;c;aGk=\u0007b\u009b31m\u007f\u202eé→\"\\\n""#),
            "{text}"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
        // Pretty, as before.
        assert!(text.starts_with("{\n  \"m\": "), "{text}");
    }
}
