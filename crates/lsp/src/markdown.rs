//! The documentation the server sends (rule pages, key descriptions,
//! summaries; all written in CommonMark) as each client takes it: read by
//! pulldown-cmark and rendered to plain text for a client without
//! Markdown, or kept as Markdown with the links an editor cannot follow
//! (`#anchors` of the format reference, relative rule pages) rewritten.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use phaselint_lint::rules::page::rule_page_uri;
use tower_lsp_server::ls_types::{MarkupContent, MarkupKind};

/// Documentation written in CommonMark (rule pages, key descriptions,
/// summaries) as the client takes it: Markdown, or rendered to plain text.
pub fn markup(text: &str, markdown: bool) -> MarkupContent {
    if markdown {
        MarkupContent {
            kind: MarkupKind::Markdown,
            value: for_markdown_client(text),
        }
    } else {
        MarkupContent {
            kind: MarkupKind::PlainText,
            value: to_plain(text),
        }
    }
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// `markdown` for a client that renders Markdown: a link to an `#anchor`
/// becomes its text, a link to a rule's page (`R101.md`) points at the
/// published page; everything else is left as written.
pub fn for_markdown_client(markdown: &str) -> String {
    let mut replacements: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    // The link being read: its whole range, its target, and the range of
    // its text.
    let mut link: Option<(
        std::ops::Range<usize>,
        Target,
        Option<std::ops::Range<usize>>,
    )> = None;
    for (event, range) in Parser::new_ext(markdown, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Link { dest_url, .. }) if link.is_none() => {
                link = Some((range, Target::of(&dest_url), None));
            }
            Event::End(TagEnd::Link) => {
                if let Some((whole, target, text)) = link.take() {
                    let text = text.and_then(|t| markdown.get(t)).unwrap_or("");
                    match target {
                        Target::Anchor => replacements.push((whole, text.to_string())),
                        Target::RulePage(code) => replacements
                            .push((whole, format!("[{text}]({})", rule_page_uri(&code)))),
                        Target::Other => {}
                    }
                }
            }
            _ => {
                if let Some((_, _, text)) = &mut link {
                    *text = Some(match text.take() {
                        Some(t) => t.start.min(range.start)..t.end.max(range.end),
                        None => range,
                    });
                }
            }
        }
    }
    let mut out = String::with_capacity(markdown.len());
    let mut at = 0;
    for (range, replacement) in replacements {
        out.push_str(markdown.get(at..range.start).unwrap_or(""));
        out.push_str(&replacement);
        at = range.end;
    }
    out.push_str(markdown.get(at..).unwrap_or(""));
    out
}

enum Target {
    /// `#graph-topology`: a heading of a page the editor does not show.
    Anchor,
    /// `R101.md`: a rule's page beside the one that links it.
    RulePage(String),
    Other,
}

impl Target {
    fn of(dest: &str) -> Target {
        if dest.starts_with('#') {
            return Target::Anchor;
        }
        match dest.strip_suffix(".md") {
            Some(code)
                if code.len() == 4
                    && code.starts_with(|c: char| c.is_ascii_uppercase())
                    && code[1..].bytes().all(|b| b.is_ascii_digit()) =>
            {
                Target::RulePage(code.to_string())
            }
            _ => Target::Other,
        }
    }
}

/// `markdown` as plain text: the words without their markup (no
/// backticks, emphasis markers, link targets or heading marks); headings
/// and paragraphs as lines of their own, thematic breaks as a line, list
/// items with a bullet or their number, code blocks indented, tables in
/// aligned columns. A link keeps its text, and an external address after
/// it when the text does not say it already.
pub fn to_plain(markdown: &str) -> String {
    let mut text = PlainText::default();
    for event in Parser::new_ext(markdown, options()) {
        text.event(event);
    }
    let mut out = text.out;
    out.truncate(out.trim_end().len());
    out
}

#[derive(Default)]
struct PlainText {
    out: String,
    /// The open lists: the next number of an ordered one, `None` for bullets.
    lists: Vec<Option<u64>>,
    in_code_block: bool,
    /// The table being read: its rows of cells, and whether the head row
    /// is the first.
    table: Option<Vec<Vec<String>>>,
    cell: Option<String>,
    /// The external address of the link being read, if it is one.
    link: Option<String>,
    link_text_start: usize,
}

const RULE_LINE: &str = "────────────────────";

impl PlainText {
    /// Where the text goes: the table cell being read, or the output.
    fn sink(&mut self) -> &mut String {
        match &mut self.cell {
            Some(cell) => cell,
            None => &mut self.out,
        }
    }

    /// Indentation of continuation lines inside list items.
    fn indent(&self) -> String {
        "  ".repeat(self.lists.len())
    }

    /// Starts a block on a line of its own, after a blank line unless it
    /// opens a list item.
    fn block(&mut self) {
        if self.out.is_empty() || self.out.ends_with("• ") || self.out.ends_with(". ") {
            return;
        }
        if !self.lists.is_empty() {
            if !self.out.ends_with('\n') {
                self.out.push('\n');
            }
            return;
        }
        while !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }

    fn line_break(&mut self) {
        if self.cell.is_some() {
            self.sink().push(' ');
        } else {
            let indent = self.indent();
            self.out.push('\n');
            self.out.push_str(&indent);
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) if self.in_code_block => {
                let indent = format!("{}    ", self.indent());
                for line in text.split_inclusive('\n') {
                    if self.out.ends_with('\n') || self.out.is_empty() {
                        self.out.push_str(&indent);
                    }
                    self.out.push_str(line);
                }
            }
            Event::Text(text) | Event::Code(text) => self.sink().push_str(&text),
            Event::InlineMath(text) | Event::DisplayMath(text) => self.sink().push_str(&text),
            Event::SoftBreak | Event::HardBreak => self.line_break(),
            Event::Rule => {
                self.block();
                self.out.push_str(RULE_LINE);
                self.out.push('\n');
            }
            Event::TaskListMarker(done) => self.sink().push_str(if done { "[x] " } else { "[ ] " }),
            // No page is written in HTML: a `<name>` in a message or a
            // description is text, and stays.
            Event::Html(text) | Event::InlineHtml(text) => self.sink().push_str(&text),
            Event::FootnoteReference(label) => self.sink().push_str(&label),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::Heading { .. } | Tag::BlockQuote(_) | Tag::HtmlBlock => {
                self.block()
            }
            Tag::CodeBlock(_) => {
                self.block();
                self.in_code_block = true;
            }
            Tag::List(first) => {
                self.block();
                self.lists.push(first);
            }
            Tag::Item => {
                if !self.out.is_empty() && !self.out.ends_with('\n') {
                    self.out.push('\n');
                }
                let depth = self.lists.len().saturating_sub(1);
                self.out.push_str(&"  ".repeat(depth));
                let marker = match self.lists.last_mut() {
                    Some(Some(number)) => {
                        let marker = format!("{number}. ");
                        *number += 1;
                        marker
                    }
                    _ => "• ".to_string(),
                };
                self.out.push_str(&marker);
            }
            Tag::Table(_) => {
                self.block();
                self.table = Some(Vec::new());
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(rows) = &mut self.table {
                    rows.push(Vec::new());
                }
            }
            Tag::TableCell => self.cell = Some(String::new()),
            Tag::Link { dest_url, .. } => {
                let external = dest_url.starts_with("http://") || dest_url.starts_with("https://");
                self.link = external.then(|| dest_url.to_string());
                self.link_text_start = self.sink().len();
            }
            Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Image { .. }
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::BlockQuote(_) | TagEnd::HtmlBlock => {
                self.out.push('\n')
            }
            TagEnd::CodeBlock => {
                self.in_code_block = false;
                if !self.out.ends_with('\n') {
                    self.out.push('\n');
                }
            }
            TagEnd::List(_) => {
                self.lists.pop();
                if !self.out.ends_with('\n') {
                    self.out.push('\n');
                }
            }
            TagEnd::Item => {
                if !self.out.ends_with('\n') {
                    self.out.push('\n');
                }
            }
            TagEnd::TableCell => {
                if let (Some(cell), Some(row)) = (
                    self.cell.take(),
                    self.table.as_mut().and_then(|rows| rows.last_mut()),
                ) {
                    row.push(cell.trim().to_string());
                }
            }
            TagEnd::Table => {
                if let Some(rows) = self.table.take() {
                    self.out.push_str(&aligned(&rows));
                }
            }
            TagEnd::Link => {
                if let Some(address) = self.link.take() {
                    let start = self.link_text_start;
                    let sink = self.sink();
                    let text = sink.get(start..).unwrap_or("");
                    if !text.contains(address.as_str()) {
                        sink.push_str(&format!(" ({address})"));
                    }
                }
            }
            TagEnd::TableHead
            | TagEnd::TableRow
            | TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Image
            | TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_) => {}
        }
    }
}

/// Table rows in columns padded to their widest cell, the head row
/// underlined.
fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width = |column: usize| {
        rows.iter()
            .filter_map(|row| row.get(column))
            .map(|cell| cell.chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..columns).map(width).collect();
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let mut line = String::new();
        for (column, width) in widths.iter().enumerate() {
            let cell = row.get(column).map_or("", String::as_str);
            line.push_str(cell);
            line.extend(std::iter::repeat_n(' ', width - cell.chars().count() + 2));
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if i == 0 && rows.len() > 1 {
            let total = widths.iter().sum::<usize>() + 2 * columns.saturating_sub(1);
            out.extend(std::iter::repeat_n('─', total));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_gone_and_structure_stays_readable() {
        let page = "# R101: unknown-checkpoint-phase\n\nDefault severity: **error** · Fix: `safe`\n\n## What it checks\n\nA [Graph topology](#graph-topology) value, see\n[the guide](https://example.org/guide).\n\n---\n\n- one `a`\n- two\n  1. nested\n\n```yaml\nphase: x\n```\n\n| key | type |\n|---|---|\n| `name` | string |\n";
        let plain = to_plain(page);
        for markup in ["`", "](", "**", "# ", "---", "```", "|"] {
            assert!(!plain.contains(markup), "{markup:?} left in:\n{plain}");
        }
        assert!(plain.starts_with("R101: unknown-checkpoint-phase\n\nDefault severity: error · Fix: safe\n\nWhat it checks\n"), "{plain}");
        assert!(
            plain.contains("A Graph topology value, see\nthe guide (https://example.org/guide)."),
            "{plain}"
        );
        assert!(plain.contains(RULE_LINE));
        assert!(plain.contains("• one a\n• two\n  1. nested\n"), "{plain}");
        assert!(plain.contains("    phase: x\n"), "{plain}");
        assert!(
            plain.contains("key   type\n────────────\nname  string"),
            "{plain}"
        );
    }

    /// What a plain-text client must never see: code-span backticks, link
    /// targets, heading marks, `---` rules, emphasis markers.
    fn markup_in(plain: &str) -> Option<String> {
        // Code blocks (indented by four) are shown as written.
        let prose: String = plain
            .lines()
            .filter(|line| !line.starts_with("    "))
            .map(|line| format!("{line}\n"))
            .collect();
        let plain = prose.as_str();
        for markup in ["`", "](", "---"] {
            if plain.contains(markup) {
                return Some(markup.into());
            }
        }
        plain
            .lines()
            // A line may start with `# ` as text (a suppression comment in a
            // code span); the pages' headings are `# CODE: name` and `## …`.
            .find(|line| {
                line.starts_with("## ")
                    || line.strip_prefix("# ").is_some_and(|rest| {
                        phaselint_lint::rules::rule(rest.get(..4).unwrap_or("")).is_some()
                    })
            })
            .map(str::to_string)
            .or_else(|| {
                plain
                    .match_indices("**")
                    .find(|(at, _)| {
                        plain[..*at]
                            .chars()
                            .next_back()
                            .is_none_or(char::is_whitespace)
                            && plain[at + 2..]
                                .chars()
                                .next()
                                .is_some_and(char::is_alphanumeric)
                    })
                    .map(|(at, _)| format!("** at {at}"))
            })
    }

    #[test]
    fn every_rule_page_and_key_description_renders_without_markup() {
        for rule in phaselint_lint::rules::RULES {
            let plain = to_plain(rule.doc);
            assert_eq!(markup_in(&plain), None, "{}:\n{plain}", rule.code);
            assert!(plain.starts_with(&format!("{}: {}", rule.code, rule.name)));
            assert!(
                !for_markdown_client(rule.doc).contains("](#"),
                "{}",
                rule.code
            );
        }
        for mapping in phaselint_lint::format::MAPPINGS {
            for key in mapping.keys {
                for text in [key.description.to_string(), key.value.describe()] {
                    let plain = to_plain(&text);
                    assert_eq!(
                        markup_in(&plain),
                        None,
                        "{}.{}: {plain}",
                        mapping.name,
                        key.name
                    );
                    assert!(!for_markdown_client(&text).contains("](#"), "{text}");
                }
            }
        }
    }

    #[test]
    fn a_markdown_client_gets_followable_links_only() {
        let text =
            "A list of [Field](#field) items; see [R101](R101.md) and [docs](https://example.org).";
        let rewritten = for_markdown_client(text);
        assert_eq!(
            rewritten,
            format!(
                "A list of Field items; see [R101]({}) and [docs](https://example.org).",
                rule_page_uri("R101")
            )
        );
        // Text that looks like HTML is text.
        assert_eq!(
            to_plain("writes checkpoint-<name>.md for <b>each</b>"),
            "writes checkpoint-<name>.md for <b>each</b>"
        );
        // Code in the link text stays code.
        assert_eq!(for_markdown_client("[`entry`](#entry)"), "`entry`");
    }
}
