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
use crate::diagnostic::{Diagnostic, OtherFile, Related, code_list};
use crate::model::{EnumValue, Phase, Spanned};
use crate::resume::{ResumeError, Target, contract_errors, declares_no_checkpoints};
use crate::rules::Rule;
use crate::syntax::Span;

// `--mode` and the deleted-contract findings (`diff/mode.rs`).
mod mode;
pub use mode::{DiffMode, VOIDS_APPROVALS, contract_deleted, diff_in_mode};

/// The D-codes are declared in the rule registry (`rules/diff/`), so
/// their levels, selection, pages and SARIF metadata are every rule's.
pub use crate::rules::diff::{
    D601_CHECKPOINT_REMOVED, D602_CHECKPOINT_PHASE_CHANGED, D603_RESUME_TARGETS_CHANGED,
    D604_NEW_BLOCKING_ENTRY_REQUIREMENT, D605_FIELD_TYPE_CHANGED, D606_RESUMED_PHASE_RAISED,
    D611_TARGET_DIGEST_CHANGED, D612_STALENESS_TIGHTENED, D613_APPROVAL_STRENGTHENED,
    D614_PIPELINE_ID_CHANGED, D621_PHASE_ADDED, D622_LIMITS_LOOSENED,
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

/// OLD's side of a comparison: its analysis, and its text as another
/// file, so that OLD's locations are related locations in OLD's own file.
struct Old<'a> {
    analysis: &'a Analysis,
    file: Arc<OtherFile>,
}

impl Old<'_> {
    /// A related location at `span` of OLD's text.
    fn note(&self, span: Span, message: impl Into<String>) -> Related {
        Related {
            span,
            message: message.into(),
            file: Some(Arc::clone(&self.file)),
        }
    }
}

impl std::ops::Deref for Old<'_> {
    type Target = Analysis;
    fn deref(&self) -> &Analysis {
        self.analysis
    }
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

/// The findings about one checkpoint both contracts declare and can check.
fn compare_checkpoint(
    old: &Old<'_>,
    old_target: &Target<'_>,
    new: &Analysis,
    new_target: &Target<'_>,
    id_span: Span,
    old_here: &Related,
    out: &mut Vec<Diagnostic>,
) {
    let first_finding = out.len();
    let id = &new_target.checkpoint_id;
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
                    "keep checkpoint `{id}` resuming into {} (OLD's edges out of `{old_phase}`) until no run is paused there, or add the new route behind a new checkpoint",
                    list_or_nothing(&old_next)
                ))
                .with_related_location(old_here.clone()),
        );
    }

    let old_by_name: std::collections::HashMap<&str, &Phase> = old_target
        .successor_phases()
        .into_iter()
        .map(|p| (p.name.as_str(), p))
        .collect();
    for new_next_phase in new_target.successor_phases() {
        let Some(old_next_phase) = old_by_name.get(new_next_phase.name.as_str()).copied() else {
            continue;
        };
        let old_approved = crate::resume::required_policy(
            &old_target.spec.on_resume,
            &crate::resume::irreversible_phases(&[old_next_phase]),
        )
        .is_some();
        let new_approved = crate::resume::required_policy(
            &new_target.spec.on_resume,
            &crate::resume::irreversible_phases(&[new_next_phase]),
        )
        .is_some();
        raised(
            old,
            (old_next_phase, new_next_phase),
            id,
            (old_approved, new_approved),
            out,
        );
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

    staleness(old, old_target, new_target, out);
    approval(old_target, new_target, id_span, old_here, out);
    // Beside a D611 the looser check is not "nothing to do": the runs'
    // approvals are void (F4).
    if old_target.digest != new_target.digest {
        let code = D622_LIMITS_LOOSENED.code;
        for finding in out
            .iter_mut()
            .skip(first_finding)
            .filter(|d| d.code == code)
        {
            finding.help = Some(
                "paused runs resume under the looser check, but their approvals are void (D611): approve them again; make sure the looser check is intended"
                    .into(),
            );
        }
    }
}

/// D612: a staleness check of the checkpoint is stricter under NEW: a
/// shorter `max_age_seconds`, `on_stale` escalated, `recovery: fail`
/// newly set, or a field checked that OLD did not check. D622: the
/// opposites, and entry no longer re-checked.
fn staleness(
    old: &Old<'_>,
    old_target: &Target<'_>,
    new_target: &Target<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let id = &new_target.checkpoint_id;
    let help = "deploy the stricter check once runs paused under OLD have resumed, or expect their recovery to run";
    let old_checks = &old_target.spec.on_resume.staleness_checks;
    let old_by_field = by_field(old_checks);
    let new_by_field = by_field(&new_target.spec.on_resume.staleness_checks);
    let mut seen = BTreeSet::new();
    for new_check in &new_target.spec.on_resume.staleness_checks {
        let Some(field) = &new_check.field else {
            continue;
        };
        let name = field.value.as_str();
        if !seen.insert(name) {
            continue;
        }
        let (Some(old_effect), Some(new_effect)) = (old_by_field.get(name), new_by_field.get(name))
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
                    .with_related_location(old.note(
                        old_target.spec.span,
                        format!("checkpoint `{id}` had no check of `{name}`"),
                    )),
            );
            continue;
        };
        let was = |span: Span, what: String| old.note(span, what);
        let (old_age, new_age) = (old_effect.age, new_effect.age);
        let new_age_span = new_effect
            .strictest
            .max_age_seconds
            .as_ref()
            .map_or(field.span, |m| m.span);
        let old_age_was = was(
            old_effect
                .strictest
                .max_age_seconds
                .as_ref()
                .map_or(old_effect.strictest.span, |m| m.span),
            match &old_effect.strictest.max_age_seconds {
                Some(m) => format!("max_age_seconds was {}", m.value),
                None => "no max_age_seconds (0: always stale)".to_string(),
            },
        );
        if new_age < old_age {
            out.push(
                D612_STALENESS_TIGHTENED
                    .at(
                        new_age_span,
                        format!(
                            "checkpoint `{id}`: max_age_seconds for `{name}` shortened from {old_age} to {new_age}: runs paused longer than {new_age} s ago now find it stale"
                        ),
                    )
                    .with_help(help)
                    .with_related_location(old_age_was),
            );
        } else if new_age > old_age {
            out.push(loosened(
                new_age_span,
                format!(
                    "checkpoint `{id}`: max_age_seconds for `{name}` lengthened from {old_age} to {new_age}"
                ),
                old_age_was,
            ));
        }
        // What the check does with a stale value (F3): blocks or not,
        // and whether a recovery hook may refresh it first.
        let new_why = new_effect.blocking.unwrap_or(new_effect.strictest);
        let new_span = new_why
            .recovery
            .as_ref()
            .filter(|r| r.value == crate::model::Recovery::Fail)
            .map(|r| r.span)
            .or(new_why.on_stale.as_ref().map(|s| s.span))
            .unwrap_or(field.span);
        let old_why = old_effect.blocking.unwrap_or(old_effect.strictest);
        // How a check treats a stale value, for the messages.
        let treats = |c: &crate::model::StalenessCheck| {
            format!(
                "on_stale `{}`{}",
                c.on_stale().as_str(),
                c.recovery.as_ref().map_or_else(String::new, |r| format!(
                    ", recovery `{}`",
                    r.value.as_str()
                ))
            )
        };
        let old_was = was(
            old_why.on_stale.as_ref().map_or(old_why.span, |s| s.span),
            format!("OLD's check: {}", treats(old_why)),
        );
        match (
            old_effect.blocking.is_some(),
            new_effect.blocking.is_some(),
            old_effect.recovers,
            new_effect.recovers.is_some(),
        ) {
            (false, true, _, _) => out.push(
                D612_STALENESS_TIGHTENED
                    .at(
                        new_span,
                        format!(
                            "checkpoint `{id}`: a stale `{name}` now blocks the resume ({}), where OLD let the run resume ({})",
                            treats(new_why),
                            treats(old_why)
                        ),
                    )
                    .with_help(help)
                    .with_related_location(old_was),
            ),
            (true, false, _, _) => out.push(loosened(
                new_span,
                format!(
                    "checkpoint `{id}`: a stale `{name}` no longer blocks the resume ({}, where OLD had {})",
                    treats(new_why),
                    treats(old_why)
                ),
                old_was,
            )),
            (true, true, Some(old_recovery), false) => {
                let how = new_why.recovery.as_ref().map_or_else(
                    || "no recovery".to_string(),
                    |r| format!("recovery `{}`", r.value.as_str()),
                );
                let span = new_why.recovery.as_ref().map_or(field.span, |r| r.span);
                let old_recovery_was = was(
                    old_recovery.recovery.as_ref().map_or(old_recovery.span, |r| r.span),
                    format!("OLD's check: {}", treats(old_recovery)),
                );
                out.push(
                    D612_STALENESS_TIGHTENED
                        .at(
                            span,
                            format!(
                                "checkpoint `{id}` no longer recovers a stale `{name}` ({how}): a run paused there whose `{name}` is stale, which OLD's recovery hook refreshed, is now blocked"
                            ),
                        )
                        .with_help(format!("keep OLD's recovery of `{name}` until runs paused at `{id}` have resumed, or refresh their `{name}` before deploying"))
                        .with_related_location(old_recovery_was),
                );
            }
            (true, true, None, true) => out.push(loosened(
                new_span,
                format!("checkpoint `{id}`: a stale `{name}` may now be recovered before it blocks"),
                old_was,
            )),
            _ => {}
        }
    }
    let anchor = new_target
        .spec
        .checkpoint_id
        .as_ref()
        .map_or(new_target.spec.span, |i| i.span);
    for old_check in old_checks {
        let Some(field) = &old_check.field else {
            continue;
        };
        if !new_by_field.contains_key(field.value.as_str()) {
            out.push(loosened(
                anchor,
                format!(
                    "checkpoint `{id}` no longer checks `{}` for staleness",
                    field.value
                ),
                old.note(
                    field.span,
                    format!("the check of `{}` was here", field.value),
                ),
            ));
        }
    }
    let (old_entry, new_entry) = (
        old_target.spec.on_resume.revalidate_entry(),
        new_target.spec.on_resume.revalidate_entry(),
    );
    if old_entry && !new_entry {
        let span = new_target
            .spec
            .on_resume
            .revalidate_entry
            .as_ref()
            .map_or(anchor, |r| r.span);
        out.push(loosened(
            span,
            format!(
                "checkpoint `{id}` no longer re-checks the entry requirements of the phases it resumes into (revalidate_entry: false)"
            ),
            old.note(
                old_target.spec.span,
                format!("checkpoint `{id}` re-checked them"),
            ),
        ));
    }
}

/// What a side's staleness checks of one field do, all of them together,
/// as the resume check applies every check: the shortest age, whether a
/// stale value blocks, and whether a recovery hook may refresh it.
struct Effect<'a> {
    age: i64,
    /// The check with the shortest age (the first such).
    strictest: &'a crate::model::StalenessCheck,
    /// A check that blocks when stale, if any.
    blocking: Option<&'a crate::model::StalenessCheck>,
    /// A non-advisory check with a recovery the check runs, if any.
    recovers: Option<&'a crate::model::StalenessCheck>,
}

fn by_field(
    checks: &[crate::model::StalenessCheck],
) -> std::collections::HashMap<&str, Effect<'_>> {
    use crate::model::{FieldSeverity, Recovery};
    // As the resume check reads it: no max_age_seconds is 0, always
    // stale on resume.
    let age = |c: &crate::model::StalenessCheck| c.max_age_seconds.as_ref().map_or(0, |m| m.value);
    let mut map: std::collections::HashMap<&str, Effect<'_>> = std::collections::HashMap::new();
    for check in checks {
        let Some(field) = &check.field else {
            continue;
        };
        let recovery = check.recovery.as_ref().map(|r| r.value);
        let blocks = crate::model::stale_field_blocks(check.on_stale(), recovery);
        let recovers = check.on_stale() != FieldSeverity::Advisory
            && matches!(recovery, Some(Recovery::ReRetrieve | Recovery::ReGenerate));
        let effect = map.entry(field.value.as_str()).or_insert(Effect {
            age: age(check),
            strictest: check,
            blocking: None,
            recovers: None,
        });
        if age(check) < effect.age {
            effect.age = age(check);
            effect.strictest = check;
        }
        if blocks && effect.blocking.is_none() {
            effect.blocking = Some(check);
        }
        if recovers && effect.recovers.is_none() {
            effect.recovers = Some(check);
        }
    }
    map
}

/// D601 for every run paused under an OLD without checkpoint specs: OLD
/// resumed them from any checkpoint id, NEW only from the ids it declares,
/// and with its checks.
fn checks_introduced(new: &Analysis, anchor: Span) -> Diagnostic {
    let declared = code_list(ids(new).collect::<BTreeSet<_>>());
    D601_CHECKPOINT_REMOVED
        .at(
            anchor,
            format!(
                "OLD declares no checkpoint_integrity, so its resume check resumes a run paused at any checkpoint id with nothing checked; NEW declares only {declared}: runs paused under OLD at another id cannot resume (resume-check: unknown checkpoint, exit 3), and those at {declared} now meet NEW's staleness, entry and approval checks"
            ),
        )
        .with_help(
            "deploy the checkpoint specs once no run is paused under OLD, or resume those runs first",
        )
}

/// D622 when NEW drops every checkpoint spec: runs paused at OLD's
/// checkpoints resume from any id, with nothing checked.
fn checks_dropped(old: &Old<'_>, anchor: Span) -> Diagnostic {
    let declared = code_list(ids(old).collect::<BTreeSet<_>>());
    let mut finding = D622_LIMITS_LOOSENED
        .at(
            anchor,
            format!(
                "NEW declares no checkpoint_integrity, so its resume check resumes a run paused at any checkpoint id with nothing checked: the staleness, entry and approval checks of {declared} are gone"
            ),
        )
        .with_help("nothing to do for paused runs; make sure dropping every checkpoint check is intended");
    if let Some(first) = old.contract().and_then(|c| c.checkpoints.first()) {
        let span = first.checkpoint_id.as_ref().map_or(first.span, |i| i.span);
        finding =
            finding.with_related_location(old.note(span, "OLD's checkpoint specs begin here"));
    }
    finding
}

/// D622: one limit of the resume check loosened: nothing breaks for a
/// paused run, and the change is worth a reviewer's look.
fn loosened(span: Span, message: String, was: Related) -> Diagnostic {
    D622_LIMITS_LOOSENED
        .at(span, message)
        .with_help("nothing to do for paused runs; make sure the looser check is intended")
        .with_related_location(was)
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
    // The resume check can be told the next phase (`--next-phase`), and
    // then asks for the policy of that branch alone (S2): compare each
    // phase both resume into, with only that phase's side effects. With
    // no common phase, the checkpoint's own policy.
    let branch = |target: &Target<'_>, next: Option<&Phase>| {
        let irreversible = next
            .map(|p| crate::resume::irreversible_phases(&[p]))
            .unwrap_or_default();
        crate::resume::required_policy(&target.spec.on_resume, &irreversible)
    };
    let old_next = old_target.successor_phases();
    let mut branches: Vec<(
        Option<&str>,
        Option<crate::model::ApprovalPolicy>,
        Option<crate::model::ApprovalPolicy>,
    )> = new_target
        .successor_phases()
        .into_iter()
        .filter_map(|p| {
            let old_p = old_next.iter().find(|o| o.name == p.name)?;
            Some((
                Some(p.name.as_str()),
                branch(old_target, Some(old_p)),
                branch(new_target, Some(p)),
            ))
        })
        .collect();
    if branches.is_empty() {
        branches.push((None, branch(old_target, None), branch(new_target, None)));
    }
    let strengthened = branches.iter().find(|(_, o, n)| {
        policy_strength(*n) > policy_strength(*o)
            || (o != n && policy_strength(*n) == policy_strength(*o))
    });
    let weakened = branches
        .iter()
        .find(|(_, o, n)| policy_strength(*n) < policy_strength(*o));
    let Some(&(next, old_policy, new_policy)) = strengthened.or(weakened) else {
        return;
    };
    let (was, now) = (policy_strength(old_policy), policy_strength(new_policy));
    let on_branch = next.map_or_else(String::new, |n| format!(" on a resume into `{n}`"));
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
    if now < was {
        out.push(loosened(
            span,
            format!(
                "checkpoint `{id}` asks for {}{on_branch} under NEW where OLD asked for {}",
                shown(new_policy),
                shown(old_policy)
            ),
            old_here.clone(),
        ));
        return;
    }
    out.push(
        D613_APPROVAL_STRENGTHENED
            .at(
                span,
                format!(
                    "checkpoint `{id}` asks for {}{on_branch} under NEW where OLD asked for {}: runs paused there wait for an approval they were not asked for",
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

/// Every checkpoint of one side by id, as `Target::find` finds it.
type Targets<'a> = std::collections::HashMap<String, Result<Target<'a>, ResumeError>>;

/// A checkpoint both contracts declare and both resume checks accept: the
/// runs paused there under OLD are the ones NEW meets.
struct Kept<'a> {
    old: Target<'a>,
    new: Target<'a>,
    old_here: Related,
}

/// D621: phases NEW adds downstream of a kept checkpoint's phase, other
/// than those it resumes into directly (D603 reports those): a run paused
/// there runs them later. A phase added upstream of every checkpoint, or
/// reached from none, is met by no paused run and not reported. One
/// search from every checkpoint's phase at once, so each phase is visited
/// once; a phase is credited to the first checkpoint (in OLD's order)
/// whose search reaches it.
fn added_phases(new: &Analysis, kept: &[Kept<'_>], out: &mut Vec<Diagnostic>) {
    let (Some(new_contract), Some(graph)) = (new.contract(), new.graph()) else {
        return;
    };
    let old_contract = kept.first().map(|k| k.old.contract);
    let is_added = |phase: &Phase| old_contract.is_some_and(|c| c.phase(&phase.name).is_none());
    let mut resumed_into = vec![false; new_contract.phases.len()];
    let mut reached_from: Vec<Option<usize>> = vec![None; new_contract.phases.len()];
    let mut queue = std::collections::VecDeque::new();
    for (k, pair) in kept.iter().enumerate() {
        for &next in &pair.new.successors {
            if let Some(slot) = resumed_into.get_mut(next) {
                *slot = true;
            }
        }
        queue.push_back((pair.new.phase_index, k));
    }
    while let Some((phase, k)) = queue.pop_front() {
        for next in graph.successors(phase) {
            if let Some(slot @ None) = reached_from.get_mut(next) {
                *slot = Some(k);
                queue.push_back((next, k));
            }
        }
    }
    for (index, phase) in new_contract.phases.iter().enumerate() {
        let Some(Some(k)) = reached_from.get(index) else {
            continue;
        };
        if !is_added(phase) || resumed_into.get(index).copied().unwrap_or(false) {
            continue;
        }
        let id = &kept[*k].new.checkpoint_id;
        out.push(
            D621_PHASE_ADDED
                .at(
                    phase.name_span,
                    format!(
                        "phase `{}` is added after checkpoint `{id}`: runs paused there under OLD will run it later",
                        phase.name
                    ),
                )
                .with_help("nothing to do unless those runs should not run it: its entry is checked when they reach it, not when they resume"),
        );
    }
}

/// The blocking entry fields of NEW's phases resumed into from one kept
/// checkpoint, with whether NEW's resume check reads them at all.
fn blocking_entry<'a>(target: &Target<'a>) -> Vec<(&'a Phase, &'a crate::model::Field)> {
    if !target.spec.on_resume.revalidate_entry() {
        return Vec::new();
    }
    target
        .successor_phases()
        .into_iter()
        .flat_map(|p| p.entry_required().iter().map(move |f| (p, f)))
        .filter(|(_, f)| f.severity() == crate::model::FieldSeverity::Blocking)
        .collect()
}

/// The fields OLD's resume check made sure a context holds on a resume
/// into `next` (a phase NEW resumes into): `next`'s blocking entry fields
/// when `next` was one of OLD's successors and OLD re-checked entry, and
/// nothing else. The orchestrator may pass `--next-phase next`, and then
/// the check reads `next`'s entry only, not its sibling branches' (S1).
fn checked_by_old<'a>(old_target: &Target<'a>, next: &str) -> Vec<&'a crate::model::Field> {
    blocking_entry(old_target)
        .into_iter()
        .filter(|(p, _)| p.name == next)
        .map(|(_, f)| f)
        .collect()
}

/// What OLD held a paused run to for one field `name`, as the check
/// compares it: `Some(kind)` per type; a child (`name.x`) held makes
/// `name` a mapping (F1).
fn kinds_of<'a>(
    fields: impl Iterator<Item = &'a crate::model::Field>,
    name: &str,
) -> Vec<(
    crate::resume::TypeKind,
    Option<&'a Spanned<compact_str::CompactString>>,
)> {
    let mut kinds = Vec::new();
    for field in fields {
        let field_name = field.name.value.as_str();
        if field_name == name {
            if let Some(t) = field.field_type()
                && let Some(kind) = crate::resume::TypeKind::of(&t.value)
            {
                kinds.push((kind, Some(t)));
            }
        } else if is_child(field_name, name) {
            // `name.*...` is matched against every item of a list and
            // every value of a mapping alike: no one kind says what the
            // run holds, so it counts as no type.
            let below = &field_name[name.len() + 1..];
            if !(below == "*" || below.starts_with("*.")) {
                kinds.push((crate::resume::TypeKind::Mapping, None));
            }
        }
    }
    kinds
}

/// `child` is a field below `parent` (`report.text` below `report`).
fn is_child(child: &str, parent: &str) -> bool {
    child
        .strip_prefix(parent)
        .is_some_and(|rest| rest.starts_with('.'))
}

/// Per OLD phase (by index), whether it is at or upstream of `phase`
/// through OLD's edges.
fn upstream_of(old: &Analysis, phase: usize) -> Vec<bool> {
    let count = old.contract().map_or(0, |c| c.phases.len());
    let mut seen = vec![false; count.max(phase + 1)];
    if let Some(slot) = seen.get_mut(phase) {
        *slot = true;
    }
    let Some(graph) = old.graph() else {
        return seen;
    };
    let mut queue = std::collections::VecDeque::from([phase]);
    while let Some(p) = queue.pop_front() {
        for before in graph.predecessors(p) {
            if let Some(slot @ false) = seen.get_mut(before) {
                *slot = true;
                queue.push_back(before);
            }
        }
    }
    seen
}

/// D604 and D605: what NEW's resume check asks of the context of a run
/// paused at a kept checkpoint, judged per phase it resumes into (the
/// orchestrator may name one with `--next-phase`), against what such a
/// run holds under OLD. It holds a field OLD's resume check made sure of
/// on a resume into that phase (`checked_by_old`, a child of it counting
/// for the parent), or one present on every path once the checkpoint's
/// phase has finished under OLD (`PhaseGraph::held_after`: pipeline
/// inputs, blocking entry fields of entry phases, blocking fields upstream,
/// through the edges' `preserves`/`drops`). Only blocking fields count: a
/// warning field's default applies and an advisory field is only listed,
/// so neither refuses a run, nor is either sure to be there.
fn entry_requirements(old: &Old<'_>, kept: &[Kept<'_>], out: &mut Vec<Diagnostic>) {
    let Some(old_graph) = old.graph() else {
        return;
    };
    // First every question to OLD's graph, answered by one solve.
    let mut asked: Vec<(usize, &crate::field_path::FieldPath)> = Vec::new();
    let mut fields = Vec::new();
    for (k, pair) in kept.iter().enumerate() {
        for (phase, field) in blocking_entry(&pair.new) {
            let name = field.name.value.as_str();
            let by_check: Vec<&crate::model::Field> = checked_by_old(&pair.old, &phase.name)
                .into_iter()
                .filter(|f| f.name.value.as_str() == name || is_child(f.name.value.as_str(), name))
                .collect();
            let question = by_check.is_empty().then(|| {
                asked.push((pair.old.phase_index, &field.name.value));
                asked.len() - 1
            });
            fields.push((k, phase, field, by_check, question));
        }
    }
    let held = old_graph.held_after(&asked);
    // Per kept checkpoint, OLD's phases at or upstream of its phase: read
    // once, only when a type is to be compared.
    let upstream: Vec<std::cell::OnceCell<Vec<bool>>> =
        kept.iter().map(|_| std::cell::OnceCell::new()).collect();
    // OLD's blocking entry fields and exit fields by name, and by each
    // dotted parent of the name (`report` for `report.text`), with their
    // phase: read once, only when a type is to be compared.
    let declarations = std::cell::OnceCell::new();
    let declared = || {
        declarations.get_or_init(|| {
            let mut by_name: std::collections::HashMap<&str, Vec<(usize, &crate::model::Field)>> =
                Default::default();
            let phases = kept
                .first()
                .map_or(&[][..], |k| k.old.contract.phases.as_slice());
            for (i, p) in phases.iter().enumerate() {
                let fields = p
                    .entry_required()
                    .iter()
                    .filter(|f| f.severity() == crate::model::FieldSeverity::Blocking)
                    .chain(p.exit_fields());
                for field in fields {
                    let name = field.name.value.as_str();
                    by_name.entry(name).or_default().push((i, field));
                    for (dot, _) in name.match_indices('.') {
                        if let Some(parent) = name.get(..dot) {
                            by_name.entry(parent).or_default().push((i, field));
                        }
                    }
                }
            }
            by_name
        })
    };
    for (k, phase, field, by_check, question) in fields {
        let pair = &kept[k];
        let id = &pair.new.checkpoint_id;
        let name = field.name.value.as_str();
        let held_upstream = question.is_some_and(|q| held.get(q).copied().unwrap_or(false));
        if by_check.is_empty() && !held_upstream {
            out.push(
                D604_NEW_BLOCKING_ENTRY_REQUIREMENT
                    .at(
                        field.name.span,
                        format!(
                            "phase `{}`, resumed into from checkpoint `{id}`, requires `{name}` on entry (blocking), which OLD neither checked on a resume into `{}` nor produced on every path up to `{}`: runs paused there may not hold it and are blocked",
                            phase.name, phase.name, pair.old.phase.name
                        ),
                    )
                    .with_help(format!(
                        "make `{name}` a warning field with a default (or advisory) until no run is paused at `{id}`, then make it blocking: runs paused there have passed every phase that could produce it"
                    ))
                    .with_related_location(pair.old_here.clone()),
            );
            continue;
        }
        let Some(new_type) = field.field_type() else {
            continue;
        };
        let Some(new_kind) = crate::resume::TypeKind::of(&new_type.value) else {
            continue;
        };
        if new_kind == crate::resume::TypeKind::Any {
            continue;
        }
        // What OLD says of the value a paused run holds: the types its
        // resume check enforced on a resume into this phase, and every
        // type OLD declared for the name on a blocking entry field or an
        // exit field at or upstream of the checkpoint's phase. A type the
        // check does not know says nothing and is dropped first (S7).
        let mut kinds = kinds_of(by_check.iter().copied(), name);
        if !kinds.iter().any(|&(kind, _)| new_kind.admits_every(kind))
            && let Some(candidates) = declared().get(name)
        {
            let upstream_phases =
                upstream[k].get_or_init(|| upstream_of(old, pair.old.phase_index));
            let declared_upstream = candidates
                .iter()
                .filter(|(i, _)| upstream_phases.get(*i).copied().unwrap_or(false))
                .map(|(_, f)| *f);
            kinds.extend(kinds_of(declared_upstream, name));
        }
        // A type OLD declared that NEW's check admits every value of: a
        // run held to it passes.
        if kinds.iter().any(|&(kind, _)| new_kind.admits_every(kind)) {
            continue;
        }
        let message = match kinds.first() {
            Some((_, Some(old_type))) => format!(
                "field `{name}`, checked on entry to `{}` when resuming from checkpoint `{id}`, changed type from `{}` to `{}`: runs paused there hold a `{}` value, which NEW's resume check refuses",
                phase.name, old_type.value, new_type.value, old_type.value
            ),
            Some((_, None)) => format!(
                "field `{name}`, checked on entry to `{}` when resuming from checkpoint `{id}`, is now `{}`, but OLD held runs paused there to a mapping (it checked a field below `{name}`), which NEW's resume check refuses",
                phase.name, new_type.value
            ),
            None => format!(
                "field `{name}`, checked on entry to `{}` when resuming from checkpoint `{id}`, must now be `{}` (blocking), but OLD held runs paused there to no single type for it: one holding another type is now blocked",
                phase.name, new_type.value
            ),
        };
        let mut finding = D605_FIELD_TYPE_CHANGED
            .at(new_type.span, message)
            .with_help(match kinds.first() {
                Some((_, Some(old_type))) => format!(
                    "keep the type `{}` until no run is paused at `{id}`, or add the new type as a new field beside it",
                    old_type.value
                ),
                _ => format!(
                    "add the type once no run is paused at `{id}`, or make `{name}` a warning field with a default until then"
                ),
            });
        finding = match kinds.first() {
            Some((_, Some(old_type))) => finding.with_related_location(old.note(
                old_type.span,
                format!("`{name}` was declared `{}` here", old_type.value),
            )),
            _ => finding.with_related_location(pair.old_here.clone()),
        };
        out.push(finding);
    }
}

/// D606: a phase resumed into does more under NEW than under OLD; D622:
/// less (the user dropped `side_effects: irreversible` unnoticed).
/// D606 is the one error no resume-check refusal defines: what it claims
/// depends on whether OLD asked for an approval on that branch
/// and whether NEW asks one (`approved`, OLD's and NEW's): if OLD did,
/// its approval is void (D611) and the run must be approved again for the
/// riskier step; if only NEW does (an irreversible phase needs a person),
/// the run waits for an approval it was not asked for (D613); if neither,
/// the paused run resumes into the riskier phase with no one having
/// approved that risk.
fn raised(
    old: &Old<'_>,
    (old_phase, new_phase): (&Phase, &Phase),
    id: &str,
    approved: (bool, bool),
    out: &mut Vec<Diagnostic>,
) {
    let consequence = match approved {
        (true, _) => {
            "the approval a run paused there got under OLD is void (D611), and it must be approved again for the riskier step"
        }
        (false, true) => {
            "OLD asked no approval on this branch and NEW does (D613), so a run paused there waits for someone to approve the riskier step"
        }
        (false, false) => {
            "OLD asked no approval on this branch, so a run paused there resumes into the riskier phase without anyone having approved that risk"
        }
    };
    let name = &new_phase.name;
    let span = new_phase.name_span;
    let (old_effects, new_effects) = (old_phase.side_effect_class(), new_phase.side_effect_class());
    if new_effects > old_effects {
        let at = new_phase.side_effects().map_or(span, |s| s.span);
        let was = old_phase.side_effects().map_or_else(
            || {
                old.note(
                    old_phase.name_span,
                    format!("phase `{name}` wrote no side_effects (`none`)"),
                )
            },
            |s| old.note(s.span, format!("side_effects was `{}`", s.value.as_str())),
        );
        out.push(
            D606_RESUMED_PHASE_RAISED
                .at(
                    at,
                    format!(
                        "phase `{name}`, resumed into from checkpoint `{id}`, raised side_effects from `{}` to `{}`: {consequence}",
                        old_effects.as_str(),
                        new_effects.as_str()
                    ),
                )
                .with_help(format!(
                    "give the raised phase a new name (and route to it behind a new checkpoint), or resume runs paused at `{id}` before deploying"
                ))
                .with_related_location(was),
        );
    }
    if new_effects < old_effects {
        let at = new_phase.side_effects().map_or(span, |s| s.span);
        out.push(loosened(
            at,
            format!(
                "phase `{name}`, resumed into from checkpoint `{id}`, lowered side_effects from `{}` to `{}`",
                old_effects.as_str(),
                new_effects.as_str()
            ),
            old.note(old_phase.side_effects().map_or(old_phase.name_span, |s| s.span), format!("side_effects was `{}`", old_effects.as_str())),
        ));
    }
    let (old_risk, new_risk) = (old_phase.risk(), new_phase.risk());
    if new_risk < old_risk {
        let at = new_phase.risk_class().map_or(span, |s| s.span);
        out.push(loosened(
            at,
            format!(
                "phase `{name}`, resumed into from checkpoint `{id}`, lowered risk_class from `{}` to `{}`",
                old_risk.as_str(),
                new_risk.as_str()
            ),
            old.note(old_phase.risk_class().map_or(old_phase.name_span, |s| s.span), format!("risk_class was `{}`", old_risk.as_str())),
        ));
    }
    if new_risk > old_risk {
        let at = new_phase.risk_class().map_or(span, |s| s.span);
        let was = old_phase.risk_class().map_or_else(
            || {
                old.note(
                    old_phase.name_span,
                    format!("phase `{name}` wrote no risk_class (`low`)"),
                )
            },
            |s| old.note(s.span, format!("risk_class was `{}`", s.value.as_str())),
        );
        out.push(
            D606_RESUMED_PHASE_RAISED
                .at(
                    at,
                    format!(
                        "phase `{name}`, resumed into from checkpoint `{id}`, raised risk_class from `{}` to `{}`: {consequence}",
                        old_risk.as_str(),
                        new_risk.as_str()
                    ),
                )
                .with_help(format!(
                    "give the raised phase a new name (and route to it behind a new checkpoint), or resume runs paused at `{id}` before deploying"
                ))
                .with_related_location(was),
        );
    }
}

/// The checkpoint is still declared in NEW but NEW's resume check refuses
/// it: its phase is gone (D602) or it cannot be checked at all (D601).
fn unresumable(
    new: &Analysis,
    new_spec: Option<&crate::model::CheckpointSpec>,
    old_target: &Target<'_>,
    error: &ResumeError,
    anchor: Span,
    old_here: Related,
) -> Diagnostic {
    let id = &old_target.checkpoint_id;
    let span = new_spec.map_or(anchor, |s| s.phase.as_ref().map_or(s.span, |p| p.span));
    let old_phase = &old_target.phase.name;
    let phase_gone = new.contract().is_some_and(|c| c.phase(old_phase).is_none());
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
        .contract()
        .into_iter()
        .flat_map(|c| &c.checkpoints)
        .filter_map(|c| c.checkpoint_id.as_ref().map(|i| i.value.as_str()))
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
