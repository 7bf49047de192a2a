//! Dotted field names: `domain_summary.domain`, `tasks.*.id`.
//! A declared field covers its dotted sub-paths, and a `*` segment matches
//! any one segment.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

/// Inline up to 24 bytes, as most names are: a contract may have a million
/// fields, and a heap copy of each name cost 32 bytes more.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldPath(compact_str::CompactString);

impl FieldPath {
    pub(crate) fn new(text: impl AsRef<str>) -> Self {
        FieldPath(compact_str::CompactString::new(text))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub(crate) fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('.')
    }

    /// Whether declaring `self` declares `other`: `other` is `self` or one of
    /// its sub-paths, segment by segment, with `*` matching any segment.
    pub(crate) fn covers(&self, other: &FieldPath) -> bool {
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
    pub(crate) fn overlaps(&self, other: &FieldPath) -> bool {
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
pub(crate) fn cmp_segments(a: &str, b: &str) -> std::cmp::Ordering {
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

/// Interned field paths ("facts") with the lookups coverage needs: which
/// facts a path covers (its sub-paths) and which facts cover it (its
/// prefixes), `*` matching any one segment on either side.
///
/// Facts are sorted in segment order, which makes the set a trie laid out
/// flat: the facts under any prefix are one contiguous run of ids, and a
/// prefix's children are found by binary search on their next segment.
/// A query walks that trie along its own segments (taking the literal
/// child and the `*` child at each level, or every child where the query
/// has `*`), so it costs the trie nodes it matches, never a scan of all
/// facts or all wildcards, and it answers with id ranges, so what a phase
/// adds is a few ranges however many facts it covers.
pub(crate) struct FieldIndex<'a> {
    /// In segment order; a fact's id is its position.
    facts: Vec<&'a FieldPath>,
    /// What the walks of queries with a `*` segment reported, by query: such
    /// a walk visits every child where the query has `*`, and the same
    /// query is often asked again (one name read by many phases). Plain
    /// queries cost a few binary searches and are not kept.
    wildcard_walks: RefCell<FastMap<String, Walked>>,
    /// Where each fact's segments start in `segment_starts`.
    first_segment: Vec<u32>,
    /// Byte offsets of every fact's segments, fact after fact.
    segment_starts: Vec<u32>,
    ids: IdTable,
    /// Whether a fact has a `*` segment: only then does a walk look for a
    /// `*` child beside the named one (half the searches of a contract
    /// without wildcards).
    wildcard_facts: bool,
}

/// Fact ids by name: an open-addressing table of ids (4 bytes a slot)
/// whose keys are the facts themselves, where a map of names to ids took
/// 27 bytes a fact (a contract may have a million fields).
struct IdTable {
    /// `EMPTY`, or a fact id; linear probing from the name's hash.
    slots: Vec<u32>,
    hasher: foldhash::fast::RandomState,
}

const EMPTY: u32 = u32::MAX;

impl IdTable {
    fn new(facts: &[&FieldPath]) -> Self {
        let wanted = (facts.len() + facts.len() / 4 + 1).next_power_of_two();
        let mut table = IdTable {
            slots: vec![EMPTY; wanted],
            hasher: foldhash::fast::RandomState::default(),
        };
        for (id, fact) in facts.iter().enumerate() {
            let mut at = table.home(fact.as_str());
            while table.slots[at] != EMPTY {
                at = (at + 1) & (table.slots.len() - 1);
            }
            table.slots[at] = id as u32;
        }
        table
    }

    fn home(&self, name: &str) -> usize {
        use std::hash::BuildHasher;
        (self.hasher.hash_one(name) as usize) & (self.slots.len() - 1)
    }

    fn get(&self, facts: &[&FieldPath], name: &str) -> Option<u32> {
        let mut at = self.home(name);
        loop {
            let id = self.slots[at];
            if id == EMPTY {
                return None;
            }
            if facts[id as usize].as_str() == name {
                return Some(id);
            }
            at = (at + 1) & (self.slots.len() - 1);
        }
    }
}

/// What a walk reported: each node, and whether the query ended there.
type Walked = Rc<[(Node, bool)]>;

/// A node of the flat trie: the facts that share their first `depth`
/// segments.
#[derive(Clone, Debug)]
struct Node {
    facts: Range<u32>,
    depth: usize,
}

impl<'a> FieldIndex<'a> {
    pub(crate) fn new(paths: impl Iterator<Item = &'a FieldPath>) -> Self {
        let mut facts: Vec<&'a FieldPath> = paths.collect();
        facts.sort_unstable_by(|a, b| cmp_segments(a.as_str(), b.as_str()));
        facts.dedup_by(|a, b| a.as_str() == b.as_str());
        facts.shrink_to_fit();
        let ids = IdTable::new(&facts);
        let mut first_segment = Vec::with_capacity(facts.len() + 1);
        let mut segment_starts = Vec::new();
        for fact in &facts {
            first_segment.push(segment_starts.len() as u32);
            segment_starts.push(0);
            segment_starts.extend(fact.as_str().match_indices('.').map(|(i, _)| i as u32 + 1));
        }
        first_segment.push(segment_starts.len() as u32);
        segment_starts.shrink_to_fit();
        let wildcard_facts = facts.iter().any(|f| f.segments().any(|s| s == "*"));
        FieldIndex {
            facts,
            wildcard_walks: RefCell::default(),
            first_segment,
            segment_starts,
            ids,
            wildcard_facts,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.facts.len()
    }

    /// The id of exactly this path, if it is a fact.
    pub(crate) fn id(&self, path: &str) -> Option<u32> {
        self.ids.get(&self.facts, path)
    }

    fn segment_count(&self, fact: u32) -> usize {
        (self.first_segment[fact as usize + 1] - self.first_segment[fact as usize]) as usize
    }

    /// Segment `depth` of a fact, if it has that many.
    fn segment(&self, fact: u32, depth: usize) -> Option<&'a str> {
        let fact = fact as usize;
        let (first, next) = (
            self.first_segment[fact] as usize,
            self.first_segment[fact + 1] as usize,
        );
        let at = first + depth;
        if at >= next {
            return None;
        }
        let text = self.facts[fact].as_str();
        let start = self.segment_starts[at] as usize;
        let end = if at + 1 < next {
            self.segment_starts[at + 1] as usize - 1
        } else {
            text.len()
        };
        text.get(start..end)
    }

    /// The whole trie.
    fn root(&self) -> Node {
        Node {
            facts: 0..self.facts.len() as u32,
            depth: 0,
        }
    }

    /// The fact that is exactly the node's prefix, if there is one (it
    /// sorts first in its run).
    fn node_fact(&self, node: &Node) -> Option<u32> {
        let first = node.facts.start;
        (first < node.facts.end && self.segment_count(first) == node.depth).then_some(first)
    }

    /// The child of `node` whose next segment is `segment`.
    fn child(&self, node: &Node, segment: &str) -> Option<Node> {
        let ordering = |fact: u32| match self.segment(fact, node.depth) {
            // The node's own fact sorts before every child.
            None => std::cmp::Ordering::Less,
            Some(s) => cmp_segments(s, segment),
        };
        let lower = partition(node.facts.clone(), |f| ordering(f).is_lt());
        let upper = partition(lower..node.facts.end, |f| ordering(f).is_eq());
        (lower < upper).then(|| Node {
            facts: lower..upper,
            depth: node.depth + 1,
        })
    }

    /// Every child of `node`, in order.
    fn children(&self, node: &Node, mut visit: impl FnMut(Node)) {
        let mut at = node.facts.start;
        if self.node_fact(node).is_some() {
            at += 1;
        }
        while at < node.facts.end {
            let Some(segment) = self.segment(at, node.depth) else {
                break;
            };
            let Some(child) = self.child(node, segment) else {
                break;
            };
            at = child.facts.end;
            visit(child);
        }
    }

    /// Walks the trie along `segments`: at each level the child named by
    /// the segment and the `*` child, or every child where the segment is
    /// `*`. Calls `visit(node, false)` at each node passed on the way
    /// (matching a proper prefix of the path) and `visit(node, true)` at
    /// each node where the path's segments run out.
    fn walk(&self, segments: &[&str], visit: &mut dyn FnMut(&Node, bool)) {
        if !segments.contains(&"*") {
            return self.walk_uncached(segments, visit);
        }
        let key = segments.join(".");
        let cached = self.wildcard_walks.borrow().get(&key).cloned();
        let events = match cached {
            Some(events) => events,
            None => {
                // Only the nodes that report something: ends, and nodes
                // passed on the way that are a fact themselves.
                let mut events = Vec::new();
                self.walk_uncached(segments, &mut |node, end| {
                    if end || self.node_fact(node).is_some() {
                        events.push((node.clone(), end));
                    }
                });
                let events: Walked = events.into();
                self.wildcard_walks.borrow_mut().insert(key, events.clone());
                events
            }
        };
        for (node, end) in events.iter() {
            visit(node, *end);
        }
    }

    fn walk_uncached(&self, segments: &[&str], visit: &mut dyn FnMut(&Node, bool)) {
        // Iterative: a path may have thousands of segments.
        let mut stack = vec![self.root()];
        while let Some(node) = stack.pop() {
            let Some(&segment) = segments.get(node.depth) else {
                visit(&node, true);
                continue;
            };
            visit(&node, false);
            if segment == "*" {
                self.children(&node, |child| stack.push(child));
            } else {
                stack.extend(self.child(&node, segment));
                if self.wildcard_facts {
                    stack.extend(self.child(&node, "*"));
                }
            }
        }
    }

    /// Facts that `path` covers (`path` or its sub-paths), as id ranges.
    pub(crate) fn covered_by(&self, path: &FieldPath, mut visit: impl FnMut(Range<u32>)) {
        let segments: Vec<&str> = path.segments().collect();
        self.walk(&segments, &mut |node, end| {
            if end {
                visit(node.facts.clone());
            }
        });
    }

    /// Facts that cover `path` or that it covers, as id ranges.
    pub(crate) fn overlapping(&self, path: &FieldPath, mut visit: impl FnMut(Range<u32>)) {
        let segments: Vec<&str> = path.segments().collect();
        self.walk(&segments, &mut |node, end| {
            if end {
                visit(node.facts.clone());
            } else if let Some(id) = self.node_fact(node) {
                visit(id..id + 1);
            }
        });
    }

    /// Whether any indexed path overlaps `path` (covers it or is covered).
    pub(crate) fn any_overlapping(&self, path: &FieldPath) -> bool {
        let mut found = false;
        self.overlapping(path, |_| found = true);
        found
    }

    /// The facts that cover `path` (it, or one of its prefixes, `*`
    /// matching any segment on either side), by id.
    pub(crate) fn covering(&self, path: &FieldPath, mut visit: impl FnMut(u32)) {
        let segments: Vec<&str> = path.segments().collect();
        self.walk(&segments, &mut |node, _| {
            if let Some(id) = self.node_fact(node) {
                visit(id);
            }
        });
    }

    /// Whether some indexed path covers `path`.
    pub(crate) fn any_covering(&self, path: &FieldPath) -> bool {
        let mut found = false;
        self.covering(path, |_| found = true);
        found
    }
}

/// The first id in `ids` for which `before` is false; `before` must be true
/// for a prefix of the ids and false for the rest.
fn partition(ids: Range<u32>, before: impl Fn(u32) -> bool) -> u32 {
    let (mut low, mut high) = (ids.start, ids.end);
    while low < high {
        let middle = low + (high - low) / 2;
        if before(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// Sorts ranges and merges those that touch, so a set of facts is kept as
/// few ranges as it can be.
pub(crate) fn merge_ranges(ranges: &mut Vec<Range<u32>>) {
    ranges.sort_unstable_by_key(|r| r.start);
    let mut merged: Vec<Range<u32>> = Vec::with_capacity(ranges.len());
    for range in ranges.drain(..) {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged.shrink_to_fit();
    *ranges = merged;
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
        let mut ranges = Vec::new();
        index.covered_by(&p("a"), |r| ranges.push(r));
        assert_eq!(ranges, vec![0..4], "a plain name's subtree is one range");
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

    #[test]
    fn the_trie_walk_agrees_with_covers_on_random_paths() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        let segments = ["a", "b", "ab", "*", "a_b", "b-c"];
        let mut random_path = || -> FieldPath {
            let n = 1 + next(4);
            let parts: Vec<&str> = (0..n).map(|_| segments[next(segments.len())]).collect();
            FieldPath::new(parts.join("."))
        };
        for round in 0..200 {
            let facts: Vec<FieldPath> = (0..1 + round % 30).map(|_| random_path()).collect();
            let index = FieldIndex::new(facts.iter());
            for _ in 0..20 {
                let query = random_path();
                let brute = |keep: &dyn Fn(&FieldPath) -> bool| -> Vec<String> {
                    let mut found: Vec<String> = index
                        .facts
                        .iter()
                        .filter(|f| keep(f))
                        .map(|f| f.as_str().to_string())
                        .collect();
                    found.sort();
                    found
                };
                let mut covered = names(&index, |v| index.covered_by(&query, v));
                covered.dedup();
                assert_eq!(covered, brute(&|f| query.covers(f)), "{query} covers");
                let mut overlapping = names(&index, |v| index.overlapping(&query, v));
                overlapping.dedup();
                assert_eq!(
                    overlapping,
                    brute(&|f| query.overlaps(f)),
                    "{query} overlaps"
                );
                let mut covering = Vec::new();
                index.covering(&query, |id| {
                    covering.push(index.facts[id as usize].as_str().to_string())
                });
                covering.sort();
                covering.dedup();
                assert_eq!(covering, brute(&|f| f.covers(&query)), "covering {query}");
                assert_eq!(index.any_covering(&query), !covering.is_empty());
            }
        }
    }
}
