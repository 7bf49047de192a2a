//! Answers from the last analysis that parsed while the current text does
//! not: its findings, hovers, definitions, references and outline, carried
//! into the current text through the `EditMap` of the edits since. Nothing
//! on a line those edits touched is answered from the old text (it may say
//! something else now); a request there is answered from the current
//! analysis (its E001) instead.

use std::sync::Arc;

use phaselint_lint::Analysis;
use phaselint_lint::line_index::ColumnUnit;
use tower_lsp_server::ls_types::{
    Diagnostic, DocumentSymbol, GotoDefinitionResponse, Hover, Location, Position, Range, Uri,
};

use crate::analyzer::Analyzed;
use crate::edit_map::{EditMap, Side};
use crate::positions::Positions;
use crate::text::Applied;

/// The last analysis of a document that parsed, and how its text maps
/// into the document's current text.
#[derive(Clone)]
pub struct Carried {
    pub analyzed: Arc<Analyzed>,
    pub map: EditMap,
}

impl Carried {
    pub fn new(analyzed: Arc<Analyzed>) -> Self {
        Carried {
            analyzed,
            map: EditMap::default(),
        }
    }

    /// Follows one edit of the document's text.
    pub fn record(&mut self, applied: Applied) {
        let Applied::Replaced {
            start,
            end,
            inserted,
        } = applied;
        self.map.record(start, end, inserted);
    }
}

/// The most edits an `EditLog` keeps; past it, it starts again from the
/// current version.
const MAX_LOGGED_EDITS: usize = 1024;

/// The edits since the carried analysis's version, each with the version
/// it made: an analysis that parsed but finished after newer edits came
/// in is carried through the ones after its version.
pub struct EditLog {
    entries: Vec<(i32, Applied)>,
    /// The oldest version whose text the log maps from.
    from: i32,
}

impl EditLog {
    pub fn new(version: i32) -> Self {
        EditLog {
            entries: Vec::new(),
            from: version,
        }
    }

    /// One edit that made `version`.
    pub fn record(&mut self, version: i32, applied: Applied) {
        if self.entries.len() >= MAX_LOGGED_EDITS {
            // Versions before this one can no longer be mapped; this
            // version's own edits are never applied to its text.
            self.entries.clear();
            self.from = version;
        }
        self.entries.push((version, applied));
    }
}

/// Makes a finished analysis the carried one if it parsed and is newer
/// than the one carried, its map built from the edits logged since its
/// version.
pub fn adopt(carried: &mut Option<Carried>, log: &mut EditLog, analyzed: &Arc<Analyzed>) {
    let version = analyzed.version;
    if !parsed(&analyzed.analysis)
        || version < log.from
        || carried
            .as_ref()
            .is_some_and(|c| c.analyzed.version >= version)
    {
        return;
    }
    let mut adopted = Carried::new(analyzed.clone());
    for (_, applied) in log.entries.iter().filter(|(v, _)| *v > version) {
        adopted.record(*applied);
    }
    log.entries.retain(|(v, _)| *v > version);
    log.from = version;
    *carried = Some(adopted);
}

/// Whether the YAML of an analysis parsed (no E001): only then is it worth
/// carrying, and only when it did not is another one carried in.
pub fn parsed(analysis: &Analysis) -> bool {
    !analysis.diagnostics.iter().any(|d| d.code == "E001")
}

/// The lines of the current text that the changed bytes `start..end` lie
/// on (inclusive; `first > last` when they only add blank lines). A line
/// whose own text is unchanged is not one of them: text inserted at the
/// start of a line and ending with a line break (Enter at column 0, a
/// paste of whole lines) leaves the line it pushed down as it was, and
/// text inserted at the end of a line and starting with a line break
/// (Enter at the end of a line) leaves that line as it was.
fn touched_lines(current: &Analysis, start: usize, end: usize) -> (usize, usize) {
    let lines = &current.line_index;
    let bytes = current.source.as_bytes();
    if end <= start {
        return (lines.line_of(start), lines.line_of(end));
    }
    let first = if bytes.get(start) == Some(&b'\n') {
        lines.line_of(start) + 1
    } else {
        lines.line_of(start)
    };
    let last = if bytes.get(end - 1) == Some(&b'\n') {
        lines.line_of(end - 1)
    } else {
        lines.line_of(end)
    };
    (first, last)
}

/// What a request or a publication on a document whose current text does
/// not parse carries from the last one that did.
pub struct Carry<'a> {
    pub old: &'a Analyzed,
    pub map: &'a EditMap,
    pub current: &'a Analyzed,
    pub unit: ColumnUnit,
    /// The current text's lines that an edit since touched, as ranges of
    /// line numbers (inclusive), in order.
    changed_lines: Vec<(usize, usize)>,
}

impl<'a> Carry<'a> {
    /// `None` when there is nothing to carry: the current text parses, or
    /// the map gave up.
    pub fn new(
        old: &'a Analyzed,
        map: &'a EditMap,
        current: &'a Analyzed,
        unit: ColumnUnit,
    ) -> Option<Self> {
        if map.is_lost() || parsed(&current.analysis) || !parsed(&old.analysis) {
            return None;
        }
        let changed_lines = map
            .changed()
            .map(|(start, end)| touched_lines(&current.analysis, start, end))
            .collect();
        Some(Carry {
            old,
            map,
            current,
            unit,
            changed_lines,
        })
    }

    pub fn old_positions(&self) -> Positions<'a> {
        Positions {
            text: &self.old.analysis.source,
            index: &self.old.analysis.line_index,
            unit: self.unit,
        }
    }

    fn current_positions(&self) -> Positions<'a> {
        Positions {
            text: &self.current.analysis.source,
            index: &self.current.analysis.line_index,
            unit: self.unit,
        }
    }

    fn on_changed_line(&self, first: usize, last: usize) -> bool {
        self.changed_lines
            .iter()
            .any(|&(start, end)| first <= end && start <= last)
    }

    /// The old text's offset of a position in the current text; `None` on a
    /// line an edit touched.
    pub fn offset_in_old(&self, position: Position) -> Option<usize> {
        let line = position.line as usize;
        if self.on_changed_line(line, line) {
            return None;
        }
        self.map.to_old(self.current_positions().offset(position))
    }

    /// A range of the old text in the current text, unless it is on a line
    /// an edit touched.
    pub fn range(&self, old: Range) -> Option<Range> {
        let old_positions = self.old_positions();
        let (start, end) = self.map.span_to_current(
            old_positions.offset(old.start),
            old_positions.offset(old.end),
        )?;
        let current = self.current_positions();
        let range = Range::new(current.position(start), current.position(end));
        (!self.on_changed_line(range.start.line as usize, range.end.line as usize)).then_some(range)
    }

    /// A range of the old text in the current text, its ends moved out of
    /// any region an edit replaced: the extent of an outline's symbol,
    /// which may hold the line being typed.
    fn range_around(&self, old: Range) -> Range {
        let old_positions = self.old_positions();
        let current = self.current_positions();
        let (start, end) = (
            old_positions.offset(old.start),
            old_positions.offset(old.end),
        );
        let start = self
            .map
            .to_current_around(start, Side::Start)
            .unwrap_or(start);
        let end = self
            .map
            .to_current_around(end, Side::End)
            .unwrap_or(end)
            .max(start);
        Range::new(current.position(start), current.position(end))
    }

    fn location(&self, location: Location) -> Option<Location> {
        Some(Location::new(location.uri, self.range(location.range)?))
    }

    /// The old analysis's findings that are not on a touched line, in the
    /// current text; their related locations likewise.
    pub fn diagnostics(&self, uri: &Uri) -> Vec<Diagnostic> {
        crate::handlers::diagnostics::to_lsp(self.old, &self.old_positions(), uri)
            .into_iter()
            .filter_map(|mut diagnostic| {
                diagnostic.range = self.range(diagnostic.range)?;
                if let Some(related) = diagnostic.related_information.take() {
                    let related: Vec<_> = related
                        .into_iter()
                        .filter_map(|mut r| {
                            r.location = self.location(r.location)?;
                            Some(r)
                        })
                        .collect();
                    diagnostic.related_information = (!related.is_empty()).then_some(related);
                }
                Some(diagnostic)
            })
            .collect()
    }

    pub fn hover(&self, mut hover: Hover) -> Hover {
        hover.range = hover.range.and_then(|r| self.range(r));
        hover
    }

    pub fn locations(&self, locations: Vec<Location>) -> Vec<Location> {
        locations
            .into_iter()
            .filter_map(|l| self.location(l))
            .collect()
    }

    pub fn definition(&self, response: GotoDefinitionResponse) -> Option<GotoDefinitionResponse> {
        let locations = match response {
            GotoDefinitionResponse::Scalar(l) => vec![l],
            GotoDefinitionResponse::Array(ls) => ls,
            // Not made by the handler; nothing to carry.
            GotoDefinitionResponse::Link(_) => return None,
        };
        let locations = self.locations(locations);
        (!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations))
    }

    /// An outline of the old text in the current one: a symbol whose name
    /// is on a touched line is left out, with what it holds.
    pub fn symbols(&self, symbols: Vec<DocumentSymbol>) -> Vec<DocumentSymbol> {
        symbols
            .into_iter()
            .filter_map(|mut symbol| {
                symbol.selection_range = self.range(symbol.selection_range)?;
                symbol.range = self.range_around(symbol.range);
                symbol.children = symbol.children.map(|c| self.symbols(c));
                Some(symbol)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit_map::Side;
    use phaselint_lint::DocumentKind;
    use phaselint_lint::config::Settings;

    fn analyzed(version: i32, text: &str) -> Arc<Analyzed> {
        Arc::new(Analyzed::new(
            version,
            0,
            text.to_string(),
            DocumentKind::Contract,
            &Settings::default(),
        ))
    }

    fn insert(at: usize, text: &str) -> Applied {
        Applied::Replaced {
            start: at,
            end: at,
            inserted: text.len(),
        }
    }

    /// An analysis that finished after newer edits came in is carried
    /// through those edits only; an older one never replaces a newer one.
    #[test]
    fn an_analysis_overtaken_by_edits_is_carried_through_the_later_ones() {
        let v1 = "a: 1\nb: 2\n";
        let mut log = EditLog::new(1);
        let mut carried = None;
        // Version 2 inserts `c: 3\n` at the start; version 3 types `[` at the end.
        log.record(2, insert(0, "c: 3\n"));
        log.record(3, insert(15, "["));
        adopt(&mut carried, &mut log, &analyzed(2, "c: 3\na: 1\nb: 2\n"));
        let map = &carried.as_ref().unwrap().map;
        // Only version 3's edit is between version 2's text and the current one.
        assert_eq!(map.to_current(5, Side::Start), Some(5));
        assert_eq!(map.changed().collect::<Vec<_>>(), [(15, 16)]);
        // Version 1 is older than what is carried: ignored.
        adopt(&mut carried, &mut log, &analyzed(1, v1));
        assert_eq!(carried.as_ref().unwrap().analyzed.version, 2);
        // A text that does not parse is never carried.
        adopt(&mut carried, &mut log, &analyzed(3, "c: 3\na: 1\nb: 2\n["));
        assert_eq!(carried.as_ref().unwrap().analyzed.version, 2);
    }

    #[test]
    fn past_its_bound_the_log_maps_only_from_the_current_version() {
        let mut log = EditLog::new(1);
        for version in 2..2 + MAX_LOGGED_EDITS as i32 + 1 {
            log.record(version, insert(0, "#"));
        }
        let mut carried = None;
        adopt(&mut carried, &mut log, &analyzed(2, "a: 1\n"));
        assert!(carried.is_none(), "version 2 is before what the log holds");
    }

    /// Enter or a paste of whole lines at the start of a line, or Enter at
    /// the end of one, leaves the neighbouring line's text as it was: its
    /// findings, symbols and hover stay.
    #[test]
    fn lines_whose_text_is_unchanged_are_not_touched() {
        let text = "a: 1\n# note\nb: 2\n";
        let current = analyzed(2, text);
        let analysis = &current.analysis;
        // `# note\n` inserted at the start of `b: 2` (line 2 now).
        assert_eq!(touched_lines(analysis, 5, 12), (1, 1));
        // `\n# note` inserted at the end of `a: 1`.
        assert_eq!(touched_lines(analysis, 4, 11), (1, 1));
        // A blank line inserted after `a: 1`: no line's text changed.
        let blank = analyzed(2, "a: 1\n\nb: 2\n");
        let (first, last) = touched_lines(&blank.analysis, 4, 5);
        assert!(first > last, "{first} {last}");
        // A change inside a line touches that line; a deletion the line it is on.
        assert_eq!(touched_lines(analysis, 6, 8), (1, 1));
        assert_eq!(touched_lines(analysis, 12, 12), (2, 2));
    }
}
