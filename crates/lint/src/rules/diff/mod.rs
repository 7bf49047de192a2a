//! The D6xx codes of `phaselint diff OLD NEW` (docs/diff.md): declared
//! here, in the one registry, so levels, selection, pages, `phaselint
//! rule` and SARIF's rule metadata treat them as every rule. They have no
//! check of their own: one comparison of two contracts (`crate::diff`)
//! makes them all, and `phaselint lint` never reports them.
//!
//! A new D-code is one `Rule` static here (`family: Family::Diff`,
//! through `diff_rule!`), one line in `RULES`
//! (`rules/registry.rs`), its page `rules/CODE.md` (an OLD and a NEW under
//! "Example that fails", a NEW under "Fix") and its fixture pair
//! `fixtures/diff/CODE/{fail,pass}.contract.yaml` against
//! `fixtures/diff/base.contract.yaml`.

use crate::diagnostic::Severity;
use crate::rules::{Family, Rule};

/// A D-code's declaration: everything but what differs per code. A
/// finding is about a change between two files, not a line of one: a
/// comment in NEW does not silence it (configuration does), as its code
/// says (`RuleId::can_be_suppressed`).
macro_rules! diff_rule {
    ($code:literal, $name:literal, $severity:expr, $points_at:expr, $summary:expr $(,)?) => {
        rule!($code, $name, Family::Diff, $severity, $summary).points_at($points_at)
    };
}

pub(crate) static D601_CHECKPOINT_REMOVED: Rule = diff_rule!(
    "D601",
    "checkpoint-removed",
    Severity::Error,
    "NEW's checkpoint it was renamed to, or NEW's first checkpoint when it was removed",
    "A checkpoint of OLD is gone or renamed in NEW: runs paused there cannot resume",
);
pub(crate) static D602_CHECKPOINT_PHASE_CHANGED: Rule = diff_rule!(
    "D602",
    "checkpoint-phase-changed",
    Severity::Error,
    "the checkpoint's `phase` value in NEW",
    "A checkpoint's phase was removed, renamed or changed",
);
pub(crate) static D603_RESUME_TARGETS_CHANGED: Rule = diff_rule!(
    "D603",
    "resume-targets-changed",
    Severity::Error,
    "the checkpoint_id in NEW",
    "The phases a checkpoint resumes into changed (inserted, removed, re-routed)",
);
pub(crate) static D604_NEW_BLOCKING_ENTRY_REQUIREMENT: Rule = diff_rule!(
    "D604",
    "new-blocking-entry-requirement",
    Severity::Error,
    "the required field's name in the entry of the phase resumed into, in NEW",
    "A phase resumed into newly requires, blocking, a field runs paused under OLD may not hold",
);
pub(crate) static D605_FIELD_TYPE_CHANGED: Rule = diff_rule!(
    "D605",
    "field-type-changed",
    Severity::Error,
    "the field's new `type` in the entry of the phase resumed into, in NEW",
    "The declared type of a field paused runs already hold changed to one their values do not have",
);
pub(crate) static D606_RESUMED_PHASE_RAISED: Rule = diff_rule!(
    "D606",
    "resumed-phase-raised",
    Severity::Error,
    "the raised `side_effects` or `risk_class` value in NEW",
    "side_effects or risk_class of a phase resumed into was raised",
);
pub(crate) static D611_TARGET_DIGEST_CHANGED: Rule = diff_rule!(
    "D611",
    "target-digest-changed",
    Severity::Warning,
    "the checkpoint_id in NEW",
    "A checkpoint's target digest changed: approvals recorded under OLD no longer hold",
);
pub(crate) static D612_STALENESS_TIGHTENED: Rule = diff_rule!(
    "D612",
    "staleness-tightened",
    Severity::Warning,
    "the tightened value of the staleness check in NEW",
    "A staleness check was tightened (shorter max_age_seconds, on_stale escalated, recovery: fail, a field newly checked)",
);
pub(crate) static D613_APPROVAL_STRENGTHENED: Rule = diff_rule!(
    "D613",
    "approval-strengthened",
    Severity::Warning,
    "the `approval_policy` in NEW, or the checkpoint_id",
    "Resuming from a checkpoint newly needs an approval, or a stronger one",
);
pub(crate) static D614_PIPELINE_ID_CHANGED: Rule = diff_rule!(
    "D614",
    "pipeline-id-changed",
    Severity::Warning,
    "the `pipeline_id` value in NEW",
    "pipeline_id changed: every approval recorded under OLD is void",
);
pub(crate) static D621_PHASE_ADDED: Rule = diff_rule!(
    "D621",
    "phase-added",
    Severity::Info,
    "the added phase's name in NEW",
    "A phase is added after a checkpoint: runs paused there run it later",
);
pub(crate) static D622_LIMITS_LOOSENED: Rule = diff_rule!(
    "D622",
    "limits-loosened",
    Severity::Info,
    "the loosened value in NEW, or the checkpoint_id when a check was removed",
    "A resume check was loosened (longer max_age_seconds, on_stale relaxed, recovery no longer fail, a check or the entry re-check dropped, approval weakened, side_effects or risk_class of a phase resumed into lowered)",
);
