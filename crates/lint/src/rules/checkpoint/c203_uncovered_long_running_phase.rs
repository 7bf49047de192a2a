use crate::diagnostic::Severity;
use crate::duration::format_seconds;
use crate::findings::Findings;
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "C203",
    "uncovered-long-running-phase",
    Family::Checkpoint,
    Severity::Warning,
    "A long-running phase is not covered by any checkpoint",
)
.points_at("the phase's name")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let threshold = ctx.settings.long_running_threshold;
    let checkpointed: std::collections::HashSet<&str> = ctx
        .contract
        .checkpoints
        .iter()
        .filter_map(|c| c.phase.as_ref().map(|p| p.value.as_str()))
        .collect();
    for phase in &ctx.contract.phases {
        let flagged = phase.long_running().is_some_and(|l| l.value);
        let expected = phase.expected_duration().filter(|d| d.value >= threshold);
        if !flagged && expected.is_none() {
            continue;
        }
        if checkpointed.contains(phase.name.as_str()) {
            continue;
        }
        let why = match expected {
            Some(d) if !flagged => format!(
                "its expected_duration {} is at least the long_running_threshold {}",
                format_seconds(d.value),
                format_seconds(threshold)
            ),
            _ => "it is marked long_running".to_string(),
        };
        let mut diagnostic = RULE
            .diagnostic(
                phase.name_span,
                format!("long-running phase `{}` has no checkpoint: {why}", phase.name),
            )
            .with_help(format!(
                "add a checkpoint_integrity entry with `phase: {}` so a paused run can resume after it",
                phase.name
            ));
        if let Some(d) = expected {
            diagnostic = diagnostic.with_related(d.span, "expected duration");
        }
        out.push(diagnostic);
    }
}
