use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::model::{FieldSeverity, Recovery};
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "C207",
    "blocking-with-log-and-continue",
    Family::Checkpoint,
    Severity::Warning,
    "on_stale: blocking with recovery: log_and_continue (contradiction)",
)
.points_at("the `recovery` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    for spec in &ctx.contract.checkpoints {
        for check in &spec.on_resume.staleness_checks {
            let Some(recovery) = &check.recovery else {
                continue;
            };
            if recovery.value == Recovery::LogAndContinue
                && check.on_stale() == FieldSeverity::Blocking
            {
                let implicit = if check.on_stale.is_none() {
                    " (the default)"
                } else {
                    ""
                };
                let mut diagnostic = RULE
                    .diagnostic(
                        recovery.span,
                        format!("`log_and_continue` cannot recover a field whose staleness is blocking{implicit}"),
                    )
                    .with_help("set `on_stale: warning` to log and continue, or choose `re_retrieve` / `re_generate` / `fail`");
                if let Some(on_stale) = &check.on_stale {
                    diagnostic = diagnostic.with_related(on_stale.span, "blocking set here");
                }
                out.push(diagnostic);
            }
        }
    }
}
