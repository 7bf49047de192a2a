//! `textDocument/hover`: the rule page on a finding, a phase's summary on a
//! phase name, a field's producers and consumers, an enum value's meaning.

use std::fmt::Write;

use phaselint_lint::DocumentKind;
use phaselint_lint::index::Symbol;
use phaselint_lint::rules::rule;
use phaselint_lint::syntax::Span;
use tower_lsp_server::ls_types::{Hover, HoverContents};

use crate::analyzer::Analyzed;
use crate::positions::Positions;

/// The hover at `offset`: a finding (with its rule's page) and, on a name,
/// what the name is (a phase's fields, a field's producers and consumers);
/// Markdown, or plain text for a client that does not render it.
pub fn hover(
    analyzed: &Analyzed,
    positions: &Positions<'_>,
    offset: usize,
    markdown: bool,
) -> Option<Hover> {
    if let Some(hover) = suppression_code(analyzed, positions, offset, markdown) {
        return Some(hover);
    }
    let analysis = &analyzed.analysis;
    let finding = analysis
        .diagnostics
        .iter()
        .find(|d| d.span.start <= offset && offset <= d.span.end);
    let occurrence = analyzed.index.at(offset);
    let summary = occurrence.and_then(|o| match &o.symbol {
        Symbol::Phase { name, .. } => phase_summary(analyzed, name),
        Symbol::Field { name, .. } => Some(field_summary(analyzed, name)),
    });
    // The format's tables describe contracts; a harness config's keys are
    // its own.
    let contract = analysis.kind == DocumentKind::Contract;
    let (text, span) = match (finding, summary) {
        (Some(d), summary) => {
            let doc = rule(d.code.as_str()).map_or("", |r| r.doc);
            // The finding first; what the name or value is stays in view
            // under it (`irreversible` under P401).
            let summary = summary.or_else(|| {
                contract
                    .then(|| {
                        phaselint_lint::key_documentation::documentation_at(
                            &analysis.source,
                            offset,
                        )
                    })
                    .flatten()
                    .map(|(text, _)| text)
            });
            let about = summary.map_or_else(String::new, |s| format!("{s}\n\n---\n\n"));
            (
                format!("**{}**: {}\n\n---\n\n{about}{doc}", d.code, d.message),
                d.span,
            )
        }
        (None, Some(summary)) => (summary, occurrence.map_or(Span::empty(offset), |o| o.span)),
        (None, None) if contract => {
            phaselint_lint::key_documentation::documentation_at(&analysis.source, offset)?
        }
        (None, None) => return None,
    };
    Some(Hover {
        contents: HoverContents::Markup(crate::markdown::markup(&text, markdown)),
        range: (span.end > span.start).then(|| positions.range(span)),
    })
}

/// A rule code in a suppression comment: the rule's code, name and
/// summary, and the S001 finding when the comment silences nothing with it.
fn suppression_code(
    analyzed: &Analyzed,
    positions: &Positions<'_>,
    offset: usize,
    markdown: bool,
) -> Option<Hover> {
    let analysis = &analyzed.analysis;
    let at = phaselint_lint::suppression::suppression_at(
        &analysis.source,
        &analysis.line_index,
        offset,
    )?;
    let code = at.code.trim();
    if code.is_empty() {
        return None;
    }
    let unused = analysis
        .diagnostics
        .iter()
        .find(|d| d.code == "S001" && d.span.start <= offset && offset <= d.span.end);
    let mut text = match rule(code) {
        Some(r) => format!("**{}** ({}): {}", r.code, r.name, r.summary),
        None if unused.is_some() => String::new(),
        None => return None,
    };
    if let Some(d) = unused {
        if !text.is_empty() {
            text.push_str("\n\n---\n\n");
        }
        let _ = write!(text, "**{}**: {}", d.code, d.message);
    }
    Some(Hover {
        contents: HoverContents::Markup(crate::markdown::markup(&text, markdown)),
        range: Some(positions.range(at.span)),
    })
}

fn field_list(fields: impl Iterator<Item = String>) -> String {
    let names: Vec<String> = fields.collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn phase_summary(analyzed: &Analyzed, name: &str) -> Option<String> {
    let contract = analyzed.analysis.contract()?;
    let phase = contract.phase(name)?;
    let mut text = format!("**phase `{name}`**\n\n");
    if let Some(description) = &phase.description() {
        let _ = writeln!(text, "{}\n", description.value.trim());
    }
    let names = |fields: &[phaselint_lint::model::Field]| {
        field_list(fields.iter().map(|f| format!("`{}`", f.name.value)))
    };
    let _ = writeln!(text, "- entry required: {}", names(phase.entry_required()));
    let _ = writeln!(
        text,
        "- entry enrichment: {}",
        names(phase.entry_enrichment())
    );
    let _ = writeln!(text, "- exit required: {}", names(phase.exit_required()));
    let _ = writeln!(text, "- exit optional: {}", names(phase.exit_optional()));
    let checkpoints = field_list(
        contract
            .checkpoints
            .iter()
            .filter(|c| c.phase.as_ref().is_some_and(|p| p.value == name))
            .map(|c| {
                format!(
                    "`{}`",
                    c.checkpoint_id
                        .as_ref()
                        .map_or("(unnamed)", |i| i.value.as_str())
                )
            }),
    );
    let _ = writeln!(text, "- covered by checkpoints: {checkpoints}");
    Some(text)
}

fn field_summary(analyzed: &Analyzed, name: &phaselint_lint::field_path::FieldPath) -> String {
    let phase_name = |i: usize| {
        analyzed
            .analysis
            .shared_contract()
            .and_then(|c| c.phases.get(i))
            .map_or_else(String::new, |p| format!("`{}`", p.name))
    };
    let mut producers: Vec<String> = analyzed
        .index
        .producers(name)
        .map(|(p, _)| phase_name(p))
        .collect();
    producers.dedup();
    let mut consumers: Vec<String> = analyzed
        .index
        .consumers(name)
        .map(|(p, _)| phase_name(p))
        .collect();
    consumers.dedup();
    format!(
        "**field `{name}`**\n\n- produced by: {}\n- consumed by: {}\n",
        field_list(producers.into_iter()),
        field_list(consumers.into_iter())
    )
}
