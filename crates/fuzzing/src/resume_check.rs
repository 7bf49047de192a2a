//! The `resume_check` target: a whole resume check, in every mode, of a
//! fuzzed contract against a fuzzed context.

use phaselint_lint::Analysis;
use phaselint_lint::config::Settings;
use phaselint_lint::resume::{self, DocumentFormat, Mode, ResumeRequest, Timestamp};

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
