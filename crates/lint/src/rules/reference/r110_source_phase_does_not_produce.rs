use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Family, Rule, RuleContext};

pub(crate) static RULE: Rule = Rule {
    code: "R110",
    name: "source-phase-does-not-produce",
    family: Family::Reference,
    default_severity: Severity::Warning,
    summary: "source_phase names a phase that does not produce the field",
    doc: include_str!("../../../../../rules/R110.md"),
    check: Some(check),
};

fn check(ctx: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    for phase in &ctx.contract.phases {
        for field in phase.all_fields() {
            let Some(source) = &field.source_phase else {
                continue;
            };
            let Some(index) = ctx.contract.phase_index(&source.value) else {
                continue;
            };
            let producer = &ctx.contract.phases[index];
            if !producer.complete {
                continue;
            }
            if !ctx.produces(index, &field.name.value) {
                out.push(
                    RULE.diagnostic(
                        source.span,
                        format!(
                            "`{}` names `{}` as its source, but `{}` does not produce it",
                            field.name.value, producer.name, producer.name
                        ),
                    )
                    .with_related(
                        producer.name_span,
                        format!("phase `{}` is declared here", producer.name),
                    )
                    .with_help(format!(
                        "add `{}` to `phases.{}.exit`, or name the phase that does produce it",
                        field.name.value, producer.name
                    )),
                );
            }
        }
    }
}
