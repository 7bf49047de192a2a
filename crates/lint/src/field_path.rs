//! Dotted field names (SPEC §2.2): `domain_summary.domain`, `tasks.*.id`.
//! A declared field covers its dotted sub-paths, and a `*` segment matches
//! any one segment.

use std::collections::HashMap;
use std::ops::Range;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldPath(String);

impl FieldPath {
    pub fn new(text: impl Into<String>) -> Self {
        FieldPath(text.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('.')
    }

    /// Whether declaring `self` declares `other`: `other` is `self` or one of
    /// its sub-paths, segment by segment, with `*` matching any segment.
    pub fn covers(&self, other: &FieldPath) -> bool {
        let mut theirs = other.segments();
        for mine in self.segments() {
            match theirs.next() {
                Some(seg) if seg == mine || seg == "*" || mine == "*" => {}
                _ => return false,
            }
        }
        true
    }

    /// Whether either path covers the other: reading `a` reads `a.b`, and
    /// reading `a.b` reads part of `a`.
    pub fn overlaps(&self, other: &FieldPath) -> bool {
        self.covers(other) || other.covers(self)
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A hash map for analysis-internal indexes: keys are the contract's own
/// strings, so SipHash's protection buys nothing that foldhash's per-process
/// random seed does not, at a third of the cost.
pub(crate) type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Compares two dotted paths segment by segment, so that a path sorts
/// directly before its sub-paths and every subtree (`a`, `a.b`, `a.b.c`,
/// `a.x`) is one contiguous run: `a` < `a.b` < `a.c` < `ab`.
fn cmp_segments(a: &str, b: &str) -> std::cmp::Ordering {
    // Byte order with `.` below every other byte is segment order, without
    // splitting: `a` < `a.b` (a prefix first) < `ab` (`.` before `b`).
    let key = |byte: u8| {
        if byte == b'.' {
            0u16
        } else {
            u16::from(byte) + 1
        }
    };
    a.bytes().map(key).cmp(b.bytes().map(key))
}

/// Whether `path` is `prefix` or one of its sub-paths, segment-wise.
fn has_prefix(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

fn has_wildcard(path: &str) -> bool {
    path.split('.').any(|s| s == "*")
}

/// Interned field paths ("facts") with the lookups coverage needs: which
/// facts a path covers (its sub-paths) and which facts cover it (its
/// prefixes). Ids follow segment order, so the facts a plain path covers
/// are one range of ids plus the few wildcard facts it matches; analyses
/// keep ranges, not one id per covered fact. Borrows the paths.
pub(crate) struct FieldIndex<'a> {
    /// In segment order; a fact's id is its position.
    facts: Vec<&'a FieldPath>,
    ids: FastMap<&'a str, u32>,
    /// Facts with a `*` segment, which plain ranges cannot describe.
    wildcards: Vec<u32>,
}

impl<'a> FieldIndex<'a> {
    pub(crate) fn new(paths: impl Iterator<Item = &'a FieldPath>) -> Self {
        let mut facts: Vec<&'a FieldPath> = paths.collect();
        facts.sort_unstable_by(|a, b| cmp_segments(a.as_str(), b.as_str()));
        facts.dedup_by(|a, b| a.as_str() == b.as_str());
        facts.shrink_to_fit();
        let mut ids = FastMap::default();
        ids.reserve(facts.len());
        let mut wildcards = Vec::new();
        for (id, fact) in facts.iter().enumerate() {
            ids.insert(fact.as_str(), id as u32);
            if has_wildcard(fact.as_str()) {
                wildcards.push(id as u32);
            }
        }
        FieldIndex {
            facts,
            ids,
            wildcards,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.facts.len()
    }

    /// The id of exactly this path, if it is a fact.
    pub(crate) fn id(&self, path: &str) -> Option<u32> {
        self.ids.get(path).copied()
    }

    /// The ids of the facts that are `prefix` or lie under it.
    fn subtree(&self, prefix: &str) -> Range<u32> {
        let start = self
            .facts
            .partition_point(|f| cmp_segments(f.as_str(), prefix).is_lt());
        let len = self.facts[start..].partition_point(|f| has_prefix(f.as_str(), prefix));
        start as u32..(start + len) as u32
    }

    /// Facts that `path` covers (`path` or its sub-paths), as id ranges.
    pub(crate) fn covered_by(&self, path: &FieldPath, mut visit: impl FnMut(Range<u32>)) {
        let text = path.as_str();
        match text.split('.').position(|s| s == "*") {
            None => {
                let plain = self.subtree(text);
                for &id in &self.wildcards {
                    if !plain.contains(&id) && path.covers(self.facts[id as usize]) {
                        visit(id..id + 1);
                    }
                }
                if !plain.is_empty() {
                    visit(plain);
                }
            }
            Some(first_wildcard) => {
                // Only facts under the literal part before the first `*`,
                // and wildcard facts anywhere, can match.
                let literal: Vec<&str> = text.split('.').take(first_wildcard).collect();
                let literal = literal.join(".");
                let scope = if literal.is_empty() {
                    0..self.facts.len() as u32
                } else {
                    self.subtree(&literal)
                };
                let mut run: Option<Range<u32>> = None;
                for id in scope.clone() {
                    if path.covers(self.facts[id as usize]) {
                        match &mut run {
                            Some(r) if r.end == id => r.end += 1,
                            _ => {
                                if let Some(r) = run.replace(id..id + 1) {
                                    visit(r);
                                }
                            }
                        }
                    }
                }
                if let Some(r) = run {
                    visit(r);
                }
                for &id in &self.wildcards {
                    if !scope.contains(&id) && path.covers(self.facts[id as usize]) {
                        visit(id..id + 1);
                    }
                }
            }
        }
    }

    /// Facts that cover `path` or that it covers, as id ranges.
    pub(crate) fn overlapping(&self, path: &FieldPath, mut visit: impl FnMut(Range<u32>)) {
        self.covered_by(path, &mut visit);
        let text = path.as_str();
        for (i, _) in text.match_indices('.') {
            if let Some(id) = self.id(&text[..i]) {
                visit(id..id + 1);
            }
        }
        for &id in &self.wildcards {
            let fact = self.facts[id as usize];
            if fact.covers(path) && !path.covers(fact) {
                visit(id..id + 1);
            }
        }
    }

    /// Whether any indexed path overlaps `path` (covers it or is covered).
    pub(crate) fn any_overlapping(&self, path: &FieldPath) -> bool {
        let mut found = false;
        self.overlapping(path, |_| found = true);
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> FieldPath {
        FieldPath::new(s)
    }

    #[test]
    fn sub_paths_and_wildcards() {
        assert!(p("domain_summary").covers(&p("domain_summary.domain")));
        assert!(!p("domain_summary.domain").covers(&p("domain_summary")));
        assert!(p("tasks.*.id").covers(&p("tasks.t1.id")));
        assert!(p("tasks.t1").covers(&p("tasks.*.id")));
        assert!(!p("domain").covers(&p("domain_summary")));
        assert!(p("a.b").overlaps(&p("a")));
    }

    /// The names of the facts a coverage query visits, sorted.
    fn names(
        index: &FieldIndex<'_>,
        query: impl FnOnce(&mut dyn FnMut(Range<u32>)),
    ) -> Vec<String> {
        let mut out = Vec::new();
        query(&mut |r: Range<u32>| {
            out.extend(r.map(|id| index.facts[id as usize].as_str().to_string()));
        });
        out.sort();
        out
    }

    #[test]
    fn coverage_is_ranges_in_segment_order() {
        let paths: Vec<FieldPath> = ["ab", "a.c", "a", "a.b.x", "b", "tasks.*.id", "a.b", "a"]
            .into_iter()
            .map(p)
            .collect();
        let index = FieldIndex::new(paths.iter());
        assert_eq!(index.len(), 7);
        let sorted: Vec<&str> = index.facts.iter().map(|f| f.as_str()).collect();
        assert_eq!(
            sorted,
            ["a", "a.b", "a.b.x", "a.c", "ab", "b", "tasks.*.id"]
        );
        assert_eq!(index.subtree("a"), 0..4);
        assert_eq!(index.subtree("a.b"), 1..3);
        assert_eq!(index.subtree("zz"), 7..7);
        assert_eq!(
            names(&index, |v| index.covered_by(&p("a.b"), v)),
            ["a.b", "a.b.x"]
        );
        assert_eq!(
            names(&index, |v| index.covered_by(&p("tasks"), v)),
            ["tasks.*.id"]
        );
        assert_eq!(
            names(&index, |v| index.covered_by(&p("tasks.t1"), v)),
            ["tasks.*.id"]
        );
        assert_eq!(
            names(&index, |v| index.covered_by(&p("*.b"), v)),
            ["a.b", "a.b.x", "tasks.*.id"]
        );
        assert_eq!(names(&index, |v| index.covered_by(&p("*"), v)).len(), 7);
        assert_eq!(
            names(&index, |v| index.overlapping(&p("a.b.x.y"), v)),
            ["a", "a.b", "a.b.x"]
        );
        assert_eq!(
            names(&index, |v| index.overlapping(&p("tasks.t2.id.n"), v)),
            ["tasks.*.id"]
        );
        assert!(!index.any_overlapping(&p("c")));
    }
}
