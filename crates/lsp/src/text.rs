//! `didChange` applied in one pass. LSP's incremental sync sends a list of
//! edits, each with a range in the document as the edits before it left
//! it. Applied to one `String`, every edit costs the whole text (a line
//! index to find its position, a move of everything after it): 20,000
//! edits on a 30 MiB document kept the server busy for 80 s. Here the
//! text is cut into pieces of about 16 KiB that know how many line breaks
//! they hold, so an edit costs a walk over the pieces and the few it
//! touches, and the text is joined once at the end.

use phaselint_lint::line_index::ColumnUnit;
use tower_lsp_server::ls_types::{Position, TextDocumentContentChangeEvent};

/// The size pieces are cut to; a piece that grows past twice this is cut
/// again.
const PIECE: usize = 16 * 1024;

/// What one `didChange` event did to the text, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// `start..end` of the text as it was became `inserted` bytes.
    Replaced {
        start: usize,
        end: usize,
        inserted: usize,
    },
}

/// Applies `didChange` events in order, telling `applied` what each did.
/// Positions are clamped to the text as LSP requires (past the end of a
/// line: its end; past the last line: the end of the text), so a confused
/// client cannot make the server panic.
pub fn apply_changes(
    text: &mut String,
    changes: Vec<TextDocumentContentChangeEvent>,
    unit: ColumnUnit,
    mut applied: impl FnMut(Applied),
) {
    if changes.is_empty() {
        return;
    }
    let mut pieces = Pieces::new(std::mem::take(text), PIECE);
    for change in changes {
        match change.range {
            None => {
                // A client may send the whole text for a small change (after
                // an undo, a revert, a formatter): what changed is what lies
                // between the common beginning and end, so what the last
                // analysis knew about the rest can still be carried.
                let old = pieces.join();
                applied(differing_middle(&old, &change.text));
                pieces = Pieces::new(change.text, PIECE);
            }
            Some(range) => {
                let start = pieces.offset(range.start, unit);
                let end = pieces.offset(range.end, unit).max(start);
                pieces.replace(start, end, &change.text);
                applied(Applied::Replaced {
                    start,
                    end,
                    inserted: change.text.len(),
                });
            }
        }
    }
    *text = pieces.join();
}

/// The replacement that turns `old` into `new`: the bytes between their
/// longest common beginning and end, on character boundaries.
fn differing_middle(old: &str, new: &str) -> Applied {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = a.len().min(b.len()) - prefix;
    let mut suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    while !old.is_char_boundary(a.len() - suffix) {
        suffix -= 1;
    }
    Applied::Replaced {
        start: prefix,
        end: a.len() - suffix,
        inserted: b.len() - prefix - suffix,
    }
}

struct Piece {
    text: String,
    /// How many `\n` it holds.
    newlines: usize,
    /// Its length in UTF-16 code units and in characters.
    utf16: usize,
    chars: usize,
}

impl Piece {
    fn new(text: String) -> Self {
        let mut piece = Piece {
            text,
            newlines: 0,
            utf16: 0,
            chars: 0,
        };
        piece.count();
        piece
    }

    fn count(&mut self) {
        self.newlines = memchr::memchr_iter(b'\n', self.text.as_bytes()).count();
        if self.text.is_ascii() {
            self.utf16 = self.text.len();
            self.chars = self.text.len();
        } else {
            self.utf16 = self.text.chars().map(char::len_utf16).sum();
            self.chars = self.text.chars().count();
        }
    }

    fn units(&self, unit: ColumnUnit) -> usize {
        match unit {
            ColumnUnit::Utf8 => self.text.len(),
            ColumnUnit::Utf16 => self.utf16,
            ColumnUnit::Chars => self.chars,
        }
    }
}

fn units_of(c: char, unit: ColumnUnit) -> usize {
    match unit {
        ColumnUnit::Utf8 => c.len_utf8(),
        ColumnUnit::Utf16 => c.len_utf16(),
        ColumnUnit::Chars => 1,
    }
}

/// A text as pieces, none of them empty.
struct Pieces {
    pieces: Vec<Piece>,
    /// The size to cut to (a parameter so tests can cut small).
    size: usize,
    len: usize,
}

impl Pieces {
    fn new(text: String, size: usize) -> Self {
        let len = text.len();
        let mut pieces = Pieces {
            pieces: Vec::with_capacity(len / size + 1),
            size,
            len,
        };
        if text.len() <= 2 * size {
            if !text.is_empty() {
                pieces.pieces.push(Piece::new(text));
            }
        } else {
            pieces.pieces = cut(&text, size);
        }
        pieces
    }

    fn join(self) -> String {
        let mut text = String::with_capacity(self.len);
        for piece in &self.pieces {
            text.push_str(&piece.text);
        }
        text
    }

    /// The byte offset of an LSP position in the text as it is now.
    fn offset(&self, position: Position, unit: ColumnUnit) -> usize {
        let (line, column) = (position.line as usize, position.character as usize);
        // The piece where the line starts, and where in it.
        let (mut index, mut at, mut offset) = (0, 0, 0);
        if line > 0 {
            let mut seen = 0;
            let mut found = false;
            for (i, piece) in self.pieces.iter().enumerate() {
                if seen + piece.newlines >= line {
                    let nth = line - seen - 1;
                    let Some(newline) = memchr::memchr_iter(b'\n', piece.text.as_bytes()).nth(nth)
                    else {
                        break;
                    };
                    (index, at, offset) = (i, newline + 1, offset + newline + 1);
                    found = true;
                    break;
                }
                seen += piece.newlines;
                offset += piece.text.len();
            }
            if !found {
                return self.len;
            }
        }
        // Along the line until the column, its `\n` (or the `\r` before
        // it, or the `\r` that ends the text), or the end of the text.
        let mut consumed = 0;
        while let Some(piece) = self.pieces.get(index) {
            let rest = &piece.text[at..];
            let newline = memchr::memchr(b'\n', rest.as_bytes());
            let segment = &rest[..newline.unwrap_or(rest.len())];
            // A whole piece inside the line, whose last character cannot
            // end it: skipped in one step.
            if newline.is_none()
                && at == 0
                && !segment.ends_with('\r')
                && consumed + piece.units(unit) <= column
            {
                consumed += piece.units(unit);
                offset += piece.text.len();
                (index, at) = (index + 1, 0);
                continue;
            }
            let next_starts_line_break = || {
                self.pieces
                    .get(index + 1)
                    .is_none_or(|next| next.text.starts_with('\n'))
            };
            for (byte, c) in segment.char_indices() {
                let last = byte + c.len_utf8() == segment.len();
                if c == '\r' && last && (newline.is_some() || next_starts_line_break()) {
                    return offset + byte;
                }
                if consumed >= column {
                    return offset + byte;
                }
                consumed += units_of(c, unit);
            }
            offset += segment.len();
            if newline.is_some() {
                return offset;
            }
            (index, at) = (index + 1, 0);
        }
        self.len
    }

    /// The piece holding byte `offset` and where in it; the end of the
    /// last piece for the end of the text.
    fn find(&self, offset: usize) -> (usize, usize) {
        let mut start = 0;
        for (i, piece) in self.pieces.iter().enumerate() {
            if offset < start + piece.text.len() {
                return (i, offset - start);
            }
            start += piece.text.len();
        }
        match self.pieces.len() {
            0 => (0, 0),
            n => (n - 1, self.pieces[n - 1].text.len()),
        }
    }

    fn replace(&mut self, start: usize, end: usize, with: &str) {
        if start == end && with.is_empty() {
            return;
        }
        self.len = self.len - (end - start) + with.len();
        if self.pieces.is_empty() {
            self.pieces = Pieces::new(with.to_string(), self.size).pieces;
            return;
        }
        let (first, from) = self.find(start);
        let (last, to) = self.find(end);
        let merged = if first == last {
            let piece = &mut self.pieces[first];
            piece.text.replace_range(from..to, with);
            None
        } else {
            let mut text =
                String::with_capacity(from + with.len() + self.pieces[last].text.len() - to);
            text.push_str(&self.pieces[first].text[..from]);
            text.push_str(with);
            text.push_str(&self.pieces[last].text[to..]);
            Some(text)
        };
        let text = match merged {
            Some(text) => text,
            None => std::mem::take(&mut self.pieces[first].text),
        };
        let replacement = if text.is_empty() {
            Vec::new()
        } else if text.len() <= 2 * self.size {
            vec![Piece::new(text)]
        } else {
            cut(&text, self.size)
        };
        self.pieces.splice(first..=last, replacement);
    }
}

/// `text` cut into pieces of about `size` bytes, on character boundaries.
fn cut(text: &str, size: usize) -> Vec<Piece> {
    let mut pieces = Vec::with_capacity(text.len() / size + 1);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(Piece::new(text[start..end].to_string()));
        start = end;
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
    use phaselint_lint::line_index::{LineCol, LineIndex};
    use tower_lsp_server::ls_types::Range;

    /// What the server did before: a line index per edit, applied in place.
    fn reference(
        text: &mut String,
        changes: &[(Option<(Position, Position)>, String)],
        unit: ColumnUnit,
    ) {
        for (range, with) in changes {
            match range {
                None => *text = with.clone(),
                Some((a, b)) => {
                    let index = LineIndex::new(text);
                    let at = |p: &Position| {
                        index.offset(
                            text,
                            LineCol {
                                line: p.line as usize,
                                column: p.character as usize,
                            },
                            unit,
                        )
                    };
                    let start = at(a);
                    let end = at(b).max(start);
                    text.replace_range(start..end, with);
                }
            }
        }
    }

    fn applied(
        text: &str,
        changes: &[(Option<(Position, Position)>, String)],
        unit: ColumnUnit,
        size: usize,
    ) -> String {
        let mut pieces = Pieces::new(text.to_string(), size);
        for (range, with) in changes {
            match range {
                None => pieces = Pieces::new(with.clone(), size),
                Some((a, b)) => {
                    let start = pieces.offset(*a, unit);
                    let end = pieces.offset(*b, unit).max(start);
                    pieces.replace(start, end, with);
                }
            }
        }
        pieces.join()
    }

    #[test]
    fn pieces_apply_edits_as_the_text_did_one_by_one() {
        let alphabet = ["a", "b", "\n", "\r", "\r\n", "é", "😀", " ", "\n\n"];
        let mut rng = Rng(0x1234_5678_9ABC_DEF1);
        for case in 0..3000 {
            let mut text = String::new();
            for _ in 0..rng.below(60) {
                text.push_str(alphabet[rng.below(alphabet.len())]);
            }
            let unit = [ColumnUnit::Utf16, ColumnUnit::Utf8, ColumnUnit::Chars][case % 3];
            let mut changes = Vec::new();
            for _ in 0..1 + rng.below(12) {
                let mut position = || Position::new(rng.below(12) as u32, rng.below(12) as u32);
                let (a, b) = (position(), position());
                let mut with = String::new();
                for _ in 0..rng.below(5) {
                    with.push_str(alphabet[rng.below(alphabet.len())]);
                }
                let range = if rng.below(40) == 0 {
                    None
                } else {
                    Some((a, b))
                };
                changes.push((range, with));
            }
            let mut expected = text.clone();
            reference(&mut expected, &changes, unit);
            for size in [1, 2, 3, 5, 16, PIECE] {
                assert_eq!(
                    applied(&text, &changes, unit, size),
                    expected,
                    "case {case}, pieces of {size}: {text:?} {changes:?}"
                );
            }
        }
    }

    #[test]
    fn apply_changes_takes_lsp_events() {
        let event =
            |range: Option<((u32, u32), (u32, u32))>, text: &str| TextDocumentContentChangeEvent {
                range: range
                    .map(|(a, b)| Range::new(Position::new(a.0, a.1), Position::new(b.0, b.1))),
                range_length: None,
                text: text.into(),
            };
        let mut text = String::from("a: é😀x\nb: 2\n");
        let mut seen = Vec::new();
        apply_changes(
            &mut text,
            vec![event(Some(((0, 6), (0, 7))), "y")],
            ColumnUnit::Utf16,
            |a| seen.push(a),
        );
        // `x` is byte 9 (after two bytes of `é` and four of `😀`).
        assert_eq!(
            seen,
            [Applied::Replaced {
                start: 9,
                end: 10,
                inserted: 1
            }]
        );
        assert_eq!(text, "a: é😀y\nb: 2\n");
        apply_changes(
            &mut text,
            vec![event(Some(((0, 9), (0, 10))), "z")],
            ColumnUnit::Utf8,
            |_| {},
        );
        assert_eq!(text, "a: é😀z\nb: 2\n");
        // Each range is in the text the edits before it left.
        apply_changes(
            &mut text,
            vec![
                event(Some(((0, 0), (0, 0))), "# top\n"),
                event(Some(((2, 3), (2, 4))), "3"),
                event(Some(((9, 0), (9, 9))), "!"),
            ],
            ColumnUnit::Utf16,
            |_| {},
        );
        assert_eq!(text, "# top\na: é😀z\nb: 3\n!");
        let mut seen = Vec::new();
        apply_changes(
            &mut text,
            vec![event(None, "fresh")],
            ColumnUnit::Utf16,
            |a| seen.push(a),
        );
        assert_eq!(text, "fresh");
        let old_len = "# top\na: é😀z\nb: 3\n!".len();
        assert_eq!(
            seen,
            [Applied::Replaced {
                start: 0,
                end: old_len,
                inserted: 5
            }]
        );
    }

    /// A whole text sent for a small change is recorded as that change,
    /// on character boundaries (`é` and `è` share their first byte).
    #[test]
    fn a_whole_text_is_recorded_as_what_differs() {
        let mut text = String::from("a: é\nb: 2\n");
        let mut send_whole = |new: &str| {
            let mut seen = Vec::new();
            let change = TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: new.into(),
            };
            apply_changes(&mut text, vec![change], ColumnUnit::Utf16, |a| seen.push(a));
            seen
        };
        let replaced = |start, end, inserted| {
            vec![Applied::Replaced {
                start,
                end,
                inserted,
            }]
        };
        assert_eq!(send_whole("a: è\nb: 2\n"), replaced(3, 5, 2));
        assert_eq!(send_whole("a: è\nb: 2\n"), replaced(11, 11, 0));
        // Text repeated on both sides: the beginning is taken first.
        assert_eq!(send_whole("a: è\na: è\nb: 2\n"), replaced(6, 6, 6));
        assert_eq!(text, "a: è\na: è\nb: 2\n");
    }
}
