//! `phaselint diff` over two contracts from one input: OLD, a line
//! `---new---`, NEW (no such line: the input is both, diffed with
//! itself). Checks, on any input:
//!
//! - `diff` never panics, and a contract diffed with itself reports
//!   nothing;
//! - every finding is located in NEW's text (on character boundaries);
//! - `--mode approvals` is `--mode resume` with exactly the findings of
//!   `VOIDS_APPROVALS` kept, in the same order;
//! - a deleted NEW (`contract_deleted`) gives only D601s, at most one per
//!   checkpoint of OLD, located in OLD's text; refused whenever `diff`
//!   refuses OLD, and only when `diff` gives no verdict either;
//! - the analyses the CLI makes (`analyze_contract_for_resume`, the
//!   resume facts read from the analysis's own tree) give the same target
//!   digests as a second parse, and the same findings as plain analyses.

use phaselint_lint::config::Settings;
use phaselint_lint::diagnostic::Diagnostic;
use phaselint_lint::diff::{DiffError, DiffMode, contract_deleted, diff_in_mode};
use phaselint_lint::resume::target_digests;
use phaselint_lint::{Analysis, DocumentKind, analyze_bytes, analyze_contract_for_resume};

const SEPARATOR: &[u8] = b"\n---new---\n";

pub fn diff(data: &[u8]) {
    let (old_bytes, new_bytes) = match data.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) {
        Some(at) => (&data[..at], &data[at + SEPARATOR.len()..]),
        None => (data, data),
    };
    // As the CLI reads them: default settings, the resume facts kept
    // from the analysis's own tree.
    let settings = Settings::default();
    let old = analyze_contract_for_resume(old_bytes, &settings);
    let new = analyze_contract_for_resume(new_bytes, &settings);
    let plain_old = analyze_bytes(old_bytes, DocumentKind::Contract, &settings);
    let plain_new = analyze_bytes(new_bytes, DocumentKind::Contract, &settings);
    for (kept, plain) in [(&old, &plain_old), (&new, &plain_new)] {
        assert_eq!(
            target_digests(kept),
            target_digests(plain),
            "the digests read from the analysis's own tree differ from a second parse's"
        );
    }

    let resume = diff_in_mode(&old, std::path::Path::new("OLD"), &new, DiffMode::Resume);
    let approvals = diff_in_mode(&old, std::path::Path::new("OLD"), &new, DiffMode::Approvals);
    match (&resume, &approvals) {
        (Ok(resume), Ok(approvals)) => {
            for finding in resume {
                assert!(finding.code.is_diff(), "{}", finding.code);
                located_in(finding, &new);
            }
            let kept: Vec<&Diagnostic> = resume
                .iter()
                .filter(|d| DiffMode::Approvals.reports(d.code.as_str()))
                .collect();
            assert_eq!(kept.len(), approvals.len());
            for (a, b) in kept.iter().zip(approvals) {
                assert_eq!((a.code, &a.message, a.span), (b.code, &b.message, b.span));
            }
            if old_bytes == new_bytes {
                assert!(
                    resume.is_empty(),
                    "a contract diffed with itself reports {:?}",
                    resume.iter().map(|d| &d.message).collect::<Vec<_>>()
                );
            }
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        _ => panic!("the modes disagree on whether there is a verdict"),
    }
    let plain = diff_in_mode(
        &plain_old,
        std::path::Path::new("OLD"),
        &plain_new,
        DiffMode::Resume,
    );
    assert_eq!(
        format!("{resume:?}"),
        format!("{plain:?}"),
        "diff depends on how the analyses were made"
    );

    let deleted = contract_deleted(&old, "deleted");
    let old_refused = matches!(
        &resume,
        Err(DiffError::ContractHasErrors { side: "OLD", .. }
            | DiffError::NotAContract { side: "OLD" })
    );
    match deleted {
        Ok(findings) => {
            assert!(!old_refused, "diff refused OLD, contract_deleted did not");
            let checkpoints = old.contract().map_or(0, |c| c.checkpoints.len());
            assert!(findings.len() <= checkpoints);
            for finding in &findings {
                assert_eq!(finding.code, "D601");
                located_in(finding, &old);
            }
        }
        // What refuses OLD alone refuses the pair too.
        Err(error) => assert!(
            resume.is_err(),
            "contract_deleted refused OLD ({error}), diff did not"
        ),
    }
}

fn located_in(finding: &Diagnostic, analysis: &Analysis) {
    let text = &analysis.source;
    let span = finding.span;
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "{} at {span:?} outside a text of {} bytes",
        finding.code,
        text.len()
    );
    assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
    // A related location lies in the file it names (OLD's, for diff's
    // notes), else in the finding's own.
    for related in &finding.related {
        let text = related.file.as_ref().map_or(text, |file| &file.source);
        assert!(related.span.start <= related.span.end && related.span.end <= text.len());
        assert!(
            text.is_char_boundary(related.span.start) && text.is_char_boundary(related.span.end)
        );
    }
}
