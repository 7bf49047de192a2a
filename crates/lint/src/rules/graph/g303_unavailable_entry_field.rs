use crate::diagnostic::{Diagnostic, Severity};
use crate::graph::Presence;
use crate::rules::{Family, Rule, RuleContext};
use crate::suggest::closest;

/// Suggestions compare a name with every produced field; past this many
/// findings in one file the rest go without, so a broken generated contract
/// cannot make the check quadratic.
const MAX_SUGGESTIONS: usize = 50;

pub(crate) static RULE: Rule = Rule {
    code: "G303",
    name: "unavailable-entry-field",
    family: Family::Graph,
    default_severity: Severity::Error,
    summary: "An entry-required field is produced on no path (error) or only on some (warning)",
    doc: include_str!("../../../../../rules/G303.md"),
    check: Some(check),
};

fn check(ctx: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    // A schema error removed fields or edges: what looks unavailable or
    // unread may only be what the error explains.
    if !ctx.contract.fields_complete() || !ctx.contract.topology_complete() {
        return;
    }
    let contract = ctx.contract;
    let graph = ctx.graph;
    let mut suggestions_left = MAX_SUGGESTIONS;
    for (i, phase) in contract.phases.iter().enumerate() {
        // Entry phases read what the caller supplies; unreachable ones are G301's.
        if graph.is_entry(i) || !graph.is_reachable(i) {
            continue;
        }
        for (field, presence) in phase.entry_required.iter().zip(graph.entry_presence(i)) {
            let name = &field.name.value;
            if contract
                .pipeline_inputs
                .iter()
                .any(|input| input.value.covers(name))
            {
                continue;
            }
            let mut producers = contract
                .phases
                .iter()
                .filter(|p| p.name != phase.name && p.produces(name))
                .peekable();
            match presence {
                Presence::Always => {}
                Presence::Never => {
                    let mut help = String::from(
                        "produce it in an earlier phase's exit.required, list it in pipeline_inputs, or move it to entry.enrichment",
                    );
                    if producers.peek().is_none() && suggestions_left > 0 {
                        suggestions_left -= 1;
                        if let Some(close) = closest(name.as_str(), produced_names(ctx)) {
                            help = format!("did you mean `{close}`? otherwise {help}");
                        }
                    }
                    let mut diagnostic = RULE
                        .diagnostic(
                            field.name.span,
                            format!("`{name}` is required on entry to `{}`, but no path before it produces it", phase.name),
                        )
                        .with_help(help);
                    for producer in producers.take(3) {
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
                    for producer in producers.take(3) {
                        let required = producer
                            .exit_required
                            .iter()
                            .any(|f| f.name.value.covers(name));
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

/// Every field name a phase produces or the caller supplies: what a typo in
/// an entry field most likely meant.
fn produced_names<'a>(ctx: &'a RuleContext<'_>) -> impl Iterator<Item = &'a str> {
    let contract = ctx.contract;
    contract
        .phases
        .iter()
        .flat_map(|p| p.exit_fields())
        .map(|f| f.name.value.as_str())
        .chain(contract.pipeline_inputs.iter().map(|i| i.value.as_str()))
}
