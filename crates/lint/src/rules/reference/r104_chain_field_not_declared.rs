use crate::diagnostic::{Diagnostic, Severity};
use crate::field_path::FieldPath;
use crate::model::{Endpoint, Field, Phase, Spanned};
use crate::rules::{Family, Rule, RuleContext};
use crate::suggest::Suggester;

pub(crate) static RULE: Rule = Rule {
    code: "R104",
    name: "chain-field-not-declared",
    family: Family::Reference,
    default_severity: Severity::Warning,
    summary: "A chain's field is not declared at its endpoint (source: exit; destination: entry)",
    doc: include_str!("../../../../../rules/R104.md"),
    check: Some(check),
};

/// Which side of its endpoint phase a chain field must be declared on.
enum Side {
    Exit,
    Entry,
}

fn check(ctx: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    let mut suggester = Suggester::new();
    for chain in &ctx.contract.chains {
        let id = chain
            .chain_id
            .as_ref()
            .map_or("(unnamed)", |c| c.value.as_str());
        let endpoints = [
            (&chain.source, Side::Exit),
            (&chain.destination, Side::Entry),
        ];
        for (endpoint, side) in endpoints {
            let Some(Endpoint {
                phase: Some(phase),
                field: Some(field),
                ..
            }) = endpoint
            else {
                continue;
            };
            let Some(index) = ctx.contract.phase_index(&phase.value) else {
                continue;
            };
            let phase = &ctx.contract.phases[index];
            if !phase.complete {
                continue;
            }
            let declared = match side {
                Side::Exit => ctx.produces(index, &field.value),
                Side::Entry => ctx.declares(index, &field.value),
            };
            if declared {
                continue;
            }
            out.push(undeclared(id, phase, field, side, &mut suggester));
        }
    }
}

fn undeclared(
    chain: &str,
    phase: &Phase,
    field: &Spanned<FieldPath>,
    side: Side,
    suggester: &mut Suggester,
) -> Diagnostic {
    let (declared, message, place): (Vec<&Field>, _, _) = match side {
        Side::Exit => (
            phase.exit_fields().collect(),
            format!(
                "chain `{chain}` starts with `{}`, which phase `{}` does not produce",
                field.value, phase.name
            ),
            format!("`phases.{}.exit`", phase.name),
        ),
        Side::Entry => (
            phase.entry_fields().collect(),
            format!(
                "chain `{chain}` ends with `{}`, which phase `{}` does not declare on entry",
                field.value, phase.name
            ),
            format!(
                "`phases.{}.entry.required` or `entry.enrichment`",
                phase.name
            ),
        ),
    };
    let help = match suggester.closest(
        field.value.as_str(),
        declared.iter().map(|f| f.name.value.as_str()),
    ) {
        Some(name) => format!(
            "did you mean `{name}`? otherwise add `{}` to {place}",
            field.value
        ),
        None => format!("add `{}` to {place}", field.value),
    };
    RULE.diagnostic(field.span, message).with_help(help)
}
