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

/// Non-ASCII text is summarised every `BLOCK` bytes, so a column costs at
/// most one block's scan whatever the line's length.
const BLOCK: usize = 256;

/// Newlines are counted per run of this many 64-bit words (512 bytes).
const RANK_WORDS: usize = 8;

/// Where the lines start, as one bit per byte of the text (set on each
/// `\n`) with the count of newlines before every 512 bytes: a line's number
/// is a few popcounts away, a line's start a binary search and a few more.
/// A text of 32 MiB takes 4.3 MB whatever its shape, where a table of line
/// starts took 8 bytes a line (268 MB for 32 MiB of empty lines).
#[derive(Clone, Debug)]
pub struct LineIndex {
    newlines: Vec<u64>,
    /// Newlines before each run of `RANK_WORDS` words.
    ranks: Vec<u32>,
    lines: usize,
    len: usize,
    /// For non-ASCII text, at each multiple of `BLOCK` bytes: how many bytes
    /// the characters before it have beyond one each, and beyond their
    /// UTF-16 length. Empty for ASCII text, where all units coincide.
    blocks: Vec<(u32, u32)>,
}

/// What the character whose first byte is `lead` adds beyond one byte per
/// character, and beyond its UTF-16 length; (0, 0) for ASCII and for
/// continuation bytes.
fn excess(lead: u8) -> (u32, u32) {
    match lead {
        0xF0..=0xFF => (3, 2),
        0xE0..=0xEF => (2, 2),
        0xC0..=0xDF => (1, 1),
        _ => (0, 0),
    }
}

/// The position of the `k`th (from 0) set bit of `word`, which has more.
fn select(mut word: u64, k: u32) -> usize {
    for _ in 0..k {
        word &= word - 1;
    }
    word.trailing_zeros() as usize
}

impl LineIndex {
    pub fn new(source: &str) -> Self {
        let bytes = source.as_bytes();
        let mut newlines = vec![0u64; bytes.len().div_ceil(64)];
        let mut count = 0usize;
        for at in memchr::memchr_iter(b'\n', bytes) {
            newlines[at / 64] |= 1 << (at % 64);
            count += 1;
        }
        let mut ranks = Vec::with_capacity(newlines.len().div_ceil(RANK_WORDS) + 1);
        let mut before = 0u32;
        for run in newlines.chunks(RANK_WORDS) {
            ranks.push(before);
            before += run.iter().map(|w| w.count_ones()).sum::<u32>();
        }
        let mut blocks = Vec::new();
        if !source.is_ascii() {
            blocks.reserve_exact(source.len() / BLOCK + 1);
            let (mut chars, mut utf16) = (0u32, 0u32);
            for block in source.as_bytes().chunks(BLOCK) {
                blocks.push((chars, utf16));
                for &byte in block {
                    let (c, u) = excess(byte);
                    chars += c;
                    utf16 += u;
                }
            }
        }
        LineIndex {
            newlines,
            ranks,
            lines: count + 1,
            len: source.len(),
            blocks,
        }
    }

    pub fn line_count(&self) -> usize {
        self.lines
    }

    /// The 0-based line holding `offset`: the newlines before it.
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        let word = offset / 64;
        let run = word / RANK_WORDS;
        let Some(&before) = self.ranks.get(run) else {
            return self.lines - 1;
        };
        let mut line = before as usize;
        for w in &self.newlines[run * RANK_WORDS..word] {
            line += w.count_ones() as usize;
        }
        if let Some(&w) = self.newlines.get(word) {
            line += (w & ((1u64 << (offset % 64)) - 1)).count_ones() as usize;
        }
        line
    }

    pub fn line_start(&self, line: usize) -> usize {
        if line == 0 {
            return 0;
        }
        if line >= self.lines {
            return self.len;
        }
        // The start of line `line` is just after newline `line - 1`.
        let k = line - 1;
        let run = self.ranks.partition_point(|&r| r as usize <= k) - 1;
        let mut left = (k - self.ranks[run] as usize) as u32;
        let first = run * RANK_WORDS;
        for (i, &w) in self.newlines[first..].iter().enumerate() {
            let ones = w.count_ones();
            if left < ones {
                return (first + i) * 64 + select(w, left) + 1;
            }
            left -= ones;
        }
        self.len
    }

    /// The byte offset where the line ends, before its `\n` (and `\r`).
    pub fn line_end(&self, source: &str, line: usize) -> usize {
        let next = if line + 1 < self.lines {
            self.line_start(line + 1) - 1
        } else {
            self.len
        };
        let start = self.line_start(line);
        if next > start && source.as_bytes().get(next - 1) == Some(&b'\r') {
            next - 1
        } else {
            next
        }
    }

    /// How many bytes the characters before `offset` have beyond one each,
    /// and beyond their UTF-16 length.
    fn excess_before(&self, source: &str, offset: usize) -> (usize, usize) {
        // The end of a text whose length is a multiple of `BLOCK` is in no
        // block: count from the last one.
        let block = (offset / BLOCK).min(self.blocks.len().saturating_sub(1));
        let Some(&(chars, utf16)) = self.blocks.get(block) else {
            return (0, 0);
        };
        let (mut chars, mut utf16) = (chars as usize, utf16 as usize);
        let block_start = block * BLOCK;
        for &byte in &source.as_bytes()[block_start..offset] {
            let (c, u) = excess(byte);
            chars += c as usize;
            utf16 += u as usize;
        }
        (chars, utf16)
    }

    /// The line and column of `offset`, in constant time: a binary search
    /// for the line and at most one block's scan for the column.
    pub fn position(&self, source: &str, offset: usize, unit: ColumnUnit) -> LineCol {
        let offset = clamp_to_char_boundary(source, offset);
        let line = self.line_of(offset);
        let start = self.line_start(line);
        let bytes = offset - start;
        let column = match unit {
            ColumnUnit::Utf8 => bytes,
            _ if self.blocks.is_empty() => bytes,
            ColumnUnit::Chars => {
                bytes - (self.excess_before(source, offset).0 - self.excess_before(source, start).0)
            }
            ColumnUnit::Utf16 => {
                bytes - (self.excess_before(source, offset).1 - self.excess_before(source, start).1)
            }
        };
        LineCol { line, column }
    }

    /// The byte offset of a (line, column) position; positions past the end
    /// of a line or of the text are clamped, as LSP requires.
    pub fn offset(&self, source: &str, position: LineCol, unit: ColumnUnit) -> usize {
        if position.line >= self.lines {
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
    fn columns_agree_with_counting_from_the_line_start() {
        // Long lines of mixed widths, so positions fall in later blocks and
        // characters straddle block boundaries.
        let line = "aé€😀".repeat(150);
        let mixed = format!("x\n{line}\n{line}z\r\n😀");
        // Lengths that end exactly on a block boundary, and one byte on.
        let exact = format!("{}é", "a".repeat(2 * BLOCK - 2));
        for src in [mixed, exact.clone(), format!("{exact}\n")] {
            check_every_offset(&src);
        }
    }

    fn check_every_offset(src: &str) {
        let src = src.to_string();
        let index = LineIndex::new(&src);
        for (offset, c) in src.char_indices().chain(std::iter::once((src.len(), ' '))) {
            let line = index.line_of(offset);
            let before = &src[index.line_start(line)..offset];
            for (unit, expected) in [
                (ColumnUnit::Chars, before.chars().count()),
                (ColumnUnit::Utf16, before.encode_utf16().count()),
                (ColumnUnit::Utf8, before.len()),
            ] {
                let position = index.position(&src, offset, unit);
                assert_eq!(
                    position,
                    LineCol {
                        line,
                        column: expected
                    },
                    "{offset} {unit:?}"
                );
                // A position on a line break is clamped to the line's end.
                if c != '\n' {
                    assert_eq!(
                        index.offset(&src, position, unit),
                        offset,
                        "{offset} {unit:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn lines_agree_with_a_table_of_line_starts() {
        let long = "x".repeat(1500);
        let texts = [
            String::new(),
            "\n".to_string(),
            "\n".repeat(2000),
            format!("a\n{long}\n\nb\r\n{long}"),
            (0..3000)
                .map(|i| "y".repeat(i % 97) + "\n")
                .collect::<String>(),
            format!("{}\n", "z".repeat(64 * RANK_WORDS - 1)),
        ];
        for text in &texts {
            let index = LineIndex::new(text);
            let mut starts = vec![0];
            starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
            assert_eq!(index.line_count(), starts.len());
            for (line, &start) in starts.iter().enumerate() {
                assert_eq!(index.line_start(line), start, "line {line}");
            }
            assert_eq!(index.line_start(starts.len()), text.len());
            for offset in 0..=text.len() {
                let expected = starts.partition_point(|&s| s <= offset) - 1;
                assert_eq!(index.line_of(offset), expected, "offset {offset}");
            }
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
