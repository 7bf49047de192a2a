//! `textDocument/publishDiagnostics`: the analysis's findings in LSP shape.

use phaselint_lint::diagnostic::Severity;
use phaselint_lint::rules::page::rule_page_uri;
use tower_lsp_server::ls_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, Uri,
};

use crate::analyzer::Analyzed;
use crate::positions::Positions;

pub fn to_lsp(analyzed: &Analyzed, positions: &Positions<'_>, uri: &Uri) -> Vec<Diagnostic> {
    analyzed
        .analysis
        .diagnostics
        .iter()
        .map(|d| {
            let related = d
                .related
                .iter()
                // A location in another file (`phaselint diff`'s OLD) has
                // no document here to point into.
                .filter(|r| r.file.is_none())
                .map(|r| DiagnosticRelatedInformation {
                    location: Location::new(uri.clone(), positions.range(r.span)),
                    message: r.message.clone(),
                })
                .collect::<Vec<_>>();
            let message = match &d.help {
                Some(help) => format!("{}\nhelp: {help}", d.message),
                None => d.message.clone(),
            };
            Diagnostic {
                range: positions.range(d.span),
                severity: Some(match d.severity {
                    Severity::Error => DiagnosticSeverity::ERROR,
                    Severity::Warning => DiagnosticSeverity::WARNING,
                    Severity::Info => DiagnosticSeverity::INFORMATION,
                }),
                code: Some(NumberOrString::String(d.code.to_string())),
                code_description: rule_page_uri(d.code.as_str())
                    .parse::<Uri>()
                    .ok()
                    .map(|href| CodeDescription { href }),
                source: Some("phaselint".into()),
                message,
                related_information: (!related.is_empty()).then_some(related),
                tags: None,
                data: None,
            }
        })
        .collect()
}
