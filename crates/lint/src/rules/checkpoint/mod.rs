//! Checkpoint integrity specs (REQ-10): approval gates, staleness checks,
//! and which phases a checkpoint covers.

pub(crate) mod c201_approval_without_policy;
pub(crate) mod c202_dead_approval_policy;
pub(crate) mod c203_uncovered_long_running_phase;
pub(crate) mod c204_checkpoint_without_staleness_checks;
pub(crate) mod c205_non_positive_max_age;
pub(crate) mod c206_fail_recovery_not_blocking;
pub(crate) mod c207_blocking_with_log_and_continue;
pub(crate) mod c208_revalidate_without_successor;

use crate::model::CheckpointSpec;
use crate::syntax::Span;

/// Where a checkpoint-level finding points: its `checkpoint_id` value, or
/// the start of the spec when the id is missing (E005 reports that).
fn anchor(spec: &CheckpointSpec) -> Span {
    spec.checkpoint_id
        .as_ref()
        .map_or(Span::empty(spec.span.start), |id| id.span)
}

fn name(spec: &CheckpointSpec) -> &str {
    spec.checkpoint_id
        .as_ref()
        .map_or("(unnamed)", |id| id.value.as_str())
}
