//! The findings about one checkpoint both contracts declare: its target,
//! digest and pipeline (D602, D603, D611), its approval (D613), and the
//! checkpoints NEW no longer checks or cannot resume (D601, D622).

use std::collections::BTreeSet;

use crate::Analysis;
use crate::diagnostic::{Diagnostic, Related, code_list};
use crate::model::{EnumValue, Phase};
use crate::resume::{ResumeError, Target};
use crate::syntax::Span;

use super::entry::raised;
use super::sides::{At, Old, ids, list_or_nothing, loosened, phase_text};
use super::staleness::staleness;
use crate::rules::diff::{
    D601_CHECKPOINT_REMOVED, D602_CHECKPOINT_PHASE_CHANGED, D603_RESUME_TARGETS_CHANGED,
    D611_TARGET_DIGEST_CHANGED, D613_APPROVAL_STRENGTHENED, D622_LIMITS_LOOSENED,
};

/// The findings about one checkpoint both contracts declare and can check.
pub(super) fn compare_checkpoint(
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

/// D601 for every run paused under an OLD without checkpoint specs: OLD
/// resumed them from any checkpoint id, NEW only from the ids it declares,
/// and with its checks.
pub(super) fn checks_introduced(new: &Analysis, anchor: Span) -> Diagnostic {
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
pub(super) fn checks_dropped(old: &Old<'_>, anchor: Span) -> Diagnostic {
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

/// How much an approval policy asks, for comparing two: none, then
/// granted when fresh, then either approver, then one named approver.
pub(super) fn policy_strength(policy: Option<crate::model::ApprovalPolicy>) -> u8 {
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
pub(super) fn approval(
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

/// The checkpoint is still declared in NEW but NEW's resume check refuses
/// it: its phase is gone (D602) or it cannot be checked at all (D601).
pub(super) fn unresumable(
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
