use crate::diagnostic::{Applicability, Severity};
use crate::findings::Findings;
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};
use crate::suggest::Suggester;

pub(crate) static RULE: Rule = rule!(
    "R102",
    "staleness-field-not-produced",
    Family::Reference,
    Severity::Warning,
    "A staleness field is not an exit field of the checkpoint's phase (REQ-10-010)",
)
.fix(FixAvailability::Unsafe)
.points_at("the staleness `field` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let mut suggester = Suggester::new();
    for spec in &ctx.contract.checkpoints {
        let Some((index, phase)) = spec.phase.as_ref().and_then(|p| {
            let index = ctx.contract.phase_index(&p.value)?;
            let phase = &ctx.contract.phases[index];
            phase.complete.then_some((index, phase))
        }) else {
            continue;
        };
        for check in &spec.on_resume.staleness_checks {
            let Some(field) = &check.field else { continue };
            if ctx.produces(index, &field.value) {
                continue;
            }
            let diagnostic = RULE.diagnostic(
                field.span,
                format!(
                    "staleness field `{}` is not an exit field of phase `{}`, so the checkpoint has nothing to age",
                    field.value, phase.name
                ),
            );
            let exits = phase.exit_fields().map(|f| f.name.value.as_str());
            out.push(match suggester.closest(field.value.as_str(), exits) {
                Some(name) => {
                    let mut diagnostic = diagnostic.with_help(format!("did you mean `{name}`?"));
                    diagnostic.fix = crate::scalar_edit::fix(
                        format!("Replace with `{name}`"),
                        Applicability::Unsafe,
                        ctx.source,
                        field.span,
                        name,
                    )
                    .map(Box::new);
                    diagnostic
                }
                None => diagnostic.with_help(format!(
                    "declare `{}` under `phases.{}.exit` or watch a field the phase produces",
                    field.value, phase.name
                )),
            });
        }
    }
}
