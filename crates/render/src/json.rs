//! Versioned JSON, for tools that read findings. Lines and columns are
//! 1-based, columns counted in characters. Changing a field's meaning
//! requires a new version.
//!
//! Written as it is serialized, one finding at a time: a report of a
//! million findings is never held whole. Text is the contract's own (a tool
//! gets it unchanged); the bytes written hold no control character
//! (`safe_json`).

use std::io::{self, Write};

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use super::{Report, range, related_range, safe_json};
use crate::Linted;
use phaselint_lint::diagnostic::Diagnostic;
use phaselint_lint::line_index::LineCol;
use phaselint_lint::syntax::Span;

/// `{"version": 1, "diagnostics": [...]}`, the findings serialized as they
/// are read from the report.
struct Output<'r, 'a>(&'r Report<'a>);

impl Serialize for Output<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut output = serializer.serialize_struct("Output", 2)?;
        output.serialize_field("version", &1)?;
        output.serialize_field("diagnostics", &Diagnostics(self.0))?;
        output.end()
    }
}

struct Diagnostics<'r, 'a>(&'r Report<'a>);

impl Serialize for Diagnostics<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.0
                .diagnostics()
                .map(|(file, d)| JsonDiagnostic::of(file, d)),
        )
    }
}

#[derive(Serialize)]
struct Position {
    line: usize,
    column: usize,
}

impl From<LineCol> for Position {
    fn from(p: LineCol) -> Self {
        Position {
            line: p.line,
            column: p.column,
        }
    }
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'a str,
    severity: &'a str,
    message: &'a str,
    path: String,
    start: Position,
    end: Position,
    help: Option<&'a str>,
    related: Vec<JsonRelated<'a>>,
    fix: Option<JsonFix<'a>>,
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    path: String,
    start: Position,
    end: Position,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    applicability: phaselint_lint::diagnostic::Applicability,
    title: &'a str,
    edits: Vec<JsonEdit<'a>>,
}

#[derive(Serialize)]
struct JsonEdit<'a> {
    start: Position,
    end: Position,
    replacement: &'a str,
}

fn span_positions(file: &Linted, span: Span) -> (Position, Position) {
    let (start, end) = range(file, span);
    (start.into(), end.into())
}

impl<'a> JsonDiagnostic<'a> {
    fn of(file: &Linted, d: &'a Diagnostic) -> Self {
        let path = file.path.display().to_string();
        let (start, end) = span_positions(file, d.span);
        JsonDiagnostic {
            code: d.code.as_str(),
            severity: d.severity.as_str(),
            message: &d.message,
            path: path.clone(),
            start,
            end,
            help: d.help.as_deref(),
            related: d
                .related
                .iter()
                .map(|r| {
                    let (related_path, start, end) = related_range(file, r);
                    JsonRelated {
                        path: related_path.display().to_string(),
                        start: start.into(),
                        end: end.into(),
                        message: &r.message,
                    }
                })
                .collect(),
            fix: d.fix.as_ref().map(|fix| JsonFix {
                applicability: fix.applicability,
                title: &fix.title,
                edits: fix
                    .edits
                    .iter()
                    .map(|e| {
                        let (start, end) = span_positions(file, e.span);
                        JsonEdit {
                            start,
                            end,
                            replacement: &e.replacement,
                        }
                    })
                    .collect(),
            }),
        }
    }
}

pub fn render(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    safe_json::to_writer_pretty(&mut *out, &Output(report))?;
    writeln!(out)
}
