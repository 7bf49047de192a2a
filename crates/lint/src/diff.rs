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

use crate::Analysis;
use crate::diagnostic::{Diagnostic, OtherFile};
use crate::resume::{Target, contract_errors, declares_no_checkpoints};
use crate::rules::Rule;
use crate::syntax::Span;

// `--mode` and the deleted-contract findings (`diff/mode.rs`).
mod mode;
// What the checks share (`Old`, `Kept`, the finding helpers).
mod sides;
// One kept checkpoint's own findings: target, digest, approval.
mod checkpoint;
// A checkpoint's staleness checks compared (D612, D622).
mod staleness;
// The phases a kept checkpoint resumes into (D604, D605, D606, D621).
mod entry;

use checkpoint::{checks_dropped, checks_introduced, compare_checkpoint, unresumable};
use entry::{added_phases, entry_requirements};
pub use mode::{DiffMode, VOIDS_APPROVALS, contract_deleted, diff_in_mode};
use sides::{At, Kept, Old, Targets, ids};

/// The D-codes are declared in the rule registry (`rules/diff/`), so
/// their levels, selection, pages and SARIF metadata are every rule's.
pub(crate) use crate::rules::diff::{
    D601_CHECKPOINT_REMOVED, D611_TARGET_DIGEST_CHANGED, D613_APPROVAL_STRENGTHENED,
    D614_PIPELINE_ID_CHANGED,
};

/// Every D-code, in code order: the registry's `Family::Diff` rules.
pub(crate) fn codes() -> impl Iterator<Item = &'static Rule> {
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
    old_analysis: &Analysis,
    old_path: &Path,
    new: &Analysis,
) -> Result<Vec<Diagnostic>, DiffError> {
    let old = &Old {
        analysis: old_analysis,
        file: Arc::new(OtherFile::new(old_path, &old_analysis.source)),
    };
    refuse_errors(old, "OLD")?;
    refuse_errors(new, "NEW")?;
    let (Some(old_contract), Some(new_contract)) = (old.contract(), new.contract()) else {
        let side = if old.contract().is_none() {
            "OLD"
        } else {
            "NEW"
        };
        return Err(DiffError::NotAContract { side });
    };
    let mut out = Vec::new();
    // Where a finding about something NEW no longer has points: its
    // checkpoints, or the top of the file.
    let new_anchor = new_contract
        .checkpoints
        .first()
        .map_or(Span::new(0, 0), |c| {
            c.checkpoint_id.as_ref().map_or(c.span, |i| i.span)
        });

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
            d = d.with_related_location(old.note(
                p.span,
                format!("pipeline_id `{}` was declared here", p.value),
            ));
        }
        out.push(d);
    }

    // A contract without checkpoint specs resumes from any checkpoint id
    // with nothing checked (REQ-10-011): going to or from one changes
    // every paused run at once.
    match (declares_no_checkpoints(old), declares_no_checkpoints(new)) {
        (true, false) => out.push(checks_introduced(new, new_anchor)),
        (false, true) => {
            out.push(checks_dropped(old, new_anchor));
            out.sort_by_key(|d| (d.span.start, d.code));
            return Ok(out);
        }
        _ => {}
    }

    let mut kept: Vec<Kept<'_>> = Vec::new();
    let new_ids: BTreeSet<&str> = ids(new).collect();
    // NEW's first checkpoint entry of each id, for locating findings.
    let mut new_specs: std::collections::HashMap<&str, &crate::model::CheckpointSpec> =
        Default::default();
    for spec in &new_contract.checkpoints {
        if let Some(id) = spec.checkpoint_id.as_ref() {
            new_specs.entry(id.value.as_str()).or_insert(spec);
        }
    }
    let old_ids: BTreeSet<&str> = ids(old).collect();
    // Every checkpoint of each side, found once (`Target::find` each).
    let mut old_targets = Target::find_all(old).unwrap_or_default();
    let mut new_targets = Target::find_all(new).unwrap_or_default();
    let renamed = renames(&old_targets, &new_targets, &old_ids, &new_ids);
    for old_spec in &old_contract.checkpoints {
        let Some(id) = old_spec.checkpoint_id.as_ref() else {
            continue;
        };
        // A checkpoint OLD's resume check refuses holds no resumable run.
        let Some(Ok(old_target)) = old_targets.remove(id.value.as_str()) else {
            continue;
        };
        let old_here = old.note(
            id.span,
            format!("checkpoint `{}` was declared here", id.value),
        );
        if !new_ids.contains(id.value.as_str()) {
            let renamed_to = renamed.get(id.value.as_str());
            let (span, message, help) = match renamed_to {
                Some(new_id) => (
                    new_specs
                        .get(*new_id)
                        .and_then(|s| s.checkpoint_id.as_ref())
                        .map_or(new_anchor, |i| i.span),
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
            let mut finding = D601_CHECKPOINT_REMOVED.at(span, message).with_help(help);
            if renamed_to.is_none() && !new_ids.is_empty() {
                // A removed checkpoint has no place in NEW: say what the
                // location shown is, so it is not read as the culprit.
                finding = finding.with_related(
                    span,
                    format!(
                        "NEW's checkpoints begin here; `{}` is not among them",
                        id.value
                    ),
                );
            }
            out.push(finding.with_related_location(old_here));
            continue;
        }
        let new_target = match new_targets.remove(id.value.as_str()) {
            Some(Ok(t)) => t,
            None => continue,
            Some(Err(error)) => {
                let new_spec = new_specs.get(id.value.as_str()).copied();
                out.push(unresumable(
                    new,
                    new_spec,
                    &old_target,
                    &error,
                    new_anchor,
                    old_here,
                ));
                continue;
            }
        };
        let span = new_target
            .spec
            .checkpoint_id
            .as_ref()
            .map_or(new_target.spec.span, |i| i.span);
        compare_checkpoint(
            old,
            &old_target,
            new,
            &new_target,
            span,
            &old_here,
            &mut out,
        );
        kept.push(Kept {
            old: old_target,
            new: new_target,
            old_here,
        });
    }
    entry_requirements(old, &kept, &mut out);
    added_phases(new, &kept, &mut out);
    out.sort_by_key(|d| (d.span.start, d.code));
    Ok(out)
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

/// OLD's checkpoints NEW no longer declares, matched to a checkpoint only
/// NEW declares that is the same target under another id: the same
/// canonical form (what the digest hashes) once the id and `pipeline_id`
/// are left out, compared by its digest (`Target::shape_digest`, read with
/// the target digest): one lookup per checkpoint, nothing parsed again.
/// Only a one-to-one match is a rename.
fn renames<'a>(
    old_targets: &Targets<'_>,
    new_targets: &Targets<'_>,
    old_ids: &BTreeSet<&str>,
    new_ids: &BTreeSet<&'a str>,
) -> std::collections::HashMap<String, &'a str> {
    // Per shape, the ids with it on each side; a rename only where each
    // side has exactly one (F4): two OLD ids of one shape are not both
    // "renamed" to one NEW id.
    let mut by_shape: std::collections::HashMap<&str, (Vec<&str>, Vec<&'a str>)> =
        Default::default();
    for id in new_ids.iter().filter(|id| !old_ids.contains(*id)) {
        if let Some(Ok(target)) = new_targets.get(*id) {
            by_shape
                .entry(target.shape_digest.as_str())
                .or_default()
                .1
                .push(id);
        }
    }
    let mut found = std::collections::HashMap::new();
    if by_shape.is_empty() {
        return found;
    }
    for id in old_ids.iter().filter(|id| !new_ids.contains(*id)) {
        if let Some(Ok(target)) = old_targets.get(*id)
            && let Some(entry) = by_shape.get_mut(target.shape_digest.as_str())
        {
            entry.0.push(id);
        }
    }
    for (old_side, new_side) in by_shape.values() {
        if let ([old_id], [new_id]) = (old_side.as_slice(), new_side.as_slice()) {
            found.insert((*old_id).to_string(), *new_id);
        }
    }
    found
}
