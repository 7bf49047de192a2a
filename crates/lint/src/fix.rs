//! Applying fixes to text: what `phaselint lint --fix` writes and what an
//! editor's code action would do, computed once here.

use crate::diagnostic::{Applicability, Diagnostic, Edit};

/// The text with every safe fix applied, or `None` when there is nothing to
/// apply. Fixes whose edits overlap one already taken are left for the next
/// run, as ruff does; a file that cannot be loaded (E001/E007) is never
/// changed.
pub fn apply_safe_fixes(source: &str, diagnostics: &[Diagnostic]) -> Option<(String, usize)> {
    if diagnostics
        .iter()
        .any(|d| matches!(d.code, "E001" | "E007"))
    {
        return None;
    }
    let mut taken: Vec<&Edit> = Vec::new();
    let mut applied = 0;
    for fix in diagnostics.iter().filter_map(|d| d.fix.as_ref()) {
        if fix.applicability != Applicability::Safe {
            continue;
        }
        let overlaps = fix.edits.iter().any(|e| {
            taken.iter().any(|t| {
                e.span.start < t.span.end.max(t.span.start + 1)
                    && t.span.start < e.span.end.max(e.span.start + 1)
            })
        });
        if overlaps
            || fix.edits.iter().any(|e| {
                e.span.end > source.len()
                    || !source.is_char_boundary(e.span.start)
                    || !source.is_char_boundary(e.span.end)
            })
        {
            continue;
        }
        taken.extend(&fix.edits);
        applied += 1;
    }
    if taken.is_empty() {
        return None;
    }
    taken.sort_by_key(|e| std::cmp::Reverse(e.span.start));
    let mut text = source.to_string();
    for edit in taken {
        text.replace_range(edit.span.start..edit.span.end, &edit.replacement);
    }
    Some((text, applied))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

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
