use serde_json::json;

use super::*;
use crate::config::Settings;
use crate::model::{ApprovalPolicy, RiskClass, SideEffects};
use crate::resume::approval::{ApprovalQuestion, ApprovalRecord, ApprovalSource, Origin};
use crate::resume::report::{Decision, Mode, TrustState};
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
            target_digest: Some(crate::resume::target_digest(&analysis, "before_ship").unwrap()),
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
