use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "C205",
    "non-positive-max-age",
    Family::Checkpoint,
    Severity::Error,
    "max_age_seconds is negative (error) or 0 (warning: always stale)",
)
.levels(&[
    (Severity::Error, "for a negative age"),
    (Severity::Warning, "for 0"),
])
.points_at("the `max_age_seconds` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    for spec in &ctx.contract.checkpoints {
        for check in &spec.on_resume.staleness_checks {
            let Some(max_age) = &check.max_age_seconds else {
                continue;
            };
            let field = check
                .field
                .as_ref()
                .map_or("(unnamed)", |f| f.value.as_str());
            if max_age.value < 0 {
                out.push(
                    RULE.diagnostic(
                        max_age.span,
                        format!(
                            "max_age_seconds for `{field}` is negative ({})",
                            max_age.value
                        ),
                    )
                    .with_help("use a positive number of seconds"),
                );
            } else if max_age.value == 0 {
                let mut diagnostic = RULE
                    .diagnostic(
                        max_age.span,
                        format!("max_age_seconds 0 makes `{field}` stale on every resume"),
                    )
                    .with_help("use the real tolerated age, or `recovery: fail` if the run must never resume past this field");
                diagnostic.severity = Severity::Warning;
                out.push(diagnostic);
            }
        }
    }
}
