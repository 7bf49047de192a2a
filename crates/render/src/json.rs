//! Versioned JSON, for tools that read findings. Lines and columns are
//! 1-based, columns counted in characters. Changing a field's meaning
//! requires a new version.

use std::io::{self, Write};

use serde::Serialize;

use super::{Report, range};
use crate::Linted;
use phaselint_lint::line_index::LineCol;
use phaselint_lint::syntax::Span;

#[derive(Serialize)]
struct Output<'a> {
    version: u32,
    diagnostics: Vec<JsonDiagnostic<'a>>,
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

pub fn render(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    let diagnostics = report
        .diagnostics()
        .map(|(file, d)| {
            let path = file.path.display().to_string();
            let (start, end) = span_positions(file, d.span);
            JsonDiagnostic {
                code: d.code,
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
                        let (start, end) = span_positions(file, r.span);
                        JsonRelated {
                            path: path.clone(),
                            start,
                            end,
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
        })
        .collect();
    serde_json::to_writer_pretty(
        &mut *out,
        &Output {
            version: 1,
            diagnostics,
        },
    )?;
    writeln!(out)
}
