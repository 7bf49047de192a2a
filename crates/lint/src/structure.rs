//! The YAML structure of a document as an editor folds and selects it:
//! folding ranges (mappings, lists, block scalars, comment blocks) and
//! selection ranges (scalar → key/value pair → mapping → … → document).
//!
//! The analysis drops the YAML tree once the model is built (it is most of
//! an analysis's memory), so these parse the text again, within the same
//! limits as the analysis, on each request: a real 700-line contract parses
//! in about half a millisecond, and an editor asks once per change at most.
//! Text that does not parse folds its comment blocks only, and selects its
//! line and the document.

use crate::syntax::{Limits, Node, NodeKind, Span, parse};

/// The most folding ranges answered: editors show a few thousand at most
/// (VS Code stops at 5,000), and a generated contract has millions of
/// collections.
pub const MAX_FOLDS: usize = 5_000;

/// A region an editor can fold, from its first line to its last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    /// From the start of what folds (a key, a list item, a comment) to the
    /// end of its last non-blank text.
    pub span: Span,
    /// A run of comment lines rather than YAML structure.
    pub comment: bool,
}

/// The folds of `source`, in document order of their starts; each spans at
/// least two lines. At most `MAX_FOLDS`.
pub fn folding_ranges(source: &str) -> Vec<Fold> {
    let mut folds = Vec::new();
    if let Ok(Some(tree)) = parse(source, Limits::default()) {
        collect_folds(source, tree.root(), &mut folds);
    }
    comment_folds(source, &mut folds);
    folds.retain(|f| spans_lines(source, f.span));
    folds.sort_by_key(|f| (f.span.start, std::cmp::Reverse(f.span.end)));
    folds.dedup_by_key(|f| f.span);
    folds.truncate(MAX_FOLDS);
    folds
}

/// Whether a span covers more than one line.
fn spans_lines(source: &str, span: Span) -> bool {
    source
        .get(span.start..span.end)
        .is_some_and(|text| text.contains('\n'))
}

/// `span` with trailing blank text (the newlines a block collection ends
/// with) left out, so a fold ends on its last written line.
fn trimmed(source: &str, span: Span) -> Span {
    let end = source
        .get(span.start..span.end)
        .map_or(span.end, |text| span.start + text.trim_end().len());
    Span::new(span.start, end.max(span.start))
}

fn collect_folds(source: &str, node: Node<'_>, folds: &mut Vec<Fold>) {
    // Recursion is bounded by the parser's nesting limit (`Limits::max_depth`).
    if folds.len() >= MAX_FOLDS * 2 {
        return;
    }
    match node.kind() {
        NodeKind::Mapping(mapping) => {
            for entry in mapping.iter() {
                let span = trimmed(
                    source,
                    Span::new(entry.key.span.start, entry.value.span.end),
                );
                if spans_lines(source, span) {
                    folds.push(Fold {
                        span,
                        comment: false,
                    });
                }
                collect_folds(source, entry.value, folds);
            }
        }
        NodeKind::Sequence(items) => {
            for item in items.iter() {
                let span = trimmed(source, item.span);
                if spans_lines(source, span) {
                    folds.push(Fold {
                        span,
                        comment: false,
                    });
                }
                collect_folds(source, item, folds);
            }
        }
        NodeKind::Scalar(_) => {}
    }
}

/// Runs of two or more lines that hold only a comment.
fn comment_folds(source: &str, folds: &mut Vec<Fold>) {
    let mut run: Option<Span> = None;
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let content = line.trim_start();
        let is_comment = content.starts_with('#');
        let start = offset + (line.len() - content.len());
        let end = offset + line.trim_end().len();
        offset += line.len();
        match (&mut run, is_comment) {
            (Some(span), true) => span.end = end,
            (None, true) => run = Some(Span::new(start, end)),
            (Some(span), false) => {
                folds.push(Fold {
                    span: *span,
                    comment: true,
                });
                run = None;
            }
            (None, false) => {}
        }
        if folds.len() >= MAX_FOLDS * 2 {
            return;
        }
    }
    if let Some(span) = run {
        folds.push(Fold {
            span,
            comment: true,
        });
    }
}

/// The spans an editor's "expand selection" steps through from `offset`,
/// innermost first, each inside the next: the scalar (key or value), its
/// key/value pair or list item, the collection, and so on up to the whole
/// document. Never empty.
pub fn selection_ranges(source: &str, offset: usize) -> Vec<Span> {
    let document = Span::new(0, source.len());
    // Outermost first while it is built.
    let mut chain = vec![document];
    match parse(source, Limits::default()) {
        Ok(Some(tree)) => descend(source, tree.root(), offset, &mut chain),
        // What is written on the line, when the text does not parse.
        _ => {
            let start = source
                .get(..offset.min(source.len()))
                .and_then(|before| before.rfind('\n'))
                .map_or(0, |i| i + 1);
            let end = source
                .get(start..)
                .and_then(|rest| rest.find('\n'))
                .map_or(source.len(), |i| start + i);
            let line = source.get(start..end).unwrap_or_default();
            let indent = line.len() - line.trim_start().len();
            chain.push(trimmed(source, Span::new(start + indent, end)));
        }
    }
    // Each must lie inside the one before, and none repeat.
    let mut nested: Vec<Span> = Vec::with_capacity(chain.len());
    for span in chain {
        let span = match nested.last() {
            Some(outer) => Span::new(
                span.start.clamp(outer.start, outer.end),
                span.end.clamp(outer.start, outer.end),
            ),
            None => span,
        };
        if nested.last() != Some(&span) && span.end > span.start {
            nested.push(span);
        }
    }
    if nested.is_empty() {
        nested.push(document);
    }
    nested.reverse();
    nested
}

/// Pushes, outermost first, the spans from `node` down to what `offset` is in.
fn descend(source: &str, node: Node<'_>, offset: usize, chain: &mut Vec<Span>) {
    chain.push(trimmed(source, node.span));
    match node.kind() {
        NodeKind::Mapping(mapping) => {
            for entry in mapping.iter() {
                let pair = Span::new(entry.key.span.start, entry.value.span.end);
                if !within(pair, offset) {
                    continue;
                }
                chain.push(trimmed(source, pair));
                if within(entry.key.span, offset) {
                    chain.push(entry.key.span);
                } else {
                    descend(source, entry.value, offset, chain);
                }
                return;
            }
        }
        NodeKind::Sequence(items) => {
            if let Some(item) = items.iter().find(|item| within(item.span, offset)) {
                descend(source, item, offset, chain);
            }
        }
        NodeKind::Scalar(_) => {}
    }
}

/// Whether `offset` is in `span` or just after its end (a cursor right
/// after a word selects that word).
fn within(span: Span, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
# A contract
# with a header
phases:
  - name: a
    description: |
      two
      lines
    entry:
      required: [x]
  - name: b
";

    fn lines(span: Span) -> (usize, usize) {
        let line = |o: usize| TEXT[..o].matches('\n').count();
        (line(span.start), line(span.end))
    }

    #[test]
    fn folds_collections_block_scalars_and_comment_runs() {
        let folds: Vec<((usize, usize), bool)> = folding_ranges(TEXT)
            .into_iter()
            .map(|f| (lines(f.span), f.comment))
            .collect();
        assert_eq!(
            folds,
            vec![
                ((0, 1), true),
                ((2, 9), false),
                ((3, 8), false),
                ((4, 6), false),
                ((7, 8), false),
            ]
        );
    }

    #[test]
    fn selection_grows_from_a_scalar_to_the_document() {
        let at = TEXT.find("name: b").unwrap() + "name: ".len();
        let chain = selection_ranges(TEXT, at);
        let texts: Vec<&str> = chain.iter().map(|s| &TEXT[s.start..s.end]).collect();
        assert_eq!(texts[0], "b");
        assert_eq!(texts[1], "name: b");
        assert!(texts.last().unwrap().starts_with("# A contract"));
        for pair in chain.windows(2) {
            assert!(pair[1].start <= pair[0].start && pair[0].end <= pair[1].end);
            assert_ne!(pair[0], pair[1]);
        }
    }

    /// Every truncation of a real fixture (what typing it leaves behind),
    /// at every offset: selections nested up to the document, folds over
    /// several lines, everything on character boundaries.
    #[test]
    fn every_half_typed_prefix_answers_well_formed_ranges() {
        let full = include_str!("../../../fixtures/R101/fail.contract.yaml");
        for cut in (0..=full.len()).filter(|&c| full.is_char_boundary(c)) {
            let text = &full[..cut];
            for fold in folding_ranges(text) {
                assert!(text[fold.span.start..fold.span.end].contains('\n'));
            }
            for offset in (0..=cut).step_by(7) {
                let chain = selection_ranges(text, offset);
                assert_eq!(chain.last(), Some(&Span::new(0, cut)));
                for pair in chain.windows(2) {
                    assert!(pair[1].start <= pair[0].start && pair[0].end <= pair[1].end);
                    assert!(text.get(pair[0].start..pair[0].end).is_some());
                }
            }
        }
    }

    #[test]
    fn text_that_does_not_parse_still_answers() {
        let text = "phases:\n  - name: [a\n  sever\n";
        let at = text.find("sever").unwrap();
        let chain = selection_ranges(text, at);
        assert_eq!(&text[chain[0].start..chain[0].end], "sever");
        assert_eq!(chain.last(), Some(&Span::new(0, text.len())));
        assert!(folding_ranges(text).is_empty());
        for offset in 0..=text.len() + 2 {
            assert!(!selection_ranges(text, offset).is_empty());
        }
    }
}
