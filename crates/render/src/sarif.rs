//! SARIF 2.1.0: one log per run, for GitHub code scanning and other SARIF
//! consumers. Regions are 1-based lines and columns in characters
//! (`columnKind: unicodeCodePoints`), the same numbers as the `json`
//! format; paths are relative to the working directory under the
//! `%SRCROOT%` base, and each rule carries its page as `help.markdown`.
//!
//! The results are serialized one at a time as they are built, never held
//! whole (a contract at the size bound can have a million findings). The
//! messages a person reads (code scanning's annotations) show control
//! characters and bidi overrides as `\u{..}` (`terminal`); a fix's inserted
//! text stays the contract's own; the bytes written hold no control
//! character either way (`safe_json`).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use phaselint_lint::diagnostic::{Diagnostic, Severity};
use phaselint_lint::rules::{RULES, Rule};
use phaselint_lint::syntax::Span;
use serde_sarif::sarif::{
    ArtifactChange, ArtifactContent, ArtifactLocation, Fix, Invocation, Location, Message,
    MultiformatMessageString, Notification, PhysicalLocation, Region, Replacement,
    ReportingConfiguration, ReportingDescriptor, Result as SarifResult, ResultLevel, Run, Tool,
    ToolComponent,
};

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::{Linted, Report, range, related_range, safe_json};
use crate::terminal;

const SRCROOT: &str = "%SRCROOT%";

pub use phaselint_lint::rules::page::rule_page_uri;

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
        .id(rule.code.as_str())
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
        .help_uri(rule_page_uri(rule.code.as_str()))
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
                        .text(terminal::inline(&format!(
                            "cannot read {}: {}",
                            file.path.display(),
                            file.reason
                        )))
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
        // A relative reference whose first segment holds a `:` would read
        // as a scheme (RFC 3986 §4.2): a relative path has its colons
        // encoded.
        ArtifactLocation::builder()
            .uri(encode(text.trim_start_matches("./")).replace(':', "%3A"))
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
    let mut text = terminal::inline(&d.message).into_owned();
    if let Some(help) = &d.help {
        text.push_str("\nhelp: ");
        text.push_str(&terminal::inline(help));
    }
    let related: Vec<Location> = d
        .related
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (path, start, end) = related_range(file, r);
            Location::builder()
                .id(i as i64)
                .physical_location(
                    PhysicalLocation::builder()
                        .artifact_location(artifact(path))
                        .region(
                            Region::builder()
                                .start_line(start.line as i64)
                                .start_column(start.column as i64)
                                .end_line(end.line as i64)
                                .end_column(end.column as i64)
                                .build(),
                        )
                        .build(),
                )
                .message(
                    Message::builder()
                        .text(terminal::inline(&r.message))
                        .build(),
                )
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
                .description(
                    Message::builder()
                        .text(terminal::inline(&fix.title))
                        .build(),
                )
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
        .rule_id(d.code.as_str())
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
        .filter(|r| {
            report
                .ran
                .as_ref()
                .is_none_or(|ran| ran.contains(&r.code.as_str()))
        })
        .collect();
    let index: BTreeMap<&str, usize> = rules
        .iter()
        .enumerate()
        .map(|(i, r)| (r.code.as_str(), i))
        .collect();
    let driver = ToolComponent::builder()
        .name("phaselint")
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .information_uri(env!("CARGO_PKG_REPOSITORY"))
        .rules(rules.iter().map(|r| descriptor(r)).collect::<Vec<_>>())
        .build();
    // The run without its results: small (the rules, the invocation).
    let mut run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
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
    let serde_json::Value::Object(fields) = serde_json::to_value(&run)? else {
        return Err(io::Error::other("a SARIF run serializes to an object"));
    };
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        runs: [RunWithResults {
            fields,
            report,
            index: &index,
        }],
        version: "2.1.0",
    };
    safe_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}

/// The log, its keys in the order serde-sarif writes them.
#[derive(Serialize)]
struct Log<'r, 'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    runs: [RunWithResults<'r, 'a>; 1],
    version: &'static str,
}

/// A run's other keys (in serde-sarif's order, alphabetical) with
/// `results` among them, written as each result is built.
struct RunWithResults<'r, 'a> {
    fields: serde_json::Map<String, serde_json::Value>,
    report: &'r Report<'a>,
    index: &'r BTreeMap<&'static str, usize>,
}

impl Serialize for RunWithResults<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let results = Results {
            report: self.report,
            index: self.index,
        };
        let mut map = serializer.serialize_map(Some(self.fields.len() + 1))?;
        let mut pending = Some(results);
        for (key, value) in &self.fields {
            if key.as_str() > "results"
                && let Some(results) = pending.take()
            {
                map.serialize_entry("results", &results)?;
            }
            map.serialize_entry(key, value)?;
        }
        if let Some(results) = pending {
            map.serialize_entry("results", &results)?;
        }
        map.end()
    }
}

struct Results<'r, 'a> {
    report: &'r Report<'a>,
    index: &'r BTreeMap<&'static str, usize>,
}

impl Serialize for Results<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.report
                .diagnostics()
                .map(|(file, d)| result(file, d, self.index.get(d.code.as_str()).copied())),
        )
    }
}
