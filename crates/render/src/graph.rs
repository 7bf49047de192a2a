//! `phaselint graph`: the phase graph as Graphviz DOT, a Mermaid flowchart
//! (which GitHub renders in Markdown) or JSON. What each node and edge
//! carries is decided by `phaselint_lint::graph_export`; this only lays it
//! out, in declaration order, so the same contract always gives the same
//! text.

use std::fmt::Write as _;

use phaselint_lint::diagnostic::Severity;
use phaselint_lint::graph_export::{Edge, Finding, GraphExport, Node};
use phaselint_lint::model::{CheckpointMode, EnumValue, SideEffects};

/// The graph formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphFormat {
    Dot,
    Mermaid,
    Json,
}

pub fn render(graph: &GraphExport, format: GraphFormat) -> String {
    match format {
        GraphFormat::Dot => dot(graph),
        GraphFormat::Mermaid => mermaid(graph),
        GraphFormat::Json => {
            let mut text = serde_json::to_string_pretty(graph).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}

/// Long messages are wrapped so a node stays a readable width.
const WRAP: usize = 48;

/// The lines of a node's label, in the order they are read: name, what
/// pauses there, what it does to the world, findings.
fn node_lines(graph: &GraphExport, node: &Node) -> Vec<String> {
    let mut lines = vec![node.id.clone()];
    for checkpoint in &node.checkpoints {
        let approval = match (checkpoint.approval_required, checkpoint.approval_policy) {
            (true, Some(policy)) => format!(" (approval: {})", policy.as_str()),
            (true, None) => " (approval required)".to_string(),
            (false, _) => String::new(),
        };
        lines.push(format!("checkpoint {}{approval}", checkpoint.id));
    }
    if node.checkpoints.is_empty() && always_checkpointed(graph) {
        lines.push("checkpoint (checkpoint_mode: always)".to_string());
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
        lines.push(traits.join(", "));
    }
    if !node.reachable {
        lines.push("unreachable".to_string());
    }
    for finding in node.findings.iter().flatten() {
        lines.extend(finding_lines(finding));
    }
    lines
}

fn edge_lines(edge: &Edge) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(condition) = &edge.condition {
        lines.extend(wrap(condition, WRAP));
    }
    if !edge.drops.is_empty() {
        lines.extend(wrap(&format!("drops: {}", edge.drops.join(", ")), WRAP));
    }
    if let Some(kept) = &edge.preserves {
        lines.extend(wrap(&format!("preserves: {}", kept.join(", ")), WRAP));
    }
    for finding in edge.findings.iter().flatten() {
        lines.extend(finding_lines(finding));
    }
    lines
}

fn finding_lines(finding: &Finding) -> Vec<String> {
    wrap(
        &format!(
            "{} {} (line {}): {}",
            finding.severity.as_str(),
            finding.code,
            finding.line,
            finding.message
        ),
        WRAP,
    )
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
    graph
        .pipeline_id
        .clone()
        .unwrap_or_else(|| "pipeline".to_string())
}

const FILL_REVERSIBLE: &str = "#fff3cd";
const FILL_IRREVERSIBLE: &str = "#f8d7da";
const STROKE_HIGH_RISK: &str = "#842029";
const STROKE_ERROR: &str = "#d00000";
const STROKE_WARNING: &str = "#d98e04";

fn fill(node: &Node) -> &'static str {
    match node.side_effects {
        SideEffects::None => "#ffffff",
        SideEffects::Reversible => FILL_REVERSIBLE,
        SideEffects::Irreversible => FILL_IRREVERSIBLE,
    }
}

fn finding_stroke(severity: Option<Severity>) -> Option<&'static str> {
    match severity? {
        Severity::Error => Some(STROKE_ERROR),
        Severity::Warning => Some(STROKE_WARNING),
        Severity::Info => None,
    }
}

/// A DOT string: backslashes and quotes escaped, line breaks as `\n`
/// (centred lines).
fn dot_string(lines: &[String]) -> String {
    let mut out = String::from("\"");
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str("\\n");
        }
        for c in line.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' | '\r' => out.push(' '),
                c => out.push(c),
            }
        }
    }
    out.push('"');
    out
}

pub fn dot(graph: &GraphExport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", dot_string(&[title(graph)]));
    let _ = writeln!(
        out,
        "  graph [label={}, labelloc=t, fontname=\"Helvetica\", fontsize=14, rankdir=TB, nodesep=0.4];",
        dot_string(&[title(graph)])
    );
    let _ = writeln!(
        out,
        "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", fontsize=11];"
    );
    let _ = writeln!(out, "  edge [fontname=\"Helvetica\", fontsize=10];");
    for (i, node) in graph.nodes.iter().enumerate() {
        let mut style = vec!["rounded", "filled"];
        if node.long_running {
            style.push("dashed");
        }
        let mut attributes = vec![
            format!("label={}", dot_string(&node_lines(graph, node))),
            format!("style=\"{}\"", style.join(",")),
            format!("fillcolor=\"{}\"", fill(node)),
        ];
        if checkpointed(graph, node) {
            attributes.push("peripheries=2".to_string());
        }
        let stroke = finding_stroke(node.worst()).or(node.high_risk().then_some(STROKE_HIGH_RISK));
        if let Some(color) = stroke {
            attributes.push(format!("color=\"{color}\", penwidth=2"));
        }
        if !node.reachable {
            attributes.push("fontcolor=\"#6c757d\"".to_string());
        }
        let _ = writeln!(out, "  p{i} [{}];", attributes.join(", "));
    }
    let index = |name: &str| graph.nodes.iter().position(|n| n.id == name);
    for edge in &graph.edges {
        let (Some(from), Some(to)) = (index(&edge.from), index(&edge.to)) else {
            continue;
        };
        let mut attributes = Vec::new();
        let lines = edge_lines(edge);
        if !lines.is_empty() {
            attributes.push(format!("label={}", dot_string(&lines)));
        }
        if let Some(color) = finding_stroke(edge.worst()) {
            attributes.push(format!("color=\"{color}\", fontcolor=\"{color}\""));
        }
        if attributes.is_empty() {
            let _ = writeln!(out, "  p{from} -> p{to};");
        } else {
            let _ = writeln!(out, "  p{from} -> p{to} [{}];", attributes.join(", "));
        }
    }
    if let Some(other) = graph.other_findings.as_ref().filter(|o| !o.is_empty()) {
        let lines: Vec<String> = std::iter::once("findings on the contract".to_string())
            .chain(other.iter().flat_map(finding_lines))
            .collect();
        let _ = writeln!(
            out,
            "  contract_findings [shape=note, style=filled, fillcolor=\"#f8f9fa\", label={}];",
            dot_string(&lines)
        );
    }
    out.push_str("}\n");
    out
}

/// Text inside a quoted Mermaid label: Mermaid's own entity codes for the
/// characters its grammar or its HTML labels would read.
fn mermaid_text(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '&' => out.push_str("#amp;"),
            '|' => out.push_str("#124;"),
            '`' => out.push_str("#96;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn mermaid_label(lines: &[String]) -> String {
    let lines: Vec<String> = lines.iter().map(|l| mermaid_text(l)).collect();
    format!("\"{}\"", lines.join("<br/>"))
}

pub fn mermaid(graph: &GraphExport) -> String {
    let mut out = String::new();
    // A front-matter title is the flowchart's caption on GitHub.
    let _ = writeln!(out, "---\ntitle: {}\n---", mermaid_text(&title(graph)));
    out.push_str("flowchart TD\n");
    let mut classes: Vec<(usize, &str)> = Vec::new();
    for (i, node) in graph.nodes.iter().enumerate() {
        let _ = writeln!(out, "  p{i}[{}]", mermaid_label(&node_lines(graph, node)));
        if checkpointed(graph, node) {
            classes.push((i, "checkpointed"));
        }
        match node.side_effects {
            SideEffects::None => {}
            SideEffects::Reversible => classes.push((i, "reversible")),
            SideEffects::Irreversible => classes.push((i, "irreversible")),
        }
        if node.long_running {
            classes.push((i, "longRunning"));
        }
        if node.high_risk() {
            classes.push((i, "highRisk"));
        }
        match node.worst() {
            Some(Severity::Error) => classes.push((i, "error")),
            Some(Severity::Warning) => classes.push((i, "warning")),
            _ => {}
        }
        if !node.reachable {
            classes.push((i, "unreachable"));
        }
    }
    let index = |name: &str| graph.nodes.iter().position(|n| n.id == name);
    for edge in &graph.edges {
        let (Some(from), Some(to)) = (index(&edge.from), index(&edge.to)) else {
            continue;
        };
        let lines = edge_lines(edge);
        if lines.is_empty() {
            let _ = writeln!(out, "  p{from} --> p{to}");
        } else {
            let _ = writeln!(out, "  p{from} -->|{}| p{to}", mermaid_label(&lines));
        }
    }
    if let Some(other) = graph.other_findings.as_ref().filter(|o| !o.is_empty()) {
        let lines: Vec<String> = std::iter::once("findings on the contract".to_string())
            .chain(other.iter().flat_map(finding_lines))
            .collect();
        let _ = writeln!(out, "  contract_findings>{}]", mermaid_label(&lines));
    }
    let definitions = [
        ("checkpointed", "stroke-width:4px".to_string()),
        ("reversible", format!("fill:{FILL_REVERSIBLE}")),
        ("irreversible", format!("fill:{FILL_IRREVERSIBLE}")),
        ("longRunning", "stroke-dasharray:5 5".to_string()),
        (
            "highRisk",
            format!("stroke:{STROKE_HIGH_RISK},stroke-width:3px"),
        ),
        ("error", format!("stroke:{STROKE_ERROR},stroke-width:3px")),
        (
            "warning",
            format!("stroke:{STROKE_WARNING},stroke-width:3px"),
        ),
        ("unreachable", "color:#6c757d".to_string()),
    ];
    for (name, style) in definitions {
        let members: Vec<String> = classes
            .iter()
            .filter(|(_, class)| *class == name)
            .map(|(i, _)| format!("p{i}"))
            .collect();
        if !members.is_empty() {
            let _ = writeln!(out, "  classDef {name} {style}");
            let _ = writeln!(out, "  class {} {name}", members.join(","));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{dot_string, mermaid_text, wrap};

    #[test]
    fn long_text_is_wrapped_at_spaces() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("averylongword x", 4), ["averylongword", "x"]);
        assert_eq!(wrap("", 4), [""]);
    }

    #[test]
    fn labels_escape_what_each_language_reads() {
        assert_eq!(
            dot_string(&["a \"b\" \\".into(), "c".into()]),
            r#""a \"b\" \\\nc""#
        );
        assert_eq!(
            mermaid_text("x \"y\" <b> #1 | `z`"),
            "x #quot;y#quot; #lt;b#gt; #35;1 #124; #96;z#96;"
        );
    }
}
