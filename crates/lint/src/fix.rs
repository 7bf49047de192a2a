//! Applying fixes to text: what `phaselint lint --fix` writes and what an
//! editor's code action would do, computed once here.

use std::collections::BTreeMap;

use crate::Analysis;
use crate::config::Settings;
use crate::diagnostic::{Applicability, Diagnostic, Edit};

/// Which fixes to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixMode {
    /// `--fix`: only fixes that cannot change what the contract means.
    Safe,
    /// `--fix --unsafe-fixes`: the did-you-means too.
    Unsafe,
}

impl FixMode {
    fn takes(self, applicability: Applicability) -> bool {
        applicability == Applicability::Safe || self == FixMode::Unsafe
    }
}

/// The safe fixes applied (see `apply_fixes`).
pub fn apply_safe_fixes(source: &str, diagnostics: &[Diagnostic]) -> Option<(String, usize)> {
    apply_fixes(source, diagnostics, FixMode::Safe)
}

/// The text with every fix `mode` takes applied, and how many, or `None`
/// when there is nothing to apply. Fixes whose edits overlap one already
/// taken are left for the next run, as ruff does; a file that cannot be
/// loaded (E001/E007) is never changed.
pub fn apply_fixes(
    source: &str,
    diagnostics: &[Diagnostic],
    mode: FixMode,
) -> Option<(String, usize)> {
    if diagnostics.iter().any(|d| d.code.is_load_error()) {
        return None;
    }
    // Edits taken so far, by start: overlap is checked against the
    // neighbours only, so many fixes cost n log n, not n².
    let mut taken: BTreeMap<usize, &Edit> = BTreeMap::new();
    // An empty edit (an insertion) occupies the character it is before.
    let extent = |e: &Edit| e.span.start..e.span.end.max(e.span.start + 1);
    let overlaps_taken = |taken: &BTreeMap<usize, &Edit>, e: &Edit| {
        let range = extent(e);
        let before = taken.range(..range.end).next_back();
        before.is_some_and(|(_, t)| extent(t).end > range.start)
    };
    let mut applied = 0;
    for fix in diagnostics.iter().filter_map(|d| d.fix.as_ref()) {
        if !mode.takes(fix.applicability) {
            continue;
        }
        let usable = fix.edits.iter().all(|e| {
            e.span.end <= source.len()
                && source.is_char_boundary(e.span.start)
                && source.is_char_boundary(e.span.end)
                && !overlaps_taken(&taken, e)
        });
        // A fix's own edits must not overlap each other either.
        let mut own: Vec<&Edit> = fix.edits.iter().collect();
        own.sort_by_key(|e| e.span.start);
        let disjoint = own.windows(2).all(|w| extent(w[0]).end <= w[1].span.start);
        if !usable || !disjoint {
            continue;
        }
        for edit in &fix.edits {
            taken.insert(edit.span.start, edit);
        }
        applied += 1;
    }
    if taken.is_empty() {
        return None;
    }
    // Rebuilt front to back: replacing in place would move the tail once
    // per edit.
    let mut text = String::with_capacity(source.len());
    let mut at = 0;
    for edit in taken.values() {
        text.push_str(&source[at..edit.span.start]);
        text.push_str(&edit.replacement);
        at = edit.span.end;
    }
    text.push_str(&source[at..]);
    Some((text, applied))
}

/// A file with its fixes applied, analyzed again.
pub struct Fixed {
    pub text: String,
    /// How many findings the fixes addressed.
    pub applied: usize,
    pub analysis: Analysis,
    /// Checkpoints whose target digest the fixes changed: approvals bound
    /// to the old digest no longer hold.
    pub changed_digests: Vec<String>,
}

/// Rounds of fixing at most: fixes left for a later round (they overlapped
/// one taken) or made possible by one (a key renamed, then its value) are
/// applied in the same run, so a second `--fix` finds nothing to do.
const ROUNDS: usize = 10;

/// Applies `mode`'s fixes to an analyzed file and analyzes the result,
/// round after round until no fix applies (at most `ROUNDS`). A round
/// whose result would not load (E001/E007) is not taken: a fix must never
/// break a file, and a file that cannot be loaded is never written.
pub fn fix(analysis: &Analysis, settings: &Settings, mode: FixMode) -> Option<Fixed> {
    let mut applied = 0;
    let mut current: Option<Analysis> = None;
    for _ in 0..ROUNDS {
        let last = current.as_ref().unwrap_or(analysis);
        let Some((text, count)) = apply_fixes(&last.source, &last.diagnostics, mode) else {
            break;
        };
        let next = crate::analyze_kind(&text, analysis.kind, settings);
        if next.diagnostics.iter().any(|d| d.code.is_load_error()) {
            break;
        }
        applied += count;
        current = Some(next);
    }
    let fixed = current?;
    let before = crate::resume::target_digests(analysis);
    let after = crate::resume::target_digests(&fixed);
    let changed_digests = before
        .into_iter()
        .filter(|(id, digest)| !after.iter().any(|(i, d)| i == id && d == digest))
        .map(|(id, _)| id)
        .collect();
    Some(Fixed {
        text: fixed.source.clone(),
        applied,
        analysis: fixed,
        changed_digests,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_fixes_only_and_never_on_unparsable_files() {
        let source = "schema_version: '1'\npipeline_id: p\nphases:\n  a:\n    risk_class: HIGH\n    side_effects: None\n    descripton: x\n";
        let analysis = crate::analyze(source, &Settings::default());
        let (fixed, applied) = apply_safe_fixes(source, &analysis.diagnostics).unwrap();
        assert_eq!(applied, 2);
        // S002 lowercases; E003's did-you-mean is unsafe and left alone.
        assert!(
            fixed.contains("risk_class: high\n    side_effects: none\n    descripton: x"),
            "{fixed}"
        );
        let again = crate::analyze(&fixed, &Settings::default());
        assert!(apply_safe_fixes(&fixed, &again.diagnostics).is_none());
        let broken = "phases: [\n  risk_class: HIGH\n";
        let analysis = crate::analyze(broken, &Settings::default());
        assert!(apply_safe_fixes(broken, &analysis.diagnostics).is_none());
    }
}

#[cfg(test)]
mod digest_tests {
    use super::*;

    #[test]
    fn fixes_that_touch_a_checkpoint_change_its_digest() {
        let source = "schema_version: '1'\npipeline_id: p\nphases:\n  a:\n    risk_class: HIGH\n  b: {}\ncheckpoint_integrity:\n  - checkpoint_id: after_a\n    phase: a\n  - checkpoint_id: after_b\n    phase: b\n";
        let settings = Settings::default();
        let analysis = crate::analyze(source, &settings);
        let fixed = fix(&analysis, &settings, FixMode::Safe).unwrap();
        assert!(fixed.text.contains("risk_class: high"));
        // The phase of `after_a` changed; `after_b`'s did not.
        assert_eq!(fixed.changed_digests, ["after_a"]);
    }
}
