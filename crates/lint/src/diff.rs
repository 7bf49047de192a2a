//! `phaselint diff OLD NEW`: what a contract change does to a run paused
//! under OLD and resumed under NEW (docs/diff.md). Each finding is a
//! diagnostic of the D6xx family, located in NEW, with OLD's location as
//! a related location in OLD's own file.
//!
//! Both contracts are read the way the resume check reads them: a
//! checkpoint is found with `Target::find`, and what it resumes into and
//! what an approval binds are the target's successors and digest, so
//! "what a checkpoint resumes into" has one definition.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::Analysis;
use crate::diagnostic::{Diagnostic, OtherFile, Related};
use crate::model::{EnumValue, Phase};
use crate::resume::{ResumeError, Target, contract_errors};
use crate::rules::Rule;
use crate::syntax::Span;

// `--mode` and the deleted-contract findings (`diff/mode.rs`).
mod mode;
pub use mode::{DiffMode, VOIDS_APPROVALS, contract_deleted, diff_in_mode};

/// The D-codes are declared in the rule registry (`rules/diff/`), so
/// their levels, selection, pages and SARIF metadata are every rule's.
pub use crate::rules::diff::{
    D601_CHECKPOINT_REMOVED, D602_CHECKPOINT_PHASE_CHANGED, D603_RESUME_TARGETS_CHANGED,
    D606_RESUMED_PHASE_RAISED, D611_TARGET_DIGEST_CHANGED, D612_STALENESS_TIGHTENED,
    D613_APPROVAL_STRENGTHENED, D614_PIPELINE_ID_CHANGED, D621_PHASE_ADDED,
};

/// A D-code's finding at its default level: `CODE.at(span, message)`.
trait At {
    fn at(&self, span: Span, message: impl Into<String>) -> Diagnostic;
}

impl At for Rule {
    fn at(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.diagnostic(span, message)
    }
}

/// Every D-code, in code order: the registry's `Family::Diff` rules.
pub fn codes() -> impl Iterator<Item = &'static Rule> {
    crate::rules::RULES
        .iter()
        .copied()
        .filter(|r| r.family == crate::rules::Family::Diff)
}

/// Why no diff could be made. Like the resume check, diff gives no
/// verdict on a contract it cannot read as written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DiffError {
    #[error("the contract has errors, so no diff can be made: {}", findings.join("; "))]
    ContractHasErrors {
        /// `OLD` or `NEW`.
        side: &'static str,
        findings: Vec<String>,
    },
    #[error("it could not be loaded as a context contract")]
    NotAContract { side: &'static str },
}

/// The changes from `old` to `new` that matter to a run paused under OLD
/// and resumed under NEW, located in NEW, in NEW's order.
pub fn diff(old: &Analysis, new: &Analysis) -> Result<Vec<Diagnostic>, DiffError> {
    diff_from(old, Path::new("OLD"), new)
}

/// As `diff`, with OLD's related locations in the file shown as
/// `old_path` (`-` for standard input).
pub fn diff_from(
    old: &Analysis,
    old_path: &Path,
    new: &Analysis,
) -> Result<Vec<Diagnostic>, DiffError> {
    refuse_errors(old, "OLD")?;
    refuse_errors(new, "NEW")?;
    let (Some(old_contract), Some(new_contract)) =
        (old.contract.as_deref(), new.contract.as_deref())
    else {
        let side = if old.contract.is_none() { "OLD" } else { "NEW" };
        return Err(DiffError::NotAContract { side });
    };
    let mut out = Vec::new();
    // OLD's locations are related notes in OLD's own file.
    let old_file = Arc::new(OtherFile::new(old_path, &old.source));
    // Where a finding about something NEW no longer has points: its
    // checkpoints, or the top of the file.
    let new_anchor = new_contract
        .checkpoints
        .first()
        .map_or(Span::new(0, 0), |c| c.span);

    let old_pipeline = old_contract.pipeline_id.as_ref();
    let new_pipeline = new_contract.pipeline_id.as_ref();
    if old_pipeline.map(|p| &p.value) != new_pipeline.map(|p| &p.value) {
        let shown = |p: Option<&crate::model::Spanned<String>>| {
            p.map_or_else(|| "(none)".to_string(), |p| format!("`{}`", p.value))
        };
        let span = new_pipeline.map_or(Span::new(0, 0), |p| p.span);
        let mut d = D614_PIPELINE_ID_CHANGED
            .at(
                span,
                format!(
                    "pipeline_id changed from {} to {}: every approval recorded under OLD is void",
                    shown(old_pipeline),
                    shown(new_pipeline)
                ),
            )
            .with_help("keep the pipeline_id, or approve every paused run again under NEW");
        if let Some(p) = old_pipeline {
            d = d.with_related_in(
                &old_file,
                p.span,
                format!("pipeline_id `{}` was declared here", p.value),
            );
        }
        out.push(d);
    }

    let new_ids: BTreeSet<&str> = ids(new).collect();
    let old_ids: BTreeSet<&str> = ids(old).collect();
    for old_spec in &old_contract.checkpoints {
        let Some(id) = old_spec.checkpoint_id.as_ref() else {
            continue;
        };
        // A checkpoint OLD's resume check refuses holds no resumable run.
        let Ok(old_target) = Target::find(old, &id.value) else {
            continue;
        };
        let old_here = Related {
            span: id.span,
            message: format!("checkpoint `{}` was declared here", id.value),
            file: Some(Arc::clone(&old_file)),
        };
        if !new_ids.contains(id.value.as_str()) {
            let renamed_to = new_ids
                .iter()
                .filter(|n| !old_ids.contains(**n))
                .find(|n| same_apart_from_id(old, &old_target, new, n));
            let (span, message, help) = match renamed_to {
                Some(new_id) => (
                    id_span(new, new_id).unwrap_or(new_anchor),
                    format!(
                        "checkpoint `{new_id}` is renamed from `{}`: runs paused at `{}` cannot resume (resume-check: unknown checkpoint, exit 3)",
                        id.value, id.value
                    ),
                    format!(
                        "keep the checkpoint_id `{}` until no run is paused there, or move those runs to `{new_id}` before deploying",
                        id.value
                    ),
                ),
                None => (
                    new_anchor,
                    format!(
                        "checkpoint `{}` is removed: runs paused there cannot resume (resume-check: unknown checkpoint, exit 3)",
                        id.value
                    ),
                    format!(
                        "keep checkpoint `{}` until no run is paused there, or finish or cancel those runs first",
                        id.value
                    ),
                ),
            };
            out.push(
                D601_CHECKPOINT_REMOVED
                    .at(span, message)
                    .with_help(help)
                    .with_related_location(old_here),
            );
            continue;
        }
        let new_target = match Target::find(new, &id.value) {
            Ok(t) => t,
            Err(error) => {
                out.push(unresumable(new, &old_target, &error, new_anchor, old_here));
                continue;
            }
        };
        compare_checkpoint(
            old,
            &old_file,
            &old_target,
            new,
            &new_target,
            &old_here,
            &mut out,
        );
    }
    added_phases(old, new, &mut out);
    out.sort_by_key(|d| (d.span.start, d.code));
    Ok(out)
}

/// The findings about one checkpoint both contracts declare and can check.
fn compare_checkpoint(
    old: &Analysis,
    old_file: &Arc<OtherFile>,
    old_target: &Target<'_>,
    new: &Analysis,
    new_target: &Target<'_>,
    old_here: &Related,
    out: &mut Vec<Diagnostic>,
) {
    let id = &new_target.checkpoint_id;
    let id_span = new_target
        .spec
        .checkpoint_id
        .as_ref()
        .map_or(new_target.spec.span, |i| i.span);
    let old_phase = &old_target.phase.name;
    let new_phase = &new_target.phase.name;
    let phase_span = new_target.spec.phase.as_ref().map_or(id_span, |p| p.span);
    if old_phase != new_phase {
        let old_still_declared = new_target.contract.phase(old_phase).is_some();
        let renamed = !old_still_declared
            && old_target.contract.phase(new_phase).is_none()
            && phase_text(old, old_target.phase) == phase_text(new, new_target.phase);
        let how = if renamed {
            format!("phase `{old_phase}` is renamed to `{new_phase}`")
        } else if old_still_declared {
            format!("moved from phase `{old_phase}` to `{new_phase}`")
        } else {
            format!("its phase `{old_phase}` is removed; it now follows `{new_phase}`")
        };
        out.push(
            D602_CHECKPOINT_PHASE_CHANGED
                .at(
                    phase_span,
                    format!(
                        "checkpoint `{id}`: {how}: a run paused after `{old_phase}` would resume as if it had finished `{new_phase}`"
                    ),
                )
                .with_help(format!(
                    "keep `{old_phase}` (and checkpoint `{id}` on it) until no run is paused there; give the new placement a new checkpoint_id"
                ))
                .with_related_location(old_here.clone()),
        );
    }

    let names = |t: &Target<'_>| -> Vec<String> {
        t.successor_phases()
            .iter()
            .map(|p| p.name.clone())
            .collect()
    };
    let (old_next, new_next) = (names(old_target), names(new_target));
    let old_set: BTreeSet<&String> = old_next.iter().collect();
    let new_set: BTreeSet<&String> = new_next.iter().collect();
    if old_set != new_set {
        let added: Vec<&&String> = new_set.difference(&old_set).collect();
        let removed: Vec<&&String> = old_set.difference(&new_set).collect();
        let mut parts = Vec::new();
        if !added.is_empty() {
            parts.push(format!("added {}", crate::diagnostic::code_list(added)));
        }
        if !removed.is_empty() {
            parts.push(format!("removed {}", crate::diagnostic::code_list(removed)));
        }
        out.push(
            D603_RESUME_TARGETS_CHANGED
                .at(
                    id_span,
                    format!(
                        "checkpoint `{id}` resumes into {} under NEW instead of {} ({}): a run paused here would continue somewhere it was not approved for",
                        list_or_nothing(&new_next),
                        list_or_nothing(&old_next),
                        parts.join("; ")
                    ),
                )
                .with_help(format!(
                    "keep the edges out of `{new_phase}` as they were until no run is paused at `{id}`, or add the new route behind a new checkpoint"
                ))
                .with_related_location(old_here.clone()),
        );
    }

    for new_next_phase in new_target.successor_phases() {
        let Some(old_next_phase) = old_target
            .successor_phases()
            .into_iter()
            .find(|p| p.name == new_next_phase.name)
        else {
            continue;
        };
        raised(old_file, old_next_phase, new_next_phase, id, out);
    }

    if old_target.digest != new_target.digest {
        out.push(
            D611_TARGET_DIGEST_CHANGED
                .at(
                    id_span,
                    format!(
                        "checkpoint `{id}`'s target digest changed: approvals recorded for it under OLD no longer hold"
                    ),
                )
                .with_help(format!(
                    "approve runs paused at `{id}` again after deploying NEW (`phaselint approve`), or leave the checkpoint, its phase and the phases it resumes into unchanged"
                ))
                .with_related_location(old_here.clone()),
        );
    }

    staleness(old_file, old_target, new_target, out);
    approval(old_target, new_target, id_span, old_here, out);
}

/// D612: a staleness check of the checkpoint is stricter under NEW: a
/// shorter `max_age_seconds`, `on_stale` escalated, `recovery: fail`
/// newly set, or a field checked that OLD did not check.
fn staleness(
    old: &Arc<OtherFile>,
    old_target: &Target<'_>,
    new_target: &Target<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let id = &new_target.checkpoint_id;
    let help = "deploy the stricter check once runs paused under OLD have resumed, or expect their recovery to run";
    let old_checks = &old_target.spec.on_resume.staleness_checks;
    for new_check in &new_target.spec.on_resume.staleness_checks {
        let Some(field) = &new_check.field else {
            continue;
        };
        let name = field.value.as_str();
        let Some(old_check) = old_checks
            .iter()
            .find(|c| c.field.as_ref().is_some_and(|f| f.value == field.value))
        else {
            out.push(
                D612_STALENESS_TIGHTENED
                    .at(
                        field.span,
                        format!(
                            "checkpoint `{id}` now checks `{name}` for staleness, which OLD did not: runs paused there may now be blocked or recovered"
                        ),
                    )
                    .with_help(help)
                    .with_related_in(
                        old,
                        old_target.spec.span,
                        format!("checkpoint `{id}` had no check of `{name}`"),
                    ),
            );
            continue;
        };
        let was = |span: Span, what: String| Related {
            span,
            message: what,
            file: Some(Arc::clone(old)),
        };
        if let (Some(old_age), Some(new_age)) =
            (&old_check.max_age_seconds, &new_check.max_age_seconds)
            && new_age.value < old_age.value
        {
            out.push(
                D612_STALENESS_TIGHTENED
                    .at(
                        new_age.span,
                        format!(
                            "checkpoint `{id}`: max_age_seconds for `{name}` shortened from {} to {}: runs paused longer than {} s ago now find it stale",
                            old_age.value, new_age.value, new_age.value
                        ),
                    )
                    .with_help(help)
                    .with_related_location(was(old_age.span, format!("max_age_seconds was {}", old_age.value)),
                    ),
            );
        }
        // Declared order: blocking < warning < advisory, so "escalated"
        // is a smaller value.
        let (old_stale, new_stale) = (old_check.on_stale(), new_check.on_stale());
        if new_stale < old_stale {
            let span = new_check.on_stale.as_ref().map_or(field.span, |s| s.span);
            out.push(
                D612_STALENESS_TIGHTENED
                    .at(
                        span,
                        format!(
                            "checkpoint `{id}`: on_stale for `{name}` escalated from `{}` to `{}`",
                            old_stale.as_str(),
                            new_stale.as_str()
                        ),
                    )
                    .with_help(help)
                    .with_related_location(was(
                        old_check
                            .on_stale
                            .as_ref()
                            .map_or(old_check.span, |s| s.span),
                        format!("on_stale was `{}`", old_stale.as_str()),
                    )),
            );
        }
        let is_fail = |c: &crate::model::StalenessCheck| {
            c.recovery
                .as_ref()
                .is_some_and(|r| r.value == crate::model::Recovery::Fail)
        };
        if is_fail(new_check) && !is_fail(old_check) {
            let span = new_check.recovery.as_ref().map_or(field.span, |r| r.span);
            out.push(
                D612_STALENESS_TIGHTENED
                    .at(
                        span,
                        format!(
                            "checkpoint `{id}`: recovery for `{name}` is now `fail`: a run paused there whose `{name}` is stale can never resume"
                        ),
                    )
                    .with_help(help)
                    .with_related_location(was(
                            old_check.recovery.as_ref().map_or(old_check.span, |r| r.span),
                            "recovery was not `fail`".to_string(),
                        ),
                    ),
            );
        }
    }
}

/// How much an approval policy asks, for comparing two: none, then
/// granted when fresh, then either approver, then one named approver.
fn policy_strength(policy: Option<crate::model::ApprovalPolicy>) -> u8 {
    use crate::model::ApprovalPolicy;
    match policy {
        None => 0,
        Some(ApprovalPolicy::AutoIfFresh) => 1,
        Some(ApprovalPolicy::HumanOrOrchestrator) => 2,
        Some(ApprovalPolicy::Orchestrator | ApprovalPolicy::Human) => 3,
    }
}

/// D613: resuming from the checkpoint needs an approval, or a stronger
/// one, under NEW. The policy each side asks for is the resume check's
/// own (`required_policy`: an irreversible next phase needs a person).
fn approval(
    old_target: &Target<'_>,
    new_target: &Target<'_>,
    id_span: Span,
    old_here: &Related,
    out: &mut Vec<Diagnostic>,
) {
    let id = &new_target.checkpoint_id;
    let old_policy =
        crate::resume::required_policy(&old_target.spec.on_resume, &old_target.irreversible_next());
    let new_policy =
        crate::resume::required_policy(&new_target.spec.on_resume, &new_target.irreversible_next());
    let (was, now) = (policy_strength(old_policy), policy_strength(new_policy));
    if old_policy == new_policy || now < was {
        return;
    }
    let shown = |p: Option<crate::model::ApprovalPolicy>| {
        p.map_or_else(
            || "no approval".to_string(),
            |p| format!("`{}`", p.as_str()),
        )
    };
    let span = new_target
        .spec
        .on_resume
        .approval_policy
        .as_ref()
        .map_or(id_span, |p| p.span);
    out.push(
        D613_APPROVAL_STRENGTHENED
            .at(
                span,
                format!(
                    "checkpoint `{id}` asks for {} under NEW where OLD asked for {}: runs paused there wait for an approval they were not asked for",
                    shown(new_policy),
                    shown(old_policy)
                ),
            )
            .with_help(format!(
                "approve the runs paused at `{id}` as NEW asks (`phaselint approve`) when deploying, or keep OLD's policy until they have resumed"
            ))
            .with_related_location(old_here.clone()),
    );
}

/// D621: phases NEW adds that no checkpoint both contracts declare
/// resumes into directly (those are D603's). Paused runs may reach them
/// further on; whether one sits after every checkpoint (the issue's
/// wording) needs reachability from the checkpoints' phases: not yet.
fn added_phases(old: &Analysis, new: &Analysis, out: &mut Vec<Diagnostic>) {
    let (Some(old_contract), Some(new_contract)) =
        (old.contract.as_deref(), new.contract.as_deref())
    else {
        return;
    };
    let mut resumed_into = BTreeSet::new();
    for id in ids(new).filter(|id| {
        old_contract
            .checkpoints
            .iter()
            .any(|c| c.checkpoint_id.as_ref().is_some_and(|i| i.value == *id))
    }) {
        if let Ok(target) = Target::find(new, id) {
            resumed_into.extend(target.successors.iter().copied());
        }
    }
    for (index, phase) in new_contract.phases.iter().enumerate() {
        if old_contract.phase(&phase.name).is_some() || resumed_into.contains(&index) {
            continue;
        }
        out.push(
            D621_PHASE_ADDED
                .at(
                    phase.name_span,
                    format!(
                        "phase `{}` is added; no checkpoint of OLD resumes into it directly",
                        phase.name
                    ),
                )
                .with_help("nothing to do for paused runs unless its entry needs what they do not hold (see D604)"),
        );
    }
}

/// D606: a phase resumed into does more under NEW than under OLD.
fn raised(
    old: &Arc<OtherFile>,
    old_phase: &Phase,
    new_phase: &Phase,
    id: &str,
    out: &mut Vec<Diagnostic>,
) {
    let name = &new_phase.name;
    let span = new_phase.name_span;
    let (old_effects, new_effects) = (old_phase.side_effect_class(), new_phase.side_effect_class());
    if new_effects > old_effects {
        let at = new_phase.side_effects().map_or(span, |s| s.span);
        let was = old_phase.side_effects().map_or_else(
            || {
                (
                    old_phase.name_span,
                    format!("phase `{name}` wrote no side_effects (`none`)"),
                )
            },
            |s| (s.span, format!("side_effects was `{}`", s.value.as_str())),
        );
        out.push(
            D606_RESUMED_PHASE_RAISED
                .at(
                    at,
                    format!(
                        "phase `{name}`, resumed into from checkpoint `{id}`, raised side_effects from `{}` to `{}`: a run approved under OLD would now do more",
                        old_effects.as_str(),
                        new_effects.as_str()
                    ),
                )
                .with_help(format!(
                    "give the raised phase a new name (and route to it behind a new checkpoint), or resume runs paused at `{id}` before deploying"
                ))
                .with_related_in(old, was.0, was.1),
        );
    }
    let (old_risk, new_risk) = (old_phase.risk(), new_phase.risk());
    if new_risk > old_risk {
        let at = new_phase.risk_class().map_or(span, |s| s.span);
        let was = old_phase.risk_class().map_or_else(
            || {
                (
                    old_phase.name_span,
                    format!("phase `{name}` wrote no risk_class (`low`)"),
                )
            },
            |s| (s.span, format!("risk_class was `{}`", s.value.as_str())),
        );
        out.push(
            D606_RESUMED_PHASE_RAISED
                .at(
                    at,
                    format!(
                        "phase `{name}`, resumed into from checkpoint `{id}`, raised risk_class from `{}` to `{}`: a run approved under OLD would now do more",
                        old_risk.as_str(),
                        new_risk.as_str()
                    ),
                )
                .with_help(format!(
                    "give the raised phase a new name (and route to it behind a new checkpoint), or resume runs paused at `{id}` before deploying"
                ))
                .with_related_in(old, was.0, was.1),
        );
    }
}

/// The checkpoint is still declared in NEW but NEW's resume check refuses
/// it: its phase is gone (D602) or it cannot be checked at all (D601).
fn unresumable(
    new: &Analysis,
    old_target: &Target<'_>,
    error: &ResumeError,
    anchor: Span,
    old_here: Related,
) -> Diagnostic {
    let id = &old_target.checkpoint_id;
    let new_spec = new.contract.as_deref().and_then(|c| {
        c.checkpoints.iter().find(|s| {
            s.checkpoint_id
                .as_ref()
                .is_some_and(|i| i.value == id.as_str())
        })
    });
    let span = new_spec.map_or(anchor, |s| s.phase.as_ref().map_or(s.span, |p| p.span));
    let old_phase = &old_target.phase.name;
    let phase_gone = new
        .contract
        .as_deref()
        .is_some_and(|c| c.phase(old_phase).is_none());
    if phase_gone {
        return D602_CHECKPOINT_PHASE_CHANGED
            .at(
                span,
                format!(
                    "checkpoint `{id}`: its phase `{old_phase}` is removed: runs paused there cannot resume ({error})"
                ),
            )
            .with_help(format!(
                "keep phase `{old_phase}` until no run is paused at `{id}`"
            ))
            .with_related_location(old_here);
    }
    D601_CHECKPOINT_REMOVED
        .at(
            span,
            format!("checkpoint `{id}` can no longer be resumed under NEW: {error}"),
        )
        .with_help(format!(
            "fix checkpoint `{id}` so `phaselint resume-check` can check it, or finish runs paused there first"
        ))
        .with_related_location(old_here)
}

fn refuse_errors(analysis: &Analysis, side: &'static str) -> Result<(), DiffError> {
    let errors = contract_errors(analysis);
    if errors.is_empty() {
        return Ok(());
    }
    Err(DiffError::ContractHasErrors {
        side,
        findings: crate::resume::first_findings(errors.iter().map(ToString::to_string)),
    })
}

fn ids(analysis: &Analysis) -> impl Iterator<Item = &str> {
    analysis
        .contract
        .as_deref()
        .into_iter()
        .flat_map(|c| &c.checkpoints)
        .filter_map(|c| c.checkpoint_id.as_ref().map(|i| i.value.as_str()))
}

fn id_span(analysis: &Analysis, id: &str) -> Option<Span> {
    analysis
        .contract
        .as_deref()?
        .checkpoints
        .iter()
        .find_map(|c| {
            c.checkpoint_id
                .as_ref()
                .filter(|i| i.value == id)
                .map(|i| i.span)
        })
}

/// Whether NEW's checkpoint `new_id` is OLD's target under another id: the
/// same canonical entry (what the digest hashes) once the id is left out,
/// on a phase written the same.
fn same_apart_from_id(
    old: &Analysis,
    old_target: &Target<'_>,
    new: &Analysis,
    new_id: &str,
) -> bool {
    let Ok(new_target) = Target::find(new, new_id) else {
        return false;
    };
    let without_id = |analysis: &Analysis, target: &Target<'_>| -> Option<Value> {
        let text = target.canonical_form(analysis).ok()?;
        let mut value: Value = serde_json::from_str(&text).ok()?;
        let object = value.as_object_mut()?;
        object
            .get_mut("checkpoint")?
            .as_object_mut()?
            .remove("checkpoint_id");
        object.remove("pipeline_id");
        Some(value)
    };
    match (without_id(old, old_target), without_id(new, &new_target)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// A phase's definition as written, without its position: equal texts
/// mean a phase moved or renamed, not rewritten.
fn phase_text(analysis: &Analysis, phase: &Phase) -> Option<String> {
    let text = analysis.source.get(phase.span.start..phase.span.end)?;
    let body = text.split_once(':').map_or(text, |(_, body)| body);
    Some(body.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn list_or_nothing(names: &[String]) -> String {
    if names.is_empty() {
        "nothing".to_string()
    } else {
        crate::diagnostic::code_list(names.iter())
    }
}
