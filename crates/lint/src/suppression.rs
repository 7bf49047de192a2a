//! Suppression comments: `# phaselint: disable=C203,G304` on a finding's
//! line or the line before, and `# phaselint: disable-file=CODE` anywhere.
//! Suppressions that silence nothing are reported (S001).

use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::line_index::LineIndex;
use crate::rules::schema::s001_unused_suppression;
use crate::syntax::Span;

struct Suppression {
    code: String,
    /// 0-based line of the comment; `None` for `disable-file`.
    line: Option<usize>,
    code_span: Span,
    removal: Span,
    used: bool,
}

/// Finds the directives in the source. Comments are found by text: a `#`
/// at the start of a line or after white space, as YAML defines them; a
/// `#` inside a quoted scalar that happens to follow a space would be read
/// as a comment too, which only matters if it spells a directive.
fn directives(source: &str, index: &LineIndex) -> Vec<Suppression> {
    let mut found = Vec::new();
    let marker = "phaselint:";
    let mut search_from = 0;
    while let Some(relative) = source[search_from..].find(marker) {
        let at = search_from + relative;
        search_from = at + marker.len();
        let line = index.line_of(at);
        let line_start = index.line_start(line);
        let before = &source[line_start..at];
        let Some(hash) = before.rfind('#') else {
            continue;
        };
        if !before[hash + 1..].trim().is_empty() {
            continue;
        }
        if hash > 0 && !before[..hash].ends_with([' ', '\t']) {
            continue;
        }
        let comment_start = line_start + hash;
        let line_end = index.line_end(source, line);
        let rest = &source[search_from..line_end];
        let trimmed = rest.trim_start();
        let (file_level, list) = if let Some(list) = trimmed.strip_prefix("disable-file=") {
            (true, list)
        } else if let Some(list) = trimmed.strip_prefix("disable=") {
            (false, list)
        } else {
            continue;
        };
        let list_start =
            line_end - rest.len() + (rest.len() - trimmed.len()) + (trimmed.len() - list.len());
        let list_text = list.split(char::is_whitespace).next().unwrap_or("");
        let codes: Vec<(usize, &str)> = list_text
            .split(',')
            .scan(list_start, |offset, code| {
                let start = *offset;
                *offset += code.len() + 1;
                Some((start, code))
            })
            .filter(|(_, code)| !code.is_empty())
            .collect();
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
        let count = codes.len();
        for (i, (start, code)) in codes.iter().enumerate() {
            let code_span = Span::new(*start, start + code.len());
            let removal = if count == 1 {
                whole_comment
            } else if i + 1 < count {
                Span::new(*start, start + code.len() + 1)
            } else {
                Span::new(start - 1, start + code.len())
            };
            found.push(Suppression {
                code: code.trim().to_ascii_uppercase(),
                line: (!file_level).then_some(line),
                code_span,
                removal,
                used: false,
            });
        }
    }
    found
}

/// Removes suppressed findings and appends S001 for unused suppressions.
pub(crate) fn apply(
    source: &str,
    index: &LineIndex,
    settings: &Settings,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if !source.contains("phaselint:") {
        return;
    }
    let mut suppressions = directives(source, index);
    if suppressions.is_empty() {
        return;
    }
    diagnostics.retain(|d| {
        // A file that cannot be read as YAML must never pass (SPEC §5).
        if matches!(d.code, "E001" | "E007") {
            return true;
        }
        let line = index.line_of(d.span.start);
        let mut suppressed = false;
        for s in suppressions.iter_mut() {
            let applies = s.code == d.code
                && match s.line {
                    None => true,
                    Some(l) => l == line || l + 1 == line,
                };
            if applies {
                s.used = true;
                suppressed = true;
            }
        }
        !suppressed
    });
    if let Some(level) = settings.level("S001", s001_unused_suppression::RULE.default_severity) {
        for s in suppressions.iter().filter(|s| !s.used) {
            let known = crate::rules::rule(&s.code);
            // A code turned off by configuration has nothing to silence; its
            // comment is not stale, so only enabled or unknown codes count.
            if known.is_some_and(|r| !settings.is_enabled(r.code)) {
                continue;
            }
            let mut diagnostic = s001_unused_suppression::diagnostic(
                &s.code,
                s.code_span,
                s.removal,
                s.line.is_none(),
            );
            if known.is_none() {
                diagnostic.message = format!(
                    "`{}` in a suppression comment is not a phaselint rule code",
                    s.code
                );
            } else if matches!(s.code.as_str(), "E001" | "E007") {
                diagnostic.message = format!(
                    "{} cannot be suppressed: a file that cannot be loaded never passes",
                    s.code
                );
            }
            diagnostic.severity = level;
            diagnostics.push(diagnostic);
        }
    }
}
