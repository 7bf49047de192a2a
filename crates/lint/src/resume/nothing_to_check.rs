//! ContextCore REQ-10-011, "no spec means no check": a contract that
//! declares no `checkpoint_integrity` resumes from whatever checkpoint id
//! the orchestrator passes, with nothing checked, so an orchestrator that
//! calls the resume check on every resume does not halt the pipelines that
//! declare none.
//!
//! What stays refused: a contract that does not load or has an E-code
//! (`Target::find` refuses it before anything gets here), a context that
//! is not a mapping, and a `--next-phase` that is not a declared phase. A
//! harness request still waits for its grant: the harness asked for a
//! person's approval, whatever the contract declares.

use crate::Analysis;
use crate::model::{ApprovalPolicy, Contract, Phase, RiskClass, SideEffects};
use crate::resume::approval::{ApprovalSource, Candidate, Origin};
use crate::resume::check::gate::{highest_risk, strongest_side_effect};
use crate::resume::report::{
    ApprovalStatus, CheckpointPending, Decision, Denial, EntryRevalidation, Evidence, GateOutcome,
    GateResult, GateSeverity, NextPhaseSource, ResumeReport, ScopeDelta, TriggerCategory,
    TrustState, decide,
};
use crate::resume::{PROVENANCE_KEY, ResumeError, ResumeRequest};

/// The report line of a contract without checkpoint specs.
pub const NOTHING_TO_CHECK: &str = "no checkpoint specs: nothing to check";

/// Whether the contract loaded and declares no checkpoint spec at all.
pub(crate) fn declares_no_checkpoints(analysis: &Analysis) -> bool {
    analysis
        .contract()
        .is_some_and(|contract| contract.checkpoints.is_empty())
}

/// The verdict for a contract that loaded clean and declares no checkpoint
/// spec: resume, unless a harness request is pending.
pub(crate) fn report(
    contract: &Contract,
    request: &ResumeRequest,
    recovery_hook: bool,
    interactive: bool,
) -> Result<ResumeReport, ResumeError> {
    super::inputs::require_mapping(&request.context)?;
    let next: Vec<&Phase> = match request.next_phase.as_deref() {
        None => Vec::new(),
        Some(name) => vec![
            contract
                .phase(name)
                .ok_or_else(|| ResumeError::UnknownPhase {
                    name: name.to_string(),
                    known: contract.phase_names().map(str::to_string).collect(),
                })?,
        ],
    };
    let phases: Vec<String> = next.iter().map(|p| p.name.clone()).collect();
    let pipeline_id = contract
        .pipeline_id
        .as_ref()
        .map(|p| p.value.clone())
        .unwrap_or_default();

    let mut pending: Option<&str> = None;
    let nothing_to_approve = || {
        vec![format!(
            "{NOTHING_TO_CHECK}: the contract declares no checkpoint, so there is nothing to approve and this approval is not judged"
        )]
    };
    let mut candidates = Vec::new();
    for source in &request.approvals {
        match source {
            ApprovalSource::File { location, records } => {
                for record in records {
                    candidates.push(Candidate {
                        source: Origin::File,
                        location: location.clone(),
                        record: Some(record.clone()),
                        valid: false,
                        problems: nothing_to_approve(),
                    });
                }
            }
            ApprovalSource::HarnessGrant { location, record } => candidates.push(Candidate {
                source: Origin::Harness,
                location: location.clone(),
                record: record.clone(),
                valid: false,
                problems: nothing_to_approve(),
            }),
            ApprovalSource::HarnessIgnored { location, reason } => candidates.push(
                Candidate::unanswering_harness_sentinel(location, reason.clone()),
            ),
            ApprovalSource::HarnessPending { location } => {
                candidates.push(Candidate::pending_harness_request(location));
                pending.get_or_insert(location);
            }
        }
    }
    let reason = match pending {
        Some(location) => format!(
            "harness approval pending: no `.granted` sentinel was written after `{location}`, so the resume is denied (the harness asked for a person's approval, whatever the contract declares)"
        ),
        None => format!("{NOTHING_TO_CHECK} (no approval gate)"),
    };
    let (passed, strict_decision, decision) = decide(false, pending.is_some(), request.mode);
    let failures: Vec<String> = pending.map(|_| reason.clone()).into_iter().collect();
    let denial =
        pending.map(|location| denial(contract, request, &next, &pipeline_id, location, &reason));
    let approval_status = ApprovalStatus {
        required: pending.is_some(),
        policy: pending.map(|_| ApprovalPolicy::Human),
        granted: false,
        auto_granted: false,
        approval: None,
        harness_pending: pending.is_some(),
        irreversible_next: Vec::new(),
        target_digest: String::new(),
        context_digest: String::new(),
        context_fields: Vec::new(),
        trust_context_approvals: request.trust_context_approvals,
        trust_context_source: None,
        candidates,
        reason: reason.clone(),
    };
    let gate_result = GateResult {
        gate_id: format!("checkpoint.{}.resume", request.checkpoint_id),
        phase: String::new(),
        result: if passed {
            GateOutcome::Pass
        } else {
            GateOutcome::Fail
        },
        severity: if passed {
            GateSeverity::Info
        } else {
            GateSeverity::Error
        },
        reason: if passed {
            NOTHING_TO_CHECK.to_string()
        } else {
            format!("Blocking failures: {}", failures.join("; "))
        },
        blocking: decision != Decision::Resume,
        evidence: pending
            .map(|_| Evidence {
                kind: "approval",
                reference: request.checkpoint_id.clone(),
                description: reason.clone(),
            })
            .into_iter()
            .collect(),
    };
    let mut report = ResumeReport {
        version: 1,
        checkpoint_id: request.checkpoint_id.clone(),
        phase: String::new(),
        pipeline_id,
        nothing_to_check: true,
        passed,
        decision,
        mode: request.mode,
        strict_decision,
        now: request.now.to_string(),
        max_clock_skew_seconds: request.max_clock_skew,
        target_digest: String::new(),
        staleness_checks: Vec::new(),
        stale_fields: Vec::new(),
        fresh_fields: Vec::new(),
        missing_provenance: Vec::new(),
        provenance_present: request.context.get(PROVENANCE_KEY).is_some(),
        recovery_attempts: Vec::new(),
        entry_revalidation: EntryRevalidation {
            performed: false,
            phase: (phases.len() == 1).then(|| phases[0].clone()),
            next_phase_source: if phases.is_empty() {
                NextPhaseSource::None
            } else {
                NextPhaseSource::NextPhase
            },
            phases,
            passed: true,
            field_results: Vec::new(),
            reason: format!(
                "{NOTHING_TO_CHECK} (entry requirements are re-checked only on the resume of a declared checkpoint)"
            ),
        },
        approval_status,
        denial,
        failures,
        warnings: Vec::new(),
        gate_result,
        // Nothing was checked, so nothing is emitted: REQ-10-011 leaves a
        // pipeline without specs as it was before checkpoint checks.
        events: Vec::new(),
        next_steps: Vec::new(),
    };
    report.next_steps = super::next_steps::next_steps(&report, recovery_hook, interactive);
    Ok(report)
}

/// The denial of a resume a harness request waits on.
fn denial(
    contract: &Contract,
    request: &ResumeRequest,
    next: &[&Phase],
    pipeline_id: &str,
    location: &str,
    reason: &str,
) -> Denial {
    // Nothing says which phase the run resumes into unless --next-phase
    // names one: then any of them, so the highest risk and the strongest
    // side effect of all.
    let phases: Vec<&Phase> = if next.is_empty() {
        contract.phases.iter().collect()
    } else {
        next.to_vec()
    };
    let into = match next {
        [] => "(any)".to_string(),
        _ => next
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(","),
    };
    Denial {
        reason: reason.to_string(),
        checkpoint_id: request.checkpoint_id.clone(),
        phase: String::new(),
        required_policy: ApprovalPolicy::Human,
        target_digest: String::new(),
        stale_fields: Vec::new(),
        checkpoint_pending: CheckpointPending {
            // No spec to read a policy from: the harness request itself is
            // the ask, unless what the run may resume into says more.
            checkpoint_type: if phases
                .iter()
                .any(|p| p.side_effect_class() == SideEffects::Irreversible)
            {
                TriggerCategory::IrreversibleNextPhase
            } else if phases.iter().any(|p| p.risk() >= RiskClass::High) {
                TriggerCategory::HighRiskOperation
            } else {
                TriggerCategory::ApprovalPolicy
            },
            trigger_description: format!(
                "the harness request `{location}` asks for a person's approval to resume pipeline `{pipeline_id}` from checkpoint `{}`",
                request.checkpoint_id
            ),
            canonical_request_summary: format!(
                "resume pipeline={pipeline_id} checkpoint={} after=(none) into={into} at={} target_digest=(none)",
                request.checkpoint_id, request.now
            ),
            scope_delta: ScopeDelta {
                stale_fields: Vec::new(),
                failed_entry_fields: Vec::new(),
            },
            risk_classification: highest_risk(&phases),
            side_effect_class: strongest_side_effect(&phases),
            policy_basis: ApprovalPolicy::Human,
            authorization_statement: format!(
                "Approving authorizes pipeline `{pipeline_id}` to resume from checkpoint `{}`. The contract declares no checkpoint specs, so nothing binds the approval to what the run does next.",
                request.checkpoint_id
            ),
            trust_state: TrustState::Pending,
        },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::config::Settings;
    use crate::resume::{
        ApprovalSource, Decision, Mode, ResumeError, ResumeRequest, Timestamp, check,
    };

    const NO_SPECS: &str = "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\n  b: {}\n";

    fn request(context: serde_json::Value) -> ResumeRequest {
        ResumeRequest {
            checkpoint_id: "whatever_the_orchestrator_passes".into(),
            context,
            now: "2026-03-01T12:00:00Z".parse::<Timestamp>().unwrap(),
            mode: Mode::Strict,
            next_phase: None,
            approvals: Vec::new(),
            max_clock_skew: 300,
            trust_context_approvals: false,
        }
    }

    #[test]
    fn any_checkpoint_id_resumes_with_nothing_checked() {
        let analysis = crate::analyze(NO_SPECS, &Settings::default());
        let report = check(&analysis, &request(json!({})), None, None).unwrap();
        assert_eq!(report.decision, Decision::Resume);
        assert!(report.nothing_to_check && report.passed);
        assert_eq!(report.gate_result.reason, super::NOTHING_TO_CHECK);
        assert!(report.events.is_empty());
    }

    #[test]
    fn what_cannot_be_read_still_gives_no_verdict() {
        let analysis = crate::analyze(NO_SPECS, &Settings::default());
        let error = check(&analysis, &request(json!([1])), None, None).unwrap_err();
        assert!(
            matches!(error, ResumeError::ContextNotMapping { .. }),
            "{error}"
        );
        let mut unknown_next = request(json!({}));
        unknown_next.next_phase = Some("c".into());
        let error = check(&analysis, &unknown_next, None, None).unwrap_err();
        assert!(matches!(error, ResumeError::UnknownPhase { .. }), "{error}");
        let broken = crate::analyze("schema_version: '1'\nphases: 3\n", &Settings::default());
        let error = check(&broken, &request(json!({})), None, None).unwrap_err();
        assert!(
            matches!(error, ResumeError::ContractHasErrors { .. }),
            "{error}"
        );
    }

    #[test]
    fn a_pending_harness_request_still_denies_except_in_audit_mode() {
        let analysis = crate::analyze(NO_SPECS, &Settings::default());
        let mut pending = request(json!({}));
        pending.approvals = vec![ApprovalSource::HarnessPending {
            location: "h/checkpoint-x.md".into(),
        }];
        for (mode, decision) in [
            (Mode::Strict, Decision::Denied),
            (Mode::Permissive, Decision::Denied),
            (Mode::Audit, Decision::Resume),
        ] {
            pending.mode = mode;
            let report = check(&analysis, &pending, None, None).unwrap();
            assert_eq!(report.decision, decision, "{mode:?}");
            assert!(!report.passed && report.approval_status.harness_pending);
            assert!(report.denial.is_some());
        }
    }
}
