//! What `phaselint diff` reports (`--mode`), and the findings for a
//! contract deleted outright (`--git` on a file gone from the work tree).
//! Kept apart from the comparison itself: the mode is a filter over its
//! findings, and which D-codes void approvals is declared here, once.

use std::path::Path;

use crate::Analysis;
use crate::diagnostic::Diagnostic;
use crate::resume::Target;
use crate::rules::Rule;

use super::{
    At, D601_CHECKPOINT_REMOVED, D611_TARGET_DIGEST_CHANGED, D613_APPROVAL_STRENGTHENED,
    D614_PIPELINE_ID_CHANGED, DiffError, ids, refuse_errors,
};

/// Which changes `phaselint diff` reports (docs/diff.md, "Modes").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DiffMode {
    /// Everything that matters to a run paused under OLD and resumed
    /// under NEW: every D-code.
    #[default]
    Resume,
    /// Only what makes an approval recorded under OLD fail under NEW:
    /// the D-codes of `VOIDS_APPROVALS`.
    Approvals,
}

/// The D-codes whose finding means an approval recorded under OLD does
/// not hold under NEW, so the run must be approved again:
///
/// - D601: the checkpoint an approval names is gone (or renamed, and
///   the checkpoint id is part of what an approval binds). D611 is only
///   reported for checkpoints both contracts declare, so without D601 a
///   renamed checkpoint's void approvals would go unmentioned;
/// - D611: the target digest an approval binds changed;
/// - D613: NEW asks for a stronger approval than OLD's runs were given;
/// - D614: `pipeline_id`, part of every digest, changed.
///
/// Not among them: what strands or re-routes a run without touching its
/// approval (D602, D603, D606 come with D611 when they change the
/// digest), staleness (D612: the approval holds, the context may be
/// stale), and the informational codes.
pub static VOIDS_APPROVALS: &[&Rule] = &[
    &D601_CHECKPOINT_REMOVED,
    &D611_TARGET_DIGEST_CHANGED,
    &D613_APPROVAL_STRENGTHENED,
    &D614_PIPELINE_ID_CHANGED,
];

impl DiffMode {
    /// Whether this mode reports findings of `code`.
    pub fn reports(self, code: &str) -> bool {
        match self {
            DiffMode::Resume => true,
            DiffMode::Approvals => VOIDS_APPROVALS.iter().any(|c| c.code == code),
        }
    }

    /// The D-codes this mode can report (for a report's list of rules
    /// run).
    pub fn codes(self) -> impl Iterator<Item = &'static Rule> {
        super::codes().filter(move |c| self.reports(c.code.as_str()))
    }
}

/// `diff_from`, keeping only the findings `mode` reports.
pub fn diff_in_mode(
    old: &Analysis,
    old_path: &Path,
    new: &Analysis,
    mode: DiffMode,
) -> Result<Vec<Diagnostic>, DiffError> {
    let mut findings = super::diff_from(old, old_path, new)?;
    findings.retain(|d| mode.reports(d.code.as_str()));
    Ok(findings)
}

/// The findings when NEW is no contract at all because the file was
/// deleted: every checkpoint OLD can resume is removed (D601), located in
/// OLD (there is no NEW to point into). `what` says where NEW went, for
/// the message ("the file is deleted in the work tree").
pub fn contract_deleted(old: &Analysis, what: &str) -> Result<Vec<Diagnostic>, DiffError> {
    refuse_errors(old, "OLD")?;
    if old.contract().is_none() {
        return Err(DiffError::NotAContract { side: "OLD" });
    }
    let mut out = Vec::new();
    for id in ids(old) {
        // As in `diff`: a checkpoint OLD's resume check refuses holds no
        // resumable run.
        let Ok(target) = Target::find(old, id) else {
            continue;
        };
        let Some(span) = target.spec.checkpoint_id.as_ref().map(|i| i.span) else {
            continue;
        };
        out.push(
            D601_CHECKPOINT_REMOVED
                .at(
                    span,
                    format!(
                        "checkpoint `{}` is removed with its contract ({what}): runs paused there cannot resume",
                        target.checkpoint_id
                    ),
                )
                .with_help(format!(
                    "keep the contract until no run is paused at `{}`, or resume or cancel those runs before deleting it",
                    target.checkpoint_id
                )),
        );
    }
    Ok(out)
}
