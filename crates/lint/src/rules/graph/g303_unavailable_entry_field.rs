use crate::diagnostic::{Applicability, Severity};
use crate::findings::Findings;
use crate::graph::Presence;
use crate::rules::{Check, Family, FixAvailability, Need, Rule, RuleContext};
use crate::suggest::Suggester;

pub(crate) static RULE: Rule = rule!(
    "G303",
    "unavailable-entry-field",
    Family::Graph,
    Severity::Error,
    "An entry-required field is produced on no path (error) or only on some (warning)",
)
.fix(FixAvailability::Unsafe)
.needs(&[Need::CompleteFields, Need::CompleteTopology])
.levels(&[
    (Severity::Error, "when no path produces the field"),
    (Severity::Warning, "when only some paths do"),
])
.points_at("the field's `name` value")
.check(Check::Contract(check));

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    let contract = ctx.contract;
    let graph = ctx.graph;
    let mut suggester = Suggester::new();
    for (i, phase) in contract.phases.iter().enumerate() {
        // Entry phases read what the caller supplies; unreachable ones are G301's.
        if graph.is_entry(i) || !graph.is_reachable(i) {
            continue;
        }
        for (field, presence) in phase.entry_required().iter().zip(graph.entry_presence(i)) {
            let name = &field.name.value;
            if ctx.is_pipeline_input(name) {
                continue;
            }
            if *presence == Presence::Always {
                continue;
            }
            let producers: Vec<usize> = ctx
                .producers(name, 4)
                .into_iter()
                .filter(|&p| p != i)
                .take(3)
                .collect();
            match presence {
                Presence::Always => {}
                Presence::Never => {
                    let mut help = std::borrow::Cow::Borrowed(
                        "produce it in an earlier phase's exit.required, list it in pipeline_inputs, or move it to entry.enrichment",
                    );
                    let mut fix = None;
                    if producers.is_empty()
                        && let Some(close) = suggester.closest(name.as_str(), ctx.produced_names())
                    {
                        help = format!("did you mean `{close}`? otherwise {help}").into();
                        fix = crate::scalar_edit::fix(
                            format!("Replace with `{close}`"),
                            Applicability::Unsafe,
                            ctx.source,
                            field.name.span,
                            close,
                        );
                    }
                    let mut diagnostic = RULE
                        .diagnostic(
                            field.name.span,
                            format!("`{name}` is required on entry to `{}`, but no path before it produces it", phase.name),
                        )
                        .with_help(help);
                    diagnostic.fix = fix.map(Box::new);
                    for &producer in &producers {
                        let producer = &contract.phases[producer];
                        diagnostic = diagnostic.with_related(
                            producer.name_span,
                            format!(
                                "`{}` produces it, but does not run before `{}`",
                                producer.name, phase.name
                            ),
                        );
                    }
                    out.push(diagnostic);
                }
                Presence::Sometimes => {
                    let mut diagnostic = RULE
                        .diagnostic(
                            field.name.span,
                            format!(
                                "`{name}` is required on entry to `{}`, but is only produced on some paths or only optionally",
                                phase.name
                            ),
                        )
                        .with_help("produce it on every path (exit.required, not exit.optional), stop edges from dropping it, or make it entry.enrichment");
                    diagnostic.severity = Severity::Warning;
                    for &index in &producers {
                        let producer = &contract.phases[index];
                        let required = ctx.requires_on_exit(index, name);
                        let how = if required {
                            format!(
                                "`{}` produces it, but not on every path here",
                                producer.name
                            )
                        } else {
                            format!("`{}` produces it only as exit.optional", producer.name)
                        };
                        diagnostic = diagnostic.with_related(producer.name_span, how);
                    }
                    out.push(diagnostic);
                }
            }
        }
    }
}
