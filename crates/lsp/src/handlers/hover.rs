//! `textDocument/hover`: the rule page on a finding, a phase's summary on a
//! phase name, a field's producers and consumers, an enum value's meaning.

use std::fmt::Write;

use phaselint_lint::completion::{enum_value_at, may_be_enum_value};
use phaselint_lint::index::Symbol;
use phaselint_lint::rules::rule;
use tower_lsp_server::ls_types::{Hover, HoverContents, MarkupContent, MarkupKind};

use crate::state::{Analyzed, Positions};

pub fn hover(analyzed: &Analyzed, positions: &Positions<'_>, offset: usize) -> Option<Hover> {
    let analysis = &analyzed.analysis;
    let (text, span) = if let Some(d) = analysis
        .diagnostics
        .iter()
        .find(|d| d.span.start <= offset && offset <= d.span.end)
    {
        let doc = rule(d.code).map_or("", |r| r.doc);
        (
            format!("**{}**: {}\n\n---\n\n{doc}", d.code, d.message),
            d.span,
        )
    } else if let Some(occurrence) = analyzed.index.at(offset) {
        let text = match &occurrence.symbol {
            Symbol::Phase { name, .. } => phase_summary(analyzed, name)?,
            Symbol::Field { name, .. } => field_summary(analyzed, name),
        };
        (text, occurrence.span)
    } else if may_be_enum_value(&analysis.source, offset) {
        // Parsed again only for a word that could be an enum value: the
        // tree is not kept, and a large document takes a while to parse.
        let document = phaselint_lint::syntax::parse(
            &analysis.source,
            phaselint_lint::syntax::Limits::default(),
        )
        .ok()??;
        let (what, value, meaning) = enum_value_at(&document, offset)?;
        (
            format!("`{value}` ({what})\n\n{meaning}"),
            phaselint_lint::syntax::Span::empty(offset),
        )
    } else {
        return None;
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: (span.end > span.start).then(|| positions.range(span)),
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
    let contract = analyzed.analysis.contract.as_deref()?;
    let phase = contract.phase(name)?;
    let mut text = format!("**phase `{name}`**\n\n");
    if let Some(description) = &phase.description {
        let _ = writeln!(text, "{}\n", description.value.trim());
    }
    let names = |fields: &[phaselint_lint::model::Field]| {
        field_list(fields.iter().map(|f| format!("`{}`", f.name.value)))
    };
    let _ = writeln!(text, "- entry required: {}", names(&phase.entry_required));
    let _ = writeln!(
        text,
        "- entry enrichment: {}",
        names(&phase.entry_enrichment)
    );
    let _ = writeln!(text, "- exit required: {}", names(&phase.exit_required));
    let _ = writeln!(text, "- exit optional: {}", names(&phase.exit_optional));
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
            .contract
            .as_ref()
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
