use crate::diagnostic::Severity;
use crate::rules::{Family, FixAvailability, Rule};

/// Its findings are made by `crate::suppression`, which the findings sink
/// asks as it finishes: the sink sits below the registry, whose checks
/// write to it.
pub(crate) static RULE: Rule = rule!(
    "S001",
    "unused-suppression",
    Family::Schema,
    Severity::Info,
    "A suppression comment that silenced nothing",
)
.fix(FixAvailability::Safe)
.points_at("the code inside the comment");
