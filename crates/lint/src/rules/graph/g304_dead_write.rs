use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::field_path::{FieldIndex, FieldPath};
use crate::model::Field;
use crate::rules::{Family, FixAvailability, Need, Rule, RuleContext};
use crate::suggest::Suggester;

pub(crate) static RULE: Rule = Rule {
    code: "G304",
    name: "dead-write",
    family: Family::Graph,
    default_severity: Severity::Info,
    default_enabled: false,
    fix: FixAvailability::Unsafe,
    needs: &[Need::CompleteFields, Need::CompleteTopology],
    levels: &[],
    points_at: "the field's `name` value",
    always_on: false,
    suppressible: true,
    summary: "An exit field of a non-terminal phase that nothing later reads, chains or watches (off by default)",
    doc: include_str!("../../../../../rules/G304.md"),
    check: Some(check),
};

fn check(ctx: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    let contract = ctx.contract;
    let graph = ctx.graph;
    // Fields that chains name or staleness checks watch count as read.
    let named = FieldIndex::new(
        contract
            .chains
            .iter()
            .flat_map(|c| c.stops())
            .filter_map(|s| s.field.as_ref())
            .chain(
                contract
                    .checkpoints
                    .iter()
                    .flat_map(|c| &c.on_resume.staleness_checks)
                    .filter_map(|s| s.field.as_ref()),
            )
            .map(|f| &f.value),
    );
    let mut suggester = Suggester::new();
    for (i, phase) in contract.phases.iter().enumerate() {
        // A terminal phase's exits are the pipeline's outputs.
        if graph.successors(i).next().is_none() {
            continue;
        }
        let mut unread: Vec<&Field> = phase
            .exit_fields()
            .zip(graph.exit_read_later(i))
            .filter(|(field, read_later)| {
                !**read_later && !named.any_overlapping(&field.name.value)
            })
            .map(|(field, _)| field)
            .collect();
        // A field is reported once: not again for each of its sub-paths
        // (`design_quality` and `design_quality.total_failed`).
        unread.sort_by(|a, b| {
            crate::field_path::cmp_segments(a.name.value.as_str(), b.name.value.as_str())
        });
        // Each reported field with how many of its sub-paths it stands for.
        let mut reported: Vec<(&Field, usize)> = Vec::new();
        for field in unread {
            if let Some((parent, folded)) = reported.last_mut()
                && parent.name.value.covers(&field.name.value)
            {
                *folded += 1;
                continue;
            }
            reported.push((field, 0));
        }
        reported.sort_by_key(|(f, _)| f.name.span.start);
        for (field, folded) in reported {
            out.push(dead_write(ctx, i, field, folded, &mut suggester));
        }
    }
}

fn dead_write(
    ctx: &RuleContext<'_>,
    phase: usize,
    field: &Field,
    sub_paths: usize,
    suggester: &mut Suggester,
) -> Diagnostic {
    let contract = ctx.contract;
    let name = &field.name.value;
    let diagnostic = RULE.diagnostic(
        field.name.span,
        format!(
            "`{name}` is produced by `{}` but no later phase reads it",
            contract.phases[phase].name
        ),
    );
    let help = if sub_paths == 0 {
        "read it in a later phase's entry, name it in a propagation chain, or remove it from exit"
    } else {
        "read it in a later phase's entry, name it in a propagation chain, or remove it and its declared sub-paths from exit"
    };
    match close_read(ctx, phase, name, suggester) {
        Some((reader, read)) => diagnostic
            .with_help(format!(
                "`{}` reads `{read}`; did you mean that? otherwise {help}",
                contract.phases[reader].name
            ))
            .with_fix(Fix::replace(
                format!("Rename to `{read}`"),
                Applicability::Unsafe,
                field.name.span,
                read,
            )),
        None => diagnostic.with_help(help),
    }
}

/// A field a later phase reads under a close name: a typo, or the same
/// field with a prefix added or dropped (`module_inventory` written,
/// `scaffold.module_inventory` read).
fn close_read<'a>(
    ctx: &'a RuleContext<'_>,
    phase: usize,
    name: &FieldPath,
    suggester: &mut Suggester,
) -> Option<(usize, &'a str)> {
    if !suggester.take() {
        return None;
    }
    let contract = ctx.contract;
    let later = ctx.graph.reachable_from(phase, |_| true);
    let reads = || {
        later.ones().flat_map(move |p| {
            let phase = &contract.phases[p];
            let required = phase.entry_required.iter().map(move |f| (p, f, true));
            let enriching = phase.entry_enrichment.iter().map(move |f| (p, f, false));
            required.chain(enriching)
        })
    };
    // A read that G303 already proposes to rename (often to this very
    // field) is left to it: both renames applied would swap the names.
    let g303_renames = |&(p, field, required): &(usize, &Field, bool)| {
        required && ctx.renames_unproduced_read(p, &field.name.value)
    };
    let text = name.as_str();
    let affixed = reads().find(|&(_, field, _)| {
        let read = field.name.value.as_str();
        read.strip_suffix(text)
            .is_some_and(|head| head.ends_with('.'))
            || text
                .strip_suffix(read)
                .is_some_and(|head| head.ends_with('.'))
    });
    let found = match affixed {
        Some(read) => read,
        None => {
            let close =
                crate::suggest::closest(text, reads().map(|(_, f, _)| f.name.value.as_str()))?;
            reads().find(|&(_, f, _)| f.name.value.as_str() == close)?
        }
    };
    if g303_renames(&found) {
        return None;
    }
    Some((found.0, found.1.name.value.as_str()))
}
