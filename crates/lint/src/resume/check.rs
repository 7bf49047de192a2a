//! The resume check itself: staleness, recovery, entry revalidation,
//! approval, mode — in that order, each step reading the context the
//! previous one left.

use std::borrow::Cow;

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};

use crate::Analysis;
use crate::model::{
    ApprovalPolicy, EnumValue, FieldSeverity, Phase, Recovery, RiskClass, SideEffects,
};
use crate::resume::approval::{
    self, APPROVALS_KEY, ApprovalQuestion, ApprovalRecord, ApprovalSource, ApproverKind, Candidate,
    Expectation, MAX_APPROVAL_RECORDS, Operator, Origin, ResumedPhase, parse_records,
};
use crate::resume::context_binding::ContextBinding;
use crate::resume::document::type_name;
use crate::resume::entry::{
    ENTRY_VISIT_BUDGET, FieldStatus, Lookup, TooMuchWork, check_field, look_up,
};
use crate::resume::report::{
    ApprovalStatus, AttemptOutcome, CheckedField, CheckpointPending, Decision, Denial,
    EntryRevalidation, Event, Evidence, FieldState, GateOutcome, GateResult, GateSeverity, Mode,
    NextPhaseSource, RecoveryAttempt, ResumeReport, ScopeDelta, StaleField, TriggerCategory,
    TrustState, decide,
};
use crate::resume::staleness::{self, Evaluation, PROVENANCE_KEY, Provenance, State};
use crate::resume::target::Target;
use crate::resume::{Recoverer, RecoveryOutcome, RecoveryRequest, ResumeError, ResumeRequest};

/// Checks whether a paused run may resume from `request.checkpoint_id`.
///
/// `recoverer` runs recovery for stale blocking/warning fields whose
/// strategy is `re_retrieve` or `re_generate`, then re-reads the context;
/// `operator` is asked for a human approval when one is missing (only pass
/// one when a person is really there to answer).
pub fn check(
    analysis: &Analysis,
    request: &ResumeRequest,
    recoverer: Option<&mut dyn Recoverer>,
    operator: Option<&mut dyn Operator>,
) -> Result<ResumeReport, ResumeError> {
    let target = match Target::find(analysis, &request.checkpoint_id) {
        Ok(target) => target,
        // REQ-10-011: no spec means no check. Only a contract that loaded
        // clean gets this far; an unknown id among declared specs stays
        // no verdict.
        Err(ResumeError::UnknownCheckpoint { .. })
            if let Some(contract) = analysis.contract.as_deref()
                && super::nothing_to_check::declares_no_checkpoints(analysis) =>
        {
            return super::nothing_to_check::report(
                contract,
                request,
                recoverer.is_some(),
                operator.is_some(),
            );
        }
        Err(error) => return Err(error),
    };
    let on_resume = &target.spec.on_resume;
    let (next, next_source) = next_phases(&target, request.next_phase.as_deref())?;
    super::check_entry_field_count(&next)?;
    let (recovery_hook, interactive) = (recoverer.is_some(), operator.is_some());

    // Steps 1-3: staleness, recovery, staleness again.
    let mut staleness = evaluate_staleness(&target, request, recoverer)?;
    let stale_fields = stale_fields(&staleness.first, &staleness.last, &mut staleness.attempts);
    let Staleness {
        last,
        attempts,
        provenance_present,
        context,
        ..
    } = staleness;
    let fresh_fields = fields_where(&last, |e| e.state == State::Fresh);
    let missing_provenance = fields_where(&last, Evaluation::missing_provenance);

    // Step 4: entry revalidation of the next phase(s).
    let entry = revalidate(
        &target,
        &next,
        next_source,
        on_resume.revalidate_entry(),
        &context,
    )?;

    // Step 5: approval.
    let mut stale_now: Vec<String> = Vec::new();
    for s in stale_fields.iter().filter(|s| s.is_stale) {
        if !stale_now.contains(&s.field) {
            stale_now.push(s.field.clone());
        }
    }
    let blocking_failure = last.iter().any(|e| e.is_stale() && e.blocks()) || !entry.passed;
    let statement = authorization_statement(&target, &next, &stale_now);
    let gate = approve(
        &GateInput {
            analysis,
            target: &target,
            next: &next,
            request,
            context: &context,
            last: &last,
            stale_now: &stale_now,
            blocking_failure,
            irreversible_next: &irreversible_phases(&next),
        },
        operator,
    )?;

    // Step 6: mode.
    let approval_missing = gate.status.required && !gate.status.granted;
    let (passed, strict_decision, decision) =
        decide(blocking_failure, approval_missing, request.mode);
    let denial = approval_missing.then(|| {
        denial(
            &target, request, &next, &gate, &stale_now, &entry, &statement,
        )
    });
    let (failures, warnings) = findings(
        &stale_fields,
        provenance_present,
        &missing_provenance,
        &entry,
        approval_missing.then_some(gate.status.reason.as_str()),
    );
    let gate_result = gate_result(
        &target,
        passed,
        decision,
        &failures,
        &warnings,
        &stale_fields,
        &missing_provenance,
        &entry,
        &gate.status,
    );
    let events = events(
        &target,
        request,
        passed,
        &stale_fields,
        &fresh_fields,
        &missing_provenance,
        &gate.status,
    );
    let staleness_checks = last.iter().map(checked_field).collect();

    let mut report = ResumeReport {
        version: 1,
        checkpoint_id: target.checkpoint_id.clone(),
        phase: target.phase.name.clone(),
        pipeline_id: target.pipeline_id.clone(),
        nothing_to_check: false,
        passed,
        decision,
        mode: request.mode,
        strict_decision,
        now: request.now.to_string(),
        max_clock_skew_seconds: request.max_clock_skew,
        target_digest: target.digest.clone(),
        staleness_checks,
        stale_fields,
        fresh_fields,
        missing_provenance,
        provenance_present,
        recovery_attempts: attempts.into_iter().map(|(_, a)| a).collect(),
        entry_revalidation: entry,
        approval_status: gate.status,
        denial,
        failures,
        warnings,
        gate_result,
        events,
        next_steps: Vec::new(),
    };
    report.next_steps = super::next::next_steps(&report, recovery_hook, interactive);
    Ok(report)
}

/// Staleness and recovery: the staleness checks evaluated against the
/// context, recovery run for what a hook can recover, and the context
/// re-read and evaluated again when something was recovered.
struct Staleness<'c> {
    /// Before recovery.
    first: Vec<Evaluation>,
    /// After recovery (the same as `first` when none ran).
    last: Vec<Evaluation>,
    /// Each attempt with the index of its check.
    attempts: Vec<(usize, RecoveryAttempt)>,
    provenance_present: bool,
    /// The context as it is after recovery.
    context: Cow<'c, Value>,
}

fn evaluate_staleness<'c>(
    target: &Target<'_>,
    request: &'c ResumeRequest,
    recoverer: Option<&mut dyn Recoverer>,
) -> Result<Staleness<'c>, ResumeError> {
    let checks = &target.spec.on_resume.staleness_checks;
    let evaluate = |provenance: &Provenance| {
        staleness::evaluate(checks, provenance, request.now, request.max_clock_skew)
    };
    require_mapping(&request.context)?;
    let provenance = staleness::read_provenance(&request.context)?;
    let first = evaluate(&provenance);
    let mut result = Staleness {
        last: first.clone(),
        first,
        attempts: Vec::new(),
        provenance_present: matches!(provenance, Provenance::Present(_)),
        context: Cow::Borrowed(&request.context),
    };
    let Some(recoverer) = recoverer else {
        return Ok(result);
    };
    let command = recoverer.describe();
    for (i, e) in result.first.iter().enumerate() {
        if !e.is_stale() || e.severity == FieldSeverity::Advisory {
            continue;
        }
        let Some(strategy @ (Recovery::ReRetrieve | Recovery::ReGenerate)) = e.recovery else {
            continue;
        };
        let outcome = recoverer.recover(&RecoveryRequest {
            checkpoint_id: &target.checkpoint_id,
            phase: &target.phase.name,
            field: &e.field,
            strategy,
        });
        let (outcome, exit_code, detail) = match outcome {
            RecoveryOutcome::Recovered { detail } => (AttemptOutcome::Recovered, Some(0), detail),
            RecoveryOutcome::Failed { exit_code, detail } => {
                (AttemptOutcome::Failed, exit_code, detail)
            }
            RecoveryOutcome::TimedOut { detail } => (AttemptOutcome::TimedOut, None, detail),
            RecoveryOutcome::NotStarted { detail } => (AttemptOutcome::NotStarted, None, detail),
        };
        result.attempts.push((
            i,
            RecoveryAttempt {
                field: e.field.clone(),
                strategy,
                command: command.clone(),
                outcome,
                exit_code,
                detail,
                recovered: false,
            },
        ));
    }
    if result
        .attempts
        .iter()
        .any(|(_, a)| a.outcome == AttemptOutcome::Recovered)
    {
        let reread = recoverer.reread_context().map_err(ResumeError::Reread)?;
        require_mapping(&reread)?;
        let provenance = staleness::read_provenance(&reread)?;
        result.provenance_present = matches!(provenance, Provenance::Present(_));
        result.last = evaluate(&provenance);
        result.context = Cow::Owned(reread);
    }
    Ok(result)
}

/// The fields of the checks that satisfy `keep`, in declaration order.
fn fields_where(checks: &[Evaluation], keep: impl Fn(&Evaluation) -> bool) -> Vec<String> {
    checks
        .iter()
        .filter(|e| keep(e))
        .map(|e| e.field.clone())
        .collect()
}

fn checked_field(e: &Evaluation) -> CheckedField {
    CheckedField {
        field: e.field.clone(),
        state: match e.state {
            State::Fresh => FieldState::Fresh,
            State::Stale => FieldState::Stale,
            State::Unknown => FieldState::Unknown,
        },
        elapsed_seconds: e.elapsed_seconds,
        max_age_seconds: e.max_age_seconds,
        severity: e.severity,
        reason: e.reason.clone(),
    }
}

/// What an operator console needs to render a denial without deriving
/// anything itself.
fn denial(
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
pub fn trigger_category(target: &Target<'_>, next: &[&Phase]) -> Option<TriggerCategory> {
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

/// What failed and what is only reported, one sentence each.
fn findings(
    stale_fields: &[StaleField],
    provenance_present: bool,
    missing_provenance: &[String],
    entry: &EntryRevalidation,
    approval_missing: Option<&str>,
) -> (Vec<String>, Vec<String>) {
    let mut failures = Vec::new();
    let mut warnings = Vec::new();
    for s in stale_fields.iter().filter(|s| s.is_stale) {
        if s.blocking {
            failures.push(format!(
                "`{}` is stale and blocks the resume: {}",
                s.field, s.reason
            ));
        } else {
            warnings.push(format!(
                "`{}` is stale ({}): {}",
                s.field,
                s.severity.as_str(),
                s.reason
            ));
        }
    }
    if !provenance_present && !missing_provenance.is_empty() {
        warnings.push(format!(
            "the context has no `{PROVENANCE_KEY}`: {} checked field{} of unknown age (missing_provenance)",
            missing_provenance.len(),
            if missing_provenance.len() == 1 { " is" } else { "s are" }
        ));
    }
    for r in &entry.field_results {
        match r.status {
            FieldStatus::Failed => failures.push(format!(
                "entry field `{}` of phase `{}`: {}",
                r.field, r.phase, r.message
            )),
            FieldStatus::Defaulted | FieldStatus::Partial => warnings.push(format!(
                "entry field `{}` of phase `{}`: {}",
                r.field, r.phase, r.message
            )),
            FieldStatus::Propagated => {}
        }
    }
    if let Some(reason) = approval_missing {
        failures.push(reason.to_string());
    }
    (failures, warnings)
}

pub(crate) fn require_mapping(context: &Value) -> Result<(), ResumeError> {
    if context.is_object() {
        Ok(())
    } else {
        Err(ResumeError::ContextNotMapping {
            found: type_name(context),
        })
    }
}

/// The phases the run resumes into: the one `--next-phase` names, which
/// must be a graph successor of the checkpoint's phase (an approval binds
/// the successors, so any other phase would run unapproved), or all of them.
pub(crate) fn next_phases<'a>(
    target: &Target<'a>,
    named: Option<&str>,
) -> Result<(Vec<&'a Phase>, NextPhaseSource), ResumeError> {
    let contract = target.contract;
    let successors = target.successor_phases();
    if let Some(name) = named {
        if let Some(phase) = successors.iter().find(|p| p.name == name) {
            return Ok((vec![*phase], NextPhaseSource::NextPhase));
        }
        return Err(match contract.phase(name) {
            None => ResumeError::UnknownPhase {
                name: name.to_string(),
                known: contract.phase_names().map(str::to_string).collect(),
            },
            Some(_) => ResumeError::NotASuccessor {
                name: name.to_string(),
                phase: target.phase.name.clone(),
                successors: successors.iter().map(|p| p.name.clone()).collect(),
            },
        });
    }
    let source = if successors.is_empty() {
        NextPhaseSource::None
    } else {
        NextPhaseSource::Graph
    };
    Ok((successors, source))
}

fn stale_fields(
    first: &[Evaluation],
    last: &[Evaluation],
    attempts: &mut [(usize, RecoveryAttempt)],
) -> Vec<StaleField> {
    let mut out = Vec::new();
    for (i, (f, l)) in first.iter().zip(last).enumerate() {
        if !f.is_stale() && !l.is_stale() {
            continue;
        }
        let attempt = attempts.iter_mut().find(|(j, _)| *j == i).map(|(_, a)| a);
        let attempted = attempt.is_some();
        let hook_ok = attempt
            .as_ref()
            .is_some_and(|a| a.outcome == AttemptOutcome::Recovered);
        let succeeded = hook_ok && !l.is_stale();
        let mut reason = l.reason.clone();
        if f.is_stale() && !l.is_stale() {
            reason = format!("recovered: was stale ({}); now {}", f.reason, l.reason);
        } else if hook_ok {
            reason.push_str(
                "; the recovery hook exited 0 but the field is still stale after re-reading the context",
            );
        } else if let Some(a) = &attempt {
            reason.push_str(&format!("; recovery failed: {}", a.detail));
        } else if l.severity == FieldSeverity::Advisory {
            reason.push_str("; advisory: listed only, no recovery");
        } else {
            match l.recovery {
                Some(Recovery::Fail) => {
                    reason.push_str("; recovery `fail`: never resumes past a stale value")
                }
                Some(Recovery::LogAndContinue) => {
                    reason.push_str("; recovery `log_and_continue`: no recovery is run");
                }
                None => reason.push_str("; the check names no recovery strategy"),
                Some(Recovery::ReRetrieve | Recovery::ReGenerate) => {}
            }
        }
        if let Some(a) = attempt {
            a.recovered = succeeded;
        }
        // The finding as detected: before recovery when it was stale then.
        let found = if f.is_stale() { f } else { l };
        out.push(StaleField {
            field: l.field.clone(),
            elapsed_seconds: found.elapsed_seconds,
            max_age_seconds: l.max_age_seconds,
            is_stale: l.is_stale(),
            severity: l.severity,
            recovery: l.recovery,
            blocking: l.blocks(),
            reason,
            recovery_attempted: attempted,
            recovery_succeeded: succeeded,
            set_at: found.set_at.clone(),
            description: l.description.clone(),
        });
    }
    out
}

fn revalidate(
    target: &Target<'_>,
    next: &[&Phase],
    source: NextPhaseSource,
    enabled: bool,
    context: &Value,
) -> Result<EntryRevalidation, ResumeError> {
    let phases: Vec<String> = next.iter().map(|p| p.name.clone()).collect();
    let single = (phases.len() == 1).then(|| phases[0].clone());
    if !enabled {
        return Ok(EntryRevalidation {
            performed: false,
            phase: single,
            phases,
            next_phase_source: source,
            passed: true,
            field_results: Vec::new(),
            reason: "revalidate_entry is false: entry requirements are not re-checked".into(),
        });
    }
    // A field listed again (or by several next phases) is looked up once.
    let mut lookups: HashMap<(&str, Option<&str>), Lookup> = HashMap::new();
    let mut budget = ENTRY_VISIT_BUDGET;
    let mut field_results = Vec::new();
    for phase in next {
        for field in phase.entry_required() {
            let name = field.name.value.as_str();
            let declared = field.field_type().map(|t| t.value.as_str());
            let lookup = match lookups.entry((name, declared)) {
                Entry::Occupied(found) => found.into_mut(),
                Entry::Vacant(slot) => {
                    slot.insert(look_up(context, name, declared, &mut budget).map_err(
                        |TooMuchWork| ResumeError::TooMuchWork {
                            visits: ENTRY_VISIT_BUDGET,
                        },
                    )?)
                }
            };
            let default = field
                .default()
                .and_then(|span| target.facts.default_at(span).cloned());
            field_results.push(check_field(phase, field, lookup, default));
        }
    }
    let passed = field_results
        .iter()
        .all(|r| r.status != FieldStatus::Failed);
    let names = crate::diagnostic::code_list(phases.iter());
    let reason = match source {
        NextPhaseSource::NextPhase => {
            format!("entry requirements of {names} (the named next phase)")
        }
        NextPhaseSource::Graph => format!(
            "entry requirements of {names} (graph successor{} of `{}`)",
            if phases.len() == 1 { "" } else { "s" },
            target.phase.name
        ),
        _ => format!(
            "phase `{}` has no successor: no entry requirements to re-check (name a next phase to check one)",
            target.phase.name
        ),
    };
    Ok(EntryRevalidation {
        performed: true,
        phase: single,
        phases,
        next_phase_source: source,
        passed,
        field_results,
        reason,
    })
}

fn authorization_statement(target: &Target<'_>, next: &[&Phase], stale: &[String]) -> String {
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

struct Gate {
    status: ApprovalStatus,
    policy: Option<ApprovalPolicy>,
    trust_state: TrustState,
}

/// What the approval gate judges.
struct GateInput<'a> {
    analysis: &'a Analysis,
    target: &'a Target<'a>,
    /// The phases the run resumes into.
    next: &'a [&'a Phase],
    request: &'a ResumeRequest,
    context: &'a Value,
    last: &'a [Evaluation],
    stale_now: &'a [String],
    blocking_failure: bool,
    /// The irreversible phases the run resumes into: a person must approve,
    /// whatever the spec's policy says.
    irreversible_next: &'a [String],
}

/// The phases among `next` whose side effects are irreversible.
pub(crate) fn irreversible_phases(next: &[&Phase]) -> Vec<String> {
    next.iter()
        .filter(|p| p.side_effect_class() == SideEffects::Irreversible)
        .map(|p| p.name.clone())
        .collect()
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

fn approve(
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
fn presented_outside(approvals: &[ApprovalSource]) -> usize {
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
fn outside_candidates(
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

#[allow(clippy::too_many_arguments)]
fn gate_result(
    target: &Target<'_>,
    passed: bool,
    decision: Decision,
    failures: &[String],
    warnings: &[String],
    stale_fields: &[StaleField],
    missing_provenance: &[String],
    entry: &EntryRevalidation,
    approval: &ApprovalStatus,
) -> GateResult {
    let mut evidence = Vec::new();
    for s in stale_fields {
        evidence.push(Evidence {
            kind: "staleness",
            reference: s.field.clone(),
            description: s.reason.clone(),
        });
    }
    for f in missing_provenance {
        evidence.push(Evidence {
            kind: "missing_provenance",
            reference: f.clone(),
            description: format!("no `{PROVENANCE_KEY}` stamp for `{f}`"),
        });
    }
    for r in &entry.field_results {
        if r.status != FieldStatus::Propagated {
            evidence.push(Evidence {
                kind: "field_validation",
                reference: format!("{}:{}", r.phase, r.field),
                description: r.message.clone(),
            });
        }
    }
    if approval.required {
        evidence.push(Evidence {
            kind: "approval",
            reference: target.checkpoint_id.clone(),
            description: approval.reason.clone(),
        });
    }
    let reason = if !passed {
        format!("Blocking failures: {}", failures.join("; "))
    } else if warnings.is_empty() {
        "Resume checks passed".to_string()
    } else {
        format!(
            "Resume checks passed with {} warning{}",
            warnings.len(),
            if warnings.len() == 1 { "" } else { "s" }
        )
    };
    GateResult {
        gate_id: format!("checkpoint.{}.resume", target.checkpoint_id),
        phase: target.phase.name.clone(),
        result: if passed {
            GateOutcome::Pass
        } else {
            GateOutcome::Fail
        },
        severity: if !passed {
            GateSeverity::Error
        } else if warnings.is_empty() {
            GateSeverity::Info
        } else {
            GateSeverity::Warning
        },
        reason,
        blocking: decision != Decision::Resume,
        evidence,
    }
}

fn events(
    target: &Target<'_>,
    request: &ResumeRequest,
    passed: bool,
    stale_fields: &[StaleField],
    fresh_fields: &[String],
    missing_provenance: &[String],
    approval: &ApprovalStatus,
) -> Vec<Event> {
    let timestamp = request.now.to_string();
    // The longest elapsed time among the stale fields: unknown when one of
    // them has no known age (no stamp, an unparseable one), which counts
    // as infinitely old (REQ-10-004); 0 when none is stale.
    let max_staleness = stale_fields
        .iter()
        .map(|s| s.elapsed_seconds)
        .try_fold(0, |longest, elapsed| Some(longest.max(elapsed?)));
    // REQ-10-009: an attribute whose value is unknown is left out of the
    // event, never set to null.
    let attributes = |pairs: Vec<(&str, Option<Value>)>| -> BTreeMap<String, Value> {
        pairs
            .into_iter()
            .filter_map(|(k, v)| Some((k.to_string(), v?)))
            .collect()
    };
    let mut events = vec![Event {
        name: "context.checkpoint.resume",
        timestamp: timestamp.clone(),
        attributes: attributes(vec![
            ("checkpoint.id", Some(json!(target.checkpoint_id))),
            ("checkpoint.phase", Some(json!(target.phase.name))),
            ("checkpoint.passed", Some(json!(passed))),
            (
                "checkpoint.stale_field_count",
                Some(json!(stale_fields.len())),
            ),
            (
                "checkpoint.fresh_field_count",
                Some(json!(fresh_fields.len())),
            ),
            (
                "checkpoint.missing_provenance_count",
                Some(json!(missing_provenance.len())),
            ),
            (
                "checkpoint.approval_required",
                Some(json!(approval.required)),
            ),
            ("checkpoint.approval_granted", Some(json!(approval.granted))),
            (
                "checkpoint.enforcement_mode",
                Some(json!(request.mode.as_str())),
            ),
            (
                "checkpoint.max_staleness_seconds",
                max_staleness.map(Value::from),
            ),
        ]),
    }];
    for s in stale_fields {
        events.push(Event {
            name: "context.checkpoint.stale_field",
            timestamp: timestamp.clone(),
            attributes: attributes(vec![
                ("checkpoint.stale.field", Some(json!(s.field))),
                (
                    "checkpoint.stale.elapsed_seconds",
                    s.elapsed_seconds.map(Value::from),
                ),
                (
                    "checkpoint.stale.max_age_seconds",
                    Some(json!(s.max_age_seconds)),
                ),
                ("checkpoint.stale.severity", Some(json!(s.severity))),
                ("checkpoint.stale.recovery", s.recovery.map(|r| json!(r))),
                (
                    "checkpoint.stale.recovery_attempted",
                    Some(json!(s.recovery_attempted)),
                ),
                (
                    "checkpoint.stale.recovery_succeeded",
                    Some(json!(s.recovery_succeeded)),
                ),
            ]),
        });
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;
    use crate::resume::{RecoveryOutcome, Timestamp};

    const CONTRACT: &str = r#"
schema_version: "1"
pipeline_id: unit
phases:
  fetch:
    exit:
      required:
        - name: data
  ship:
    side_effects: irreversible
    entry:
      required:
        - name: data
checkpoint_integrity:
  - checkpoint_id: before_ship
    phase: fetch
    on_resume:
      staleness_checks:
        - field: data
          max_age_seconds: 60
          on_stale: blocking
          recovery: re_retrieve
      approval_required: true
      approval_policy: human
"#;

    fn request(context: Value) -> ResumeRequest {
        ResumeRequest {
            checkpoint_id: "before_ship".into(),
            context,
            now: "2026-03-01T12:00:00Z".parse::<Timestamp>().unwrap(),
            mode: Mode::Strict,
            next_phase: None,
            approvals: Vec::new(),
            max_clock_skew: 300,
            trust_context_approvals: false,
        }
    }

    fn stamped(set_at: &str) -> Value {
        json!({"data": 1, "_cc_propagation": {"data": {"origin_phase": "fetch", "set_at": set_at, "value_hash": "x"}}})
    }

    struct Person(Option<&'static str>, usize);

    impl Operator for Person {
        fn ask(&mut self, question: &ApprovalQuestion) -> Result<Option<String>, String> {
            assert_eq!(question.checkpoint_id, "before_ship");
            // The checkpoint's own phase, `fetch`, is not irreversible; the
            // run resumes into `ship`, which is.
            assert_eq!(question.irreversible_next, ["ship"]);
            self.1 += 1;
            Ok(self.0.map(str::to_string))
        }
    }

    /// No approval in the spec: the irreversible phase after the
    /// checkpoint asks for a person anyway; the one before does not.
    const INTO_IRREVERSIBLE: &str = r#"
schema_version: "1"
pipeline_id: unit
phases:
  fetch:
    exit:
      required:
        - name: data
  ship:
    side_effects: irreversible
    risk_class: critical
    entry:
      required:
        - name: data
  notify: {}
checkpoint_integrity:
  - checkpoint_id: before_ship
    phase: fetch
    on_resume:
      approval_required: false
  - checkpoint_id: after_ship
    phase: ship
    on_resume:
      approval_required: false
"#;

    #[test]
    fn resuming_into_an_irreversible_phase_needs_a_person_whatever_the_spec() {
        let analysis = crate::analyze(INTO_IRREVERSIBLE, &Settings::default());
        let mut before = request(json!({"data": 1}));
        let report = check(&analysis, &before, None, None).unwrap();
        assert_eq!(report.decision, Decision::Denied);
        assert!(report.approval_status.required);
        assert_eq!(report.approval_status.policy, Some(ApprovalPolicy::Human));
        assert_eq!(report.approval_status.irreversible_next, ["ship"]);
        let denial = report.denial.unwrap();
        assert_eq!(denial.required_policy, ApprovalPolicy::Human);
        // The phase resumed into, not the checkpoint's (`fetch`).
        assert_eq!(
            denial.checkpoint_pending.risk_classification,
            RiskClass::Critical
        );
        assert_eq!(
            denial.checkpoint_pending.side_effect_class,
            SideEffects::Irreversible
        );
        // An orchestrator's approval does not do.
        before.approvals = vec![ApprovalSource::File {
            location: "approval.json".into(),
            records: vec![ApprovalRecord {
                approved_by: "scheduler".into(),
                approved_at: "2026-03-01T11:00:00Z".into(),
                policy: "orchestrator".into(),
                checkpoint_id: "before_ship".into(),
                stale_fields_acknowledged: Vec::new(),
                notes: None,
                target_digest: Some(
                    crate::resume::target_digest(&analysis, "before_ship").unwrap(),
                ),
                context_digest: None,
                context_field_digests: None,
            }],
        }];
        let report = check(&analysis, &before, None, None).unwrap();
        assert_eq!(report.decision, Decision::Denied);
        // After the irreversible act, resuming into `notify` needs nothing.
        let mut after = request(json!({"data": 1}));
        after.checkpoint_id = "after_ship".into();
        let report = check(&analysis, &after, None, None).unwrap();
        assert_eq!(report.decision, Decision::Resume);
        assert!(!report.approval_status.required);
    }

    #[test]
    fn an_operator_can_grant_the_missing_human_approval() {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        let mut person = Person(Some("ana"), 0);
        let report = check(
            &analysis,
            &request(stamped("2026-03-01T11:59:30Z")),
            None,
            Some(&mut person),
        )
        .unwrap();
        assert_eq!(person.1, 1);
        assert_eq!(report.decision, Decision::Resume);
        let approval = report.approval_status.approval.unwrap();
        assert_eq!(approval.approved_by, "ana");
        assert_eq!(
            approval.target_digest.as_deref(),
            Some(report.target_digest.as_str())
        );
        assert_eq!(
            report.approval_status.candidates[0].source,
            Origin::Interactive
        );

        let mut refuses = Person(None, 0);
        let report = check(
            &analysis,
            &request(stamped("2026-03-01T11:59:30Z")),
            None,
            Some(&mut refuses),
        )
        .unwrap();
        assert_eq!(report.decision, Decision::Denied);
        let denial = report.denial.unwrap();
        assert_eq!(denial.checkpoint_pending.trust_state, TrustState::Declined);
    }

    #[test]
    fn nobody_is_asked_when_the_resume_is_blocked_anyway() {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        let mut person = Person(Some("ana"), 0);
        let report = check(
            &analysis,
            &request(stamped("2026-03-01T10:00:00Z")),
            None,
            Some(&mut person),
        )
        .unwrap();
        assert_eq!(person.1, 0);
        assert_eq!(report.decision, Decision::Blocked);
    }

    struct Refetch {
        asked: Vec<String>,
    }

    impl Recoverer for Refetch {
        fn describe(&self) -> String {
            "refetch".into()
        }

        fn recover(&mut self, request: &RecoveryRequest<'_>) -> RecoveryOutcome {
            self.asked
                .push(format!("{} {}", request.field, request.strategy.as_str()));
            RecoveryOutcome::Recovered {
                detail: "fetched again".into(),
            }
        }

        fn reread_context(&mut self) -> Result<Value, String> {
            Ok(stamped("2026-03-01T11:59:59Z"))
        }
    }

    #[test]
    fn a_recoverer_is_asked_then_the_context_is_reread() {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        let mut refetch = Refetch { asked: Vec::new() };
        let mut person = Person(Some("ana"), 0);
        let report = check(
            &analysis,
            &request(stamped("2026-03-01T10:00:00Z")),
            Some(&mut refetch),
            Some(&mut person),
        )
        .unwrap();
        assert_eq!(refetch.asked, ["data re_retrieve"]);
        assert_eq!(report.decision, Decision::Resume);
        assert!(report.stale_fields[0].recovery_succeeded);
        assert!(!report.stale_fields[0].is_stale);
        assert_eq!(report.recovery_attempts[0].command, "refetch");
    }

    #[test]
    fn an_unclean_contract_gives_no_verdict() {
        let analysis = crate::analyze("schema_version: 1\nphases: 3\n", &Settings::default());
        let error = check(&analysis, &request(json!({})), None, None).unwrap_err();
        assert!(
            matches!(error, ResumeError::ContractHasErrors { .. }),
            "{error}"
        );
    }
}
