//! The operator's queue (`phaselint checkpoints`, and the walk of
//! `phaselint approve --interactive`): every checkpoint of a contract in
//! graph order, with why it waits for approval, which approval it needs,
//! where its approval stands and whether a resume from it would be refused
//! now. Each checkpoint is judged by the resume check itself (`check`, or
//! with no context the same record validation on what the context does not
//! decide), so the queue never says "approved" where `resume-check` would
//! deny.

use serde::Serialize;
use serde_json::Value;

use crate::Analysis;
use crate::model::ApprovalPolicy;
use crate::resume::approval::{ApprovalQuestion, ApprovalSource, ResumedPhase};
use crate::resume::check::gate::{
    UncheckedApproval, judge_without_context, question, required_policy, trigger_category,
};
use crate::resume::context_binding::ContextBinding;
use crate::resume::document::type_name;
use crate::resume::report::{Decision, Mode, TriggerCategory, TrustState};
use crate::resume::target::Target;
use crate::resume::{ResumeError, ResumeRequest, Timestamp};

/// What the queue is judged with besides the contract.
#[derive(Clone, Debug)]
pub struct QueueRequest {
    /// The context the run would resume with; `None`: not given, so no
    /// item is "approved" and whether one blocks is unknown.
    pub context: Option<Value>,
    /// Approvals from outside the context (`--approvals` files), for every
    /// checkpoint.
    pub approvals: Vec<ApprovalSource>,
    pub now: Timestamp,
    pub max_clock_skew: u64,
    pub trust_context_approvals: bool,
}

/// The queue: every checkpoint, in graph order.
#[derive(Clone, Debug, Serialize)]
pub struct Queue {
    /// The version of this JSON shape.
    pub(crate) version: u32,
    pub pipeline_id: String,
    pub now: String,
    /// Whether a context was given.
    pub(crate) context_checked: bool,
    /// How many checkpoints wait for an operator (`pending` items).
    pub pending: usize,
    /// How many checkpoints cannot be checked (`resume-check` would give
    /// no verdict there): never "nothing waits".
    pub no_verdict: usize,
    pub checkpoints: Vec<QueueItem>,
}

/// One checkpoint of the queue.
#[derive(Clone, Debug, Serialize)]
pub struct QueueItem {
    pub checkpoint_id: String,
    /// The phase the checkpoint is taken after.
    pub phase: String,
    /// The phases a resume from it runs next (its phase's graph
    /// successors), with their side effects and risk.
    pub resumes_into: Vec<ResumedPhase>,
    /// Why the resume waits for approval; `null` when it needs none.
    pub trigger: Option<TriggerCategory>,
    /// The approval it needs; `null` when it needs none.
    pub required_policy: Option<ApprovalPolicy>,
    pub approval_state: ApprovalState,
    /// Who gave the approval that holds (or, without a context, is on file).
    pub(crate) approved_by: Option<String>,
    /// One sentence: why the approval stands where it does.
    pub approval_reason: String,
    /// It waits for an operator: its approval is required and missing,
    /// invalid, or a harness request waits for its grant.
    pub pending: bool,
    /// Whether `resume-check` at this checkpoint would refuse to resume
    /// (strict mode, this context); `null` without a context.
    pub blocks_now: Option<bool>,
    /// What `resume-check` would decide; `null` without a context, or
    /// when it would reach no verdict.
    pub decision: Option<Decision>,
    /// What would fail, one sentence each (with a context).
    pub failures: Vec<String>,
    /// The fields stale now (with a context): an approval acknowledges them.
    pub stale_fields: Vec<String>,
    /// `null` when the checkpoint cannot be checked at all.
    pub target_digest: Option<String>,
    /// Why `resume-check` would reach no verdict at this checkpoint (exit 3).
    pub no_verdict: Option<String>,
}

/// Where a checkpoint's approval stands in the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalState {
    /// No approval is required.
    NotRequired,
    /// With a context: a valid approval grants the resume.
    Approved,
    /// With a context: `auto_if_fresh`, and every blocking field is fresh.
    AutoApproved,
    /// Without a context: an approval on file holds for the checkpoint as
    /// it stands; the context (stale fields, context digest) may still
    /// void it.
    Recorded,
    /// Nothing was presented.
    Unapproved,
    /// Every approval presented is invalid.
    Rejected,
    /// A harness request waits for its grant.
    Pending,
    /// Without a context: `auto_if_fresh` with no approval; the context's
    /// staleness decides.
    Unknown,
    /// The checkpoint cannot be checked (see `no_verdict`).
    NoVerdict,
}

impl ApprovalState {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalState::NotRequired => "not_required",
            ApprovalState::Approved => "approved",
            ApprovalState::AutoApproved => "auto_approved",
            ApprovalState::Recorded => "recorded",
            ApprovalState::Unapproved => "unapproved",
            ApprovalState::Rejected => "rejected",
            ApprovalState::Pending => "pending",
            ApprovalState::Unknown => "unknown",
            ApprovalState::NoVerdict => "no_verdict",
        }
    }

    /// Whether the checkpoint waits for an operator.
    fn waits(self) -> bool {
        matches!(
            self,
            ApprovalState::Unapproved | ApprovalState::Rejected | ApprovalState::Pending
        )
    }
}

/// Lists every checkpoint of the contract in graph order, judged with
/// `request`. `harness` gives the harness sentinels of one checkpoint
/// (`--harness-dir`); `Err` there makes that checkpoint no verdict, as it
/// makes `resume-check` exit 3.
pub fn queue(
    analysis: &Analysis,
    request: QueueRequest,
    harness: &mut dyn FnMut(&str) -> Result<Vec<ApprovalSource>, String>,
) -> Result<Queue, ResumeError> {
    let errors = super::contract_errors(analysis);
    if !errors.is_empty() {
        return Err(ResumeError::ContractHasErrors {
            findings: super::first_findings(errors.iter().map(ToString::to_string)),
        });
    }
    let Some(contract) = analysis.contract() else {
        return Err(ResumeError::ContractHasErrors {
            findings: vec!["the contract could not be loaded".into()],
        });
    };
    if let Some(context) = request.context.as_ref().filter(|c| !c.is_object()) {
        return Err(ResumeError::ContextNotMapping {
            found: type_name(context),
        });
    }
    // Graph order of the checkpoints' phases; a checkpoint on an unknown
    // phase (no verdict) goes last; ties keep declaration order.
    let mut rank = vec![usize::MAX; contract.phases.len()];
    if let Some(graph) = analysis.graph() {
        for (position, phase) in graph.order().into_iter().enumerate() {
            if let Some(slot) = rank.get_mut(phase) {
                *slot = position;
            }
        }
    }
    let mut order: Vec<(usize, usize)> = contract
        .checkpoints
        .iter()
        .enumerate()
        .map(|(index, spec)| {
            let position = spec
                .phase
                .as_ref()
                .and_then(|p| contract.phase_index(&p.value))
                .and_then(|p| rank.get(p).copied())
                .unwrap_or(usize::MAX);
            (position, index)
        })
        .collect();
    order.sort();

    let context_checked = request.context.is_some();
    // One request, its checkpoint and approvals changed per item: the
    // context is read once and never copied.
    let mut resume = ResumeRequest {
        checkpoint_id: String::new(),
        context: request.context.unwrap_or(Value::Null),
        now: request.now,
        mode: Mode::Strict,
        next_phase: None,
        approvals: Vec::new(),
        max_clock_skew: request.max_clock_skew,
        trust_context_approvals: request.trust_context_approvals,
    };
    let mut items = Vec::with_capacity(order.len());
    for (_, index) in order {
        let spec = &contract.checkpoints[index];
        let id = spec
            .checkpoint_id
            .as_ref()
            .map_or(String::new(), |i| i.value.clone());
        let phase = spec
            .phase
            .as_ref()
            .map_or(String::new(), |p| p.value.clone());
        // A file's records for other checkpoints are theirs, not this
        // one's: left out here, so they do not read as rejected approvals
        // of every other checkpoint of the queue.
        let mut approvals: Vec<ApprovalSource> = request
            .approvals
            .iter()
            .map(|source| match source {
                ApprovalSource::File { location, records } => ApprovalSource::File {
                    location: location.clone(),
                    records: records
                        .iter()
                        .filter(|r| r.checkpoint_id == id)
                        .cloned()
                        .collect(),
                },
                other => other.clone(),
            })
            .collect();
        let item = match harness(&id) {
            Err(problem) => Err(problem),
            Ok(sentinels) => {
                approvals.extend(sentinels);
                resume.checkpoint_id.clone_from(&id);
                resume.approvals = approvals;
                judge(analysis, &resume, context_checked).map_err(|e| e.to_string())
            }
        };
        items.push(item.unwrap_or_else(|problem| {
            // What the contract alone says of the checkpoint still holds
            // when this context or these files cannot be checked.
            let target = Target::find(analysis, &id).ok();
            let next = target
                .as_ref()
                .map_or_else(Vec::new, |t| t.successor_phases());
            QueueItem {
                checkpoint_id: id,
                phase,
                resumes_into: next.iter().map(|p| ResumedPhase::of(p)).collect(),
                trigger: target.as_ref().and_then(|t| trigger_category(t, &next)),
                required_policy: target
                    .as_ref()
                    .and_then(|t| required_policy(&t.spec.on_resume, &t.irreversible_next())),
                approval_state: ApprovalState::NoVerdict,
                approved_by: None,
                approval_reason: "the checkpoint cannot be checked".into(),
                pending: false,
                // `resume-check` would exit 3 here, whatever the context: never
                // a resume.
                blocks_now: Some(true),
                decision: None,
                failures: Vec::new(),
                stale_fields: Vec::new(),
                target_digest: target.as_ref().map(|t| t.digest.clone()),
                no_verdict: Some(problem),
            }
        }));
    }
    Ok(Queue {
        version: 1,
        pipeline_id: contract
            .pipeline_id
            .as_ref()
            .map_or(String::new(), |p| p.value.clone()),
        now: request.now.to_string(),
        context_checked,
        pending: items.iter().filter(|i| i.pending).count(),
        no_verdict: items.iter().filter(|i| i.no_verdict.is_some()).count(),
        checkpoints: items,
    })
}

/// One checkpoint: by the resume check itself with a context, by the
/// approvals alone without.
fn judge(
    analysis: &Analysis,
    request: &ResumeRequest,
    context_checked: bool,
) -> Result<QueueItem, ResumeError> {
    let target = Target::find(analysis, &request.checkpoint_id)?;
    let next = target.successor_phases();
    let irreversible = target.irreversible_next();
    let mut item = QueueItem {
        checkpoint_id: target.checkpoint_id.clone(),
        phase: target.phase.name.clone(),
        resumes_into: next.iter().map(|p| ResumedPhase::of(p)).collect(),
        trigger: trigger_category(&target, &next),
        required_policy: required_policy(&target.spec.on_resume, &irreversible),
        approval_state: ApprovalState::NotRequired,
        approved_by: None,
        approval_reason: String::new(),
        pending: false,
        blocks_now: None,
        decision: None,
        failures: Vec::new(),
        stale_fields: Vec::new(),
        target_digest: Some(target.digest.clone()),
        no_verdict: None,
    };
    if context_checked {
        let report = super::check(analysis, request, None, None)?;
        let status = &report.approval_status;
        item.approval_state = if !status.required {
            ApprovalState::NotRequired
        } else if status.granted && status.auto_granted {
            ApprovalState::AutoApproved
        } else if status.granted {
            ApprovalState::Approved
        } else {
            match report
                .denial
                .as_ref()
                .map(|d| d.checkpoint_pending.trust_state)
            {
                Some(TrustState::Pending) => ApprovalState::Pending,
                Some(TrustState::Rejected) => ApprovalState::Rejected,
                _ => ApprovalState::Unapproved,
            }
        };
        item.approved_by = status
            .approval
            .as_ref()
            .filter(|_| status.granted)
            .map(|r| r.approved_by.clone());
        item.approval_reason = status.reason.clone();
        item.blocks_now = Some(report.decision != Decision::Resume);
        item.decision = Some(report.decision);
        item.failures = report.failures;
        item.stale_fields = report
            .stale_fields
            .iter()
            .filter(|s| s.is_stale)
            .map(|s| s.field.clone())
            .collect();
    } else {
        let (state, candidates) = judge_without_context(
            &target,
            &request.approvals,
            request.now,
            request.trust_context_approvals,
        )?;
        let valid = candidates.iter().find(|c| c.valid);
        item.approved_by = valid
            .and_then(|c| c.record.as_ref())
            .map(|r| r.approved_by.clone());
        let invalid: Vec<String> = candidates
            .iter()
            .filter(|c| !c.valid)
            .map(|c| format!("{}: {}", c.location, c.problems.join("; ")))
            .collect();
        (item.approval_state, item.approval_reason) = match state {
            UncheckedApproval::NotRequired => {
                (ApprovalState::NotRequired, "approval not required".into())
            }
            UncheckedApproval::Pending => (
                ApprovalState::Pending,
                format!(
                    "a harness request waits for its grant: {}",
                    invalid.join(" | ")
                ),
            ),
            UncheckedApproval::Recorded => (
                ApprovalState::Recorded,
                format!(
                    "an approval{} is on file for the checkpoint as it stands; whether it holds for the resume (stale fields to acknowledge, the context digest) depends on the context: pass --context",
                    valid.map_or(String::new(), |c| format!(" from {}", c.location))
                ),
            ),
            UncheckedApproval::DependsOnContext => (
                ApprovalState::Unknown,
                "approval_policy auto_if_fresh: granted when every blocking staleness check is fresh; pass --context to judge it".into(),
            ),
            UncheckedApproval::Rejected => (
                ApprovalState::Rejected,
                format!("no approval presented is valid: {}", invalid.join(" | ")),
            ),
            UncheckedApproval::Unapproved => (
                ApprovalState::Unapproved,
                "approval required and none was presented (without --context, approvals the context holds are not read)".into(),
            ),
        };
    }
    item.pending = item.approval_state.waits();
    Ok(item)
}

/// What an operator is shown before approving a resume from
/// `checkpoint_id` into every phase it leads to (`approve`): the same
/// question `resume-check --interactive` asks. `context` is the one the
/// approval will be bound to, read once by the caller: the context digest
/// shown is the one written.
pub fn approval_question(
    analysis: &Analysis,
    checkpoint_id: &str,
    context: Option<&ContextBinding>,
    stale_fields: &[String],
    now: Timestamp,
) -> Result<ApprovalQuestion, ResumeError> {
    let target = Target::find(analysis, checkpoint_id)?;
    question(
        analysis,
        &target,
        &target.successor_phases(),
        now,
        stale_fields,
        context,
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::config::Settings;
    use crate::resume::{ApprovalRecord, Timestamp};

    /// Declared out of graph order: `graph_topology` runs plan -> build
    /// -> ship, the file lists ship first.
    const CONTRACT: &str = r#"
schema_version: "1"
pipeline_id: unit
phases:
  ship:
    side_effects: irreversible
    risk_class: critical
    entry:
      required:
        - name: artifact
  build:
    risk_class: high
    entry:
      required:
        - name: plan
    exit:
      required:
        - name: artifact
  plan:
    exit:
      required:
        - name: plan
graph_topology:
  graph_id: unit
  nodes:
    plan: {}
    build: {}
    ship: {}
  edges:
    - from: plan
      to: build
    - from: build
      to: ship
checkpoint_integrity:
  - checkpoint_id: before_ship
    phase: build
    on_resume:
      approval_required: true
      approval_policy: human
  - checkpoint_id: after_plan
    phase: plan
    on_resume:
      approval_required: true
      approval_policy: human
  - checkpoint_id: after_ship
    phase: ship
"#;

    fn now() -> Timestamp {
        "2026-03-01T12:00:00Z".parse().unwrap()
    }

    fn request(context: Option<Value>, records: Vec<ApprovalRecord>) -> QueueRequest {
        QueueRequest {
            context,
            approvals: vec![ApprovalSource::File {
                location: "approvals.json".into(),
                records,
            }],
            now: now(),
            max_clock_skew: 300,
            trust_context_approvals: false,
        }
    }

    fn record(analysis: &Analysis, id: &str, context: Option<&Value>) -> ApprovalRecord {
        let target = Target::find(analysis, id).unwrap();
        let binding = context.map(|c| ContextBinding::of(&target.successor_phases(), c));
        ApprovalRecord {
            approved_by: "ana".into(),
            approved_at: "2026-03-01T11:00:00Z".into(),
            policy: "human".into(),
            checkpoint_id: id.into(),
            stale_fields_acknowledged: Vec::new(),
            notes: None,
            target_digest: Some(target.digest.clone()),
            context_digest: binding.as_ref().map(|b| b.digest.clone()),
            context_field_digests: binding.map(|b| b.field_digests),
        }
    }

    fn no_harness(_: &str) -> Result<Vec<ApprovalSource>, String> {
        Ok(Vec::new())
    }

    #[test]
    fn checkpoints_come_in_graph_order_with_their_trigger_and_policy() {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        let queue = queue(&analysis, request(None, Vec::new()), &mut no_harness).unwrap();
        let listed: Vec<(&str, Option<TriggerCategory>, Option<ApprovalPolicy>)> = queue
            .checkpoints
            .iter()
            .map(|i| (i.checkpoint_id.as_str(), i.trigger, i.required_policy))
            .collect();
        assert_eq!(
            listed,
            [
                (
                    "after_plan",
                    Some(TriggerCategory::HighRiskOperation),
                    Some(ApprovalPolicy::Human)
                ),
                (
                    "before_ship",
                    Some(TriggerCategory::IrreversibleNextPhase),
                    Some(ApprovalPolicy::Human)
                ),
                ("after_ship", None, None),
            ]
        );
        assert_eq!(queue.pending, 2);
        assert!(queue.checkpoints.iter().all(|i| i.blocks_now.is_none()));
    }

    #[test]
    fn without_a_context_nothing_is_approved() {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        let context = json!({"plan": "p", "artifact": "a"});
        let records = vec![
            record(&analysis, "after_plan", None),
            record(&analysis, "before_ship", Some(&context)),
        ];
        let queue = queue(&analysis, request(None, records), &mut no_harness).unwrap();
        let states: Vec<ApprovalState> =
            queue.checkpoints.iter().map(|i| i.approval_state).collect();
        assert_eq!(
            states,
            [
                ApprovalState::Recorded,
                ApprovalState::Recorded,
                ApprovalState::NotRequired
            ]
        );
        assert_eq!(queue.pending, 0);
        // An irreversible resume needs a record bound to a context: one
        // without fails whatever the context, so it is rejected here too.
        let unbound = vec![record(&analysis, "before_ship", None)];
        let listed = super::queue(&analysis, request(None, unbound), &mut no_harness).unwrap();
        assert_eq!(
            listed.checkpoints[1].approval_state,
            ApprovalState::Rejected
        );
    }

    /// With a context the queue says "approved" exactly where the resume
    /// check grants: the same record, the same context, a widened one.
    #[test]
    fn with_a_context_the_queue_agrees_with_the_resume_check() {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        let approved_with = json!({"plan": "p", "artifact": "a"});
        let records = vec![
            record(&analysis, "after_plan", Some(&approved_with)),
            record(&analysis, "before_ship", Some(&approved_with)),
        ];
        for context in [
            approved_with.clone(),
            json!({"plan": "p", "artifact": "other"}),
            json!({"plan": "q", "artifact": "a"}),
            json!({}),
        ] {
            let queue = queue(
                &analysis,
                request(Some(context.clone()), records.clone()),
                &mut no_harness,
            )
            .unwrap();
            for item in &queue.checkpoints {
                let report = crate::resume::check(
                    &analysis,
                    &ResumeRequest {
                        checkpoint_id: item.checkpoint_id.clone(),
                        context: context.clone(),
                        now: now(),
                        mode: Mode::Strict,
                        next_phase: None,
                        approvals: vec![ApprovalSource::File {
                            location: "approvals.json".into(),
                            records: records.clone(),
                        }],
                        max_clock_skew: 300,
                        trust_context_approvals: false,
                    },
                    None,
                    None,
                )
                .unwrap();
                let approved = matches!(
                    item.approval_state,
                    ApprovalState::Approved | ApprovalState::AutoApproved
                );
                assert_eq!(
                    approved,
                    report.approval_status.required && report.approval_status.granted,
                    "{} with {context}",
                    item.checkpoint_id
                );
                assert_eq!(item.decision, Some(report.decision));
                assert_eq!(item.blocks_now, Some(report.decision != Decision::Resume));
            }
        }
    }

    #[test]
    fn a_context_that_is_not_a_mapping_gives_no_queue() {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        assert!(matches!(
            queue(
                &analysis,
                request(Some(json!([1])), Vec::new()),
                &mut no_harness
            ),
            Err(ResumeError::ContextNotMapping { .. })
        ));
    }

    #[test]
    fn the_canonical_form_shown_is_what_the_digest_binds() {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        let question = approval_question(&analysis, "before_ship", None, &[], now()).unwrap();
        let target = Target::find(&analysis, "before_ship").unwrap();
        assert_eq!(question.target_digest, target.digest);
        use sha2::Digest;
        let hashed = sha2::Sha256::digest(question.canonical_form.as_bytes());
        let hex: String = hashed.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, target.digest);
        assert!(question.canonical_form.starts_with("{\"checkpoint\":"));
        assert_eq!(
            question.reversibility,
            crate::model::SideEffects::Irreversible
        );
    }
}
