//! What the D-code checks share: OLD's side with its related locations,
//! the checkpoints both sides keep, and the finding helpers.

use std::sync::Arc;

use crate::Analysis;
use crate::diagnostic::{Diagnostic, OtherFile, Related};
use crate::model::Phase;
use crate::resume::{ResumeError, Target};
use crate::rules::Rule;
use crate::syntax::Span;

use crate::rules::diff::D622_LIMITS_LOOSENED;

/// A D-code's finding at its default level: `CODE.at(span, message)`.
pub(super) trait At {
    fn at(&self, span: Span, message: impl Into<String>) -> Diagnostic;
}

impl At for Rule {
    fn at(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.diagnostic(span, message)
    }
}

/// OLD's side of a comparison: its analysis, and its text as another
/// file, so that OLD's locations are related locations in OLD's own file.
pub(super) struct Old<'a> {
    pub(super) analysis: &'a Analysis,
    pub(super) file: Arc<OtherFile>,
}

impl Old<'_> {
    /// A related location at `span` of OLD's text.
    pub(super) fn note(&self, span: Span, message: impl Into<String>) -> Related {
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

/// D622: one limit of the resume check loosened: nothing breaks for a
/// paused run, and the change is worth a reviewer's look.
pub(super) fn loosened(span: Span, message: String, was: Related) -> Diagnostic {
    D622_LIMITS_LOOSENED
        .at(span, message)
        .with_help("nothing to do for paused runs; make sure the looser check is intended")
        .with_related_location(was)
}

/// Every checkpoint of one side by id, as `Target::find` finds it.
pub(super) type Targets<'a> = std::collections::HashMap<String, Result<Target<'a>, ResumeError>>;

/// A checkpoint both contracts declare and both resume checks accept: the
/// runs paused there under OLD are the ones NEW meets.
pub(super) struct Kept<'a> {
    pub(super) old: Target<'a>,
    pub(super) new: Target<'a>,
    pub(super) old_here: Related,
}

/// A phase's definition as written, without its position: equal texts
/// mean a phase moved or renamed, not rewritten.
pub(super) fn phase_text(analysis: &Analysis, phase: &Phase) -> Option<String> {
    let text = analysis.source.get(phase.span.start..phase.span.end)?;
    let body = text.split_once(':').map_or(text, |(_, body)| body);
    Some(body.split_whitespace().collect::<Vec<_>>().join(" "))
}

pub(super) fn list_or_nothing(names: &[String]) -> String {
    if names.is_empty() {
        "nothing".to_string()
    } else {
        crate::diagnostic::code_list(names.iter())
    }
}

/// The checkpoint ids a contract declares.
pub(super) fn ids(analysis: &Analysis) -> impl Iterator<Item = &str> {
    analysis
        .contract()
        .into_iter()
        .flat_map(|c| &c.checkpoints)
        .filter_map(|c| c.checkpoint_id.as_ref().map(|i| i.value.as_str()))
}
