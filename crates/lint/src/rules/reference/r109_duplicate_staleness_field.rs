use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "R109",
    "duplicate-staleness-field",
    Family::Reference,
    Severity::Warning,
    "The same staleness field twice in one checkpoint",
)
.points_at("the second staleness `field` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    for spec in &ctx.contract.checkpoints {
        let mut first_checked = std::collections::HashMap::new();
        for check in &spec.on_resume.staleness_checks {
            let Some(field) = &check.field else { continue };
            let Some(&first) = first_checked.get(field.value.as_str()) else {
                first_checked.insert(field.value.as_str(), field.span);
                continue;
            };
            out.push(
                RULE.diagnostic(
                    field.span,
                    format!("`{}` is checked twice in this checkpoint; only one max_age_seconds can apply", field.value),
                )
                .with_related(first, "first checked here")
                .with_help("merge the two staleness checks into one"),
            );
        }
    }
}
