use super::*;

fn input() -> HandoffInput {
    HandoffInput {
        now: "2026-01-26T12:00:00Z"
            .parse()
            .unwrap_or_else(|e| panic!("{e}")),
        max_age: None,
        max_clock_skew: 300,
        mode: Mode::Strict,
        unfinished_signal: None,
        folder_phase: None,
    }
}

#[test]
fn the_signal_is_looked_for_only_beside_a_phase_handoff() {
    assert_eq!(
        unfinished_signal_for(Path::new("w/.tina/phase-2/handoff.md")),
        Some(PathBuf::from("w/.tina/checkpoint-needed"))
    );
    assert_eq!(unfinished_signal_for(Path::new("handoff.md")), None);
    assert_eq!(
        unfinished_signal_for(Path::new(".tina/phase-x/handoff.md")),
        None
    );
    assert_eq!(
        unfinished_signal_for(Path::new("tina/phase-2/handoff.md")),
        None
    );
}

#[test]
fn cells_read_as_markdown_means_them() {
    let text = "## Task States\n| **ID** | Subject | Status | Owner |\n|---|---|---|---|\n| 1 | parse `a \\| b` | completed | *worker-1* |\n\n```\n## Reason\n```\n";
    let report = check_handoff(text, &input()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.tasks[0].subject, "parse a | b");
    assert_eq!(report.tasks[0].owner.as_deref(), Some("worker-1"));
    // The heading in the code block is no section.
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.message.contains("`## Reason` is missing"))
    );
}

#[test]
fn cells_are_counted_as_written() {
    assert_eq!(row_cells("| 1 | a | b |\n"), 3);
    assert_eq!(row_cells("1 | a | b"), 3);
    assert_eq!(row_cells("| 1 | a \\| b |"), 2);
    assert_eq!(row_cells("| 1 | `a | b` |"), 3);
    assert_eq!(row_cells("|| x |"), 2);
    assert_eq!(row_cells("| 1 |   |\r\n"), 2);
    assert_eq!(row_cells("|"), 0);
    // Indentation before the first pipe is no cell (found by fuzzing).
    assert_eq!(row_cells(" | 1 | a | b"), 3);
    assert_eq!(row_cells("  \t1 | a |"), 2);
}

#[test]
fn a_row_with_other_cells_than_the_header_is_a_problem_at_its_line() {
    let text = "## Task States\n| ID | Subject | Status | Owner |\n|---|---|---|---|\n| 1 | a | completed |\n| 2 | b | pending | - | extra |\n| 3 | c | pending | - |\n";
    let report = check_handoff(text, &input()).unwrap_or_else(|e| panic!("{e}"));
    let at = |line: usize| {
        report
            .problems
            .iter()
            .filter(|p| p.line == line)
            .map(|p| p.message.as_str())
            .collect::<Vec<_>>()
    };
    assert!(
        at(4)[0].starts_with("the row has 3 cells but the header has 4"),
        "{:?}",
        report.problems
    );
    assert!(
        at(5)[0].starts_with("the row has 5 cells but the header has 4"),
        "{:?}",
        report.problems
    );
    assert!(at(6).is_empty());
}

#[test]
fn a_table_the_parser_cut_short_is_a_problem_where_it_goes_on() {
    // 2^18 cells filled in, and the parser ends the table: the rows
    // after it are a paragraph.
    let extra = 1020;
    let mut text = format!(
        "## Task States\n| ID | Subject | Status | Owner |{}\n|---|---|---|---|{}\n",
        " x |".repeat(extra),
        "---|".repeat(extra)
    );
    let rows = (1 << 18) / extra + 2;
    for i in 0..rows {
        text.push_str(&format!("| {i} | s | pending | - |\n"));
    }
    text.push_str("| 1 | again | in_progress | |\n");
    assert!(markdown_elements(&text) > MAX_MARKDOWN_ELEMENTS);
    assert!(
        check_handoff(&text, &input())
            .unwrap_err()
            .contains("more than the limit of 250000")
    );
    let lines = LineIndex::new(&text);
    let (_, found) = sections(&text, &lines);
    let table = &found[0].tables[0];
    let cut = table.cut_at.unwrap_or_else(|| panic!("not cut"));
    assert!(cut < 4 + rows, "{cut}");
    let mut messages = Vec::new();
    task_table(table, &mut |line, _, message| {
        messages.push((line, message))
    });
    assert!(
        messages
            .iter()
            .any(|(line, m)| *line == cut && m.contains("goes on at this line"))
    );
}

#[test]
fn a_second_task_table_and_too_many_rows_are_problems() {
    let head = "## Task States\n| ID | Subject | Status | Owner |\n|---|---|---|---|\n";
    let text = format!(
        "{head}| 1 | a | pending | - |\n\n{}| 2 | b | pending | - |\n",
        &head[15..]
    );
    let report = check_handoff(&text, &input()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.line == 6 && p.message.contains("second table")),
        "{:?}",
        report.problems
    );
    let mut long = head.to_string();
    for i in 0..=MAX_TASKS {
        long.push_str(&format!("| {i} | a | pending | - |\n"));
    }
    let report = check_handoff(&long, &input()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.tasks.len(), MAX_TASKS);
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.message.contains("more than the limit of 10000"))
    );
}

#[test]
fn elements_count_lines_markup_and_the_cells_rows_may_get() {
    assert_eq!(markdown_elements("abc"), 1);
    assert_eq!(markdown_elements("[[[\n"), 4);
    // Header (1 + 4 pipes), delimiter (1 + 4 pipes + 9 dashes), two
    // rows of 1 + their markup + 5 cells (one per pipe of the
    // delimiter, and one), a blank line, a line after the table.
    assert_eq!(
        markdown_elements("|a|b|c|\n|---|---|---|\n|1|\nx\n\nafter\n"),
        5 + 14 + (1 + 2 + 5) + (1 + 5) + 1 + 1
    );
    assert_eq!(markdown_elements("a\rb\r\nc"), 3);
}

#[test]
fn a_row_after_the_table_is_no_hidden_task() {
    let text = "## Task States\n| ID | Subject | Status | Owner |\n|---|---|---|---|\n| 1 | a | pending | - |\n\n| 1 | b | in_progress | |\n| 3 | c | pending | - |\n";
    let report = check_handoff(text, &input()).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<usize> = report
        .problems
        .iter()
        .filter(|p| p.message.starts_with("this line looks like a row"))
        .map(|p| p.line)
        .collect();
    assert_eq!(lines, [6, 7], "{:?}", report.problems);
    // An empty row ends the table; what follows, indented, is a code
    // block to the parser, and still a row to whoever reads it.
    let text = "## Task States\n| ID | Subject | Status | Owner |\n|---|---|---|---|\n| 1 | a | pending | - |\n    |\n    | 1 | b | in_progress | |\n\n## Reason\n| x |\n";
    let report = check_handoff(text, &input()).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<usize> = report
        .problems
        .iter()
        .filter(|p| p.message.starts_with("this line looks like a row"))
        .map(|p| p.line)
        .collect();
    assert_eq!(lines, [5, 6], "{:?}", report.problems);
}
