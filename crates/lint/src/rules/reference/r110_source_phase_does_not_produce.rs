use std::collections::HashMap;

use crate::diagnostic::{Applicability, Fix, Severity};
use crate::findings::Findings;
use crate::model::{Field, Spanned};
use crate::rules::{Check, Family, FixAvailability, Rule, RuleContext};

pub(crate) static RULE: Rule = rule!(
    "R110",
    "source-phase-does-not-produce",
    Family::Reference,
    Severity::Warning,
    "source_phase names a phase that does not produce the field (once per field and phase)",
)
.fix(FixAvailability::Unsafe)
.points_at("the `source_phase` value")
.check(Check::Contract(check));

/// A phase that reads a field with a `source_phase` claim: (phase, field, claim).
type Reader<'a> = (usize, &'a Field, &'a Spanned<String>);

/// Readers listed as related spans of one finding, at most.
const READERS_SHOWN: usize = 10;

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let contract = ctx.contract;
    // Per (field, source phase), the readers whose claim is wrong, in
    // document order: one finding each, the others as related spans.
    let mut groups: Vec<((&str, usize), Vec<Reader<'_>>)> = Vec::new();
    let mut group_of: HashMap<(&str, usize), usize> = HashMap::new();
    for (reader, phase) in contract.phases.iter().enumerate() {
        // A schema error in the reader's body may have taken its fields apart.
        if !phase.complete {
            continue;
        }
        for field in phase.all_fields() {
            let Some(source) = &field.source_phase() else {
                continue;
            };
            let Some(index) = contract.phase_index(&source.value) else {
                continue;
            };
            if !contract.phases[index].complete || ctx.produces(index, &field.name.value) {
                continue;
            }
            let key = (field.name.value.as_str(), index);
            let at = *group_of.entry(key).or_insert_with(|| {
                groups.push((key, Vec::new()));
                groups.len() - 1
            });
            groups[at].1.push((reader, field, source));
        }
    }
    for ((name, source), readers) in groups {
        let producer = &contract.phases[source];
        // The phase that does produce the field, if one does: the help
        // names it, and when it is the only one, the fix points every
        // reader's claim at it.
        let producers = readers
            .first()
            .map(|(_, field, _)| ctx.producers(&field.name.value, 2))
            .unwrap_or_default();
        let actual = producers.first().map(|&p| &contract.phases[p].name);
        let only = match producers.as_slice() {
            [one] => Some(contract.phases[*one].name.as_str()),
            _ => None,
        };
        let retarget = |claims: &[&Spanned<String>]| {
            let phase = only?;
            let mut edits = Vec::with_capacity(claims.len());
            for claim in claims {
                edits.extend(crate::scalar_edit::edits(ctx.source, claim.span, phase)?);
            }
            Some(Fix {
                title: format!("Set `source_phase: {phase}`"),
                applicability: Applicability::Unsafe,
                edits,
            })
        };
        // A phase naming itself is its own case: "add it to the source's
        // exit" would not make the value arrive before the phase reads it.
        let (own, others): (Vec<_>, Vec<_>) = readers.into_iter().partition(|r| r.0 == source);
        if let Some(&(_, _, claim)) = own.first() {
            let help = match actual {
                Some(actual) => format!(
                    "set `source_phase: {actual}`, the phase that produces `{name}`, or remove `source_phase` if the value comes from outside the pipeline"
                ),
                None => format!(
                    "no phase produces `{name}`: set `source_phase` to the earlier phase that should (and add it to that phase's exit), or remove `source_phase` if the value comes from outside the pipeline"
                ),
            };
            let mut diagnostic = RULE
                .diagnostic(
                    claim.span,
                    format!(
                        "`{name}` is read by `{}` with `source_phase: {}`, but `{}` does not produce it: the value must come from an earlier phase",
                        producer.name, producer.name, producer.name
                    ),
                )
                .with_help(help);
            diagnostic.fix = retarget(&[claim]).map(Box::new);
            out.push(diagnostic);
        }
        let Some((&(_, _, claim), rest)) = others.split_first() else {
            continue;
        };
        let every = if rest.is_empty() {
            ""
        } else {
            " (in every reader)"
        };
        let help = match actual {
            Some(actual) => format!(
                "set `source_phase: {actual}`{every}, the phase that produces `{name}`, or add `{name}` to `phases.{}.exit`",
                producer.name
            ),
            None => format!(
                "no phase declares `{name}` in its exit: add it to `phases.{}.exit`, or remove `source_phase`{every} if the value comes from outside the pipeline",
                producer.name
            ),
        };
        let mut diagnostic = RULE
            .diagnostic(
                claim.span,
                format!(
                    "`{name}` names `{}` as its source, but `{}` does not produce it",
                    producer.name, producer.name
                ),
            )
            .with_related(
                producer.name_span,
                format!("phase `{}` is declared here", producer.name),
            )
            .with_help(help);
        let claims: Vec<&Spanned<String>> = std::iter::once(claim)
            .chain(rest.iter().map(|&(_, _, other)| other))
            .collect();
        diagnostic.fix = retarget(&claims).map(Box::new);
        for &(reader, _, other) in rest.iter().take(READERS_SHOWN) {
            diagnostic = diagnostic.with_related(
                other.span,
                format!(
                    "`{}` also reads it with `source_phase: {}`",
                    contract.phases[reader].name, producer.name
                ),
            );
        }
        out.push(diagnostic);
    }
}
