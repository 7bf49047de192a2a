use std::collections::HashMap;

use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::field_path::{FieldIndex, FieldPath};
use crate::findings::Findings;
use crate::model::Field;
use crate::rules::{Check, Family, FixAvailability, Need, Rule, RuleContext};
use crate::suggest::Suggester;

pub(crate) static RULE: Rule = rule!(
    "G304",
    "dead-write",
    Family::Graph,
    Severity::Info,
    "An exit field of a non-terminal phase that nothing later reads, chains or watches (off by default)",
)
.off_by_default()
.fix(FixAvailability::Unsafe)
.needs(&[Need::CompleteFields, Need::CompleteTopology])
.points_at("the field's `name` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
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
    let mut reads = None;
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
            out.push(dead_write(
                ctx,
                &mut reads,
                i,
                field,
                folded,
                &mut suggester,
            ));
        }
    }
}

fn dead_write<'a>(
    ctx: &RuleContext<'a>,
    reads: &mut Option<Reads<'a>>,
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
    match close_read(ctx, reads, phase, name, suggester) {
        Some((reader, read)) => {
            let mut diagnostic = diagnostic.with_help(format!(
                "`{}` reads `{read}`; did you mean that? otherwise {help}",
                contract.phases[reader].name
            ));
            diagnostic.fix = crate::scalar_edit::fix(
                format!("Rename to `{read}`"),
                Applicability::Unsafe,
                ctx.source,
                field.name.span,
                read,
            )
            .map(Box::new);
            diagnostic
        }
        None => diagnostic.with_help(help),
    }
}

/// One entry field a phase reads: (phase, field, whether it is required).
type Read<'a> = (usize, &'a Field, bool);

/// The entry reads of every phase, indexed for the did-you-mean: by name,
/// by every dotted suffix (`module_inventory` of
/// `scaffold.module_inventory`), and those nobody produces (the typo
/// candidates). Built once, on the first dead write that gets a suggestion,
/// so a suggestion costs lookups, not a scan of every field.
struct Reads<'a> {
    by_name: HashMap<&'a str, Vec<Read<'a>>>,
    by_suffix: HashMap<&'a str, Vec<Read<'a>>>,
    unproduced: Vec<Read<'a>>,
}

impl<'a> Reads<'a> {
    fn new(ctx: &RuleContext<'a>) -> Self {
        let mut reads = Reads {
            by_name: HashMap::new(),
            by_suffix: HashMap::new(),
            unproduced: Vec::new(),
        };
        for (p, phase) in ctx.contract.phases.iter().enumerate() {
            let required = phase.entry_required().iter().map(|f| (p, f, true));
            let enriching = phase.entry_enrichment().iter().map(|f| (p, f, false));
            for read in required.chain(enriching) {
                let name = read.1.name.value.as_str();
                reads.by_name.entry(name).or_default().push(read);
                for (dot, _) in name.match_indices('.') {
                    reads
                        .by_suffix
                        .entry(&name[dot + 1..])
                        .or_default()
                        .push(read);
                }
                let field = &read.1.name.value;
                if ctx.producers(field, 1).is_empty() && !ctx.is_pipeline_input(field) {
                    reads.unproduced.push(read);
                }
            }
        }
        reads
    }
}

/// A field a later phase reads under a close name: the same field with a
/// prefix added or dropped (`module_inventory` written,
/// `scaffold.module_inventory` read), or a typo of a name nobody produces.
fn close_read<'a>(
    ctx: &RuleContext<'a>,
    reads: &mut Option<Reads<'a>>,
    phase: usize,
    name: &FieldPath,
    suggester: &mut Suggester,
) -> Option<(usize, &'a str)> {
    if !suggester.take() {
        return None;
    }
    let reads = reads.get_or_insert_with(|| Reads::new(ctx));
    let later = ctx.graph.reachable_from(phase, |_| true);
    let text = name.as_str();
    // The first in phase and declaration order, as a reader scans the file.
    let first = |candidates: &mut dyn Iterator<Item = Read<'a>>| {
        candidates
            .filter(|&(p, _, _)| later.contains(p))
            .min_by_key(|&(p, field, _)| (p, field.span.start))
    };
    let prefixed = reads.by_suffix.get(text).into_iter().flatten().copied();
    let shortened = text
        .match_indices('.')
        .filter_map(|(dot, _)| reads.by_name.get(&text[dot + 1..]))
        .flatten()
        .copied();
    let found = match first(&mut prefixed.chain(shortened)) {
        Some(read) => read,
        None => {
            let typos: Vec<Read<'a>> = reads
                .unproduced
                .iter()
                .copied()
                .filter(|&(p, _, _)| later.contains(p))
                .collect();
            let close =
                crate::suggest::closest(text, typos.iter().map(|(_, f, _)| f.name.value.as_str()))?;
            first(
                &mut typos
                    .into_iter()
                    .filter(|(_, f, _)| f.name.value.as_str() == close),
            )?
        }
    };
    // A read that G303 already proposes to rename (often to this very
    // field) is left to it: both renames applied would swap the names.
    let (reader, field, required) = found;
    if required && ctx.renames_unproduced_read(reader, &field.name.value) {
        return None;
    }
    Some((reader, field.name.value.as_str()))
}
