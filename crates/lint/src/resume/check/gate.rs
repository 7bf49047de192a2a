//! The approval gate: which approval a resume needs (a person's before an
//! irreversible phase, else the spec's policy), the records that count,
//! and what an operator is asked before one is recorded.

use serde_json::Value;

use crate::Analysis;
use crate::model::{ApprovalPolicy, EnumValue, Phase, RiskClass, SideEffects};
use crate::resume::approval::{
    self, APPROVALS_KEY, ApprovalQuestion, ApprovalRecord, ApprovalSource, ApproverKind, Candidate,
    Expectation, MAX_APPROVAL_RECORDS, Operator, Origin, ResumedPhase, parse_records,
};
use crate::resume::context_binding::ContextBinding;
use crate::resume::document::type_name;
use crate::resume::entry::FieldStatus;
use crate::resume::report::{
    ApprovalStatus, CheckpointPending, Denial, EntryRevalidation, Mode, ScopeDelta,
    TriggerCategory, TrustState,
};
use crate::resume::staleness::{Evaluation, State};
use crate::resume::target::{Target, irreversible_phases};
use crate::resume::{ResumeError, ResumeRequest};

/// What an operator console needs to render a denial without deriving
/// anything itself.
pub(super) fn denial(
    target: &Target<'_>,
    request: &ResumeRequest,
    next: &[&Phase],
    gate: &Gate,
    stale_now: &[String],
    entry: &EntryRevalidation,
    statement: &str,
) -> Denial {
    Denial {
        reason: gate.status.reason.clone(),
        checkpoint_id: target.checkpoint_id.clone(),
        phase: target.phase.name.clone(),
        required_policy: gate.policy.unwrap_or(ApprovalPolicy::Human),
        target_digest: target.digest.clone(),
        stale_fields: stale_now.to_vec(),
        checkpoint_pending: CheckpointPending {
            checkpoint_type: trigger_category(target, next)
                .unwrap_or(TriggerCategory::ApprovalPolicy),
            trigger_description: format!(
                "resuming pipeline `{}` from checkpoint `{}` (after phase `{}`) requires approval under policy `{}`",
                target.pipeline_id,
                target.checkpoint_id,
                target.phase.name,
                gate.policy.map_or("human", EnumValue::as_str)
            ),
            canonical_request_summary: canonical_request_summary(target, next, request.now),
            scope_delta: ScopeDelta {
                stale_fields: stale_now.to_vec(),
                failed_entry_fields: entry
                    .field_results
                    .iter()
                    .filter(|r| r.status == FieldStatus::Failed)
                    .map(|r| r.field.clone())
                    .collect(),
            },
            // The phase the run resumes into, not the checkpoint's own:
            // its act is already done. With several, the highest risk and
            // the strongest side effect.
            risk_classification: highest_risk(next),
            side_effect_class: strongest_side_effect(next),
            // The spec's policy, even when the irreversible phase ahead
            // makes the requirement `human`.
            policy_basis: target
                .spec
                .on_resume
                .approval_policy
                .as_ref()
                .map(|p| p.value)
                .or(gate.policy)
                .unwrap_or(ApprovalPolicy::Human),
            authorization_statement: statement.to_string(),
            trust_state: gate.trust_state,
        },
    }
}

/// The one-line form of what a resume asks: which run, from where, into
/// what, when, bound to which digest.
pub(crate) fn canonical_request_summary(
    target: &Target<'_>,
    next: &[&Phase],
    now: jiff::Timestamp,
) -> String {
    format!(
        "resume pipeline={} checkpoint={} after={} into={} at={} target_digest={}",
        target.pipeline_id,
        target.checkpoint_id,
        target.phase.name,
        if next.is_empty() {
            "(none)".to_string()
        } else {
            next.iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(",")
        },
        now,
        target.digest
    )
}

/// The highest risk class among `phases` (`low` for none).
pub(crate) fn highest_risk(phases: &[&Phase]) -> RiskClass {
    phases
        .iter()
        .map(|p| p.risk())
        .max()
        .unwrap_or(RiskClass::Low)
}

/// The strongest side effect among `phases` (`none` for none).
pub(crate) fn strongest_side_effect(phases: &[&Phase]) -> SideEffects {
    phases
        .iter()
        .map(|p| p.side_effect_class())
        .max()
        .unwrap_or(SideEffects::None)
}

/// Which trigger category (Syndicate's §7.1) makes a resume from `target`
/// into `next` wait for approval; `None` when it needs none. The first
/// that applies, strongest first: an irreversible next phase (a person
/// must approve whatever the spec says), a high or critical risk class
/// ahead, a rise in risk class from the checkpoint's phase (G306), and
/// otherwise the checkpoint's own approval policy.
pub(crate) fn trigger_category(target: &Target<'_>, next: &[&Phase]) -> Option<TriggerCategory> {
    let irreversible = irreversible_phases(next);
    required_policy(&target.spec.on_resume, &irreversible)?;
    let highest = next.iter().map(|p| p.risk()).max();
    Some(if !irreversible.is_empty() {
        TriggerCategory::IrreversibleNextPhase
    } else if highest >= Some(RiskClass::High) {
        TriggerCategory::HighRiskOperation
    } else if highest > Some(target.phase.risk()) {
        TriggerCategory::RiskClassTransition
    } else {
        TriggerCategory::ApprovalPolicy
    })
}

/// What an operator is shown before an approval of a resume from `target`
/// into `next` is recorded (Syndicate's INV-OI-001): the canonical request,
/// the authorization scope (the phases resumed into, their side effects and
/// risk), the reversibility class, and on request the full canonical form
/// the digest binds. `context` is what the record will be bound to.
pub(crate) fn question(
    analysis: &Analysis,
    target: &Target<'_>,
    next: &[&Phase],
    now: jiff::Timestamp,
    stale_fields: &[String],
    context: Option<&ContextBinding>,
) -> Result<ApprovalQuestion, ResumeError> {
    let irreversible_next = irreversible_phases(next);
    let policy = required_policy(&target.spec.on_resume, &irreversible_next)
        .unwrap_or(ApprovalPolicy::Human);
    Ok(ApprovalQuestion {
        checkpoint_id: target.checkpoint_id.clone(),
        phase: target.phase.name.clone(),
        pipeline_id: target.pipeline_id.clone(),
        policy,
        target_digest: target.digest.clone(),
        stale_fields: stale_fields.to_vec(),
        irreversible_next,
        authorization_statement: authorization_statement(target, next, stale_fields),
        trigger: trigger_category(target, next).unwrap_or(TriggerCategory::ApprovalPolicy),
        canonical_request_summary: canonical_request_summary(target, next, now),
        resumes_into: next.iter().map(|p| ResumedPhase::of(p)).collect(),
        reversibility: strongest_side_effect(next),
        context_digest: context.map(|c| c.digest.clone()),
        canonical_form: target.canonical_form(analysis)?,
    })
}

pub(super) fn authorization_statement(
    target: &Target<'_>,
    next: &[&Phase],
    stale: &[String],
) -> String {
    let into = match next {
        [] => String::new(),
        [one] => format!(" into phase `{}`", one.name),
        many => format!(
            " into phases {}",
            crate::diagnostic::code_list(many.iter().map(|p| &p.name))
        ),
    };
    let stale = if stale.is_empty() {
        String::new()
    } else {
        format!(
            ", continuing with stale field{} {} acknowledged",
            if stale.len() == 1 { "" } else { "s" },
            crate::diagnostic::code_list(stale.iter())
        )
    };
    let bound = match target.successor_phases().as_slice() {
        [] => format!("phase `{}`", target.phase.name),
        successors => format!(
            "phase `{}`, or of the phase{} it leads to ({})",
            target.phase.name,
            if successors.len() == 1 { "" } else { "s" },
            crate::diagnostic::code_list(successors.iter().map(|p| &p.name))
        ),
    };
    format!(
        "Approving authorizes pipeline `{}` to resume from checkpoint `{}` after phase `{}`{into}{stale}. The approval is bound to target_digest {}: any edit of the checkpoint, of {bound}, voids it.",
        target.pipeline_id, target.checkpoint_id, target.phase.name, target.digest,
    )
}

pub(super) struct Gate {
    pub(super) status: ApprovalStatus,
    pub(super) policy: Option<ApprovalPolicy>,
    pub(super) trust_state: TrustState,
}

/// What the approval gate judges.
pub(super) struct GateInput<'a> {
    pub(super) analysis: &'a Analysis,
    pub(super) target: &'a Target<'a>,
    /// The phases the run resumes into.
    pub(super) next: &'a [&'a Phase],
    pub(super) request: &'a ResumeRequest,
    pub(super) context: &'a Value,
    pub(super) last: &'a [Evaluation],
    pub(super) stale_now: &'a [String],
    pub(super) blocking_failure: bool,
    /// The irreversible phases the run resumes into: a person must approve,
    /// whatever the spec's policy says.
    pub(super) irreversible_next: &'a [String],
}

/// The approval a resume needs: a person's when it resumes into an
/// irreversible phase, whatever the spec says; otherwise the spec's policy
/// when it requires approval.
pub fn required_policy(
    on_resume: &crate::model::OnResume,
    irreversible_next: &[String],
) -> Option<ApprovalPolicy> {
    if !irreversible_next.is_empty() {
        return Some(ApprovalPolicy::Human);
    }
    on_resume
        .approval_policy
        .as_ref()
        .map(|p| p.value)
        .filter(|_| on_resume.approval_required())
}

pub(super) fn approve(
    input: &GateInput<'_>,
    operator: Option<&mut dyn Operator>,
) -> Result<Gate, ResumeError> {
    let GateInput {
        analysis,
        target,
        next,
        request,
        context,
        last,
        stale_now,
        blocking_failure,
        irreversible_next,
    } = *input;
    let on_resume = &target.spec.on_resume;
    let spec_policy = on_resume.approval_policy.as_ref().map(|p| p.value);
    let binding = &ContextBinding::of(&target.successor_phases(), context);
    let status = |required, policy| ApprovalStatus {
        required,
        policy,
        granted: false,
        auto_granted: false,
        approval: None,
        harness_pending: false,
        irreversible_next: Vec::new(),
        target_digest: target.digest.clone(),
        context_digest: binding.digest.clone(),
        context_fields: binding.fields.clone(),
        trust_context_approvals: request.trust_context_approvals,
        trust_context_source: None,
        candidates: Vec::new(),
        reason: String::new(),
    };
    // A harness request waiting for its grant pauses the harness whatever
    // the contract says: its start-up does not go on while the file is
    // there, so neither may the resume. A grant is a person's approval.
    let harness_pending = request
        .approvals
        .iter()
        .any(|s| matches!(s, ApprovalSource::HarnessPending { .. }));
    let Some(policy) = required_policy(on_resume, irreversible_next)
        .or(harness_pending.then_some(ApprovalPolicy::Human))
    else {
        return Ok(Gate {
            status: ApprovalStatus {
                reason: "approval not required".into(),
                ..status(false, spec_policy)
            },
            policy: spec_policy,
            trust_state: TrustState::NotRequired,
        });
    };
    let expected = Expectation {
        checkpoint_id: &target.checkpoint_id,
        policy,
        now: request.now,
        stale_fields: stale_now,
        digest: &target.digest,
        legacy_digest: &target.legacy_digest,
        context: Some(binding),
        irreversible_next,
        trust_context: request.trust_context_approvals,
    };
    let judge = |source: Origin, location: String, record: ApprovalRecord| {
        let problems = approval::validate(&record, source, &expected);
        Candidate {
            source,
            location,
            record: Some(record),
            valid: problems.is_empty(),
            problems,
        }
    };

    let mut candidates = Vec::new();
    if let Some(store) = context.get(APPROVALS_KEY) {
        let location = format!("{APPROVALS_KEY}.{}", target.checkpoint_id);
        let Value::Object(store) = store else {
            return Err(ResumeError::MalformedApproval {
                location: format!("the context's `{APPROVALS_KEY}`"),
                message: format!(
                    "it must be a mapping of checkpoint id to ApprovalRecord, found {}",
                    type_name(store)
                ),
            });
        };
        if let Some(value) = store.get(&target.checkpoint_id) {
            if value
                .as_array()
                .is_some_and(|a| a.len() > MAX_APPROVAL_RECORDS)
            {
                return Err(ResumeError::TooManyApprovals {
                    limit: MAX_APPROVAL_RECORDS,
                });
            }
            let records =
                parse_records(value).map_err(|message| ResumeError::MalformedApproval {
                    location: format!("the context's `{location}`"),
                    message,
                })?;
            for record in records {
                candidates.push(judge(Origin::Context, location.clone(), record));
            }
        }
    }
    if candidates.len() + presented_outside(&request.approvals) > MAX_APPROVAL_RECORDS {
        return Err(ResumeError::TooManyApprovals {
            limit: MAX_APPROVAL_RECORDS,
        });
    }
    let (outside, pending) =
        outside_candidates(target, &request.approvals, request.now, stale_now, &judge);
    candidates.extend(outside);

    let auto = policy == ApprovalPolicy::AutoIfFresh
        && last
            .iter()
            .filter(|e| e.blocks())
            .all(|e| e.state == State::Fresh);
    let mut approval = candidates
        .iter()
        .find(|c| c.valid)
        .and_then(|c| c.record.clone());
    let mut declined = false;

    let would_deny = pending.is_none() && approval.is_none() && !auto;
    let worth_asking = match request.mode {
        Mode::Strict => !blocking_failure,
        Mode::Permissive => true,
        Mode::Audit => false,
    };
    if would_deny
        && worth_asking
        && ApproverKind::Human.satisfies(policy)
        && let Some(operator) = operator
    {
        // The question and the record below read the same target and the
        // same binding of the same context: what is shown is what is bound.
        let question = question(
            analysis,
            target,
            next,
            request.now,
            stale_now,
            Some(binding),
        )?;
        match operator.ask(&question).map_err(ResumeError::Operator)? {
            Some(name) => {
                let record = ApprovalRecord {
                    approved_by: name,
                    approved_at: request.now.to_string(),
                    policy: ApproverKind::Human.as_str().into(),
                    checkpoint_id: target.checkpoint_id.clone(),
                    stale_fields_acknowledged: stale_now.to_vec(),
                    notes: Some("approved interactively".into()),
                    target_digest: Some(target.digest.clone()),
                    // The operator approves the context as it is now.
                    context_digest: Some(binding.digest.clone()),
                    context_field_digests: Some(binding.field_digests.clone()),
                };
                let candidate = judge(Origin::Interactive, "terminal".into(), record);
                if candidate.valid {
                    approval = candidate.record.clone();
                }
                candidates.push(candidate);
            }
            None => declined = true,
        }
    }

    // What is required, in the reasons below.
    let requirement = match irreversible_next {
        [] => format!("approval required (policy `{}`)", policy.as_str()),
        phases => format!(
            "a person's approval is required because the run resumes into irreversible phase{} {}",
            if phases.len() == 1 { "" } else { "s" },
            crate::diagnostic::code_list(phases.iter())
        ),
    };
    let granted = pending.is_none() && (approval.is_some() || auto);
    let auto_granted = granted && approval.is_none();
    let presented = candidates.iter().filter(|c| c.record.is_some()).count();
    let (reason, trust_state) = if let Some(location) = &pending {
        let whatever = if required_policy(on_resume, irreversible_next).is_none() {
            " (the contract requires no approval here, but the harness does not start while its request is pending)"
        } else {
            ""
        };
        (
            format!(
                "harness approval pending: no `.granted` sentinel was written after `{location}`, so the resume is denied{whatever}"
            ),
            TrustState::Pending,
        )
    } else if let Some(record) = &approval {
        let from = candidates
            .iter()
            .find(|c| c.valid)
            .map_or(String::new(), |c| {
                format!(" from {} ({})", c.location, c.source.describe())
            });
        (
            format!(
                "granted by `{}` ({}){from}",
                record.approved_by, record.policy
            ),
            TrustState::Approved,
        )
    } else if auto {
        (
            "granted automatically: approval_policy auto_if_fresh and every blocking field is fresh"
                .to_string(),
            TrustState::AutoApproved,
        )
    } else if declined {
        (
            format!("{requirement} and the operator declined"),
            TrustState::Declined,
        )
    } else if presented == 0 {
        let mut reason = format!("{requirement} and none was presented");
        if policy == ApprovalPolicy::AutoIfFresh {
            reason.push_str(
                "; auto_if_fresh does not apply because a blocking field is stale or has no provenance",
            );
        }
        for ignored in &candidates {
            reason.push_str(&format!("; ignored: {}", ignored.problems.join("; ")));
        }
        (reason, TrustState::Unapproved)
    } else {
        let problems: Vec<String> = candidates
            .iter()
            .filter(|c| c.record.is_some())
            .map(|c| {
                format!(
                    "{} by `{}`: {}",
                    c.location,
                    c.record.as_ref().map_or("", |r| r.approved_by.as_str()),
                    c.problems.join("; ")
                )
            })
            .collect();
        (
            format!(
                "{requirement}; {presented} approval{} presented, none valid: {}",
                if presented == 1 { " was" } else { "s were" },
                problems.join(" | ")
            ),
            TrustState::Rejected,
        )
    };
    Ok(Gate {
        status: ApprovalStatus {
            granted,
            auto_granted,
            approval: approval.filter(|_| granted),
            harness_pending: pending.is_some(),
            irreversible_next: irreversible_next.to_vec(),
            candidates,
            reason,
            ..status(true, Some(policy))
        },
        policy: Some(policy),
        trust_state,
    })
}

/// How many approvals come from outside the context: each record of a
/// file, and each harness sentinel.
pub(super) fn presented_outside(approvals: &[ApprovalSource]) -> usize {
    approvals
        .iter()
        .map(|source| match source {
            ApprovalSource::File { records, .. } => records.len(),
            _ => 1,
        })
        .sum()
}

/// Where a checkpoint's approval stands when no context is given: the
/// approvals from outside the context judged by the same `validate` as the
/// resume check, on everything the context does not decide (checkpoint,
/// target digest, kind of approver, where it comes from, when it was
/// given). What the context decides — stale fields to acknowledge, the
/// context digest, `auto_if_fresh`, the records the context holds — is
/// left open, so no state here says "approved".
pub(crate) fn judge_without_context(
    target: &Target<'_>,
    approvals: &[ApprovalSource],
    now: jiff::Timestamp,
    trust_context: bool,
) -> Result<(UncheckedApproval, Vec<Candidate>), ResumeError> {
    let irreversible_next = target.irreversible_next();
    let Some(policy) = required_policy(&target.spec.on_resume, &irreversible_next) else {
        return Ok((UncheckedApproval::NotRequired, Vec::new()));
    };
    if presented_outside(approvals) > MAX_APPROVAL_RECORDS {
        return Err(ResumeError::TooManyApprovals {
            limit: MAX_APPROVAL_RECORDS,
        });
    }
    let expected = Expectation {
        checkpoint_id: &target.checkpoint_id,
        policy,
        now,
        stale_fields: &[],
        digest: &target.digest,
        legacy_digest: &target.legacy_digest,
        context: None,
        irreversible_next: &irreversible_next,
        trust_context,
    };
    let judge = |source: Origin, location: String, record: ApprovalRecord| {
        let problems = approval::validate(&record, source, &expected);
        Candidate {
            source,
            location,
            record: Some(record),
            valid: problems.is_empty(),
            problems,
        }
    };
    let (candidates, pending) = outside_candidates(target, approvals, now, &[], &judge);
    let state = if pending.is_some() {
        UncheckedApproval::Pending
    } else if candidates.iter().any(|c| c.valid) {
        UncheckedApproval::Recorded
    } else if policy == ApprovalPolicy::AutoIfFresh {
        UncheckedApproval::DependsOnContext
    } else if candidates.iter().any(|c| c.record.is_some()) {
        UncheckedApproval::Rejected
    } else {
        UncheckedApproval::Unapproved
    };
    Ok((state, candidates))
}

/// A checkpoint's approval judged without a context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UncheckedApproval {
    NotRequired,
    /// A harness request waits for its grant.
    Pending,
    /// A record holds for the checkpoint as it stands; the context may
    /// still void it.
    Recorded,
    /// `auto_if_fresh` with no record: the context's staleness decides.
    DependsOnContext,
    /// Every record presented fails on something no context can change.
    Rejected,
    Unapproved,
}

/// Every approval presented from outside the context (files, harness
/// grants), judged by `judge`, and the harness request that is still
/// pending, if any.
pub(super) fn outside_candidates(
    target: &Target<'_>,
    approvals: &[ApprovalSource],
    now: jiff::Timestamp,
    stale_now: &[String],
    judge: &dyn Fn(Origin, String, ApprovalRecord) -> Candidate,
) -> (Vec<Candidate>, Option<String>) {
    let mut candidates = Vec::new();
    let mut pending: Option<String> = None;
    for source in approvals {
        match source {
            ApprovalSource::File { location, records } => {
                for record in records {
                    candidates.push(judge(Origin::File, location.clone(), record.clone()));
                }
            }
            ApprovalSource::HarnessGrant { location, record } => {
                // A grant without a record approves the checkpoint as it
                // stands, but not a context it never saw: it carries no
                // context digest, so it cannot approve an irreversible resume.
                let record = record.clone().unwrap_or_else(|| ApprovalRecord {
                    approved_by: "harness".into(),
                    approved_at: now.to_string(),
                    policy: ApproverKind::Human.as_str().into(),
                    checkpoint_id: target.checkpoint_id.clone(),
                    stale_fields_acknowledged: stale_now.to_vec(),
                    notes: Some(format!("harness grant `{location}`")),
                    target_digest: Some(target.digest.clone()),
                    context_digest: None,
                    context_field_digests: None,
                });
                candidates.push(judge(Origin::Harness, location.clone(), record));
            }
            ApprovalSource::HarnessIgnored { location, reason } => {
                candidates.push(Candidate::unanswering_harness_sentinel(
                    location,
                    reason.clone(),
                ));
            }
            ApprovalSource::HarnessPending { location } => {
                candidates.push(Candidate::pending_harness_request(location));
                pending.get_or_insert_with(|| location.clone());
            }
        }
    }

    (candidates, pending)
}
