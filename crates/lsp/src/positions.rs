//! Positions in the client's encoding: byte offsets of the analysis to LSP
//! positions and back, in UTF-16 or UTF-8 as negotiated.

use phaselint_lint::line_index::{ColumnUnit, LineCol, LineIndex};
use tower_lsp_server::ls_types::{Position, Range};

/// The position encoding negotiated with the client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    #[default]
    Utf16,
    Utf8,
}

impl Encoding {
    pub fn unit(self) -> ColumnUnit {
        match self {
            Encoding::Utf16 => ColumnUnit::Utf16,
            Encoding::Utf8 => ColumnUnit::Utf8,
        }
    }
}

/// Converts between byte offsets and client positions for one text.
pub struct Positions<'a> {
    pub text: &'a str,
    pub index: &'a LineIndex,
    pub unit: ColumnUnit,
}

impl Positions<'_> {
    pub fn position(&self, offset: usize) -> Position {
        let p = self.index.position(self.text, offset, self.unit);
        Position::new(p.line as u32, p.column as u32)
    }

    pub fn range(&self, span: phaselint_lint::syntax::Span) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }

    pub fn offset(&self, position: Position) -> usize {
        self.index.offset(
            self.text,
            LineCol {
                line: position.line as usize,
                column: position.character as usize,
            },
            self.unit,
        )
    }
}
