use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "R107",
    "unknown-source-phase",
    Family::Reference,
    Severity::Error,
    "A field's source_phase names an unknown phase",
)
.fix(FixAvailability::Unsafe)
.points_at("the `source_phase` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let mut suggester = crate::suggest::Suggester::new();
    for phase in &ctx.contract.phases {
        for field in phase.all_fields() {
            if let Some(source) = &field.source_phase()
                && ctx.contract.is_unknown_phase(&source.value)
            {
                out.push(super::unknown_phase(
                    &RULE,
                    ctx,
                    source,
                    "source_phase",
                    &mut suggester,
                ));
            }
        }
    }
}
