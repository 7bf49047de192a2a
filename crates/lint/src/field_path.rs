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

/// Interned field paths with the lookups coverage needs: which facts a path
/// covers (its sub-paths) and which facts cover it (its prefixes).
pub(crate) struct FieldIndex {
    pub(crate) facts: Vec<FieldPath>,
    pub(crate) ids: HashMap<String, usize>,
    by_prefix: HashMap<String, Vec<usize>>,
    wildcards: Vec<usize>,
}

impl FieldIndex {
    pub(crate) fn new<'a>(paths: impl Iterator<Item = &'a FieldPath>) -> Self {
        let mut index = FieldIndex {
            facts: Vec::new(),
            ids: HashMap::new(),
            by_prefix: HashMap::new(),
            wildcards: Vec::new(),
        };
        for path in paths {
            if index.ids.contains_key(path.as_str()) {
                continue;
            }
            let id = index.facts.len();
            index.ids.insert(path.as_str().to_string(), id);
            if path.as_str().split('.').any(|s| s == "*") {
                index.wildcards.push(id);
            } else {
                let text = path.as_str();
                for (i, _) in text.match_indices('.') {
                    index
                        .by_prefix
                        .entry(text[..i].to_string())
                        .or_default()
                        .push(id);
                }
                index
                    .by_prefix
                    .entry(text.to_string())
                    .or_default()
                    .push(id);
            }
            index.facts.push(path.clone());
        }
        index
    }

    pub(crate) fn len(&self) -> usize {
        self.facts.len()
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
            ids.iter().copied().for_each(&mut visit);
        }
        for &id in &self.wildcards {
            if path.covers(&self.facts[id]) {
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

    pub(crate) fn set_of<'a>(
        &self,
        paths: impl Iterator<Item = &'a FieldPath>,
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
