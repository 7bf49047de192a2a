//! Byte offsets to line/column positions, the one conversion every output
//! (terminal, JSON, LSP) goes through.

/// A 0-based line and a 0-based column counted in the unit the caller asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// How columns are counted: characters for humans and JSON output,
/// UTF-16 code units or bytes for language-server clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnUnit {
    Chars,
    Utf16,
    Utf8,
}

#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(source: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', source.as_bytes()).map(|i| i + 1));
        // Kept as long as the document is open: no doubling slack.
        line_starts.shrink_to_fit();
        LineIndex {
            line_starts,
            len: source.len(),
        }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The 0-based line holding `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts.get(line).copied().unwrap_or(self.len)
    }

    /// The byte offset where the line ends, before its `\n` (and `\r`).
    pub fn line_end(&self, source: &str, line: usize) -> usize {
        let next = self
            .line_starts
            .get(line + 1)
            .map_or(self.len, |&start| start - 1);
        let start = self.line_start(line);
        if next > start && source.as_bytes().get(next - 1) == Some(&b'\r') {
            next - 1
        } else {
            next
        }
    }

    pub fn position(&self, source: &str, offset: usize, unit: ColumnUnit) -> LineCol {
        let offset = clamp_to_char_boundary(source, offset);
        let line = self.line_of(offset);
        let start = self.line_start(line);
        let text = &source[start..offset];
        let column = match unit {
            ColumnUnit::Utf8 => text.len(),
            ColumnUnit::Chars => text.chars().count(),
            ColumnUnit::Utf16 => text.chars().map(char::len_utf16).sum(),
        };
        LineCol { line, column }
    }

    /// The byte offset of a (line, column) position; positions past the end
    /// of a line or of the text are clamped, as LSP requires.
    pub fn offset(&self, source: &str, position: LineCol, unit: ColumnUnit) -> usize {
        if position.line >= self.line_starts.len() {
            return self.len;
        }
        let start = self.line_start(position.line);
        let end = self.line_end(source, position.line);
        let line = &source[start..end];
        let mut consumed = 0;
        for (byte, ch) in line.char_indices() {
            if consumed >= position.column {
                return start + byte;
            }
            consumed += match unit {
                ColumnUnit::Utf8 => ch.len_utf8(),
                ColumnUnit::Chars => 1,
                ColumnUnit::Utf16 => ch.len_utf16(),
            };
        }
        end
    }
}

fn clamp_to_char_boundary(source: &str, offset: usize) -> usize {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_in_each_unit() {
        let src = "a: x\nb: é😀z\n";
        let index = LineIndex::new(src);
        let z = src.find('z').unwrap();
        assert_eq!(
            index.position(src, z, ColumnUnit::Chars),
            LineCol { line: 1, column: 5 }
        );
        assert_eq!(
            index.position(src, z, ColumnUnit::Utf16),
            LineCol { line: 1, column: 6 }
        );
        assert_eq!(
            index.position(src, z, ColumnUnit::Utf8),
            LineCol { line: 1, column: 9 }
        );
        for unit in [ColumnUnit::Chars, ColumnUnit::Utf16, ColumnUnit::Utf8] {
            let pos = index.position(src, z, unit);
            assert_eq!(index.offset(src, pos, unit), z);
        }
    }

    #[test]
    fn positions_past_the_end_are_clamped() {
        let src = "ab\r\ncd";
        let index = LineIndex::new(src);
        assert_eq!(
            index.offset(
                src,
                LineCol {
                    line: 0,
                    column: 99
                },
                ColumnUnit::Utf16
            ),
            2
        );
        assert_eq!(
            index.offset(src, LineCol { line: 9, column: 0 }, ColumnUnit::Utf16),
            6
        );
    }
}
