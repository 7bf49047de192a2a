//! The `resume_readers` target: every reader of runtime input, on any bytes.

use phaselint_lint::config::Settings;
use phaselint_lint::resume::{self, DocumentFormat, Mode, Timestamp};

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
