//! Where the findings of one document go as they are reported: each is
//! given its configured level, checked against the suppression comments,
//! and kept, within a bound, in file order.
//!
//! Levels and suppressions are applied to each finding when it arrives, so
//! a finding that is turned off or suppressed never takes memory (a 32 MiB
//! file can hold millions of findings). Those kept are bounded in number
//! (`MAX_FINDINGS`) and in the memory they take (`MAX_FINDING_BYTES`): past
//! either bound the first findings in file order are kept, exactly those a
//! sort of all of them would list first, and one E007 says how many more
//! there were, so a file over the bound never passes and the resume check
//! refuses it.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::diagnostic::{Diagnostic, Fix, Related, Severity};
use crate::line_index::LineIndex;
use crate::rule_id::RuleId;
use crate::settings::Settings;
use crate::suppression::Suppressions;
use crate::syntax::Span;

/// How many findings are kept per document. Real contracts have tens; the
/// largest generated ones in the tests have 200,000 (one per unknown key,
/// or one per phase of 120,000).
pub(crate) const MAX_FINDINGS: usize = 200_000;

/// How much memory the findings kept for one document may take, their
/// texts included.
pub(crate) const MAX_FINDING_BYTES: usize = 64 * 1024 * 1024;

/// The longest message, help or label a finding keeps; longer ones are cut
/// at a character boundary and end with `…`.
pub(crate) const MAX_TEXT_BYTES: usize = 4 * 1024;

/// A finding and the order it arrived in: the kept findings are the least
/// by position, code, end and message, ties in arrival order, as a stable
/// sort lists them.
struct Ranked {
    diagnostic: Diagnostic,
    seq: u64,
}

impl Ranked {
    fn key(&self) -> (usize, &str, usize, &str, u64) {
        let d = &self.diagnostic;
        (
            d.span.start,
            d.code.as_str(),
            d.span.end,
            &d.message,
            self.seq,
        )
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

/// The first findings in file order, within a count and a byte bound.
struct Bounded {
    heap: BinaryHeap<Ranked>,
    bytes: usize,
    /// The least finding left out: every later one at or after it is left
    /// out too, so what is kept is always a prefix of the sorted whole.
    cutoff: Option<(usize, &'static str, usize, String, u64)>,
    dropped: usize,
}

impl Bounded {
    fn new() -> Self {
        Bounded {
            heap: BinaryHeap::new(),
            bytes: 0,
            cutoff: None,
            dropped: 0,
        }
    }

    fn push(&mut self, diagnostic: Diagnostic, seq: u64) {
        let ranked = Ranked { diagnostic, seq };
        if let Some(cutoff) = &self.cutoff {
            let (start, code, end, message, seq) = ranked.key();
            if (start, code, end, message, seq)
                >= (cutoff.0, cutoff.1, cutoff.2, cutoff.3.as_str(), cutoff.4)
            {
                self.dropped += 1;
                return;
            }
        }
        self.bytes += footprint(&ranked.diagnostic);
        self.heap.push(ranked);
        while self.heap.len() > MAX_FINDINGS || self.bytes > MAX_FINDING_BYTES {
            let Some(last) = self.heap.pop() else { break };
            self.bytes -= footprint(&last.diagnostic);
            self.dropped += 1;
            let d = &last.diagnostic;
            self.cutoff = Some((
                d.span.start,
                d.code.as_str(),
                d.span.end,
                d.message.clone(),
                last.seq,
            ));
        }
    }

    /// The kept findings in file order, and where the first left out was.
    fn finish(self) -> (Vec<Diagnostic>, Option<(usize, usize)>) {
        let kept = self
            .heap
            .into_sorted_vec()
            .into_iter()
            .map(|r| r.diagnostic)
            .collect();
        let over = self.cutoff.map(|c| (c.0, self.dropped));
        (kept, over)
    }
}

/// What a finding takes in memory, its texts included.
fn footprint(d: &Diagnostic) -> usize {
    let text = |s: &String| s.capacity();
    let help = |h: &std::borrow::Cow<'static, str>| match h {
        std::borrow::Cow::Borrowed(_) => 0,
        std::borrow::Cow::Owned(text) => text.capacity(),
    };
    std::mem::size_of::<Diagnostic>()
        + text(&d.message)
        + d.help.as_ref().map_or(0, help)
        + d.related.capacity() * std::mem::size_of::<Related>()
        + d.related.iter().map(|r| text(&r.message)).sum::<usize>()
        + d.fix.as_ref().map_or(0, |f| {
            std::mem::size_of::<Fix>()
                + text(&f.title)
                + f.edits.capacity() * std::mem::size_of::<crate::diagnostic::Edit>()
                + f.edits.iter().map(|e| text(&e.replacement)).sum::<usize>()
        })
}

/// Cuts a text past `MAX_TEXT_BYTES` at a character boundary, and gives
/// back the slack of its buffer.
fn trim(text: &mut String) {
    if text.len() > MAX_TEXT_BYTES {
        let mut end = MAX_TEXT_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text.shrink_to_fit();
}

/// The findings of one document, as they are reported.
pub struct Findings<'a> {
    source: &'a str,
    lines: &'a LineIndex,
    settings: &'a Settings,
    suppressions: Option<Suppressions>,
    kept: Bounded,
    /// E-codes that a level or a suppression comment removed: a linter
    /// hides them, the resume check must not.
    hidden: Bounded,
    seq: u64,
    /// E-codes reported so far, kept or not.
    errors: usize,
    /// E002s and E003s (not about an extension) reported so far.
    unsure: usize,
}

impl<'a> Findings<'a> {
    pub fn new(source: &'a str, lines: &'a LineIndex, settings: &'a Settings) -> Self {
        Findings {
            source,
            lines,
            settings,
            suppressions: None,
            kept: Bounded::new(),
            hidden: Bounded::new(),
            seq: 0,
            errors: 0,
            unsure: 0,
        }
    }

    /// Reads the suppression comments; `strings` are the spans of the
    /// quoted and block scalars, where a `#` is text.
    pub(crate) fn read_suppressions(&mut self, strings: &[Span]) {
        self.suppressions = Suppressions::new(self.source, self.lines, strings);
    }

    /// How many E-codes were reported so far.
    pub(crate) fn errors(&self) -> usize {
        self.errors
    }

    /// How many duplicate keys, and unknown keys other than extensions,
    /// were reported so far: a mapping with one may hold what the model
    /// does not see.
    pub(crate) fn unsure(&self) -> usize {
        self.unsure
    }

    pub(crate) fn push(&mut self, mut d: Diagnostic) {
        // A position without extent (where the parser stopped) becomes the
        // character there: editors draw and hover an empty range badly.
        let source = self.source;
        if d.span.start == d.span.end
            && source.is_char_boundary(d.span.start)
            && let Some(c) = source[d.span.start..].chars().next()
            && c != '\n'
            && c != '\r'
        {
            d.span.end = d.span.start + c.len_utf8();
        }
        let error = d.code.is_schema_error();
        if error {
            self.errors += 1;
        }
        if d.code == "E002" || (d.code == "E003" && !d.message.contains("phaselint extension")) {
            self.unsure += 1;
        }
        trim(&mut d.message);
        if let Some(std::borrow::Cow::Owned(help)) = &mut d.help {
            trim(help);
        }
        for related in &mut d.related {
            trim(&mut related.message);
        }
        d.related.shrink_to_fit();
        if let Some(fix) = &mut d.fix {
            trim(&mut fix.title);
        }
        self.seq += 1;
        let seq = self.seq;
        let shown = match self.settings.level(d.code.as_str(), d.severity) {
            Some(level) => {
                d.severity = level;
                !self
                    .suppressions
                    .as_mut()
                    .is_some_and(|s| s.silences(&d, self.lines))
            }
            None => false,
        };
        if shown {
            self.kept.push(d, seq);
        } else if error {
            self.hidden.push(d, seq);
        }
    }

    /// The findings in file order (S001 for unused suppression comments
    /// among them, and one E007 when some were left out), and the E-codes
    /// levels and suppression comments hid.
    pub fn finish(mut self) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
        if let Some(suppressions) = self.suppressions.take() {
            for d in suppressions.unused(self.settings) {
                self.seq += 1;
                let seq = self.seq;
                self.kept.push(d, seq);
            }
        }
        let (mut kept, over) = self.kept.finish();
        if let Some((at, more)) = over {
            // The file loaded: E007 only says where phaselint stopped
            // listing, so its message is not "cannot load". A load error
            // is always an error (`RuleId::is_load_error`).
            let mut note = Diagnostic::new(
                    RuleId::UNLOADABLE_DOCUMENT,
                    Severity::Error,
                    Span::empty(at),
                    format!(
                        "the file has more findings than phaselint keeps per file ({MAX_FINDINGS}, or {} MiB of their text): {more} more from here on are not listed",
                        MAX_FINDING_BYTES / (1024 * 1024)
                    ),
                )
            .with_help("fix the findings listed first, or leave out a rule that reports thousands with --ignore CODE (or `ignore` in phaselint.toml), and run again");
            if let Some(c) = self.source.get(at..).and_then(|rest| rest.chars().next()) {
                note.span.end = at + c.len_utf8();
            }
            let place = kept.partition_point(|d| (d.span.start, d.code) <= (at, note.code));
            kept.insert(place, note);
        }
        let (hidden, _) = self.hidden.finish();
        (kept, hidden)
    }
}
