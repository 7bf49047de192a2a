//! The spanned YAML layer: a small document tree built from saphyr-parser's
//! event stream, in which every key and every value keeps its byte span.
//!
//! We build our own tree instead of using marked-yaml's because a linter
//! needs what a loader throws away: duplicate keys are kept (E002 reports
//! both), scalar values carry their end position, and nesting depth, alias
//! expansion and the number of nodes are bounded with a diagnostic instead
//! of a stack overflow or a memory blow-up.
//!
//! The tree is one arena: every node is 16 bytes (its span as two `u32`s,
//! and either its text or its children), the children of a collection are
//! one contiguous run of the arena (a mapping's are key, value, key, value,
//! …), and a scalar's text is a range of the source whenever it is written
//! there as it reads (most keys and values), else a range of one side
//! buffer. No node owns an allocation, so a tree costs 16 bytes a node and
//! its copied texts, where one `Box`/`Arc` per collection and a 48-byte
//! node cost five times that. An alias is a copy of its anchor's 16 bytes
//! with its own span: the anchor's children are shared, never copied.

// Folding the parser's events into the arena (`parse`, `SyntaxError`).
mod build;
// Where a scan error is shown to the author.
mod error_position;
// A scalar's text and its core-schema resolution.
mod scalar;

pub(crate) use build::SyntaxError;
pub use build::parse;
pub use scalar::{Resolved, Scalar};

/// A half-open byte range into the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    pub const fn empty(at: usize) -> Self {
        Span { start: at, end: at }
    }

    pub fn contains(&self, offset: usize) -> bool {
        self.start <= offset && offset < self.end.max(self.start + 1)
    }
}

/// Limits that keep hostile input from exhausting the machine
/// (docs/reliability.md lists them).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub(crate) max_bytes: usize,
    pub(crate) max_depth: usize,
    /// Nodes that alias expansion may copy in total ("billion laughs").
    pub(crate) max_alias_nodes: usize,
    /// Nodes in the tree: every key, value and collection (an alias counts
    /// as one). Each costs 16 bytes here and more in whatever reads it.
    pub(crate) max_nodes: usize,
}

/// The most YAML nodes (keys, values, collections) a document may have.
/// A generated contract of realistic shape at the 32 MiB size bound has
/// about 2.2 million; a file of `[a,a,a,…]` would have 16 million.
pub(crate) const MAX_NODES: usize = 3_000_000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 32 * 1024 * 1024,
            max_depth: 64,
            max_alias_nodes: 100_000,
            max_nodes: MAX_NODES,
        }
    }
}

/// One node of the arena.
///
/// `start`/`end` are its span. For a scalar, `data` is where its text
/// starts (in the source or in `Tree::texts`) and `meta` holds its length;
/// for a collection, `data` is the index of its first child in
/// `Tree::nodes` and `meta` the number of children (twice the number of
/// entries for a mapping). The top bits of `meta` say which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Raw {
    start: u32,
    end: u32,
    data: u32,
    meta: u32,
}

const KIND_SHIFT: u32 = 29;
const KIND_SCALAR: u32 = 0;
const KIND_MAPPING: u32 = 1;
const KIND_SEQUENCE: u32 = 2;
/// A plain scalar (resolved by the core schema).
const PLAIN: u32 = 1 << 28;
/// A scalar whose text is in `Tree::texts`, not in the source.
const COPIED: u32 = 1 << 27;
const LEN_MASK: u32 = COPIED - 1;

impl Raw {
    fn kind(self) -> u32 {
        self.meta >> KIND_SHIFT
    }

    fn len(self) -> usize {
        (self.meta & LEN_MASK) as usize
    }

    fn span(self) -> Span {
        Span::new(self.start as usize, self.end as usize)
    }

    fn with_span(mut self, span: Span) -> Raw {
        self.start = span.start as u32;
        self.end = span.end as u32;
        self
    }
}

/// A parsed document: the arena of its nodes, borrowing the source.
pub struct Tree<'s> {
    source: &'s str,
    nodes: Vec<Raw>,
    texts: String,
    root: Raw,
}

impl std::fmt::Debug for Tree<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tree")
            .field("nodes", &self.nodes.len())
            .field("root", &self.root().span)
            .finish()
    }
}

impl<'s> Tree<'s> {
    pub fn root(&self) -> Node<'_> {
        self.node(self.root)
    }

    /// The node written at `span`, found by descending from the root
    /// through the collections that contain it.
    pub(crate) fn node_at(&self, span: Span) -> Option<Node<'_>> {
        let mut node = self.root();
        let within = |n: &Node<'_>| n.span.start <= span.start && span.end <= n.span.end;
        loop {
            if node.span == span {
                return Some(node);
            }
            node = match node.kind() {
                NodeKind::Mapping(entries) => entries.iter().map(|e| e.value).find(within)?,
                NodeKind::Sequence(items) => items.iter().find(within)?,
                NodeKind::Scalar(_) => return None,
            };
        }
    }

    fn node(&self, raw: Raw) -> Node<'_> {
        Node {
            span: raw.span(),
            tree: self,
            raw,
        }
    }

    fn children(&self, raw: Raw) -> &[Raw] {
        let first = raw.data as usize;
        self.nodes.get(first..first + raw.len()).unwrap_or_default()
    }

    fn text(&self, raw: Raw) -> &str {
        let start = raw.data as usize;
        let range = start..start + raw.len();
        let text = if raw.meta & COPIED != 0 {
            self.texts.get(range)
        } else {
            self.source.get(range)
        };
        text.unwrap_or_default()
    }
}

/// A node of a tree: its span, and a view of its content.
#[derive(Clone, Copy)]
pub struct Node<'t> {
    pub span: Span,
    tree: &'t Tree<'t>,
    raw: Raw,
}

impl std::fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind() {
            NodeKind::Scalar(s) => write!(f, "Scalar({:?}, {:?})", s.text, self.span),
            NodeKind::Mapping(m) => f
                .debug_map()
                .entries(m.iter().map(|e| (e.key.text, e.value)))
                .finish(),
            NodeKind::Sequence(s) => f.debug_list().entries(s.iter()).finish(),
        }
    }
}

/// What a node holds.
#[derive(Clone, Copy, Debug)]
pub enum NodeKind<'t> {
    Scalar(Scalar<'t>),
    Mapping(Mapping<'t>),
    Sequence(Sequence<'t>),
}

/// An empty tree, for the empty lists and mappings of absent values.
static EMPTY: Tree<'static> = Tree {
    source: "",
    nodes: Vec::new(),
    texts: String::new(),
    root: Raw {
        start: 0,
        end: 0,
        data: 0,
        meta: 0,
    },
};

/// The entries of a mapping, in the order written (duplicates kept).
#[derive(Clone, Copy)]
pub struct Mapping<'t> {
    tree: &'t Tree<'t>,
    raws: &'t [Raw],
}

impl Default for Mapping<'_> {
    fn default() -> Self {
        Mapping {
            tree: &EMPTY,
            raws: &[],
        }
    }
}

impl std::fmt::Debug for Mapping<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|e| (e.key.text, e.value)))
            .finish()
    }
}

/// A mapping entry: a key and its value.
#[derive(Clone, Copy, Debug)]
pub struct Entry<'t> {
    pub key: Key<'t>,
    pub value: Node<'t>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key<'t> {
    pub text: &'t str,
    pub span: Span,
}

fn entry<'t>(tree: &'t Tree<'t>, key: Raw, value: Raw) -> Entry<'t> {
    Entry {
        key: Key {
            text: tree.text(key),
            span: key.span(),
        },
        value: tree.node(value),
    }
}

impl<'t> Mapping<'t> {
    pub fn len(&self) -> usize {
        self.raws.len() / 2
    }

    pub fn is_empty(&self) -> bool {
        self.raws.len() < 2
    }

    pub(crate) fn get(&self, index: usize) -> Option<Entry<'t>> {
        let pair = self.raws.get(2 * index..2 * index + 2)?;
        Some(entry(self.tree, pair[0], pair[1]))
    }

    pub fn iter(&self) -> Entries<'t> {
        Entries {
            tree: self.tree,
            pairs: self.raws.chunks_exact(2),
        }
    }

    /// The value of the first entry with this key.
    pub(crate) fn get_key(&self, key: &str) -> Option<Node<'t>> {
        self.iter().find(|e| e.key.text == key).map(|e| e.value)
    }
}

impl<'t> IntoIterator for Mapping<'t> {
    type Item = Entry<'t>;
    type IntoIter = Entries<'t>;

    fn into_iter(self) -> Entries<'t> {
        self.iter()
    }
}

/// The entries of a mapping, in order.
#[derive(Clone)]
pub struct Entries<'t> {
    tree: &'t Tree<'t>,
    pairs: std::slice::ChunksExact<'t, Raw>,
}

impl<'t> Iterator for Entries<'t> {
    type Item = Entry<'t>;

    fn next(&mut self) -> Option<Entry<'t>> {
        let pair = self.pairs.next()?;
        Some(entry(self.tree, pair[0], pair[1]))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.pairs.size_hint()
    }
}

impl DoubleEndedIterator for Entries<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let pair = self.pairs.next_back()?;
        Some(entry(self.tree, pair[0], pair[1]))
    }
}

impl ExactSizeIterator for Entries<'_> {}

/// The items of a sequence.
#[derive(Clone, Copy)]
pub struct Sequence<'t> {
    tree: &'t Tree<'t>,
    raws: &'t [Raw],
}

impl Default for Sequence<'_> {
    fn default() -> Self {
        Sequence {
            tree: &EMPTY,
            raws: &[],
        }
    }
}

impl std::fmt::Debug for Sequence<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'t> Sequence<'t> {
    pub fn len(&self) -> usize {
        self.raws.len()
    }

    pub fn is_empty(&self) -> bool {
        self.raws.is_empty()
    }

    pub(crate) fn get(&self, index: usize) -> Option<Node<'t>> {
        self.raws.get(index).map(|&raw| self.tree.node(raw))
    }

    pub fn iter(&self) -> Items<'t> {
        Items {
            tree: self.tree,
            raws: self.raws.iter(),
        }
    }
}

impl<'t> IntoIterator for Sequence<'t> {
    type Item = Node<'t>;
    type IntoIter = Items<'t>;

    fn into_iter(self) -> Items<'t> {
        self.iter()
    }
}

/// The items of a sequence, in order.
#[derive(Clone)]
pub struct Items<'t> {
    tree: &'t Tree<'t>,
    raws: std::slice::Iter<'t, Raw>,
}

impl<'t> Iterator for Items<'t> {
    type Item = Node<'t>;

    fn next(&mut self) -> Option<Node<'t>> {
        self.raws.next().map(|&raw| self.tree.node(raw))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.raws.size_hint()
    }
}

impl DoubleEndedIterator for Items<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.raws.next_back().map(|&raw| self.tree.node(raw))
    }
}

impl ExactSizeIterator for Items<'_> {}

impl<'t> Node<'t> {
    pub fn kind(&self) -> NodeKind<'t> {
        match self.raw.kind() {
            KIND_MAPPING => NodeKind::Mapping(Mapping {
                tree: self.tree,
                raws: self.tree.children(self.raw),
            }),
            KIND_SEQUENCE => NodeKind::Sequence(Sequence {
                tree: self.tree,
                raws: self.tree.children(self.raw),
            }),
            _ => NodeKind::Scalar(Scalar {
                text: self.tree.text(self.raw),
                plain: self.raw.meta & PLAIN != 0,
            }),
        }
    }

    pub(crate) fn as_mapping(&self) -> Option<Mapping<'t>> {
        match self.kind() {
            NodeKind::Mapping(entries) => Some(entries),
            _ => None,
        }
    }

    pub(crate) fn as_sequence(&self) -> Option<Sequence<'t>> {
        match self.kind() {
            NodeKind::Sequence(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_scalar(&self) -> Option<Scalar<'t>> {
        match self.kind() {
            NodeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        // The core schema's nulls, without resolving the other forms.
        self.as_scalar()
            .is_some_and(|s| s.plain && scalar::is_core_null(s.text))
    }

    /// A short name for the node's YAML type, for messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match self.kind() {
            NodeKind::Mapping(_) => "a mapping",
            NodeKind::Sequence(_) => "a list",
            NodeKind::Scalar(s) => match s.resolve() {
                Resolved::Null => "null",
                Resolved::Bool(_) => "a boolean",
                Resolved::Int(_) => "an integer",
                Resolved::Float(_) => "a number",
                Resolved::Str(_) => "a string",
            },
        }
    }
}

/// The spans of every quoted and block scalar, sorted by start: where a
/// `#` is text rather than a comment. Iterative, like the builder.
pub(crate) fn string_spans(root: Node<'_>) -> Vec<Span> {
    let mut spans = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.kind() {
            NodeKind::Scalar(scalar) if !scalar.plain => spans.push(node.span),
            NodeKind::Scalar(_) => {}
            NodeKind::Sequence(items) => stack.extend(items.iter()),
            NodeKind::Mapping(entries) => stack.extend(entries.iter().map(|e| e.value)),
        }
    }
    spans.sort_unstable_by_key(|s| s.start);
    spans.dedup();
    spans
}

#[cfg(test)]
mod tests;
