//! Dotted field names (SPEC §2.2): `domain_summary.domain`, `tasks.*.id`.
//! A declared field covers its dotted sub-paths, and a `*` segment matches
//! any one segment.

use std::collections::HashMap;

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

/// The fact ids one prefix leads to: nearly always one, so no allocation
/// for that case.
enum Ids {
    One(usize),
    Many(Vec<usize>),
}

impl Ids {
    fn push(&mut self, id: usize) {
        match self {
            Ids::One(first) => *self = Ids::Many(vec![*first, id]),
            Ids::Many(ids) => ids.push(id),
        }
    }

    fn as_slice(&self) -> &[usize] {
        match self {
            Ids::One(id) => std::slice::from_ref(id),
            Ids::Many(ids) => ids,
        }
    }
}

/// Interned field paths with the lookups coverage needs: which facts a path
/// covers (its sub-paths) and which facts cover it (its prefixes). Borrows
/// the paths from the contract.
pub(crate) struct FieldIndex<'a> {
    facts: Vec<&'a FieldPath>,
    ids: FastMap<&'a str, usize>,
    by_prefix: FastMap<&'a str, Ids>,
    wildcards: Vec<usize>,
}

impl<'a> FieldIndex<'a> {
    pub(crate) fn new(paths: impl Iterator<Item = &'a FieldPath>) -> Self {
        let mut index = FieldIndex {
            facts: Vec::new(),
            ids: FastMap::default(),
            by_prefix: FastMap::default(),
            wildcards: Vec::new(),
        };
        for path in paths {
            let text = path.as_str();
            let id = index.facts.len();
            if let std::collections::hash_map::Entry::Vacant(slot) = index.ids.entry(text) {
                slot.insert(id);
            } else {
                continue;
            }
            if text.split('.').any(|s| s == "*") {
                index.wildcards.push(id);
            } else {
                let prefixes = text.match_indices('.').map(|(i, _)| &text[..i]);
                for prefix in prefixes.chain(std::iter::once(text)) {
                    index
                        .by_prefix
                        .entry(prefix)
                        .and_modify(|ids| ids.push(id))
                        .or_insert(Ids::One(id));
                }
            }
            index.facts.push(path);
        }
        index
    }

    pub(crate) fn len(&self) -> usize {
        self.facts.len()
    }

    /// The id of exactly this path, if it is a fact.
    pub(crate) fn id(&self, path: &str) -> Option<usize> {
        self.ids.get(path).copied()
    }

    /// Facts that `path` covers (`path` or its sub-paths).
    pub(crate) fn covered_by(&self, path: &FieldPath, mut visit: impl FnMut(usize)) {
        if path.as_str().split('.').any(|s| s == "*") {
            for (id, fact) in self.facts.iter().enumerate() {
                if path.covers(fact) {
                    visit(id);
                }
            }
            return;
        }
        if let Some(ids) = self.by_prefix.get(path.as_str()) {
            ids.as_slice().iter().copied().for_each(&mut visit);
        }
        for &id in &self.wildcards {
            if path.covers(self.facts[id]) {
                visit(id);
            }
        }
    }

    /// Facts that cover `path` or that it covers.
    pub(crate) fn overlapping(&self, path: &FieldPath, mut visit: impl FnMut(usize)) {
        self.covered_by(path, &mut visit);
        let text = path.as_str();
        for (i, _) in text.match_indices('.') {
            if let Some(&id) = self.ids.get(&text[..i]) {
                visit(id);
            }
        }
        for &id in &self.wildcards {
            if self.facts[id].covers(path) {
                visit(id);
            }
        }
    }

    /// Whether any indexed path overlaps `path` (covers it or is covered).
    pub(crate) fn any_overlapping(&self, path: &FieldPath) -> bool {
        let mut found = false;
        self.overlapping(path, |_| found = true);
        found
    }

    pub(crate) fn set_of<'p>(
        &self,
        paths: impl Iterator<Item = &'p FieldPath>,
    ) -> fixedbitset::FixedBitSet {
        let mut set = fixedbitset::FixedBitSet::with_capacity(self.len());
        for path in paths {
            self.covered_by(path, |id| set.insert(id));
        }
        set
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
}
