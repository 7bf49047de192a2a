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
pub mod manifest_scope;
pub mod otlp_export;

use phaselint_lint::completion::{
    complete, complete_suppression_code, enum_value_at, key_at, may_be_enum_value,
};
use phaselint_lint::config::Settings;
use phaselint_lint::fix::apply_safe_fixes;
use phaselint_lint::index::SymbolIndex;
use phaselint_lint::line_index::{ColumnUnit, LineCol};
use phaselint_lint::rename;
use phaselint_lint::resume::{self, DocumentFormat, Mode, ResumeRequest, Timestamp};
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

/// The readers of runtime input: contexts and approvals in every format,
/// approval records, harness sentinels and configs, timestamps and
/// durations, a state's keys, and a checkpoint manifest's restore command.
pub fn resume_readers(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for format in [
        DocumentFormat::Json,
        DocumentFormat::Yaml,
        DocumentFormat::Detect,
    ] {
        if let Ok(value) = resume::parse_document(text, format) {
            let _ = resume::parse_records(&value);
            let _ = resume::canonical_json(&value);
            // The context binding of an approval over any value.
            if let Some(contract) = binding_contract().contract() {
                let next: Vec<_> = contract.phases.iter().collect();
                let one = resume::ContextBinding::of(&next, &value);
                assert_eq!(one, resume::ContextBinding::of(&next, &value));
            }
            // As a checkpoint manifest, over files that all exist.
            let _ = resume::check_manifest(
                &value,
                &EveryFile,
                &resume::NoRepository,
                &manifest_input(),
            );
            // As the state of a state checkpoint, with keys from its own
            // text: a hash or every problem, never a panic.
            let keys: Vec<&str> = text.split_whitespace().take(8).collect();
            let (listed, hash) = resume::state_hash(&value, &keys);
            assert_eq!(listed.len(), keys.len());
            assert_eq!(hash.is_ok(), listed.iter().all(|k| k.sha256.is_some()));
        }
        // As a state read exactly: a state it accepts is a document the
        // plain reader reads to the same value (it only refuses more).
        if let Ok(state) = resume::parse_state_within(text, format, 64 * 1024 * 1024) {
            assert_eq!(resume::parse_document(text, format).ok(), Some(state));
        }
    }
    // As a checkpoint's restore command: read only when it holds nothing
    // a shell would expand, redirect or run besides the one command.
    let shell = |c: char| {
        matches!(
            c,
            ';' | '|'
                | '$'
                | '`'
                | '\\'
                | '<'
                | '>'
                | '('
                | ')'
                | '*'
                | '?'
                | '['
                | '#'
                | '~'
                | '!'
        ) || c.is_control() && c != '\t'
    };
    if let Ok(stash) = resume::read_stash_restore(text) {
        assert!(!text.contains(shell), "{text:?} read as {stash:?}");
        assert!(!text.contains('&'), "{text:?} read as one stash command");
    }
    if let Ok(copies) = resume::read_copy_restore(text) {
        assert!(!text.contains(shell), "{text:?} read as {copies:?}");
        for copy in &copies {
            for path in copy.sources.iter().chain([&copy.destination]) {
                assert!(
                    !path.starts_with('/') && !path.split('/').any(|n| n == ".." || n == "."),
                    "{text:?}: {path:?} is not a plain path from the root"
                );
            }
        }
    }
    // As a harness grant beside its request: a plain grant, records, or
    // no verdict — never a panic, and never a grant without its request.
    harness_readers(data);
    let grant = HarnessFiles(data);
    match resume::harness_sources(&grant, std::path::Path::new("/h"), "k", harness_now(), 300) {
        Ok(sources) => assert!(
            sources
                .iter()
                .all(|s| matches!(s, resume::ApprovalSource::HarnessGrant { .. })),
            "{sources:?}"
        ),
        Err(message) => assert!(
            message.contains("cannot read the harness grant"),
            "{message}"
        ),
    }
    // As a team handoff: every problem points at a line of the text.
    if let Ok(report) = resume::check_handoff(text, &handoff_input()) {
        let lines = text.lines().count().max(1);
        for problem in &report.problems {
            assert!(
                (1..=lines + 1).contains(&problem.line),
                "{problem:?} outside 1..={lines}"
            );
        }
    }
    for line in text.lines().take(16) {
        let _ = resume::parse_timestamp(line);
        if let Some(seconds) = phaselint_lint::duration::parse_seconds(line) {
            let written = phaselint_lint::duration::format_seconds(seconds);
            assert_eq!(
                phaselint_lint::duration::parse_seconds(&written),
                Some(seconds),
                "{line:?} -> {written}"
            );
        }
    }
}

/// A contract whose phases read dotted, wildcard and bookkeeping fields.
fn binding_contract() -> &'static phaselint_lint::Analysis {
    static ANALYSIS: std::sync::OnceLock<phaselint_lint::Analysis> = std::sync::OnceLock::new();
    ANALYSIS.get_or_init(|| {
        phaselint_lint::analyze(
            "schema_version: '1'\npipeline_id: p\nphases:\n  a:\n    entry:\n      required:\n        - name: a\n        - name: a.b.*.c\n        - name: _cc_x\n      enrichment:\n        - name: '*'\n",
            &phaselint_lint::config::Settings::default(),
        )
    })
}

/// A harness directory `/h` where every checkpoint has a request and,
/// written after it, a grant, both holding the input. A path outside `/h`
/// is a bug: no sentinel path may leave the directory.
struct HarnessFiles<'a>(&'a [u8]);

impl resume::SentinelFiles for HarnessFiles<'_> {
    fn is_dir(&self, path: &std::path::Path) -> bool {
        path == std::path::Path::new("/h")
    }

    fn read(&self, path: &std::path::Path) -> Result<Option<resume::SentinelFile>, String> {
        assert_eq!(path.parent(), Some(std::path::Path::new("/h")), "{path:?}");
        let name = path.to_string_lossy();
        if name.ends_with(".fired") {
            return Ok(None);
        }
        let later = name.ends_with(".granted");
        Ok(Some(resume::SentinelFile {
            bytes: self.0.to_vec(),
            modified: std::time::SystemTime::UNIX_EPOCH
                + std::time::Duration::from_secs(u64::from(later)),
        }))
    }

    fn kind(&self, path: &std::path::Path) -> Result<resume::EntryKind, String> {
        assert_eq!(path.parent(), Some(std::path::Path::new("/h")), "{path:?}");
        Ok(resume::EntryKind::Missing)
    }
}

/// The input as a harness's grant and request, and as its config: the
/// start-up check and the status list give a verdict or say why not,
/// never panic, and never look outside the harness directory.
fn harness_readers(data: &[u8]) {
    let files = HarnessFiles(data);
    let input = resume::HarnessInput {
        now: harness_now(),
        mode: Mode::Strict,
        max_clock_skew: 300,
    };
    let config = phaselint_lint::analyze_kind(
        r#"{"checkpoints": {"enabled": true, "types": [{"name": "k"}]}}"#,
        phaselint_lint::DocumentKind::Harness,
        &Settings::default(),
    );
    if let Some(config) = config.harness() {
        match resume::check_harness(config, &files, std::path::Path::new("/h"), "k", &input) {
            Ok(report) => assert_eq!(
                report.decision == resume::Decision::Resume,
                report.grant.as_ref().is_some_and(|g| g.counts),
                "{report:?}"
            ),
            Err(message) => assert!(
                message.contains("cannot read the harness grant"),
                "{message}"
            ),
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let analysis = phaselint_lint::analyze_kind(
            text,
            phaselint_lint::DocumentKind::Harness,
            &Settings::default(),
        );
        if let Some(config) = analysis.harness() {
            let status = resume::harness_status(config, &files, std::path::Path::new("/h"), &input);
            assert!(status.checkpoints.len() <= config.checkpoints.len());
        }
    }
}

fn harness_now() -> Timestamp {
    Timestamp::from_second(1_772_366_400).unwrap_or(Timestamp::UNIX_EPOCH)
}

/// Scope files that all exist, each with the same content.
struct EveryFile;

impl resume::ScopeFiles for EveryFile {
    fn hash(
        &self,
        _path: &str,
        _links: resume::Links,
        _max_bytes: u64,
    ) -> Result<Option<resume::Hashed>, resume::ScopeError> {
        Ok(Some(resume::Hashed {
            sha256: "0".repeat(64),
            size: 0,
            id: None,
        }))
    }
}

fn fuzz_now() -> resume::Timestamp {
    resume::Timestamp::from_second(1_772_366_400).unwrap_or(resume::Timestamp::UNIX_EPOCH)
}

fn manifest_input() -> resume::ManifestInput {
    resume::ManifestInput {
        now: fuzz_now(),
        max_clock_skew: 300,
        mode: resume::Mode::Strict,
        question: resume::Question::Mutate,
        state: None,
    }
}

fn handoff_input() -> resume::HandoffInput {
    resume::HandoffInput {
        now: fuzz_now(),
        max_age: Some(3600),
        max_clock_skew: 300,
        mode: resume::Mode::Strict,
        unfinished_signal: None,
        folder_phase: None,
    }
}

/// A whole resume check of a fuzzed contract against a fuzzed context:
/// the input is the contract, a line `---context---`, then the context.
/// Every checkpoint is checked in each mode; a verdict or a refusal are
/// both fine, a panic is not.
pub fn resume_check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (contract, context) = text.split_once("\n---context---\n").unwrap_or((text, "{}"));
    let analysis = phaselint_lint::analyze(contract, &Settings::default());
    let Ok(context) = resume::parse_document(context, DocumentFormat::Detect) else {
        return;
    };
    let Some(model) = analysis.contract() else {
        return;
    };
    let now: Timestamp = "2026-01-01T00:00:00Z".parse().expect("a valid instant");
    let ids: Vec<String> = model
        .checkpoints
        .iter()
        .filter_map(|c| c.checkpoint_id.as_ref().map(|i| i.value.clone()))
        .take(4)
        .chain(["no-such-checkpoint".to_string()])
        .collect();
    let approvals = resume::parse_records(&context)
        .map(|records| {
            vec![resume::ApprovalSource::File {
                location: "fuzz".into(),
                records,
            }]
        })
        .unwrap_or_default();
    for id in ids {
        for mode in [Mode::Strict, Mode::Permissive, Mode::Audit] {
            let request = ResumeRequest {
                checkpoint_id: id.clone(),
                context: context.clone(),
                now,
                mode,
                next_phase: None,
                approvals: approvals.clone(),
                max_clock_skew: 300,
                trust_context_approvals: mode == Mode::Permissive,
            };
            if let Ok(report) = resume::check(&analysis, &request, None, None) {
                let _ = serde_json::to_string(&report).expect("a report serializes");
                // REQ-10-011 only for a clean contract that declares no
                // checkpoint: an unknown id among declared ones, or an
                // E-code, never resumes as "nothing to check".
                let declared = model
                    .checkpoints
                    .iter()
                    .any(|c| c.checkpoint_id.as_ref().is_some_and(|i| i.value == id));
                if !declared || report.nothing_to_check {
                    assert!(report.nothing_to_check && model.checkpoints.is_empty());
                    assert!(resume::contract_errors(&analysis).is_empty());
                }
                // REQ-10-009: an unknown attribute is left out, never null.
                for event in &report.events {
                    assert!(event.attributes.values().all(|v| !v.is_null()), "{event:?}");
                }
                // ContextCore's model holds every report it is not refused
                // for beforehand, with the same verdict.
                if resume::contextcore::unrepresentable(&analysis, &id).is_none() {
                    let result = resume::contextcore::CheckpointResumeResult::try_from(&report)
                        .expect("a report ContextCore's model can hold");
                    assert_eq!(result.passed, report.passed);
                    let _ = serde_json::to_string(&result).expect("a result serializes");
                }
                // What the paused run wrote into its own context never
                // approves an irreversible resume, nor (untrusted) a person's.
                let status = &report.approval_status;
                let by_context = status
                    .candidates
                    .iter()
                    .any(|c| c.valid && c.source == resume::Origin::Context);
                if by_context {
                    assert!(status.irreversible_next.is_empty(), "{status:?}");
                    assert!(
                        request.trust_context_approvals
                            || status.policy != Some(phaselint_lint::model::ApprovalPolicy::Human),
                        "{status:?}"
                    );
                }
                if mode == Mode::Audit {
                    assert!(
                        report.decision == resume::Decision::Resume,
                        "audit mode blocks nothing"
                    );
                }
            }
        }
    }
    operator_queue(&analysis, &context, &approvals, now);
    library_inputs(
        contract,
        text.split_once("\n---context---\n").map(|(_, c)| c),
        now,
    );
}

/// What the Python API hands the library (`resume::request`): a contract
/// as text and a context as JSON text, each refused with a message or
/// loaded, never a panic; and an approval prepared for each checkpoint,
/// bound to the digest the resume check computes.
fn library_inputs(contract: &str, context: Option<&str>, now: Timestamp) {
    use resume::request;
    let context = context.and_then(|c| request::context_from_json(c.to_string(), "(fuzz)").ok());
    let Ok(loaded) = request::load_contract_text(contract.to_string(), "<fuzz>", None) else {
        return;
    };
    let Some(model) = loaded.analysis.contract() else {
        return;
    };
    for id in model
        .checkpoints
        .iter()
        .filter_map(|c| c.checkpoint_id.as_ref().map(|i| i.value.clone()))
        .take(2)
    {
        let ask = request::ApprovalAsk {
            checkpoint_id: &id,
            approved_by: "fuzz",
            kind: resume::ApproverKind::Human,
            acknowledged: &[],
            notes: None,
            now,
        };
        let mut read = || context.clone().ok_or_else(|| "no context".to_string());
        let prepared = request::prepare_approval(
            &loaded.analysis,
            &ask,
            Some(&mut read as &mut dyn FnMut() -> Result<serde_json::Value, String>),
            &mut |_| {},
        );
        if let Ok(prepared) = prepared {
            let digest = resume::target_digest(&loaded.analysis, &id)
                .expect("a digest for an approved checkpoint");
            assert_eq!(
                prepared.record.target_digest.as_deref(),
                Some(digest.as_str())
            );
        }
    }
}

/// The operator's queue on the same inputs: with the context it agrees
/// with the resume check on every checkpoint; without one it never says
/// "approved"; and what an operator is shown hashes to the digest bound.
fn operator_queue(
    analysis: &Analysis,
    context: &serde_json::Value,
    approvals: &[resume::ApprovalSource],
    now: Timestamp,
) {
    use resume::ApprovalState;
    let mut no_harness = |_: &str| Ok(Vec::new());
    for given in [Some(context.clone()), None] {
        let request = resume::QueueRequest {
            context: given.clone(),
            approvals: approvals.to_vec(),
            now,
            max_clock_skew: 300,
            trust_context_approvals: false,
        };
        let Ok(queue) = resume::queue(analysis, request, &mut no_harness) else {
            continue;
        };
        let _ = serde_json::to_string(&queue).expect("a queue serializes");
        for item in queue.checkpoints.iter().take(4) {
            let approved = matches!(
                item.approval_state,
                ApprovalState::Approved | ApprovalState::AutoApproved
            );
            let Some(context) = &given else {
                assert!(!approved, "approved without a context: {item:?}");
                continue;
            };
            let Some(digest) = &item.target_digest else {
                continue;
            };
            let own: Vec<resume::ApprovalSource> = approvals
                .iter()
                .map(|source| match source {
                    resume::ApprovalSource::File { location, records } => {
                        resume::ApprovalSource::File {
                            location: location.clone(),
                            records: records
                                .iter()
                                .filter(|r| r.checkpoint_id == item.checkpoint_id)
                                .cloned()
                                .collect(),
                        }
                    }
                    other => other.clone(),
                })
                .collect();
            let request = ResumeRequest {
                checkpoint_id: item.checkpoint_id.clone(),
                context: context.clone(),
                now,
                mode: Mode::Strict,
                next_phase: None,
                approvals: own,
                max_clock_skew: 300,
                trust_context_approvals: false,
            };
            if let Ok(report) = resume::check(analysis, &request, None, None) {
                let granted = report.approval_status.required && report.approval_status.granted;
                assert_eq!(approved, granted, "{item:?}");
                assert_eq!(item.decision, Some(report.decision), "{item:?}");
            }
            if let Ok(question) =
                resume::approval_question(analysis, &item.checkpoint_id, None, &[], now)
            {
                use sha2::Digest;
                let hashed = sha2::Sha256::digest(question.canonical_form.as_bytes());
                let hex: String = hashed.iter().map(|b| format!("{b:02x}")).collect();
                assert_eq!(
                    &hex, digest,
                    "the canonical form shown is not what is bound"
                );
                assert_eq!(&question.target_digest, digest);
            }
        }
    }
}

/// The language server's framing guard in front of tower-lsp-server's own
/// transport: whatever bytes arrive, every frame the guard passes on must
/// be one the real codec accepts, so a request after them is still served.
pub fn lsp_framing(data: &[u8]) {
    use tower_lsp_server::jsonrpc::Result;
    use tower_lsp_server::ls_types::{InitializeParams, InitializeResult};
    use tower_lsp_server::{LanguageServer, LspService, Server};

    struct Minimal;
    impl LanguageServer for Minimal {
        async fn initialize(&self, _: InitializeParams) -> Result<InitializeResult> {
            Ok(InitializeResult::default())
        }
        async fn shutdown(&self) -> Result<()> {
            Ok(())
        }
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        // What the guard passes on, and what it answers itself.
        let mut passed = Vec::new();
        let (answers, mut answered) = tokio::sync::mpsc::unbounded_channel();
        phaselint_lsp::framing::guard_input(data, &mut passed, answers)
            .await
            .expect("reading from memory does not fail");
        while let Ok(answer) = answered.try_recv() {
            let body = answer
                .split(|&b| b == b'\n')
                .next_back()
                .unwrap_or_default();
            let _: serde_json::Value =
                serde_json::from_slice(body).expect("the guard answers in JSON");
        }
        // An `exit` it passed on ends the session as it should.
        let exits = frames(&passed).any(|body| {
            serde_json::from_slice::<serde_json::Value>(body)
                .is_ok_and(|m| m.get("method").and_then(|m| m.as_str()) == Some("exit"))
        });
        let last = br#"{"jsonrpc":"2.0","id":"after-the-fuzz","method":"shutdown"}"#;
        passed.extend_from_slice(format!("Content-Length: {}\r\n\r\n", last.len()).as_bytes());
        passed.extend_from_slice(last);

        let (service, socket) = LspService::new(|_| Minimal);
        let mut output = Vec::new();
        let serve = Server::new(&passed[..], &mut output, socket).serve(service);
        if tokio::time::timeout(std::time::Duration::from_secs(10), serve)
            .await
            .is_err()
        {
            panic!("the server did not finish reading the guard's output");
        }
        let served = String::from_utf8_lossy(&output).contains("\"id\":\"after-the-fuzz\"");
        assert!(
            served || exits,
            "the guard passed on a frame that stopped the server"
        );
    });
}

/// The bodies of well-formed frames, as the guard writes them.
fn frames(mut bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        let rest = bytes.strip_prefix(b"Content-Length: ")?;
        let end = rest.iter().position(|&b| b == b'\r')?;
        let length: usize = std::str::from_utf8(&rest[..end]).ok()?.parse().ok()?;
        let body_start = end + 4;
        let body = rest.get(body_start..body_start + length)?;
        bytes = &rest[body_start + length..];
        Some(body)
    })
}
