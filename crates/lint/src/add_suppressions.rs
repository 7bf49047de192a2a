//! `lint --add-suppressions` (ruff's `--add-noqa`): a `# phaselint:
//! disable=CODE` comment for each finding a comment can silence, written
//! where the linter reads it (the finding's line, or the line before) and
//! never where a `#` would be text: inside a multi-line string, or on a
//! line that ends inside a flow collection (`{ … }`, `[ … ]`), YAML would
//! read the comment as content or refuse it. A comment already on that
//! line takes the new codes (one list, sorted, without repeats). The
//! edited text is analyzed before it is handed back: it must report what
//! the original did, less the findings silenced, and no new S001.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::suppression::directive_at;
use crate::syntax::{self, Limits, NodeKind, Span};
use crate::{Analysis, analyze_document};

/// What adding suppressions to one file did.
pub struct Suppressed {
    /// The edited text and its analysis; `None` when nothing was added.
    pub edited: Option<(String, Analysis)>,
    /// How many findings the comments silence.
    pub findings: usize,
    /// How many lines got a new comment or more codes in theirs.
    pub comments: usize,
    /// Findings left as they were, and why.
    pub skipped: Vec<NotSuppressed>,
}

/// A finding that got no comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotSuppressed {
    /// 0-based line of the finding.
    pub line: usize,
    pub code: &'static str,
    pub reason: String,
}

/// Why no comment can be added to a file at all.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("it is JSON, which has no comments; use `per-file-ignores` in phaselint.toml")]
    Json,
    #[error("it cannot be loaded as YAML (E001/E007), and those findings cannot be suppressed")]
    Unloadable,
    #[error(
        "the comments would change what phaselint reports beyond the findings they silence ({0}); nothing was written"
    )]
    Changed(String),
}

/// What a line end can be inside of, for a skipped finding's reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    Block,
    Quoted,
    Plain,
    Flow,
}

impl Region {
    fn noun(self) -> &'static str {
        match self {
            Region::Block => "a block scalar (`|` or `>`)",
            Region::Quoted => "a quoted string that spans lines",
            Region::Plain => "a plain scalar that spans lines",
            Region::Flow => "a flow collection (`{ … }` or `[ … ]`)",
        }
    }
}

/// The comments that silence every suppressible finding of `analysis`,
/// analyzed with `settings` (the ones it was analyzed with).
pub fn add_suppressions(analysis: &Analysis, settings: &Settings) -> Result<Suppressed, Refusal> {
    let source = analysis.source.as_str();
    if !analysis.takes_comments() {
        return Err(Refusal::Json);
    }
    if analysis.is_unreadable() {
        return Err(Refusal::Unloadable);
    }
    let Ok(Some(tree)) = syntax::parse(source, Limits::default()) else {
        return Err(Refusal::Unloadable);
    };
    let regions = regions(tree.root(), source);
    let strings = syntax::string_spans(tree.root());
    drop(tree);
    let index = &analysis.line_index;
    let inside = |line: usize| -> Option<Region> {
        let end = index.line_end(source, line);
        let after = regions.partition_point(|(span, _)| span.start < end);
        regions[..after]
            .last()
            .filter(|(span, _)| span.end > end)
            .map(|&(_, region)| region)
    };

    let mut by_line: BTreeMap<usize, BTreeSet<&'static str>> = BTreeMap::new();
    let mut silenced = Vec::new();
    let mut skipped = Vec::new();
    for (i, d) in analysis.diagnostics.iter().enumerate() {
        if !d.code.can_be_suppressed() {
            continue;
        }
        let line = index.line_of(d.span.start);
        let own = inside(line);
        let target = match own {
            None => Some(line),
            Some(_) if line > 0 && inside(line - 1).is_none() => Some(line - 1),
            Some(_) => None,
        };
        match (target, own) {
            (Some(target), _) => {
                by_line.entry(target).or_default().insert(d.code.as_str());
                silenced.push(i);
            }
            (None, Some(region)) => skipped.push(NotSuppressed {
                line,
                code: d.code.as_str(),
                reason: format!(
                    "its line ends inside {}, and so does the line before, where a comment would be text; silence it with `disable-file={}` or fix it",
                    region.noun(),
                    d.code
                ),
            }),
            (None, None) => {}
        }
    }
    if by_line.is_empty() {
        return Ok(Suppressed {
            edited: None,
            findings: 0,
            comments: 0,
            skipped,
        });
    }

    let mut edits: Vec<(Span, String)> = Vec::with_capacity(by_line.len());
    for (&line, codes) in &by_line {
        edits.push(comment_edit(source, analysis, &strings, line, codes));
    }
    let mut text = source.to_string();
    for (span, replacement) in edits.iter().rev() {
        text.replace_range(span.start..span.end, replacement);
    }

    if !reads_the_same(source, &text) {
        return Err(Refusal::Changed(
            "the YAML would read differently".to_string(),
        ));
    }
    let edited = analyze_document(text.clone(), analysis.kind, settings);
    let mut expected = analysis.diagnostics.clone();
    for &i in silenced.iter().rev() {
        expected.remove(i);
    }
    if let Some(difference) = difference(&expected, analysis, &edited) {
        return Err(Refusal::Changed(difference));
    }
    Ok(Suppressed {
        edited: Some((text, edited)),
        findings: silenced.len(),
        comments: by_line.len(),
        skipped,
    })
}

/// The edit that puts `codes` in the `disable=` comment of `line`: into
/// the list already there, or as a new comment at the line's end.
fn comment_edit(
    source: &str,
    analysis: &Analysis,
    strings: &[Span],
    line: usize,
    codes: &BTreeSet<&'static str>,
) -> (Span, String) {
    let index = &analysis.line_index;
    let start = index.line_start(line);
    let end = index.line_end(source, line);
    let text = source.get(start..end).unwrap_or_default();
    let marker = "phaselint:";
    let mut from = 0;
    while let Some(found) = text.get(from..).and_then(|t| t.find(marker)) {
        let at = start + from + found;
        from += found + marker.len();
        let Some(directive) = directive_at(source, index, line, at) else {
            continue;
        };
        let in_string = strings
            .iter()
            .any(|s| s.start <= directive.comment_start && directive.comment_start < s.end);
        if directive.file_level || in_string {
            continue;
        }
        let mut merged: BTreeSet<String> = directive
            .codes
            .iter()
            .map(|(_, c)| c.trim().to_ascii_uppercase())
            .collect();
        merged.extend(codes.iter().map(|c| c.to_string()));
        let list = merged.into_iter().collect::<Vec<_>>().join(",");
        return (directive.list, list);
    }
    let list = codes.iter().copied().collect::<Vec<_>>().join(",");
    let separator = if text.trim().is_empty() { "" } else { "  " };
    (
        Span::empty(end),
        format!("{separator}# phaselint: disable={list}"),
    )
}

/// Where a comment at a line's end would be text, or refused: multi-line
/// scalars and flow collections, sorted by start.
fn regions(root: syntax::Node<'_>, source: &str) -> Vec<(Span, Region)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    let spans_lines = |span: Span| {
        source
            .get(span.start..span.end)
            .is_some_and(|t| t.contains('\n'))
    };
    while let Some(node) = stack.pop() {
        let first = source.as_bytes().get(node.span.start).copied();
        match node.kind() {
            NodeKind::Scalar(scalar) => {
                if spans_lines(node.span) {
                    let region = match first {
                        Some(b'|' | b'>') => Region::Block,
                        Some(b'"' | b'\'') => Region::Quoted,
                        _ if scalar.plain => Region::Plain,
                        _ => Region::Block,
                    };
                    out.push((node.span, region));
                }
            }
            NodeKind::Sequence(items) => {
                if first == Some(b'[') {
                    out.push((node.span, Region::Flow));
                }
                stack.extend(items.iter());
            }
            NodeKind::Mapping(entries) => {
                if first == Some(b'{') {
                    out.push((node.span, Region::Flow));
                }
                for entry in entries.iter() {
                    if spans_lines(entry.key.span) {
                        out.push((entry.key.span, Region::Quoted));
                    }
                    stack.push(entry.value);
                }
            }
        }
    }
    // Outermost first, then merged into disjoint runs that keep the
    // outermost's kind (a string inside a flow collection is in the
    // collection).
    out.sort_unstable_by_key(|(span, _)| (span.start, std::cmp::Reverse(span.end)));
    let mut merged: Vec<(Span, Region)> = Vec::with_capacity(out.len());
    for (span, region) in out {
        match merged.last_mut() {
            Some((last, _)) if span.start < last.end => last.end = last.end.max(span.end),
            _ => merged.push((span, region)),
        }
    }
    merged
}

/// Whether two texts parse to the same YAML: the same mappings, keys,
/// sequences and scalars, whatever their spans (a comment moves them).
fn reads_the_same(before: &str, after: &str) -> bool {
    let (Ok(Some(a)), Ok(Some(b))) = (
        syntax::parse(before, Limits::default()),
        syntax::parse(after, Limits::default()),
    ) else {
        return false;
    };
    let mut stack = vec![(a.root(), b.root())];
    while let Some((a, b)) = stack.pop() {
        match (a.kind(), b.kind()) {
            (NodeKind::Scalar(x), NodeKind::Scalar(y)) if x == y => {}
            (NodeKind::Sequence(x), NodeKind::Sequence(y)) if x.len() == y.len() => {
                stack.extend(x.iter().zip(y.iter()));
            }
            (NodeKind::Mapping(x), NodeKind::Mapping(y)) if x.len() == y.len() => {
                for (e, f) in x.iter().zip(y.iter()) {
                    if e.key.text != f.key.text {
                        return false;
                    }
                    stack.push((e.value, f.value));
                }
            }
            _ => return false,
        }
    }
    true
}

/// How the edited text's findings differ from the expected ones, if they
/// do: by code, line, severity and message (columns after a comment on
/// the same line may move).
fn difference(expected: &[Diagnostic], before: &Analysis, after: &Analysis) -> Option<String> {
    type Seen<'a> = HashMap<(&'a str, usize, &'a str, &'a str), isize>;
    let mut seen: Seen<'_> = HashMap::new();
    for d in expected {
        let line = before.line_index.line_of(d.span.start);
        *seen
            .entry((d.code.as_str(), line, d.severity.as_str(), &d.message))
            .or_default() += 1;
    }
    for d in &after.diagnostics {
        let line = after.line_index.line_of(d.span.start);
        *seen
            .entry((d.code.as_str(), line, d.severity.as_str(), &d.message))
            .or_default() -= 1;
    }
    let mut differences: Vec<_> = seen.into_iter().filter(|(_, n)| *n != 0).collect();
    differences.sort();
    differences.first().map(|((code, line, _, message), n)| {
        let what = if *n < 0 { "would add" } else { "would lose" };
        format!("{what} {code} on line {}: {message}", line + 1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(source: &str) -> (String, Suppressed) {
        let settings = Settings::all_rules();
        let analysis = crate::analyze(source, &settings);
        let done = add_suppressions(&analysis, &settings).unwrap();
        let text = done
            .edited
            .as_ref()
            .map_or_else(|| source.to_string(), |(t, _)| t.clone());
        (text, done)
    }

    #[test]
    fn a_comment_goes_on_the_line_and_merges_with_one_there() {
        let source = "schema_version: '1'\npipeline_id: p\nphases:\n  a:\n    long_running: true\n  b:  # phaselint: disable=g301\n    long_running: true   # why\nextra: 1\n";
        let (text, done) = add(source);
        assert_eq!(
            text,
            "schema_version: '1'\npipeline_id: p\nphases:\n  a:  # phaselint: disable=C203\n    long_running: true\n  b:  # phaselint: disable=C203,G301\n    long_running: true   # why\nextra: 1  # phaselint: disable=E003\n"
        );
        assert_eq!((done.findings, done.comments), (3, 3));
        let (again, second) = add(&text);
        assert_eq!(again, text);
        assert!(second.edited.is_none());
    }

    #[test]
    fn a_finding_inside_a_flow_collection_is_commented_on_the_line_before_or_skipped() {
        let source = "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\ncheckpoint_integrity:\n  - {checkpoint_id: k,\n     phase: nope,\n     extra: 1}\n";
        let (text, done) = add(source);
        // C204 (line 6) ends inside the collection: its comment goes on
        // the line before. R101 (line 7) ends inside it, and so does the
        // line before. E003 (line 8) ends where the collection does.
        assert_eq!(
            text,
            "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\ncheckpoint_integrity:  # phaselint: disable=C204\n  - {checkpoint_id: k,\n     phase: nope,\n     extra: 1}  # phaselint: disable=E003\n"
        );
        let codes: Vec<_> = done.skipped.iter().map(|s| (s.line + 1, s.code)).collect();
        assert_eq!(codes, [(7, "R101")]);
        assert!(
            done.skipped[0].reason.contains("flow collection"),
            "{:?}",
            done.skipped
        );
        let (again, second) = add(&text);
        assert_eq!((again, second.edited.is_none()), (text, true));
    }

    #[test]
    fn a_comment_after_a_block_scalar_header_leaves_its_text_alone() {
        let source = "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\nnotes: |\n  # not a comment\n  text\nmore: >-\n  folded\n  # text\n";
        let (text, done) = add(source);
        assert_eq!(
            text,
            "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\nnotes: |  # phaselint: disable=E003\n  # not a comment\n  text\nmore: >-  # phaselint: disable=E003\n  folded\n  # text\n"
        );
        assert_eq!(done.findings, 2);
    }

    #[test]
    fn a_finding_on_a_line_inside_a_multi_line_string_is_commented_before_it() {
        // E004 on a quoted value that spans lines: its first line ends in
        // the string, the line before is free.
        let source = "schema_version: '1'\npipeline_id: p\nphases:\n  a:\n    long_running: \"not\n      a bool\"\n";
        let (text, done) = add(source);
        assert_eq!(
            text,
            "schema_version: '1'\npipeline_id: p\nphases:\n  a:  # phaselint: disable=E004\n    long_running: \"not\n      a bool\"\n"
        );
        assert_eq!(done.findings, 1);
    }

    #[test]
    fn a_text_that_reads_differently_or_reports_more_is_caught() {
        // A comment inside a plain scalar that spans lines ends it there.
        assert!(!reads_the_same("a: x\n  y\n", "a: x  # c\n  y\n"));
        assert!(!reads_the_same("a: [x,\n  y]\n", "a: [x,  # c\n  y, z]\n"));
        assert!(reads_the_same("a: [x,\n  y]\n", "a: [x,\n  y]  # c\n"));
        let settings = Settings::default();
        let before = crate::analyze(
            "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\n",
            &settings,
        );
        let after = crate::analyze(
            "schema_version: '1'\npipeline_id: p  # phaselint: disable=C204\nphases:\n  a: {}\n",
            &settings,
        );
        assert_eq!(
            difference(&before.diagnostics, &before, &after).as_deref(),
            Some(
                "would add S001 on line 2: unused suppression: no C204 finding on this line or the next"
            )
        );
    }

    #[test]
    fn json_is_refused() {
        let settings = Settings::default();
        let analysis = crate::analyze_kind(
            "{\"checkpoints\": {\"types\": {}}, \"x\": 1}",
            crate::DocumentKind::Harness,
            &settings,
        );
        assert_eq!(
            add_suppressions(&analysis, &settings).err(),
            Some(Refusal::Json)
        );
    }
}
