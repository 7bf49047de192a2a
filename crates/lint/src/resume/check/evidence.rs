//! The evidence a report carries: ContextCore's gate result and the events
//! of the check, in the order they happened.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::resume::ResumeRequest;
use crate::resume::entry::FieldStatus;
use crate::resume::report::{
    ApprovalStatus, Decision, EntryRevalidation, Event, Evidence, GateOutcome, GateResult,
    GateSeverity, StaleField,
};
use crate::resume::staleness::PROVENANCE_KEY;
use crate::resume::target::Target;

#[allow(clippy::too_many_arguments)]
pub(super) fn gate_result(
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

pub(super) fn events(
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
