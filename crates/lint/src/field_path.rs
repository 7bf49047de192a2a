//! Dotted field names: `domain_summary.domain`, `tasks.*.id`.
//! A declared field covers its dotted sub-paths, and a `*` segment matches
//! any one segment.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use crate::name_table::NameTable;

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
    // splitting: `a` < `a.b` (a prefix first) < `ab` (`.` before `b`). Only
    // the first byte that differs decides, so the common prefix is skipped
    // as plain bytes (sorting a contract's names spent most of its time
    // mapping bytes one by one).
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    match (a.get(common), b.get(common)) {
        (Some(&x), Some(&y)) => segment_byte(x).cmp(&segment_byte(y)),
        _ => a.len().cmp(&b.len()),
    }
}

/// A byte of a name as segment order ranks it: `.` lowest, the bytes below
/// it shifted up by one, the rest as they are. No byte of UTF-8 text is
/// 0xFF, so nothing collides, and names compare in segment order as their
/// mapped bytes compare as plain bytes.
fn segment_byte(byte: u8) -> u8 {
    match byte {
        b'.' => 0,
        below if below < b'.' => below + 1,
        other => other,
    }
}

/// Whether `fact` is `path` or one of its dotted sub-paths, by text.
fn is_path_or_under(fact: &str, path: &str) -> bool {
    fact.strip_prefix(path)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The texts of `path` and its proper prefixes (`a`, `a.b` of `a.b.c`),
/// shortest first, whole last.
fn prefixes(path: &str) -> impl Iterator<Item = (&str, bool)> {
    path.match_indices('.')
        .map(move |(dot, _)| (&path[..dot], false))
        .chain(std::iter::once((path, true)))
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
    /// Fact ids by name: 4 bytes a slot, where a map of names to ids took
    /// 27 bytes a fact (a contract may have a million fields).
    ids: NameTable,
    /// Every proper prefix of a fact (`a`, `a.b` of `a.b.c`): a literal
    /// path that is neither a fact nor one of these covers no fact, which
    /// a lookup here says without a binary search over all facts. `None`
    /// when the facts have more than `PREFIXES_PER_FACT` segments on
    /// average (deep names would make it a set per segment).
    inner_prefixes: Option<std::collections::HashSet<&'a str, foldhash::fast::RandomState>>,
    /// Whether a fact has a `*` segment: only then does a walk look for a
    /// `*` child beside the named one (half the searches of a contract
    /// without wildcards).
    wildcard_facts: bool,
}

/// How many proper prefixes a fact may have on average for the index to
/// keep them all (`FieldIndex::inner_prefixes`).
const PREFIXES_PER_FACT: usize = 4;

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
        let paths: Vec<&'a FieldPath> = paths.collect();
        // Sorted by their names' bytes mapped once into segment order, so
        // each comparison is a plain byte comparison.
        let mut keys: Vec<u8> = Vec::new();
        let mut key_ends: Vec<usize> = Vec::with_capacity(paths.len());
        for path in &paths {
            keys.extend(path.as_str().bytes().map(segment_byte));
            key_ends.push(keys.len());
        }
        let key = |i: usize| &keys[if i == 0 { 0 } else { key_ends[i - 1] }..key_ends[i]];
        let mut order: Vec<usize> = (0..paths.len()).collect();
        order.sort_unstable_by(|&a, &b| key(a).cmp(key(b)));
        order.dedup_by(|a, b| key(*a) == key(*b));
        let facts: Vec<&'a FieldPath> = order.into_iter().map(|i| paths[i]).collect();
        drop((paths, keys, key_ends));
        let ids = NameTable::new(facts.iter().map(|f| f.as_str()));
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
        let inner = segment_starts.len() - facts.len();
        let inner_prefixes = (inner <= facts.len() * PREFIXES_PER_FACT).then(|| {
            let mut prefixes = std::collections::HashSet::default();
            for fact in &facts {
                let text: &'a str = fact.as_str();
                prefixes.extend(text.match_indices('.').map(|(dot, _)| &text[..dot]));
            }
            prefixes
        });
        FieldIndex {
            facts,
            inner_prefixes,
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
        self.ids.get(path, |id| self.facts[id as usize].as_str())
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

    /// Whether a query for `path` can skip the trie walk: neither it nor
    /// any fact has a `*` segment, so it matches literally (most contracts
    /// have no wildcard at all).
    fn is_literal(&self, path: &str) -> bool {
        !self.wildcard_facts && !path.split('.').any(|s| s == "*")
    }

    /// The facts that are `path` or its sub-paths, for a literal query: one
    /// run in segment order. It starts at `path` itself when that is a fact
    /// (a hash lookup), is empty when `path` is not a prefix of a fact
    /// either, else starts where a binary search over all facts puts it;
    /// it is usually short (a name and a few sub-paths), so its end is
    /// found by galloping from its start.
    fn literal_subtree(&self, path: &str) -> Option<Range<u32>> {
        let end = self.facts.len() as u32;
        let text = |id: u32| self.facts[id as usize].as_str();
        let lower = match self.id(path) {
            Some(id) => id,
            None if self
                .inner_prefixes
                .as_ref()
                .is_some_and(|prefixes| !prefixes.contains(path)) =>
            {
                return None;
            }
            None => partition(0..end, |id| cmp_segments(text(id), path).is_lt()),
        };
        let under = |id: u32| is_path_or_under(text(id), path);
        // Every id below `lower + bound / 2` is under `path`.
        let mut bound = 1u32;
        while lower + bound <= end && under(lower + bound - 1) {
            bound *= 2;
        }
        let upper = partition(lower + bound / 2..(lower + bound).min(end), under);
        (lower < upper).then_some(lower..upper)
    }

    /// Facts that `path` covers (`path` or its sub-paths), as id ranges.
    pub(crate) fn covered_by(&self, path: &FieldPath, mut visit: impl FnMut(Range<u32>)) {
        if self.is_literal(path.as_str()) {
            if let Some(ids) = self.literal_subtree(path.as_str()) {
                visit(ids);
            }
            return;
        }
        let segments: Vec<&str> = path.segments().collect();
        self.walk(&segments, &mut |node, end| {
            if end {
                visit(node.facts.clone());
            }
        });
    }

    /// Facts that cover `path` or that it covers, as id ranges.
    pub(crate) fn overlapping(&self, path: &FieldPath, mut visit: impl FnMut(Range<u32>)) {
        if self.is_literal(path.as_str()) {
            for (prefix, whole) in prefixes(path.as_str()) {
                if whole {
                    if let Some(ids) = self.literal_subtree(prefix) {
                        visit(ids);
                    }
                } else if let Some(id) = self.id(prefix) {
                    visit(id..id + 1);
                }
            }
            return;
        }
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
        if self.is_literal(path.as_str()) {
            // The facts covering a literal path are its prefixes that are
            // facts: a hash lookup each.
            prefixes(path.as_str())
                .filter_map(|(prefix, _)| self.id(prefix))
                .for_each(visit);
            return;
        }
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
        agrees_with_covers_on_random_paths(&["a", "b", "ab", "*", "a_b", "b-c"], 4);
    }

    /// Without `*` anywhere, queries take the literal lookups instead of
    /// the trie walk; `-` and `!` sort below `.` as bytes but above it in
    /// segment order.
    #[test]
    fn literal_lookups_agree_with_covers_on_random_paths() {
        agrees_with_covers_on_random_paths(&["a", "b", "ab", "a_b", "b-c", "a!", ""], 4);
        // Names deep enough that the index keeps no set of their prefixes.
        agrees_with_covers_on_random_paths(&["a", "b", "ab"], 12);
    }

    /// Segment order is byte order with `.` below every other byte.
    #[test]
    fn segment_order_is_byte_order_with_the_dot_lowest() {
        let reference = |a: &str, b: &str| {
            let key = |byte: u8| {
                if byte == b'.' {
                    0u16
                } else {
                    u16::from(byte) + 1
                }
            };
            a.bytes().map(key).cmp(b.bytes().map(key))
        };
        let given: Vec<FieldPath> = ["b", "a.b", "a-b", "a", "a!", "a.b", "ab", "a..b"]
            .into_iter()
            .map(FieldPath::new)
            .collect();
        let index = FieldIndex::new(given.iter());
        let indexed: Vec<&str> = index.facts.iter().map(|f| f.as_str()).collect();
        let mut sorted = given.clone();
        sorted.sort_by(|a, b| reference(a.as_str(), b.as_str()));
        sorted.dedup();
        let expected: Vec<&str> = sorted.iter().map(FieldPath::as_str).collect();
        assert_eq!(indexed, expected);
        let names = [
            "", "a", "a.", "a.b", "a-b", "a!", "ab", "a.b.c", "a..b", "b", ".a", "é.a", "é",
        ];
        for a in names {
            for b in names {
                assert_eq!(cmp_segments(a, b), reference(a, b), "{a:?} vs {b:?}");
            }
        }
    }

    fn agrees_with_covers_on_random_paths(segments: &[&str], depth: usize) {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        let mut random_path = || -> FieldPath {
            let n = 1 + next(depth);
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
