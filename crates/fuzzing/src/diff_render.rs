//! `phaselint diff` on arbitrary contracts, rendered in every format: the
//! fuzz input is NEW against the diff fixtures' base, then OLD against it
//! (so OLD's own text, which related locations point into, is the
//! fuzzer's too). No panic; every finding's span inside NEW and every
//! related location inside the file it names, on character boundaries;
//! every format renders, the JSON ones parse.

use std::path::PathBuf;

use phaselint_lint::config::Settings;
use phaselint_lint::diagnostic::Diagnostic;
use phaselint_lint::{Analysis, DocumentKind, analyze_bytes};
use phaselint_render::{Format, Linted, Report, Style};

const BASE: &str = include_str!("../../../fixtures/diff/base.contract.yaml");

pub fn diff_render(data: &[u8]) {
    let settings = Settings::default();
    let fuzzed = analyze_bytes(data, DocumentKind::Contract, &settings);
    let base = analyze_bytes(BASE.as_bytes(), DocumentKind::Contract, &settings);
    check(&base, fuzzed);
    let fuzzed = analyze_bytes(data, DocumentKind::Contract, &settings);
    let base = analyze_bytes(BASE.as_bytes(), DocumentKind::Contract, &settings);
    check(&fuzzed, base);
}

fn check(old: &Analysis, mut new: Analysis) {
    let Ok(findings) = phaselint_lint::diff::diff_from(old, "old\u{1b}.yaml".as_ref(), &new) else {
        return;
    };
    for d in &findings {
        in_text(&new.source, d, d.span);
        for r in &d.related {
            let text = r.file.as_ref().map_or(new.source.as_str(), |f| &f.source);
            in_text(text, d, r.span);
        }
    }
    new.diagnostics = findings;
    new.keep_only_findings();
    let files = [Linted {
        path: PathBuf::from("new.contract.yaml"),
        analysis: new,
    }];
    let report = Report::new(&files, &[]);
    for format in [
        Format::Full,
        Format::Concise,
        Format::Json,
        Format::Github,
        Format::Sarif,
        Format::Gitlab,
        Format::Junit,
    ] {
        let mut out = Vec::new();
        let style = Style {
            color: false,
            summary: true,
        };
        phaselint_render::write(&report, format, false, style, &mut out).expect("renders");
        if matches!(format, Format::Json | Format::Sarif | Format::Gitlab) {
            serde_json::from_slice::<serde_json::Value>(&out).expect("the JSON formats parse");
        }
    }
}

fn in_text(text: &str, d: &Diagnostic, span: phaselint_lint::syntax::Span) {
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "span outside its file: {d:?}"
    );
    assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "span off a character boundary: {d:?}"
    );
}
