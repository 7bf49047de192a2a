//! D612 and D622 for a checkpoint's staleness checks: what each side's
//! checks of a field do together, compared field by field.

use std::collections::BTreeSet;

use crate::diagnostic::Diagnostic;
use crate::model::EnumValue;
use crate::resume::Target;
use crate::syntax::Span;

use super::sides::{At, Old, loosened};
use crate::rules::diff::D612_STALENESS_TIGHTENED;

/// D612: a staleness check of the checkpoint is stricter under NEW: a
/// shorter `max_age_seconds`, `on_stale` escalated, `recovery: fail`
/// newly set, or a field checked that OLD did not check. D622: the
/// opposites, and entry no longer re-checked.
pub(super) fn staleness(
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
pub(super) struct Effect<'a> {
    age: i64,
    /// The check with the shortest age (the first such).
    strictest: &'a crate::model::StalenessCheck,
    /// A check that blocks when stale, if any.
    blocking: Option<&'a crate::model::StalenessCheck>,
    /// A non-advisory check with a recovery the check runs, if any.
    recovers: Option<&'a crate::model::StalenessCheck>,
}

pub(super) fn by_field(
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
