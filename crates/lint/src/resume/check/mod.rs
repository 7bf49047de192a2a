//! The resume check itself: staleness, recovery, entry revalidation,
//! approval, mode — in that order, each step reading the context the
//! previous one left. The approval gate is `gate.rs`; the evidence the
//! report carries (gate result and events) is `evidence.rs`.

mod evidence;
pub(super) mod gate;
#[cfg(test)]
mod tests;

pub use gate::required_policy;

use std::borrow::Cow;

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use serde_json::Value;

use self::evidence::{events, gate_result};
use self::gate::{GateInput, approve, authorization_statement, denial};
use crate::Analysis;
use crate::model::{EnumValue, FieldSeverity, Phase, Recovery};
use crate::resume::approval::Operator;
use crate::resume::entry::{
    ENTRY_VISIT_BUDGET, FieldStatus, Lookup, TooMuchWork, check_field, look_up,
};
use crate::resume::report::{
    AttemptOutcome, CheckedField, EntryRevalidation, FieldState, NextPhaseSource, RecoveryAttempt,
    ResumeReport, StaleField, decide,
};
use crate::resume::staleness::{self, Evaluation, PROVENANCE_KEY, Provenance, State};
use crate::resume::target::Target;
use crate::resume::target::irreversible_phases;
use crate::resume::{
    Recoverer, RecoveryOutcome, RecoveryRequest, ResumeError, ResumeRequest, require_mapping,
};

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
            if let Some(contract) = analysis.contract()
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
    report.next_steps = super::next_steps::next_steps(&report, recovery_hook, interactive);
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
