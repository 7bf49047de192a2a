//! `handoff_tables`: the Task States table of a handoff, its rows from the
//! input. The first line adds columns to the header `| ID | Subject |
//! Status | Owner |`; each later line is a row (a `|` put in front when it
//! has none, so no line can start another kind of block). The rest of the
//! handoff is the checkpoint skill's example.
//!
//! Invariants:
//! - the cells `row_cells` counts in a row's text are the cells the parser
//!   read from it, up to the header's (it fills in or drops the rest);
//! - a handoff that resumes has one task per row, and every row as many
//!   cells as the header: no row is hidden, none is read short;
//! - every problem is on a line of the text.

use phaselint_lint::resume::{self, Decision, HandoffInput, Mode, row_cells};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

const BEFORE: &str = "# Handoff\n\n## Timestamp\n2026-03-01T11:00:00Z\n\n## Reason\nContext threshold exceeded\n\n## Team Composition\n- worker-1: implementer\n\n## Task States\n";
const AFTER: &str =
    "\n## Review Tracking\n- Task 1: reviewed\n\n## Resumption Notes\n- go on with task 2\n";

pub fn handoff_tables(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.lines().map(|l| l.replace('\r', ""));
    let extra = lines.next().unwrap_or_default();
    let header = format!("| ID | Subject | Status | Owner |{extra}");
    let columns = row_cells(&header);
    let rows: Vec<String> = lines
        .filter(|l| !l.trim().is_empty())
        .take(512)
        .map(|l| {
            if l.trim_start().starts_with('|') {
                l
            } else {
                format!("|{l}")
            }
        })
        .collect();
    let mut handoff = format!("{BEFORE}{header}\n|{}\n", "---|".repeat(columns));
    for row in &rows {
        handoff.push_str(row);
        handoff.push('\n');
    }
    handoff.push_str(AFTER);

    // The cells written are the cells read, up to the header's (of the
    // table the row is in: a row that ends the table can start another).
    let mut in_head = false;
    let mut row_range = 0..0;
    let mut read = 0;
    let mut header_cells = 0;
    for (event, range) in Parser::new_ext(&handoff, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::TableHead) => {
                in_head = true;
                row_range = range;
                read = 0;
            }
            Event::Start(Tag::TableRow) => {
                row_range = range;
                read = 0;
            }
            // A cell the parser filled in is empty, at the row's end.
            Event::Start(Tag::TableCell) if range.start < row_range.end || in_head => read += 1,
            Event::End(TagEnd::TableHead | TagEnd::TableRow) => {
                let written = row_cells(&handoff[row_range.clone()]);
                if in_head {
                    assert_eq!(written, read, "header {:?}", &handoff[row_range.clone()]);
                    header_cells = read;
                } else {
                    assert_eq!(
                        written.min(header_cells),
                        read,
                        "row {:?}",
                        &handoff[row_range.clone()]
                    );
                }
                in_head = false;
            }
            _ => {}
        }
    }

    let input = HandoffInput {
        now: resume::Timestamp::from_second(1_772_366_400).unwrap_or(resume::Timestamp::UNIX_EPOCH),
        max_age: None,
        max_clock_skew: 300,
        mode: Mode::Strict,
        unfinished_signal: None,
        folder_phase: None,
    };
    let Ok(report) = resume::check_handoff(&handoff, &input) else {
        return;
    };
    let last = handoff.lines().count() + 1;
    for problem in &report.problems {
        assert!((1..=last).contains(&problem.line), "{problem:?}");
    }
    if report.decision == Decision::Resume {
        assert_eq!(
            report.tasks.len(),
            rows.len(),
            "a row is hidden:\n{handoff}"
        );
        for row in &rows {
            assert_eq!(
                row_cells(row),
                columns,
                "a short or long row resumed: {row:?}"
            );
        }
    }
}
