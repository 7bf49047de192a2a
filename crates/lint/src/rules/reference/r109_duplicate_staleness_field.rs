use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "R109",
    name: "duplicate-staleness-field",
    family: Family::Reference,
    default_severity: Severity::Warning,
    summary: "The same staleness field twice in one checkpoint",
    doc: include_str!("../../../../../rules/R109.md"),
    check: Some(check),
};

fn check(ctx: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    for spec in &ctx.contract.checkpoints {
        let checks = &spec.on_resume.staleness_checks;
        for (i, check) in checks.iter().enumerate() {
            let Some(field) = &check.field else { continue };
            let earlier = checks[..i]
                .iter()
                .filter_map(|c| c.field.as_ref())
                .find(|f| f.value == field.value);
            if let Some(first) = earlier {
                out.push(
                    RULE.diagnostic(
                        field.span,
                        format!("`{}` is checked twice in this checkpoint; only one max_age_seconds can apply", field.value),
                    )
                    .with_related(first.span, "first checked here")
                    .with_help("merge the two staleness checks into one"),
                );
            }
        }
    }
}
