//! `phaselint graph`: the phase graph as Graphviz DOT, a Mermaid flowchart
//! (which GitHub renders in Markdown) or JSON. What each node and edge
//! carries is decided by `phaselint_lint::graph_export`; this only lays it
//! out, in declaration order, so the same contract always gives the same
//! text.
//!
//! Every text taken from the contract is cut (`CLIP`) and shown through
//! `terminal::inline` (a control character or bidi override is drawn as
//! `\u{1b}`, never written into the picture) before the language's own
//! escaping: XML for Graphviz's HTML-like labels, Mermaid's entity codes
//! for a flowchart, where `%` is one too (`%%{init: …}%%` anywhere in the
//! text is a directive that configures the whole diagram). JSON keeps the
//! text whole and exact; its bytes hold no control character
//! (`safe_json`).

use std::io::{self, Write};

use phaselint_lint::diagnostic::Severity;
use phaselint_lint::graph_export::{Edge, Finding, GraphExport, Node};
use phaselint_lint::model::{CheckpointMode, EnumValue, SideEffects};

use crate::terminal;

/// The graph formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphFormat {
    Dot,
    Mermaid,
    Json,
}

/// Writes the graph in `format` to `out` as it is laid out: a graph of a
/// contract at the size bound is hundreds of megabytes of text, never held
/// whole.
pub fn write(graph: &GraphExport, format: GraphFormat, out: &mut impl Write) -> io::Result<()> {
    match format {
        GraphFormat::Dot => dot(graph, out),
        GraphFormat::Mermaid => mermaid(graph, out),
        GraphFormat::Json => {
            crate::safe_json::to_writer_pretty(&mut *out, graph)?;
            writeln!(out)
        }
    }
}

/// The graph in `format`, as text (for tests and small graphs).
pub fn render(graph: &GraphExport, format: GraphFormat) -> String {
    let mut bytes = Vec::new();
    // Writing to memory fails only if serializing does, which a
    // `GraphExport` (strings, numbers, enums) cannot.
    let _ = write(graph, format, &mut bytes);
    String::from_utf8(bytes).unwrap_or_default()
}

/// DOT labels are wrapped so a node stays a readable width (Mermaid wraps
/// its own).
const WRAP: usize = 60;
/// Anything taken from the contract (a name, a condition, a message) is
/// cut at this many characters: Graphviz refuses a string over 16 KiB, and
/// a picture is no place for a paragraph.
const CLIP: usize = 200;
/// At most this many findings (and checkpoints) are written on one phase
/// or edge; the rest are counted (`phaselint lint` lists them all).
const MOST_FINDINGS: usize = 5;

/// One line of a label, and how it is set.
#[derive(Clone, Debug, PartialEq)]
enum Line {
    /// The phase's name, in bold.
    Name(String),
    Plain(String),
    /// A finding's line, in its severity's colour.
    Finding(Severity, String),
}

impl Line {
    fn text(&self) -> &str {
        match self {
            Line::Name(text) | Line::Plain(text) | Line::Finding(_, text) => text,
        }
    }
}

/// The lines of a node's label, in the order they are read: name, where
/// the run pauses, what it does to the world. Findings are apart.
fn node_lines(graph: &GraphExport, node: &Node) -> Vec<Line> {
    let mut lines = vec![Line::Name(clip(node.id))];
    for checkpoint in node.checkpoints.iter().take(MOST_FINDINGS) {
        let approval = match (checkpoint.approval_required, checkpoint.approval_policy) {
            (true, Some(policy)) => format!(" (approval: {})", policy.as_str()),
            (true, None) => " (approval required)".to_string(),
            (false, _) => String::new(),
        };
        lines.push(Line::Plain(format!(
            "checkpoint after it: {}{approval}",
            clip(checkpoint.id)
        )));
    }
    if node.checkpoints.len() > MOST_FINDINGS {
        lines.push(Line::Plain(format!(
            "and {} more checkpoints",
            node.checkpoints.len() - MOST_FINDINGS
        )));
    }
    if node.checkpoints.is_empty() && always_checkpointed(graph) {
        lines.push(Line::Plain(
            "checkpoint after it (checkpoint_mode: always)".to_string(),
        ));
    }
    let mut traits = Vec::new();
    if node.side_effecting() {
        traits.push(format!("side effects: {}", node.side_effects.as_str()));
    }
    if node.high_risk() {
        traits.push(format!("risk: {}", node.risk_class.as_str()));
    }
    if node.long_running {
        traits.push("long-running".to_string());
    }
    if !traits.is_empty() {
        lines.push(Line::Plain(traits.join(", ")));
    }
    if !node.reachable {
        lines.push(Line::Plain("unreachable".to_string()));
    }
    lines
}

fn edge_lines(edge: &Edge) -> Vec<Line> {
    let mut lines = Vec::new();
    if let Some(condition) = &edge.condition {
        lines.push(Line::Plain(clip(condition)));
    }
    if !edge.drops.is_empty() {
        lines.push(Line::Plain(clip(&format!(
            "drops: {}",
            edge.drops.join(", ")
        ))));
    }
    if let Some(kept) = &edge.preserves {
        lines.push(Line::Plain(clip(&format!(
            "preserves: {}",
            kept.join(", ")
        ))));
    }
    lines
}

/// The findings on one phase or edge, the first `MOST_FINDINGS` of them.
fn finding_lines(findings: Option<&[Finding]>) -> Vec<Line> {
    let findings = findings.unwrap_or_default();
    let mut lines: Vec<Line> = findings
        .iter()
        .take(MOST_FINDINGS)
        .map(|finding| {
            let text = format!(
                "{} {} (line {}): {}",
                finding.severity.as_str(),
                finding.code,
                finding.line,
                clip(finding.message)
            );
            Line::Finding(finding.severity, text)
        })
        .collect();
    if findings.len() > MOST_FINDINGS {
        lines.push(Line::Plain(format!(
            "and {} more (phaselint lint lists them)",
            findings.len() - MOST_FINDINGS
        )));
    }
    lines
}

/// At most `CLIP` characters of `text`, with an ellipsis when cut, its
/// control characters shown as `\u{..}`.
fn clip(text: &str) -> String {
    match text.char_indices().nth(CLIP) {
        Some((end, _)) => format!("{}…", terminal::inline(&text[..end])),
        None => terminal::inline(text).into_owned(),
    }
}

/// The note beside the graph with the findings that point at no phase or
/// edge; `None` when there are none.
fn contract_note(graph: &GraphExport) -> Option<Vec<Line>> {
    let other = finding_lines(graph.other_findings.as_deref());
    (!other.is_empty()).then(|| {
        std::iter::once(Line::Name("findings on the contract".to_string()))
            .chain(other)
            .collect()
    })
}

fn always_checkpointed(graph: &GraphExport) -> bool {
    graph.checkpoint_mode == Some(CheckpointMode::Always)
}

fn checkpointed(graph: &GraphExport, node: &Node) -> bool {
    !node.checkpoints.is_empty() || always_checkpointed(graph)
}

/// Breaks `text` at spaces into lines of at most `width` characters (a
/// longer word is kept whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

fn title(graph: &GraphExport) -> String {
    clip(graph.pipeline_id.unwrap_or("pipeline"))
}

const FILL_REVERSIBLE: &str = "#fff3cd";
const FILL_IRREVERSIBLE: &str = "#f5c2c7";
const STROKE_HIGH_RISK: &str = "#842029";
const TEXT_ERROR: &str = "#c00000";
const TEXT_WARNING: &str = "#9a6700";
const TEXT_INFO: &str = "#495057";
const TEXT_UNREACHABLE: &str = "#6c757d";

fn fill(node: &Node) -> &'static str {
    match node.side_effects {
        SideEffects::None => "#ffffff",
        SideEffects::Reversible => FILL_REVERSIBLE,
        SideEffects::Irreversible => FILL_IRREVERSIBLE,
    }
}

fn severity_colour(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => TEXT_ERROR,
        Severity::Warning => TEXT_WARNING,
        Severity::Info => TEXT_INFO,
    }
}

/// Text in a Graphviz HTML-like label: XML element content (Graphviz
/// parses the label as XML), on one line, nothing a terminal or an XML
/// reader would act on left as it is.
fn html(text: &str) -> String {
    crate::xml::text(&terminal::inline(text))
}

/// A Graphviz HTML-like label: the name in bold, findings in their
/// severity's colour, one line each.
fn dot_label(lines: &[Line]) -> String {
    let lines: Vec<String> = lines
        .iter()
        .flat_map(|line| {
            wrap(line.text(), WRAP)
                .into_iter()
                .map(move |piece| match line {
                    Line::Name(_) => format!("<b>{}</b>", html(&piece)),
                    Line::Plain(_) => html(&piece),
                    Line::Finding(severity, _) => format!(
                        "<font color=\"{}\">{}</font>",
                        severity_colour(*severity),
                        html(&piece)
                    ),
                })
        })
        .collect();
    format!("<{}>", lines.join("<br/>"))
}

/// A DOT quoted string (the graph's name).
fn dot_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in terminal::inline(text).chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The shapes of the picture: a double border is a checkpoint, the fill
/// the side effects, a dark red border high risk, a dashed one a
/// long-running phase; findings are written in the node, in colour.
pub fn dot(graph: &GraphExport, out: &mut impl Write) -> io::Result<()> {
    let name = dot_string(&title(graph));
    writeln!(out, "digraph {name} {{")?;
    writeln!(
        out,
        "  graph [label={}, labelloc=t, fontname=\"Helvetica\", fontsize=14, rankdir=TB, nodesep=0.4];",
        dot_label(&[Line::Name(title(graph))])
    )?;
    writeln!(
        out,
        "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", fontsize=11];"
    )?;
    writeln!(out, "  edge [fontname=\"Helvetica\", fontsize=10];")?;
    for (i, node) in graph.nodes.iter().enumerate() {
        let mut lines = node_lines(graph, node);
        lines.extend(finding_lines(node.findings.as_deref()));
        let mut style = vec!["rounded", "filled"];
        if node.long_running {
            style.push("dashed");
        }
        let mut attributes = vec![
            format!("label={}", dot_label(&lines)),
            format!("style=\"{}\"", style.join(",")),
            format!("fillcolor=\"{}\"", fill(node)),
        ];
        if checkpointed(graph, node) {
            attributes.push("peripheries=2".to_string());
        }
        if node.high_risk() {
            attributes.push(format!("color=\"{STROKE_HIGH_RISK}\", penwidth=2.5"));
        }
        if !node.reachable {
            attributes.push(format!("fontcolor=\"{TEXT_UNREACHABLE}\""));
        }
        writeln!(out, "  p{i} [{}];", attributes.join(", "))?;
    }
    for edge in &graph.edges {
        let (from, to) = (edge.from_node, edge.to_node);
        let mut lines = edge_lines(edge);
        lines.extend(finding_lines(edge.findings.as_deref()));
        if lines.is_empty() {
            writeln!(out, "  p{from} -> p{to};")?;
        } else {
            writeln!(out, "  p{from} -> p{to} [label={}];", dot_label(&lines))?;
        }
    }
    if let Some(lines) = contract_note(graph) {
        writeln!(
            out,
            "  contract_findings [shape=note, style=filled, fillcolor=\"#f8f9fa\", label={}];",
            dot_label(&lines)
        )?;
    }
    writeln!(out, "}}")
}

/// Text inside a quoted Mermaid label: Mermaid's own entity codes for the
/// characters its grammar or its HTML labels would read. `%` among them:
/// Mermaid finds `%%{…}%%` directives anywhere in the text, quoted or not,
/// and applies them to the whole diagram (a theme, CSS that hides the
/// finding notes), or refuses the diagram when one is malformed.
fn mermaid_text(text: &str) -> String {
    let mut out = String::new();
    for c in terminal::inline(text).chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '%' => out.push_str("#37;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '&' => out.push_str("#amp;"),
            '|' => out.push_str("#124;"),
            '`' => out.push_str("#96;"),
            c => out.push(c),
        }
    }
    out
}

fn mermaid_label(lines: &[Line]) -> String {
    let lines: Vec<String> = lines
        .iter()
        .map(|line| match line {
            Line::Name(text) => format!("<b>{}</b>", mermaid_text(text)),
            other => mermaid_text(other.text()),
        })
        .collect();
    format!("\"{}\"", lines.join("<br/>"))
}

/// The same picture as `dot`, in what Mermaid can style: a thick border is
/// a checkpoint, the fill the side effects, a dark red border high risk, a
/// dashed one a long-running phase; findings hang off their phase or edge
/// as notes. Written as it goes: the notes and the class lists are a
/// second pass over the graph, not kept.
pub fn mermaid(graph: &GraphExport, out: &mut impl Write) -> io::Result<()> {
    // A front-matter title is the flowchart's caption; JSON's quoting is
    // YAML's, whatever the pipeline is called.
    let caption = serde_json::to_string(&title(graph)).unwrap_or_default();
    writeln!(out, "---\ntitle: {caption}\n---")?;
    writeln!(out, "flowchart TD")?;
    for (i, node) in graph.nodes.iter().enumerate() {
        writeln!(out, "  p{i}[{}]", mermaid_label(&node_lines(graph, node)))?;
    }
    for edge in &graph.edges {
        let (from, to) = (edge.from_node, edge.to_node);
        let lines = edge_lines(edge);
        if lines.is_empty() {
            writeln!(out, "  p{from} --> p{to}")?;
        } else {
            writeln!(out, "  p{from} -->|{}| p{to}", mermaid_label(&lines))?;
        }
    }
    for (i, node) in graph.nodes.iter().enumerate() {
        let findings = finding_lines(node.findings.as_deref());
        if !findings.is_empty() {
            writeln!(out, "  f{i}>{}]", mermaid_label(&findings))?;
            writeln!(out, "  p{i} -.- f{i}")?;
        }
    }
    for (e, edge) in graph.edges.iter().enumerate() {
        let findings = finding_lines(edge.findings.as_deref());
        if !findings.is_empty() {
            writeln!(out, "  e{e}>{}]", mermaid_label(&findings))?;
            writeln!(out, "  p{} -.- e{e}", edge.to_node)?;
        }
    }
    let contract = contract_note(graph);
    if let Some(lines) = &contract {
        writeln!(out, "  contract_findings>{}]", mermaid_label(lines))?;
    }
    let contract_class = contract.as_ref().map(|_| {
        note_class(
            graph
                .other_findings
                .as_deref()
                .and_then(|f| f.iter().map(|f| f.severity).max()),
        )
    });
    let definitions = [
        // Later classes win where they set the same property: a
        // checkpointed high-risk phase keeps the risk colour and the
        // checkpoint's thickness.
        (
            "highRisk",
            format!("stroke:{STROKE_HIGH_RISK},stroke-width:3px"),
        ),
        ("checkpointed", "stroke-width:4px".to_string()),
        ("reversible", format!("fill:{FILL_REVERSIBLE}")),
        ("irreversible", format!("fill:{FILL_IRREVERSIBLE}")),
        ("longRunning", "stroke-dasharray:5 5".to_string()),
        ("unreachable", format!("color:{TEXT_UNREACHABLE}")),
        (
            "errorNote",
            format!("fill:#fbe9e9,stroke:{TEXT_ERROR},color:{TEXT_ERROR}"),
        ),
        (
            "warningNote",
            format!("fill:#fff8e1,stroke:{TEXT_WARNING},color:{TEXT_WARNING}"),
        ),
        (
            "infoNote",
            format!("fill:#f8f9fa,stroke:{TEXT_INFO},color:{TEXT_INFO}"),
        ),
    ];
    for (name, style) in definitions {
        // Members in the order they were drawn: phases, then the notes on
        // phases, on edges, on the contract.
        let phases = graph
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| node_classes(graph, node).contains(&Some(name)))
            .map(|(i, _)| format!("p{i}"));
        let phase_notes = graph
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| {
                has_findings(node.findings.as_deref()) && note_class(node.worst()) == name
            })
            .map(|(i, _)| format!("f{i}"));
        let edge_notes = graph
            .edges
            .iter()
            .enumerate()
            .filter(|(_, edge)| {
                has_findings(edge.findings.as_deref()) && note_class(edge.worst()) == name
            })
            .map(|(e, _)| format!("e{e}"));
        let contract = (contract_class == Some(name)).then(|| "contract_findings".to_string());
        let mut members = phases
            .chain(phase_notes)
            .chain(edge_notes)
            .chain(contract)
            .peekable();
        if members.peek().is_none() {
            continue;
        }
        writeln!(out, "  classDef {name} {style}")?;
        write!(out, "  class ")?;
        for (i, member) in members.enumerate() {
            if i > 0 {
                write!(out, ",")?;
            }
            write!(out, "{member}")?;
        }
        writeln!(out, " {name}")?;
    }
    Ok(())
}

/// The classes a phase is drawn with.
fn node_classes(graph: &GraphExport, node: &Node) -> [Option<&'static str>; 5] {
    [
        checkpointed(graph, node).then_some("checkpointed"),
        match node.side_effects {
            SideEffects::None => None,
            SideEffects::Reversible => Some("reversible"),
            SideEffects::Irreversible => Some("irreversible"),
        },
        node.long_running.then_some("longRunning"),
        node.high_risk().then_some("highRisk"),
        (!node.reachable).then_some("unreachable"),
    ]
}

fn has_findings(findings: Option<&[Finding]>) -> bool {
    findings.is_some_and(|f| !f.is_empty())
}

fn note_class(worst: Option<Severity>) -> &'static str {
    match worst {
        Some(Severity::Error) => "errorNote",
        Some(Severity::Warning) => "warningNote",
        _ => "infoNote",
    }
}

#[cfg(test)]
mod tests {
    use super::{CLIP, clip, dot_string, html, mermaid_text, wrap};

    #[test]
    fn long_text_is_wrapped_at_spaces_and_clipped() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("averylongword x", 4), ["averylongword", "x"]);
        assert_eq!(wrap("", 4), [""]);
        let long = "é".repeat(CLIP + 10);
        assert_eq!(clip(&long).chars().count(), CLIP + 1);
        assert!(clip(&long).ends_with('…'));
        assert_eq!(clip("short"), "short");
    }

    #[test]
    fn labels_escape_what_each_language_reads() {
        assert_eq!(dot_string("a \"b\" \\\nc"), r#""a \"b\" \\\\u{a}c""#);
        assert_eq!(
            html("<b> & \"c\"\n\u{1}\u{9b}"),
            "&lt;b&gt; &amp; \"c\"\\u{a}\\u{1}\\u{9b}"
        );
        assert_eq!(
            mermaid_text("x \"y\" <b> #1 | `z` %%{init: {}}%%\u{1b}"),
            "x #quot;y#quot; #lt;b#gt; #35;1 #124; #96;z#96; #37;#37;{init: {}}#37;#37;\\u{1b}"
        );
        assert_eq!(clip("a\u{1b}[2Kb"), "a\\u{1b}[2Kb");
    }
}
