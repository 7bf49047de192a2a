//! Fixes read back as they promise: every fix of a document, safe and
//! unsafe, applied alone, leaves a file that loads, with the same shape,
//! every other scalar as it was, the rewritten scalar reading the value
//! the fix's title names, and the finding it fixed gone; all of them
//! applied together still load; and `fix` reaches a fixed point.
//!
//! Shared by the `fixes` fuzz target and `tests/fixes.rs`.

use phaselint_lint::config::Settings;
use phaselint_lint::diagnostic::{Diagnostic, Fix};
use phaselint_lint::fix::{FixMode, apply_fixes, fix};
use phaselint_lint::syntax::{Limits, Node, NodeKind, Span, parse};
use phaselint_lint::{Analysis, DocumentKind, analyze_bytes, analyze_kind};

/// What one document's fixes came to, for a test to see that it checked
/// something.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// Fixes applied alone and checked, by the code of their finding.
    pub by_code: std::collections::BTreeMap<&'static str, usize>,
}

/// The `fixes` fuzz target: arbitrary bytes as a contract and as a
/// harness config, every rule on.
pub fn fixes(data: &[u8]) {
    let settings = Settings::all_rules();
    for kind in [DocumentKind::Contract, DocumentKind::Harness] {
        let analysis = analyze_bytes(data, kind, &settings);
        check_every_fix(&analysis, &settings);
    }
}

/// Checks every fix of `analysis` (see the module's documentation).
pub fn check_every_fix(analysis: &Analysis, settings: &Settings) -> Checked {
    let mut checked = Checked::default();
    if analysis.is_unreadable() {
        // Nothing is ever applied to a file that cannot be loaded.
        assert!(
            apply_fixes(&analysis.source, &analysis.diagnostics, FixMode::Unsafe).is_none(),
            "fixes applied to a file that does not load"
        );
        return checked;
    }
    let source = analysis.source.as_str();
    let Ok(Some(before)) = parse(source, Limits::default()) else {
        return checked;
    };
    for diagnostic in &analysis.diagnostics {
        let Some(fix) = &diagnostic.fix else { continue };
        check_one(analysis, settings, before.root(), diagnostic, fix);
        *checked.by_code.entry(diagnostic.code.as_str()).or_default() += 1;
    }
    // All at once, as `--fix --unsafe-fixes` would in its first round.
    for mode in [FixMode::Safe, FixMode::Unsafe] {
        if let Some((text, _)) = apply_fixes(source, &analysis.diagnostics, mode) {
            let again = analyze_kind(&text, analysis.kind, settings);
            assert!(
                !again.is_unreadable(),
                "{mode:?} fixes together broke the file:\n--- before\n{source}\n--- after\n{text}\n{:?}",
                again.diagnostics
            );
        }
        // `--fix` reaches a fixed point: a second run finds nothing to do.
        if let Some(fixed) = fix(analysis, settings, mode) {
            assert!(!fixed.analysis.is_unreadable());
            let left = apply_fixes(&fixed.text, &fixed.analysis.diagnostics, mode);
            assert!(
                left.is_none(),
                "{mode:?}: a second --fix would change the file again:\n--- first\n{}\n--- second\n{}",
                fixed.text,
                left.map(|(t, _)| t).unwrap_or_default()
            );
        }
    }
    checked
}

/// What a fix's title says the scalar will read: `Replace with `X``,
/// `Lowercase to `X``, `Rename to `X``, `Rename `k` to `X``,
/// `Set `source_phase: X``. `None` for a fix that rewrites no scalar
/// (S001 removes a comment's code).
fn promised(title: &str) -> Option<&str> {
    let quoted = title.strip_suffix('`')?;
    for prefix in ["Replace with `", "Lowercase to `", "Rename to `"] {
        if let Some(value) = quoted.strip_prefix(prefix) {
            return Some(value);
        }
    }
    if let Some(value) = quoted.strip_prefix("Set `source_phase: ") {
        return Some(value);
    }
    if quoted.starts_with("Rename `") {
        return quoted.rsplit_once("` to `").map(|(_, value)| value);
    }
    None
}

fn check_one(
    analysis: &Analysis,
    settings: &Settings,
    before: Node<'_>,
    d: &Diagnostic,
    fix: &Fix,
) {
    let source = analysis.source.as_str();
    let Some((text, applied)) = apply_fixes(source, std::slice::from_ref(d), FixMode::Unsafe)
    else {
        panic!("the fix of {} `{}` could not be applied", d.code, d.message);
    };
    assert_eq!(applied, 1);
    let after = analyze_kind(&text, analysis.kind, settings);
    let context = || {
        format!(
            "{} ({}): `{}`\n--- before\n{source}\n--- after\n{text}",
            d.code, fix.title, d.message
        )
    };
    assert!(
        !after.is_unreadable(),
        "the fix broke the file: {}\n{:?}",
        context(),
        after.diagnostics
    );
    let Some(value) = promised(&fix.title) else {
        return;
    };
    // A help line's did-you-mean names the same value as the fix.
    if let Some(help) = &d.help
        && let Some((_, guess)) = help.split_once("did you mean `")
    {
        assert!(
            guess.starts_with(&format!("{value}`?")),
            "the help says {help:?}, the fix writes {value:?}: {}",
            context()
        );
    }
    let Ok(Some(after_tree)) = parse(&text, Limits::default()) else {
        panic!("the fixed file does not parse: {}", context());
    };
    let mut targets = Vec::new();
    compare(before, after_tree.root(), source, fix, value, &mut targets)
        .unwrap_or_else(|why| panic!("{why}: {}", context()));
    assert!(
        !targets.is_empty(),
        "the fix rewrote no scalar: {}",
        context()
    );
    // The finding is gone from every rewritten scalar. G303's guess is a
    // field produced somewhere, which may still be unavailable there.
    if d.code != "G303" {
        for target in &targets {
            let again = after
                .diagnostics
                .iter()
                .find(|a| a.code == d.code && target.contains(a.span.start));
            assert!(
                again.is_none(),
                "the finding is still there: {:?}\n{}",
                again.map(|a| &a.message),
                context()
            );
        }
    }
}

/// Whether `span` is touched by one of the fix's edits.
fn touched(span: Span, fix: &Fix) -> bool {
    fix.edits.iter().any(|e| {
        let (a, b) = (e.span.start, e.span.end.max(e.span.start + 1));
        span.start < b && a < span.end.max(span.start + 1)
    })
}

/// The text a scalar reads as, its type included.
fn reading(node: Node<'_>) -> Option<String> {
    node.as_scalar().map(|s| format!("{:?}", s.resolve()))
}

/// Walks both trees in step: the same shape, every scalar and key the fix
/// did not touch the same, every one it touched reading `value`. Collects
/// the spans (in the new text) of the rewritten scalars.
fn compare(
    before: Node<'_>,
    after: Node<'_>,
    source: &str,
    fix: &Fix,
    value: &str,
    targets: &mut Vec<Span>,
) -> Result<(), String> {
    let mut stack = vec![(before, after)];
    let wanted = format!("{:?}", phaselint_lint::syntax::Resolved::Str(value));
    while let Some((b, a)) = stack.pop() {
        match (b.kind(), a.kind()) {
            (NodeKind::Scalar(_), NodeKind::Scalar(_)) => {
                let is_alias = source[b.span.start..].starts_with('*');
                if touched(b.span, fix) {
                    if reading(a) != Some(wanted.clone()) {
                        return Err(format!(
                            "the rewritten scalar reads {:?}, not {wanted}",
                            reading(a)
                        ));
                    }
                    targets.push(a.span);
                } else if reading(a) != reading(b)
                    // An alias of a rewritten anchor follows it.
                    && !(is_alias && reading(a) == Some(wanted.clone()))
                {
                    return Err(format!(
                        "a scalar the fix did not touch changed: {:?} -> {:?}",
                        reading(b),
                        reading(a)
                    ));
                }
            }
            (NodeKind::Mapping(be), NodeKind::Mapping(ae)) => {
                if be.len() != ae.len() {
                    return Err(format!(
                        "a mapping of {} keys now has {}",
                        be.len(),
                        ae.len()
                    ));
                }
                for (x, y) in be.iter().zip(ae.iter()) {
                    if touched(x.key.span, fix) {
                        if y.key.text != value {
                            return Err(format!(
                                "the renamed key reads {:?}, not {value:?}",
                                y.key.text
                            ));
                        }
                        targets.push(y.key.span);
                    } else if x.key.text != y.key.text {
                        return Err(format!(
                            "a key changed: {:?} -> {:?}",
                            x.key.text, y.key.text
                        ));
                    }
                    stack.push((x.value, y.value));
                }
            }
            (NodeKind::Sequence(bi), NodeKind::Sequence(ai)) => {
                if bi.len() != ai.len() {
                    return Err(format!("a list of {} items now has {}", bi.len(), ai.len()));
                }
                stack.extend(bi.iter().zip(ai.iter()));
            }
            _ => return Err("a node changed kind".into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::promised;

    #[test]
    fn titles_name_the_value() {
        assert_eq!(promised("Replace with `a: b`"), Some("a: b"));
        assert_eq!(promised("Rename `x` to `y`` to `z`"), Some("z"));
        assert_eq!(promised("Set `source_phase: p`"), Some("p"));
        assert_eq!(promised("Remove unused suppression of R101"), None);
    }
}
