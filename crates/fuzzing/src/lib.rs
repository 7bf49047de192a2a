//! What each fuzz target checks. The cargo-fuzz targets in `fuzz/` are one
//! line each, calling these; `tests/fuzz_regressions.rs` replays every
//! input in `fuzz/regressions/<target>/` through the same functions on the
//! stable toolchain, so a crash once found stays fixed.
//!
//! Each function panics on a broken invariant (that is a finding) and
//! returns normally on any input phaselint handles as it should.

// A fuzz harness states its invariants with assertions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod diff;
pub mod diff_render;
pub mod fixes;
pub mod handoff_tables;
pub mod lsp_edits;
mod lsp_framing;
pub mod manifest_scope;
pub mod otlp_export;
mod resume_check;
mod resume_readers;

pub use lsp_framing::lsp_framing;
pub use resume_check::resume_check;
pub use resume_readers::resume_readers;

use phaselint_lint::completion::{
    complete, complete_suppression_code, enum_value_at, key_at, may_be_enum_value,
};
use phaselint_lint::config::Settings;
use phaselint_lint::fix::apply_safe_fixes;
use phaselint_lint::index::SymbolIndex;
use phaselint_lint::line_index::{ColumnUnit, LineCol};
use phaselint_lint::rename;
use phaselint_lint::resume::{self};
use phaselint_lint::syntax::{Limits, parse};
use phaselint_lint::{Analysis, analyze_bytes};

/// What a fuzz target runs on one input.
pub type Check = fn(&[u8]);

/// The targets by name, as `fuzz/fuzz_targets/` and `fuzz/regressions/`
/// name them.
pub const TARGETS: &[(&str, Check)] = &[
    ("analyze", analyze),
    ("resume_readers", resume_readers),
    ("resume_check", resume_check),
    ("lsp_framing", lsp_framing),
    ("lsp_edits", lsp_edits::lsp_edits),
    ("manifest_scope", manifest_scope::manifest_scope),
    ("handoff_tables", handoff_tables::handoff_tables),
    ("fixes", fixes::fixes),
    ("otlp_export", otlp_export::otlp_export),
    ("diff", diff::diff),
    ("diff_render", diff_render::diff_render),
];

/// Offsets at which positions, completion and hover are exercised: every
/// byte of a small input, a spread of them in a larger one (each call
/// costs time proportional to the text, and the fuzzer needs speed).
fn sample_offsets(text: &str) -> impl Iterator<Item = usize> + '_ {
    let step = (text.len() / 12).max(1);
    (0..=text.len()).step_by(step).chain([text.len()])
}

/// The analysis of arbitrary bytes, with everything the CLI and the editor
/// do with one: spans, positions in every unit, fixes, completion, the
/// symbol index, enum hover and each checkpoint's target digest.
pub fn analyze(data: &[u8]) {
    let settings = Settings::all_rules();
    let analysis = analyze_bytes(data, phaselint_lint::DocumentKind::Contract, &settings);
    check_findings(&analysis);
    check_positions(&analysis);
    check_fixes(&analysis, &settings);
    check_editor(&analysis);
    check_digests(&analysis);
    check_graph(&analysis, &settings);
    // The default rule set filters and suppresses differently.
    check_findings(&analyze_bytes(
        data,
        phaselint_lint::DocumentKind::Contract,
        &Settings::default(),
    ));
    // The same bytes as a harness config: JSON checked as JSON, its own
    // tables and rules, and fixes that must keep it parseable.
    let harness = analyze_bytes(data, phaselint_lint::DocumentKind::Harness, &settings);
    check_findings(&harness);
    check_positions(&harness);
    check_fixes(&harness, &settings);
}

/// `phaselint graph`: every phase drawn, in every format, and no DOT
/// string Graphviz would refuse (it reads at most 16 KiB in one).
fn check_graph(analysis: &Analysis, settings: &Settings) {
    let Some(graph) = phaselint_lint::graph_export::export(analysis, settings, true) else {
        return;
    };
    use phaselint_render::graph::{GraphFormat, render};
    let dot = render(&graph, GraphFormat::Dot);
    assert!(
        dot.lines().all(|l| l.len() < 16_000),
        "a DOT line over 16 KB"
    );
    assert!(dot.matches(" [label=<").count() >= graph.nodes.len());
    let mermaid = render(&graph, GraphFormat::Mermaid);
    assert!(mermaid.starts_with("---\ntitle: "));
    let json: serde_json::Value =
        serde_json::from_str(&render(&graph, GraphFormat::Json)).expect("graph JSON parses");
    assert_eq!(
        json["nodes"].as_array().map(Vec::len),
        Some(graph.nodes.len())
    );
}

fn check_findings(analysis: &Analysis) {
    let source = &analysis.source;
    for d in analysis.diagnostics.iter().chain(&analysis.hidden_errors) {
        let spans = std::iter::once(d.span).chain(
            d.related
                .iter()
                .filter(|r| r.file.is_none())
                .map(|r| r.span),
        );
        for span in spans {
            assert!(span.start <= span.end && span.end <= source.len(), "{d:?}");
            assert!(
                source.is_char_boundary(span.start) && source.is_char_boundary(span.end),
                "span off a character boundary: {d:?}"
            );
        }
        if let Some(fix) = &d.fix {
            for edit in &fix.edits {
                assert!(edit.span.start <= edit.span.end && edit.span.end <= source.len());
            }
        }
    }
    let order: Vec<_> = analysis
        .diagnostics
        .iter()
        .map(|d| (d.span.start, d.code))
        .collect();
    assert!(order.is_sorted(), "findings out of order");
}

fn check_positions(analysis: &Analysis) {
    let source = &analysis.source;
    let index = &analysis.line_index;
    for offset in sample_offsets(source) {
        for unit in [ColumnUnit::Chars, ColumnUnit::Utf16, ColumnUnit::Utf8] {
            let position = index.position(source, offset, unit);
            let back = index.offset(source, position, unit);
            assert!(back <= source.len() && source.is_char_boundary(back));
            // A position on a line break maps back to the line's end.
            let on_break = source[back..].starts_with(['\n', '\r']);
            if source.is_char_boundary(offset) && !on_break {
                assert_eq!(back, offset, "{unit:?} round trip of {offset}");
            }
        }
    }
    // Positions a client may send: past the end of lines and of the text.
    for (line, column) in [(0, usize::MAX / 2), (usize::MAX / 2, 0), (1, 3)] {
        let back = index.offset(source, LineCol { line, column }, ColumnUnit::Utf16);
        assert!(back <= source.len() && source.is_char_boundary(back));
    }
}

fn check_fixes(analysis: &Analysis, settings: &Settings) {
    let Some((fixed, applied)) = apply_safe_fixes(&analysis.source, &analysis.diagnostics) else {
        return;
    };
    assert!(applied > 0);
    // Safe fixes never turn a loadable file into one that cannot be read.
    let again = phaselint_lint::analyze_kind(&fixed, analysis.kind, settings);
    assert!(
        !again.is_unreadable(),
        "safe fixes broke the file:\n{fixed}\n{:?}",
        again.diagnostics
    );
}

fn check_editor(analysis: &Analysis) {
    let source = &analysis.source;
    let contract = analysis.contract();
    let index = contract.map(SymbolIndex::build).unwrap_or_default();
    let document = parse(source, Limits::default()).ok().flatten();
    for offset in sample_offsets(source) {
        // `complete` reads the cursor's context first.
        let _ = complete(source, offset, contract);
        // A suppression comment's code under the cursor is what it says.
        if let Some(at) =
            phaselint_lint::suppression::suppression_at(source, &analysis.line_index, offset)
        {
            assert_eq!(
                source.get(at.span.start..at.span.end),
                Some(at.code.as_str())
            );
            assert!(at.code.starts_with(&at.typed), "{at:?}");
            assert!(at.span.start <= offset && offset <= at.span.end, "{at:?}");
        }
        let _ = complete_suppression_code(analysis, offset);
        let _ = index.at(offset);
        if let Some(document) = &document {
            if may_be_enum_value(source, offset)
                && let Some(found) = enum_value_at(document.root(), offset)
            {
                assert!(found.span.end <= source.len());
            }
            if let Some((path, key)) = key_at(document.root(), offset) {
                let _ = phaselint_lint::format::key_documentation(&path, key);
            }
        }
    }
    for occurrence in index.occurrences() {
        assert!(occurrence.span.end <= source.len());
    }
    check_field_rename(source, contract, &index);
    check_structure(source);
    let phases = contract.map_or(0, |c| c.phases.len());
    for exit in index.exit_readers(usize::MAX) {
        assert!(exit.span.end <= source.len());
        assert!(exit.readers.iter().all(|&phase| phase < phases));
    }
}

/// A field rename's target lies on the text, and its edits are disjoint,
/// in order, on character boundaries (`rename_field` itself parses the
/// edited text again and refuses when a name would not read as planned).
fn check_field_rename(
    source: &str,
    contract: Option<&phaselint_lint::model::Contract>,
    index: &SymbolIndex,
) {
    let Some(contract) = contract else {
        return;
    };
    let on_boundaries = |start: usize, end: usize| {
        start <= end
            && end <= source.len()
            && source.is_char_boundary(start)
            && source.is_char_boundary(end)
    };
    for offset in sample_offsets(source) {
        if let Ok(Some(target)) = rename::target(source, contract, index, offset) {
            assert!(
                on_boundaries(target.span.start, target.span.end),
                "{target:?}"
            );
        }
    }
    // Each rename parses the text twice: two fields are enough.
    let fields = index
        .occurrences()
        .iter()
        .filter(|o| matches!(o.symbol, phaselint_lint::index::Symbol::Field { .. }));
    for occurrence in fields.take(2) {
        let Ok(edits) = rename::rename_field(source, occurrence.span.start, "renamed_by_fuzz")
        else {
            continue;
        };
        let mut end = 0;
        for edit in &edits {
            assert!(on_boundaries(edit.span.start, edit.span.end), "{edit:?}");
            assert!(
                edit.span.start >= end,
                "overlapping rename edits: {edits:?}"
            );
            end = edit.span.end;
        }
    }
}

/// Folding and selection ranges (the editor's YAML structure): inside the
/// text, on character boundaries, each fold over several lines, each
/// selection inside the next and ending with the whole document.
fn check_structure(source: &str) {
    use phaselint_lint::structure::{MAX_FOLDS, folding_ranges, selection_ranges};
    let folds = folding_ranges(source);
    assert!(folds.len() <= MAX_FOLDS);
    for fold in &folds {
        let text = source.get(fold.span.start..fold.span.end);
        assert!(text.is_some_and(|t| t.contains('\n')), "{fold:?}");
    }
    for offset in sample_offsets(source) {
        let chain = selection_ranges(source, offset);
        assert!(!chain.is_empty());
        for span in &chain {
            assert!(source.get(span.start..span.end).is_some(), "{span:?}");
        }
        for pair in chain.windows(2) {
            assert!(pair[1].start <= pair[0].start && pair[0].end <= pair[1].end);
            assert_ne!(pair[0], pair[1]);
        }
        assert_eq!(
            chain.last().map(|s| (s.start, s.end)),
            Some((0, source.len()))
        );
    }
}

fn check_digests(analysis: &Analysis) {
    let Some(contract) = analysis.contract() else {
        return;
    };
    // Each digest parses the text again: two are enough to cover it.
    for checkpoint in contract.checkpoints.iter().take(2) {
        if let Some(id) = &checkpoint.checkpoint_id {
            let _ = resume::target_digest(analysis, &id.value);
        }
    }
}
