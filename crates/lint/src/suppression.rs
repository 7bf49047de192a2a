//! Suppression comments: `# phaselint: disable=C203,G304` on a finding's
//! line or the line before, and `# phaselint: disable-file=CODE` anywhere.
//! Suppressions that silence nothing are reported (S001).

use std::collections::HashMap;

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::line_index::LineIndex;
use crate::rule_id::RuleId;
use crate::settings::Settings;
use crate::syntax::Span;

struct Suppression {
    code: String,
    /// 0-based line of the comment; `None` for `disable-file`.
    line: Option<usize>,
    code_span: Span,
    removal: Span,
    used: bool,
}

/// One `# phaselint: disable=…` or `disable-file=…` comment as written.
pub(crate) struct Directive<'s> {
    /// Where the `#` is.
    pub(crate) comment_start: usize,
    pub(crate) file_level: bool,
    /// Where the code list starts (right after `=`) and ends (at the
    /// first blank or the line's end).
    pub(crate) list: Span,
    /// Each non-empty code of the list with where it starts.
    pub(crate) codes: Vec<(usize, &'s str)>,
}

/// The code list that starts `text` (right after `=`): codes separated by
/// commas, with blanks allowed around each (`disable=R110, C204`, as ruff's
/// `# noqa: A, B`). The list ends at a blank not followed by a comma, or
/// one not following a comma: what comes after is a remark, not a code.
/// Returns the list's length (through the blanks after a trailing comma,
/// where the next code goes) and each non-empty code with where it starts.
fn code_list(text: &str) -> (usize, Vec<(usize, &str)>) {
    let bytes = text.as_bytes();
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut codes = Vec::new();
    let mut at = 0;
    let mut end = 0;
    loop {
        // Blanks before a code: only at the start or after a comma.
        while at < bytes.len() && blank(bytes[at]) {
            at += 1;
        }
        let start = at;
        while at < bytes.len() && bytes[at] != b',' && !bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if at > start {
            codes.push((start, &text[start..at]));
            end = at;
        }
        let mut after = at;
        while after < bytes.len() && blank(bytes[after]) {
            after += 1;
        }
        if after < bytes.len() && bytes[after] == b',' {
            at = after + 1;
            end = at;
            // Blanks after a trailing comma belong to the list.
            let mut past = at;
            while past < bytes.len() && blank(bytes[past]) {
                past += 1;
            }
            if past == bytes.len() {
                end = past;
            }
            continue;
        }
        return (end, codes);
    }
}

/// The directive whose `phaselint:` marker is at `at`, on line `line`: a
/// `#` at the start of a line or after white space, as YAML defines
/// comments, then only blanks up to the marker, then `disable=` or
/// `disable-file=` and a comma-separated list. `None` when the marker is
/// not such a comment.
pub(crate) fn directive_at<'s>(
    source: &'s str,
    index: &LineIndex,
    line: usize,
    at: usize,
) -> Option<Directive<'s>> {
    const MARKER: &str = "phaselint:";
    let bytes = source.as_bytes();
    let line_start = index.line_start(line);
    // Walk back over the blanks (each byte at most once over the whole
    // text, as blanks before one marker end at it).
    let mut blank = at;
    while blank > line_start && matches!(bytes[blank - 1], b' ' | b'\t') {
        blank -= 1;
    }
    if blank == line_start || bytes[blank - 1] != b'#' {
        return None;
    }
    let hash = blank - 1 - line_start;
    if hash > 0 && !matches!(bytes[line_start + hash - 1], b' ' | b'\t') {
        return None;
    }
    let comment_start = line_start + hash;
    let line_end = index.line_end(source, line);
    let after_marker = at + MARKER.len();
    let rest = source.get(after_marker..line_end)?;
    let trimmed = rest.trim_start();
    let (file_level, list) = if let Some(list) = trimmed.strip_prefix("disable-file=") {
        (true, list)
    } else if let Some(list) = trimmed.strip_prefix("disable=") {
        (false, list)
    } else {
        return None;
    };
    let list_start = line_end - list.len();
    let (list_len, codes) = code_list(list);
    let codes: Vec<(usize, &str)> = codes
        .into_iter()
        .map(|(start, code)| (list_start + start, code))
        .collect();
    let list_text = &list[..list_len];
    Some(Directive {
        comment_start,
        file_level,
        list: Span::new(list_start, list_start + list_text.len()),
        codes,
    })
}

/// Finds the directives in the source, leaving out those inside a quoted
/// or block scalar (`strings`, sorted by start), where a `#` is text:
/// taking it for a comment would make S001's fix cut the string apart.
fn directives(source: &str, index: &LineIndex, strings: &[Span]) -> Vec<Suppression> {
    let mut found = Vec::new();
    let marker = "phaselint:";
    let mut search_from = 0;
    while let Some(relative) = source[search_from..].find(marker) {
        let at = search_from + relative;
        search_from = at + marker.len();
        let line = index.line_of(at);
        let Some(directive) = directive_at(source, index, line, at) else {
            continue;
        };
        let comment_start = directive.comment_start;
        if inside(strings, comment_start) {
            continue;
        }
        let line_start = index.line_start(line);
        let line_end = index.line_end(source, line);
        let whole_comment = {
            let code_part = &source[line_start..comment_start];
            if code_part.trim().is_empty() {
                // The comment is alone on its line: remove the line.
                let next = index.line_start(line + 1);
                Span::new(line_start, next.max(line_end))
            } else {
                let trailing_ws = code_part.len() - code_part.trim_end().len();
                Span::new(comment_start - trailing_ws, line_end)
            }
        };
        let codes = &directive.codes;
        let count = codes.len();
        for (i, (start, code)) in codes.iter().enumerate() {
            let code_span = Span::new(*start, start + code.len());
            // Up to the next code, or from the previous one's end: the comma
            // and blanks between them go with it.
            let removal = if count == 1 {
                whole_comment
            } else if let Some((next, _)) = codes.get(i + 1) {
                Span::new(*start, *next)
            } else {
                let (previous, before) = codes[i - 1];
                Span::new(previous + before.len(), start + code.len())
            };
            found.push(Suppression {
                code: code.trim().to_ascii_uppercase(),
                line: (!directive.file_level).then_some(line),
                code_span,
                removal,
                used: false,
            });
        }
    }
    found
}

/// The code of a suppression comment's list around a position, read as
/// the linter reads the comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuppressionAt {
    /// The list item around the position, between the commas on either
    /// side (empty right after `=` or a comma), and where it is written.
    pub code: String,
    pub span: Span,
    /// The part of `code` before the position: what a completion filters by.
    pub typed: String,
    /// `disable-file=` rather than `disable=`.
    pub(crate) file_level: bool,
    /// 0-based line of the comment.
    pub(crate) line: usize,
    /// Every code the comment lists, upper case.
    pub(crate) listed: Vec<String>,
}

/// The suppression comment at `offset`, when the position is inside its
/// code list (from right after `=` to the list's end): the code it is on,
/// or the empty place where a code goes. The editor's hover and completion
/// ask this, so they read comments exactly as `lint` does (a `#` inside a
/// quoted string on the same line is not told apart here: that costs a
/// hover, never a finding).
pub fn suppression_at(source: &str, index: &LineIndex, offset: usize) -> Option<SuppressionAt> {
    let offset = offset.min(source.len());
    let line = index.line_of(offset);
    let line_start = index.line_start(line);
    let line_end = index.line_end(source, line);
    let text = source.get(line_start..line_end)?;
    let marker = "phaselint:";
    let mut from = 0;
    while let Some(relative) = text[from..].find(marker) {
        let at = line_start + from + relative;
        from += relative + marker.len();
        let Some(directive) = directive_at(source, index, line, at) else {
            continue;
        };
        let list = directive.list;
        if offset < list.start || offset > list.end {
            continue;
        }
        let list_text = source.get(list.start..list.end)?;
        let cursor = offset - list.start;
        let mut item_start = list_text.get(..cursor)?.rfind(',').map_or(0, |i| i + 1);
        let mut item_end = list_text
            .get(cursor..)?
            .find(',')
            .map_or(list_text.len(), |i| cursor + i);
        // The blanks around a code are not part of it (`R110, C204`).
        let bytes = list_text.as_bytes();
        while item_start < cursor && matches!(bytes[item_start], b' ' | b'\t') {
            item_start += 1;
        }
        while item_end > cursor && matches!(bytes[item_end - 1], b' ' | b'\t') {
            item_end -= 1;
        }
        return Some(SuppressionAt {
            code: list_text[item_start..item_end].to_string(),
            span: Span::new(list.start + item_start, list.start + item_end),
            typed: list_text[item_start..cursor].to_string(),
            file_level: directive.file_level,
            line,
            listed: directive
                .codes
                .iter()
                .map(|(_, c)| c.trim().to_ascii_uppercase())
                .collect(),
        });
    }
    None
}

/// The edits that add a code to the suppression comment on a line, or a
/// new comment at its end, for editors' "suppress on this line" actions.
/// Each line is scanned once, however many findings it carries.
pub struct SuppressionEdits<'a> {
    source: &'a str,
    index: &'a LineIndex,
    /// Per line: where to insert, and whether a `disable=` list is there.
    lines: HashMap<usize, (usize, bool)>,
}

impl<'a> SuppressionEdits<'a> {
    pub fn new(source: &'a str, index: &'a LineIndex) -> Self {
        SuppressionEdits {
            source,
            index,
            lines: HashMap::new(),
        }
    }

    /// The edit that silences `code` on the line holding `offset`.
    pub fn edit(&mut self, offset: usize, code: &str) -> Edit {
        let line = self.index.line_of(offset);
        let (source, index) = (self.source, self.index);
        let &mut (at, listed) = self.lines.entry(line).or_insert_with(|| {
            let start = index.line_start(line);
            let end = index.line_end(source, line);
            let marker = "# phaselint: disable=";
            match source[start..end].find(marker) {
                Some(found) => {
                    let list = start + found + marker.len();
                    let (_, codes) = code_list(&source[list..end]);
                    // After the last code: a trailing comma's blanks stay.
                    match codes.last() {
                        Some((at, code)) => (list + at + code.len(), true),
                        None => (list, true),
                    }
                }
                None => (end, false),
            }
        });
        let replacement = if listed {
            format!(",{code}")
        } else {
            format!("  # phaselint: disable={code}")
        };
        Edit {
            span: Span::empty(at),
            replacement,
        }
    }
}

/// Whether `offset` lies inside one of `spans` (sorted by start, not
/// overlapping: scalars do not nest).
fn inside(spans: &[Span], offset: usize) -> bool {
    let after = spans.partition_point(|s| s.start <= offset);
    after > 0 && offset < spans[after - 1].end
}

/// The suppression comments of one text, applied to findings one at a
/// time as they are reported (so a finding they silence is never kept),
/// then S001 for those that silenced nothing.
pub(crate) struct Suppressions {
    suppressions: Vec<Suppression>,
    /// Which suppressions may silence a finding of a code on a line.
    by_line: HashMap<String, HashMap<usize, Vec<usize>>>,
    by_file: HashMap<String, Vec<usize>>,
}

impl Suppressions {
    /// The directives of `source`; `None` when it has none. `strings` are
    /// the spans of the quoted and block scalars, where a `#` is text, not
    /// a comment.
    pub(crate) fn new(source: &str, index: &LineIndex, strings: &[Span]) -> Option<Self> {
        if !source.contains("phaselint:") {
            return None;
        }
        let suppressions = directives(source, index, strings);
        if suppressions.is_empty() {
            return None;
        }
        let mut by_line: HashMap<String, HashMap<usize, Vec<usize>>> = HashMap::new();
        let mut by_file: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, s) in suppressions.iter().enumerate() {
            match s.line {
                Some(line) => by_line
                    .entry(s.code.clone())
                    .or_default()
                    .entry(line)
                    .or_default()
                    .push(i),
                None => by_file.entry(s.code.clone()).or_default().push(i),
            }
        }
        Some(Suppressions {
            suppressions,
            by_line,
            by_file,
        })
    }

    /// Whether a comment silences `d`; each that does is marked used.
    pub(crate) fn silences(&mut self, d: &Diagnostic, index: &LineIndex) -> bool {
        // A file that cannot be read as YAML must never pass.
        if !d.code.can_be_suppressed() {
            return false;
        }
        let mut silenced = false;
        if let Some(lines) = self.by_line.get(d.code.as_str()) {
            let line = index.line_of(d.span.start);
            let previous = line.checked_sub(1);
            for at in std::iter::once(line).chain(previous) {
                for &i in lines.get(&at).into_iter().flatten() {
                    self.suppressions[i].used = true;
                    silenced = true;
                }
            }
        }
        if let Some(found) = self.by_file.get(d.code.as_str()) {
            for &i in found {
                self.suppressions[i].used = true;
                silenced = true;
            }
        }
        silenced
    }

    /// S001 for each suppression that silenced nothing.
    pub(crate) fn unused(self, settings: &Settings) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let Some(level) = settings.level(RuleId::UNUSED_SUPPRESSION.as_str(), Severity::Info)
        else {
            return out;
        };
        for s in self.suppressions.iter().filter(|s| !s.used) {
            let known = settings.rule_id(&s.code);
            // A code turned off by configuration has nothing to silence; its
            // comment is not stale, so only enabled or unknown codes count.
            if known.is_some_and(|code| !settings.is_enabled(code.as_str())) {
                continue;
            }
            let mut diagnostic =
                unused_suppression(&s.code, s.code_span, s.removal, s.line.is_none());
            if known.is_none() {
                diagnostic.message = format!(
                    "`{}` in a suppression comment is not a phaselint rule code",
                    s.code
                );
            } else if known.is_some_and(RuleId::is_diff) {
                diagnostic.message = format!(
                    "{} is reported by `phaselint diff`, never by lint, and a comment cannot silence it; turn it off with `ignore` in phaselint.toml",
                    s.code
                );
            } else if known.is_some_and(RuleId::is_load_error) {
                diagnostic.message = format!(
                    "{} cannot be suppressed: a file that cannot be loaded never passes",
                    s.code
                );
            }
            diagnostic.severity = level;
            out.push(diagnostic);
        }
        out
    }
}

/// S001 (declared in `rules/schema/s001_unused_suppression.rs`, at its
/// default level, info) for one code of a comment that silenced nothing.
/// Made here, below the registry: the findings sink reports it as it
/// finishes. `code_span` covers the code in the comment; `removal` is what
/// deleting it takes.
fn unused_suppression(code: &str, code_span: Span, removal: Span, file_level: bool) -> Diagnostic {
    let scope = if file_level {
        "in this file"
    } else {
        "on this line or the next"
    };
    Diagnostic::new(
        RuleId::UNUSED_SUPPRESSION,
        Severity::Info,
        code_span,
        format!("unused suppression: no {code} finding {scope}"),
    )
    .with_help("remove the code from the comment; stale suppressions hide future findings")
    .with_fix(Fix {
        title: format!("Remove unused suppression of {code}"),
        applicability: Applicability::Safe,
        edits: vec![Edit {
            span: removal,
            replacement: String::new(),
        }],
    })
}

#[cfg(test)]
mod tests {
    use crate::config::Settings;

    #[test]
    fn the_code_under_a_position_is_the_one_the_linter_reads() {
        let source = "a: 1  # phaselint: disable=C204,r110\n#phaselint:disable-file=\n# phaselint: disable=E003 more\nb: '# phaselint: disable=X'\né # phaselint: disable=Ü,\n";
        let index = crate::line_index::LineIndex::new(source);
        let at = |needle: &str| {
            let offset = source.find(needle).unwrap() + needle.len();
            super::suppression_at(source, &index, offset)
        };
        let on = at("disable=C2").unwrap();
        assert_eq!((on.code.as_str(), on.typed.as_str()), ("C204", "C2"));
        assert_eq!((on.line, on.file_level), (0, false));
        assert_eq!(on.listed, ["C204", "R110"]);
        assert_eq!(at("C204,").unwrap().code, "r110");
        let empty = at("disable-file=").unwrap();
        assert_eq!((empty.code.as_str(), empty.file_level), ("", true));
        assert!(at("E003 m").is_none(), "after the list");
        assert!(at("a: ").is_none(), "not in a comment");
        // Every offset, multi-byte characters included: what is returned is
        // the text at its span.
        for offset in 0..=source.len() + 2 {
            if let Some(found) = super::suppression_at(source, &index, offset) {
                assert_eq!(&source[found.span.start..found.span.end], found.code);
                assert!(found.code.starts_with(&found.typed));
            }
        }
    }

    #[test]
    fn blanks_around_codes_are_part_of_the_list() {
        // `R110, C204`: C204 is read (and reported unused), a remark after
        // a blank that follows no comma is not.
        let source = "schema_version: '1'\npipeline_id: p  # phaselint: disable=R110, C204 ,  Q9 see notes\nphases:\n  a: {}\n";
        let analysis = crate::analyze(source, &Settings::default());
        let s001: Vec<&str> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.code == "S001")
            .map(|d| &source[d.span.start..d.span.end])
            .collect();
        assert_eq!(s001, ["R110", "C204", "Q9"]);
        // Each S001 fix removes its code with the comma and blanks beside it.
        for d in analysis.diagnostics.iter().filter(|d| d.code == "S001") {
            let fix = d.fix.as_ref().unwrap();
            let mut fixed = source.to_string();
            for edit in &fix.edits {
                fixed.replace_range(edit.span.start..edit.span.end, &edit.replacement);
            }
            let line = fixed.lines().nth(1).unwrap();
            assert!(line.contains("disable="), "{line}");
            assert!(!line.contains(",,") && !line.contains("=,"), "{line}");
        }
        let index = crate::line_index::LineIndex::new(source);
        let after_comma = source.find("R110, ").unwrap() + "R110, ".len();
        let at = super::suppression_at(source, &index, after_comma).unwrap();
        assert_eq!((at.code.as_str(), at.typed.as_str()), ("C204", ""));
        assert_eq!(at.listed, ["R110", "C204", "Q9"]);
        let trailing = "a: 1  # phaselint: disable=R110, ";
        let index = crate::line_index::LineIndex::new(trailing);
        let at = super::suppression_at(trailing, &index, trailing.len()).unwrap();
        assert_eq!((at.code.as_str(), at.typed.as_str()), ("", ""));
        assert_eq!(at.listed, ["R110"]);
        // A code added by an editor's action goes after the last one.
        let index = crate::line_index::LineIndex::new(source);
        let mut edits = super::SuppressionEdits::new(source, &index);
        let edit = edits.edit(source.find("pipeline_id").unwrap(), "E003");
        assert_eq!(
            &source[..edit.span.start],
            &source[..source.find("Q9").unwrap() + 2]
        );
    }

    #[test]
    fn a_comment_naming_a_d_code_says_diff_reports_it() {
        let source =
            "schema_version: '1'\npipeline_id: p  # phaselint: disable=D611\nphases:\n  a: {}\n";
        let analysis = crate::analyze(source, &Settings::default());
        let messages: Vec<&str> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.code == "S001")
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            messages,
            [
                "D611 is reported by `phaselint diff`, never by lint, and a comment cannot silence it; turn it off with `ignore` in phaselint.toml"
            ]
        );
    }

    #[test]
    fn a_hash_inside_a_string_is_text_not_a_directive() {
        // S001's fix on this "comment" cut the string's closing quote away.
        let source = "schema_version: '1'\npipeline_id: p\ndescription: \"id to # phaselint: disable-file=x\"\nphases:\n  a: {}\nnotes: |\n  # phaselint: disable=E003\n";
        let analysis = crate::analyze(source, &Settings::default());
        let codes: Vec<&str> = analysis
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert_eq!(codes, ["E003"], "{:#?}", analysis.diagnostics);
    }

    #[test]
    fn a_suppression_applies_to_its_line_and_the_next_only() {
        let source = "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\n# phaselint: disable=E003\nx: 1\ny: 2 # phaselint: disable=E003\nz: 3\nw: 4\n";
        let analysis = crate::analyze(source, &Settings::default());
        let lines: Vec<(usize, &str)> = analysis
            .diagnostics
            .iter()
            .map(|d| {
                (
                    analysis.line_index.line_of(d.span.start) + 1,
                    d.code.as_str(),
                )
            })
            .collect();
        assert_eq!(lines, [(9, "E003")]);
    }

    #[test]
    fn a_comment_after_a_quoted_value_is_a_directive() {
        // The parser's span of a quoted value ran over the comment after
        // it, so the comment was read as text and silenced nothing.
        let source = "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\nx: \"1\" # phaselint: disable=E003\ny: 'it''s'  # phaselint: disable=E003\nz: {w: \"2\" } # phaselint: disable=E003\n";
        let analysis = crate::analyze(source, &Settings::default());
        let codes: Vec<&str> = analysis
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert!(codes.is_empty(), "{:#?}", analysis.diagnostics);
    }

    #[test]
    fn s001_is_reported_as_its_rule_declares() {
        // The sink makes S001 below the registry; its level and fix must
        // still be the ones `rules/schema/s001_unused_suppression.rs` declares.
        let source =
            "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\n# phaselint: disable=C203\n";
        let analysis = crate::analyze(source, &Settings::default());
        let rule = crate::rules::rule("S001").unwrap();
        let s001: Vec<_> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.code == rule.code)
            .collect();
        assert_eq!(s001.len(), 1, "{:#?}", analysis.diagnostics);
        assert_eq!(s001[0].severity, rule.default_severity);
        assert!(s001[0].fix.is_some());
        assert_eq!(rule.fix, crate::rules::FixAvailability::Safe);
    }

    #[test]
    fn only_load_errors_s001_and_diff_codes_escape_a_comment() {
        let mut escaping: Vec<&str> = Vec::new();
        for rule in crate::rules::RULES {
            if rule.code.is_load_error() {
                // The sink's own E007, for findings past its bound, is an error.
                assert_eq!(rule.default_severity, crate::diagnostic::Severity::Error);
            }
            if !rule.suppressible && rule.family != crate::rules::Family::Diff {
                escaping.push(rule.code.as_str());
            }
            if rule.family == crate::rules::Family::Diff {
                assert!(!rule.suppressible, "{}", rule.code);
            }
        }
        assert_eq!(escaping, ["E001", "E007", "S001"]);
    }
}
