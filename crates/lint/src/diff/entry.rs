//! What a run paused at a kept checkpoint meets in the phases NEW resumes
//! into: added phases (D621), new blocking entry requirements and changed
//! field types (D604, D605), and raised or lowered side effects (D606,
//! D622).

use crate::Analysis;
use crate::diagnostic::Diagnostic;
use crate::model::{EnumValue, Phase, Spanned};
use crate::resume::Target;

use super::sides::{At, Kept, Old, loosened};
use crate::rules::diff::{
    D604_NEW_BLOCKING_ENTRY_REQUIREMENT, D605_FIELD_TYPE_CHANGED, D606_RESUMED_PHASE_RAISED,
    D621_PHASE_ADDED,
};

/// D621: phases NEW adds downstream of a kept checkpoint's phase, other
/// than those it resumes into directly (D603 reports those): a run paused
/// there runs them later. A phase added upstream of every checkpoint, or
/// reached from none, is met by no paused run and not reported. One
/// search from every checkpoint's phase at once, so each phase is visited
/// once; a phase is credited to the first checkpoint (in OLD's order)
/// whose search reaches it.
pub(super) fn added_phases(new: &Analysis, kept: &[Kept<'_>], out: &mut Vec<Diagnostic>) {
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
pub(super) fn blocking_entry<'a>(target: &Target<'a>) -> Vec<(&'a Phase, &'a crate::model::Field)> {
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
pub(super) fn checked_by_old<'a>(
    old_target: &Target<'a>,
    next: &str,
) -> Vec<&'a crate::model::Field> {
    blocking_entry(old_target)
        .into_iter()
        .filter(|(p, _)| p.name == next)
        .map(|(_, f)| f)
        .collect()
}

/// What OLD held a paused run to for one field `name`, as the check
/// compares it: `Some(kind)` per type; a child (`name.x`) held makes
/// `name` a mapping (F1).
pub(super) fn kinds_of<'a>(
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
pub(super) fn is_child(child: &str, parent: &str) -> bool {
    child
        .strip_prefix(parent)
        .is_some_and(|rest| rest.starts_with('.'))
}

/// Per OLD phase (by index), whether it is at or upstream of `phase`
/// through OLD's edges.
pub(super) fn upstream_of(old: &Analysis, phase: usize) -> Vec<bool> {
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
pub(super) fn entry_requirements(old: &Old<'_>, kept: &[Kept<'_>], out: &mut Vec<Diagnostic>) {
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
pub(super) fn raised(
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
