//! `resume-check --format contextcore`: the verdict exactly as ContextCore's
//! own models would serialize it, so an orchestrator can load it with
//! `CheckpointResumeResult.model_validate_json` (REQ-10-012, every model
//! `extra="forbid"`). Each struct here is one model, its fields in the
//! model's order, with nothing the model does not declare: phaselint's
//! other findings (reasons, attempts, digests, the decision, events) are in
//! `--format json` only, and the decision is the exit code.
//!
//! The models: `CheckpointResumeResult` and `StalenessCheckResult`
//! (REQ-10-012, REQ-10-004), `ApprovalRecord` (REQ-10-006), and Layer 1's
//! `ContractValidationResult` and `FieldValidationResult`
//! (`contracts/propagation/validator.py`) for the entry revalidation.

use serde::Serialize;

use crate::Analysis;
use crate::model::{ApprovalPolicy, EnumValue, FieldSeverity, Recovery};
use crate::resume::entry::FieldStatus;
use crate::resume::report::{EntryRevalidation, ResumeReport, StaleField};

/// REQ-10-012's `CheckpointResumeResult`.
#[derive(Clone, Debug, Serialize)]
pub struct CheckpointResumeResult {
    pub(crate) checkpoint_id: String,
    /// The phase the checkpoint follows; empty when the contract declares
    /// no checkpoint specs (REQ-10-011: nothing was checked).
    pub(crate) phase: String,
    pub passed: bool,
    pub(crate) stale_fields: Vec<StalenessCheckResult>,
    pub(crate) fresh_fields: Vec<String>,
    pub(crate) missing_provenance: Vec<String>,
    /// `None` when no entry revalidation ran: `revalidate_entry: false`,
    /// or no phase follows the checkpoint.
    pub(crate) entry_revalidation: Option<ContractValidationResult>,
    /// The record that granted the approval; `None` when none did (not
    /// required, granted by `auto_if_fresh`, or denied).
    pub(crate) approval_status: Option<ApprovalRecord>,
}

/// REQ-10-012's `StalenessCheckResult`; the recovery attempt REQ-10-008
/// records is its `recovery`, `recovery_attempted` and
/// `recovery_succeeded`.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct StalenessCheckResult {
    pub(crate) field: String,
    /// `None` when the age is unknown: no stamp, or an unparseable one
    /// (REQ-10-004's infinite age, which JSON cannot carry).
    pub(crate) elapsed_seconds: Option<i64>,
    pub(crate) max_age_seconds: i64,
    pub(crate) is_stale: bool,
    pub(crate) severity: FieldSeverity,
    pub(crate) recovery: Recovery,
    pub(crate) recovery_attempted: bool,
    pub(crate) recovery_succeeded: bool,
}

/// Layer 1's `ContractValidationResult`, for the entry revalidation.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ContractValidationResult {
    pub(crate) passed: bool,
    /// The phase revalidated; with several graph successors, their names
    /// joined with `,` (ContextCore revalidates one next phase).
    pub(crate) phase: String,
    pub(crate) direction: &'static str,
    pub(crate) field_results: Vec<FieldValidationResult>,
    /// The fields that failed.
    pub(crate) blocking_failures: Vec<String>,
    /// `field: message` for each defaulted or partial field.
    pub(crate) warnings: Vec<String>,
    pub(crate) propagation_status: FieldStatus,
    /// phaselint does not check quality metrics on resume: always empty.
    pub(crate) quality_violations: Vec<QualityViolation>,
}

/// Layer 1's `FieldValidationResult`.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct FieldValidationResult {
    pub(crate) field: String,
    pub(crate) status: FieldStatus,
    pub(crate) severity: FieldSeverity,
    pub(crate) message: String,
    /// A warning field was missing and its declared default takes its place.
    pub(crate) default_applied: bool,
    pub(crate) quality_violations: Vec<QualityViolation>,
    /// phaselint does not run evaluation gates on resume: always `None`.
    pub(crate) evaluation_satisfied: Option<bool>,
}

/// Layer 1's `QualityViolation`: phaselint reports none, so this type has
/// no value and the lists holding it are always empty.
#[derive(Clone, Debug, Serialize)]
pub(crate) enum QualityViolation {}

/// REQ-10-006's `ApprovalRecord`: the keys ContextCore declares, without
/// phaselint's digests.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ApprovalRecord {
    pub approved_by: String,
    pub(crate) approved_at: String,
    pub(crate) policy: ApprovalPolicy,
    pub checkpoint_id: String,
    pub(crate) stale_fields_acknowledged: Vec<String>,
    pub(crate) notes: Option<String>,
}

/// Why `--format contextcore` cannot print the result of checking
/// `checkpoint_id` in this contract, found before anything runs: a
/// staleness check without `recovery`, which ContextCore's
/// `StalenessCheck` requires (REQ-10-002) and its result carries.
pub fn unrepresentable(analysis: &Analysis, checkpoint_id: &str) -> Option<String> {
    let spec = analysis.contract()?.checkpoints.iter().find(|c| {
        c.checkpoint_id
            .as_ref()
            .is_some_and(|id| id.value == checkpoint_id)
    })?;
    let without: Vec<&str> = spec
        .on_resume
        .staleness_checks
        .iter()
        .filter(|check| check.recovery.is_none())
        .filter_map(|check| check.field.as_ref().map(|f| f.value.as_str()))
        .collect();
    if without.is_empty() {
        return None;
    }
    Some(format!(
        "--format contextcore cannot print checkpoint `{checkpoint_id}`: its staleness check{} of {} name{} no `recovery`, which ContextCore's StalenessCheck and StalenessCheckResult require (REQ-10-002, REQ-10-012); add `recovery:` (`re_retrieve`, `re_generate`, `log_and_continue` or `fail`) to {}, or use --format json",
        if without.len() == 1 { "" } else { "s" },
        crate::diagnostic::code_list(without.iter()),
        if without.len() == 1 { "s" } else { "" },
        if without.len() == 1 { "it" } else { "each" },
    ))
}

impl TryFrom<&ResumeReport> for CheckpointResumeResult {
    /// What the model cannot hold (see `unrepresentable`).
    type Error = String;

    fn try_from(report: &ResumeReport) -> Result<Self, String> {
        Ok(CheckpointResumeResult {
            checkpoint_id: report.checkpoint_id.clone(),
            phase: report.phase.clone(),
            passed: report.passed,
            stale_fields: report
                .stale_fields
                .iter()
                .map(staleness_result)
                .collect::<Result<_, _>>()?,
            fresh_fields: report.fresh_fields.clone(),
            missing_provenance: report.missing_provenance.clone(),
            entry_revalidation: entry_result(&report.entry_revalidation),
            approval_status: report
                .approval_status
                .approval
                .as_ref()
                .filter(|_| report.approval_status.granted)
                .map(|record| {
                    Ok::<_, String>(ApprovalRecord {
                        approved_by: record.approved_by.clone(),
                        approved_at: record.approved_at.clone(),
                        policy: ApprovalPolicy::parse_canonical(&record.policy).ok_or_else(
                            || {
                                format!(
                                    "the granting approval's policy `{}` is not one of ContextCore's ApprovalPolicy values",
                                    record.policy
                                )
                            },
                        )?,
                        checkpoint_id: record.checkpoint_id.clone(),
                        stale_fields_acknowledged: record.stale_fields_acknowledged.clone(),
                        notes: record.notes.clone(),
                    })
                })
                .transpose()?,
        })
    }
}

fn staleness_result(stale: &StaleField) -> Result<StalenessCheckResult, String> {
    let recovery = stale.recovery.ok_or_else(|| {
        format!(
            "stale field `{}` has no `recovery`, which ContextCore's StalenessCheckResult requires",
            stale.field
        )
    })?;
    Ok(StalenessCheckResult {
        field: stale.field.clone(),
        elapsed_seconds: stale.elapsed_seconds,
        max_age_seconds: stale.max_age_seconds,
        is_stale: stale.is_stale,
        severity: stale.severity,
        recovery,
        recovery_attempted: stale.recovery_attempted,
        recovery_succeeded: stale.recovery_succeeded,
    })
}

/// The entry revalidation as `validate_entry` reports it: `None` when none
/// ran (disabled, or no phase to resume into).
fn entry_result(entry: &EntryRevalidation) -> Option<ContractValidationResult> {
    if !entry.performed || entry.phases.is_empty() {
        return None;
    }
    let field_results: Vec<FieldValidationResult> = entry
        .field_results
        .iter()
        .map(|r| FieldValidationResult {
            field: r.field.clone(),
            status: r.status,
            severity: r.severity,
            message: if entry.phases.len() > 1 {
                format!("phase `{}`: {}", r.phase, r.message)
            } else {
                r.message.clone()
            },
            default_applied: r.status == FieldStatus::Defaulted && r.default.is_some(),
            quality_violations: Vec::new(),
            evaluation_satisfied: None,
        })
        .collect();
    // As Layer 1's `_validate_fields` sums its fields up.
    let blocking_failures: Vec<String> = field_results
        .iter()
        .filter(|r| r.status == FieldStatus::Failed)
        .map(|r| r.field.clone())
        .collect();
    let warnings: Vec<String> = field_results
        .iter()
        .filter(|r| matches!(r.status, FieldStatus::Defaulted | FieldStatus::Partial))
        .map(|r| format!("{}: {}", r.field, r.message))
        .collect();
    let propagation_status = if !blocking_failures.is_empty() {
        FieldStatus::Failed
    } else if !warnings.is_empty() {
        FieldStatus::Partial
    } else {
        FieldStatus::Propagated
    };
    Some(ContractValidationResult {
        passed: blocking_failures.is_empty(),
        phase: entry.phases.join(","),
        direction: "entry",
        field_results,
        blocking_failures,
        warnings,
        propagation_status,
        quality_violations: Vec::new(),
    })
}
