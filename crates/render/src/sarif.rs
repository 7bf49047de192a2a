//! SARIF 2.1.0: one log per run, for GitHub code scanning and other SARIF
//! consumers. Regions are 1-based lines and columns in characters
//! (`columnKind: unicodeCodePoints`), the same numbers as the `json`
//! format; paths are relative to the working directory under the
//! `%SRCROOT%` base, and each rule carries its page as `help.markdown`.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use phaselint_lint::diagnostic::{Diagnostic, Severity};
use phaselint_lint::rules::{RULES, Rule};
use phaselint_lint::syntax::Span;
use serde_sarif::sarif::{
    ArtifactChange, ArtifactContent, ArtifactLocation, Fix, Invocation, Location, Message,
    MultiformatMessageString, Notification, PhysicalLocation, Region, Replacement,
    ReportingConfiguration, ReportingDescriptor, Result as SarifResult, ResultLevel, Run, Sarif,
    Tool, ToolComponent,
};

use super::{Linted, Report, range};

const SRCROOT: &str = "%SRCROOT%";

/// Where a rule's page is published: beside the repository's `rules/`.
pub fn rule_page_uri(code: &str) -> String {
    format!(
        "{}/blob/main/rules/{code}.md",
        env!("CARGO_PKG_REPOSITORY").trim_end_matches('/')
    )
}

fn level(severity: Severity) -> ResultLevel {
    match severity {
        Severity::Error => ResultLevel::Error,
        Severity::Warning => ResultLevel::Warning,
        Severity::Info => ResultLevel::Note,
    }
}

fn descriptor(rule: &Rule) -> ReportingDescriptor {
    // The page without its title line: the title is the rule's name.
    let page = rule
        .doc
        .split_once('\n')
        .map_or(rule.doc, |(_, rest)| rest)
        .trim();
    ReportingDescriptor::builder()
        .id(rule.code)
        .name(rule.name)
        .short_description(
            MultiformatMessageString::builder()
                .text(rule.summary)
                .build(),
        )
        .full_description(
            MultiformatMessageString::builder()
                .text(first_paragraph(rule.doc, "## What it checks").unwrap_or(rule.summary))
                .build(),
        )
        .help_uri(rule_page_uri(rule.code))
        .help(
            MultiformatMessageString::builder()
                .text(rule.summary)
                .markdown(page)
                .build(),
        )
        .default_configuration(
            ReportingConfiguration::builder()
                .level(serde_json::to_value(level(rule.default_severity)).unwrap_or_default())
                .enabled(rule.default_enabled)
                .build(),
        )
        .build()
}

/// The first paragraph under `heading`, joined into one line.
fn first_paragraph<'a>(page: &'a str, heading: &str) -> Option<&'a str> {
    let after = &page[page.find(heading)? + heading.len()..];
    let text = after.trim_start();
    let end = text.find("\n\n").unwrap_or(text.len());
    Some(text[..end].trim()).filter(|t| !t.is_empty())
}

/// Whether every file was read, and which were not: a log without results
/// must not read as "all clear" (code scanning would close open alerts)
/// when files were never checked.
fn invocation(report: &Report<'_>) -> Invocation {
    let notifications: Vec<Notification> = report
        .unreadable
        .iter()
        .map(|file| {
            Notification::builder()
                .level(serde_json::json!("error"))
                .message(
                    Message::builder()
                        .text(format!(
                            "cannot read {}: {}",
                            file.path.display(),
                            file.reason
                        ))
                        .build(),
                )
                .locations(vec![
                    Location::builder()
                        .physical_location(
                            PhysicalLocation::builder()
                                .artifact_location(artifact(&file.path))
                                .build(),
                        )
                        .build(),
                ])
                .build()
        })
        .collect();
    let mut invocation = Invocation::builder()
        .execution_successful(notifications.is_empty())
        .build();
    if !notifications.is_empty() {
        invocation.tool_execution_notifications = Some(notifications);
    }
    invocation
}

/// A path as a URI reference: relative ones under `%SRCROOT%`, absolute
/// ones as `file://` URIs.
fn artifact(path: &Path) -> ArtifactLocation {
    let text = path.to_string_lossy().replace('\\', "/");
    if path.is_absolute() {
        ArtifactLocation::builder()
            .uri(format!("file://{}", encode(&text)))
            .build()
    } else {
        ArtifactLocation::builder()
            .uri(encode(text.trim_start_matches("./")))
            .uri_base_id(SRCROOT)
            .build()
    }
}

/// Percent-encodes what a URI path may not hold as it is.
fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn region(file: &Linted, span: Span) -> Region {
    let (start, end) = range(file, span);
    Region::builder()
        .start_line(start.line as i64)
        .start_column(start.column as i64)
        .end_line(end.line as i64)
        .end_column(end.column as i64)
        .build()
}

fn location(file: &Linted, span: Span) -> PhysicalLocation {
    PhysicalLocation::builder()
        .artifact_location(artifact(&file.path))
        .region(region(file, span))
        .build()
}

fn result(file: &Linted, d: &Diagnostic, rule_index: Option<usize>) -> SarifResult {
    let mut text = d.message.clone();
    if let Some(help) = &d.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    let related: Vec<Location> = d
        .related
        .iter()
        .enumerate()
        .map(|(i, r)| {
            Location::builder()
                .id(i as i64)
                .physical_location(location(file, r.span))
                .message(Message::builder().text(r.message.as_str()).build())
                .build()
        })
        .collect();
    let fixes: Vec<Fix> = d
        .fix
        .iter()
        .map(|fix| {
            let replacements: Vec<Replacement> = fix
                .edits
                .iter()
                .map(|e| {
                    Replacement::builder()
                        .deleted_region(region(file, e.span))
                        .inserted_content(
                            ArtifactContent::builder()
                                .text(e.replacement.as_str())
                                .build(),
                        )
                        .build()
                })
                .collect();
            Fix::builder()
                .description(Message::builder().text(fix.title.as_str()).build())
                .artifact_changes(vec![
                    ArtifactChange::builder()
                        .artifact_location(artifact(&file.path))
                        .replacements(replacements)
                        .build(),
                ])
                .build()
        })
        .collect();
    let mut result = SarifResult::builder()
        .rule_id(d.code)
        .level(level(d.severity))
        .message(Message::builder().text(text).build())
        .locations(vec![
            Location::builder()
                .physical_location(location(file, d.span))
                .build(),
        ])
        .build();
    result.rule_index = rule_index.map(|i| i as i64);
    if !related.is_empty() {
        result.related_locations = Some(related);
    }
    if !fixes.is_empty() {
        result.fixes = Some(fixes);
    }
    result
}

/// The SARIF log of `report`: every rule phaselint has (or those the run
/// enabled, when the report says), and every finding.
pub fn render(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    let rules: Vec<&Rule> = RULES
        .iter()
        .copied()
        .filter(|r| report.ran.is_empty() || report.ran.contains(&r.code))
        .collect();
    let index: BTreeMap<&str, usize> = rules.iter().enumerate().map(|(i, r)| (r.code, i)).collect();
    let driver = ToolComponent::builder()
        .name("phaselint")
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .information_uri(env!("CARGO_PKG_REPOSITORY"))
        .rules(rules.iter().map(|r| descriptor(r)).collect::<Vec<_>>())
        .build();
    let results: Vec<SarifResult> = report
        .diagnostics()
        .map(|(file, d)| result(file, d, index.get(d.code).copied()))
        .collect();
    let mut run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(results)
        .build();
    run.column_kind = Some(serde_json::json!("unicodeCodePoints"));
    run.invocations = Some(vec![invocation(report)]);
    if let Some(root) = &report.working_dir {
        let mut uri = format!(
            "file://{}",
            encode(&root.to_string_lossy().replace('\\', "/"))
        );
        if !uri.ends_with('/') {
            uri.push('/');
        }
        run.original_uri_base_ids = Some(BTreeMap::from([(
            SRCROOT.to_string(),
            ArtifactLocation::builder().uri(uri).build(),
        )]));
    }
    let log = Sarif::builder()
        .schema("https://json.schemastore.org/sarif-2.1.0.json")
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build();
    let text = serde_json::to_string_pretty(&log).map_err(io::Error::other)?;
    writeln!(out, "{text}")
}
