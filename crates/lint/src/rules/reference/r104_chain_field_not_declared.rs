use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::field_path::FieldPath;
use crate::findings::Findings;
use crate::model::{Endpoint, Field, Phase, Spanned};
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};
use crate::suggest::Suggester;

pub(crate) static RULE: Rule = rule!(
    "R104",
    "chain-field-not-declared",
    Family::Reference,
    Severity::Warning,
    "A chain's field is not declared at its endpoint (source: an exit field; destination: any field)",
)
.fix(FixAvailability::Unsafe)
.points_at("the endpoint's `field` value")
.check(Check::Contract(check));

/// Where a chain field must be declared: the source phase must produce it
/// (an exit field); the destination phase must declare it anywhere, entry
/// or exit, as ContextCore checks a chain against one context snapshot and
/// real chains name a field the destination writes.
enum Side {
    Exit,
    Anywhere,
}

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let mut suggester = Suggester::new();
    for chain in &ctx.contract.chains {
        let id = chain
            .chain_id
            .as_ref()
            .map_or("(unnamed)", |c| c.value.as_str());
        let endpoints = [
            (&chain.source, Side::Exit),
            (&chain.destination, Side::Anywhere),
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
                Side::Anywhere => ctx.declares(index, &field.value),
            };
            if declared {
                continue;
            }
            out.push(undeclared(
                ctx.source,
                id,
                phase,
                field,
                side,
                &mut suggester,
            ));
        }
    }
}

fn undeclared(
    source: &str,
    chain: &str,
    phase: &Phase,
    field: &Spanned<FieldPath>,
    side: Side,
    suggester: &mut Suggester,
) -> Diagnostic {
    let (candidates, message, place): (Vec<&Field>, _, _) = match side {
        Side::Exit => (
            phase.exit_fields().collect(),
            format!(
                "chain `{chain}` starts with `{}`, which phase `{}` does not produce",
                field.value, phase.name
            ),
            format!("`phases.{}.exit`", phase.name),
        ),
        Side::Anywhere => (
            phase.all_fields().collect(),
            format!(
                "chain `{chain}` ends with `{}`, which phase `{}` neither reads nor writes",
                field.value, phase.name
            ),
            // Enrichment is read when present and never required, so
            // declaring it there cannot make the field unavailable (G303).
            format!(
                "`phases.{}.entry.enrichment` (if it reads the field) or `exit.optional` (if it writes it)",
                phase.name
            ),
        ),
    };
    let suggestion = suggester.closest(
        field.value.as_str(),
        candidates.iter().map(|f| f.name.value.as_str()),
    );
    let diagnostic = RULE.diagnostic(field.span, message);
    match suggestion {
        Some(name) => {
            let mut diagnostic = diagnostic.with_help(format!(
                "did you mean `{name}`? otherwise declare `{}` in {place}",
                field.value
            ));
            diagnostic.fix = crate::scalar_edit::fix(
                format!("Replace with `{name}`"),
                Applicability::Unsafe,
                source,
                field.span,
                name,
            )
            .map(Box::new);
            diagnostic
        }
        None => diagnostic.with_help(format!("declare `{}` in {place}", field.value)),
    }
}
