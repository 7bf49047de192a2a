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

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError};

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
    pub max_bytes: usize,
    pub max_depth: usize,
    /// Nodes that alias expansion may copy in total ("billion laughs").
    pub max_alias_nodes: usize,
    /// Nodes in the tree: every key, value and collection (an alias counts
    /// as one). Each costs 16 bytes here and more in whatever reads it.
    pub max_nodes: usize,
}

/// The most YAML nodes (keys, values, collections) a document may have.
/// A generated contract of realistic shape at the 32 MiB size bound has
/// about 2.2 million; a file of `[a,a,a,…]` would have 16 million.
pub const MAX_NODES: usize = 3_000_000;

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

    /// How many nodes the arena holds (the root not counted).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The node written at `span`, found by descending from the root
    /// through the collections that contain it.
    pub fn node_at(&self, span: Span) -> Option<Node<'_>> {
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

/// A scalar's text as the parser read it (quotes, escapes and folding
/// resolved), and whether it was plain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scalar<'a> {
    pub text: &'a str,
    /// Plain scalars are subject to YAML 1.2 core-schema resolution
    /// (`null`, `true`, `12`); quoted and block scalars are always strings.
    pub plain: bool,
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

    pub fn get(&self, index: usize) -> Option<Entry<'t>> {
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
    pub fn get_key(&self, key: &str) -> Option<Node<'t>> {
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

    pub fn get(&self, index: usize) -> Option<Node<'t>> {
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

/// A scalar after core-schema resolution.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
}

impl<'a> Scalar<'a> {
    pub fn resolve(&self) -> Resolved<'a> {
        if !self.plain {
            return Resolved::Str(self.text);
        }
        let t = self.text;
        match t {
            "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
            "true" | "True" | "TRUE" => return Resolved::Bool(true),
            "false" | "False" | "FALSE" => return Resolved::Bool(false),
            ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
                return Resolved::Float(f64::INFINITY);
            }
            "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
            ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
            _ => {}
        }
        if let Some(int) = parse_core_int(t) {
            return Resolved::Int(int);
        }
        if looks_like_core_float(t)
            && let Ok(f) = t.parse::<f64>()
        {
            return Resolved::Float(f);
        }
        Resolved::Str(t)
    }
}

fn parse_core_int(t: &str) -> Option<i64> {
    if let Some(hex) = t.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    if let Some(oct) = t.strip_prefix("0o") {
        return i64::from_str_radix(oct, 8).ok();
    }
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<i64>().ok()
}

/// YAML 1.2 core float: `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
fn looks_like_core_float(t: &str) -> bool {
    let s = t.strip_prefix(['-', '+']).unwrap_or(t);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (mantissa, None),
    };
    let all_digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match frac_part {
        Some(frac) => {
            all_digits(int_part) && all_digits(frac) && !(int_part.is_empty() && frac.is_empty())
        }
        None => !int_part.is_empty() && all_digits(int_part),
    };
    let exponent_ok = match exponent {
        Some(e) => {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && all_digits(e)
        }
        None => true,
    };
    mantissa_ok && exponent_ok && (frac_part.is_some() || exponent.is_some())
}

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

    pub fn as_mapping(&self) -> Option<Mapping<'t>> {
        match self.kind() {
            NodeKind::Mapping(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn as_sequence(&self) -> Option<Sequence<'t>> {
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

    pub fn is_null(&self) -> bool {
        matches!(self.as_scalar().map(|s| s.resolve()), Some(Resolved::Null))
    }

    /// A short name for the node's YAML type, for messages.
    pub fn type_name(&self) -> &'static str {
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
pub fn string_spans(root: Node<'_>) -> Vec<Span> {
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

/// Why a document could not be turned into a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxError {
    /// The YAML parser rejected the input (E001).
    Yaml { message: String, offset: usize },
    /// Valid YAML that phaselint cannot load as a contract (E007).
    Unloadable { message: String, span: Span },
}

/// Converts saphyr's character indices to byte offsets: the byte offset of
/// every 1024th character, and a cursor, since the parser's positions
/// mostly move forward (a table entry per character cost 4 bytes each, 128
/// MiB for a 32 MiB file with one accented letter).
struct OffsetMap<'s> {
    source: &'s [u8],
    /// Empty when the source is ASCII (characters and bytes coincide).
    checkpoints: Vec<u32>,
    chars: usize,
    /// The last character index asked for and its byte offset.
    cursor: (usize, usize),
}

const CHECKPOINT_EVERY: usize = 1024;

impl<'s> OffsetMap<'s> {
    fn new(source: &'s str) -> Self {
        let mut checkpoints = Vec::new();
        let mut chars = source.len();
        if !source.is_ascii() {
            chars = 0;
            for (b, _) in source.char_indices() {
                if chars.is_multiple_of(CHECKPOINT_EVERY) {
                    checkpoints.push(b as u32);
                }
                chars += 1;
            }
        }
        OffsetMap {
            source: source.as_bytes(),
            checkpoints,
            chars,
            cursor: (0, 0),
        }
    }

    fn byte(&mut self, char_index: usize) -> usize {
        if self.checkpoints.is_empty() {
            return char_index.min(self.source.len());
        }
        if char_index >= self.chars {
            return self.source.len();
        }
        let (mut c, mut b) = self.cursor;
        if !(c <= char_index && char_index - c < CHECKPOINT_EVERY) {
            let at = char_index / CHECKPOINT_EVERY;
            c = at * CHECKPOINT_EVERY;
            b = self.checkpoints[at] as usize;
        }
        while c < char_index {
            b += match self.source[b] {
                0..0xc0 => 1,
                0xc0..0xe0 => 2,
                0xe0..0xf0 => 3,
                _ => 4,
            };
            c += 1;
        }
        self.cursor = (c, b);
        b
    }

    fn span(&mut self, span: saphyr_parser::Span) -> Span {
        let start = self.byte(span.start.index());
        Span::new(start, self.byte(span.end.index()))
    }
}

struct Frame {
    start: usize,
    anchor: usize,
    mapping: bool,
    /// Where its children begin in the builder's `pending`.
    first: usize,
}

/// Where a scan error is shown: on the line the author is writing, which
/// is not always where the parser noticed. A flow collection left open
/// (`[a, b` or `{a: 1` being typed) is noticed lines later, where its
/// content stops making sense: the error is shown at its opening bracket,
/// the innermost still open (`open` lists the open collections' starts,
/// innermost first). A tab in the indentation is shown where the tab is,
/// not at the content after it. (A key without its colon is reported at
/// the key by the vendored scanner itself, also a first key that the next
/// line continues as one plain scalar, up to that line's `:`: see
/// vendor/saphyr-parser/PATCH.md.)
fn where_the_problem_is(
    source: &str,
    message: &str,
    offset: usize,
    mut open: impl Iterator<Item = usize>,
) -> usize {
    let offset = offset.min(source.len());
    let about_flow = ["flow sequence", "flow mapping", "flow construct"]
        .iter()
        .any(|m| message.contains(m))
        // A line less indented than the block around an open `[`.
        || message == "invalid indentation";
    // Nothing nests in a flow collection but flow collections, so the
    // innermost open collection tells whether the scanner was in one.
    if about_flow
        && let Some(start) = open.next()
        && start < offset
        && matches!(source.as_bytes().get(start), Some(b'[' | b'{'))
    {
        return start;
    }
    if message.contains("plain scalar, found a tab") {
        // Reported at the scalar's start; the tab indents a line it
        // continues on, the first whose indentation holds one and that
        // is not blank (blank lines may hold tabs).
        let mut line_start = source[offset..].find('\n').map(|i| offset + i + 1);
        while let Some(start) = line_start {
            let line = source[start..].split('\n').next().unwrap_or_default();
            let indentation = line.len() - line.trim_start_matches([' ', '\t']).len();
            let blank = line[indentation..].trim_end_matches('\r').is_empty();
            if let Some(tab) = line[..indentation].find('\t')
                && !blank
            {
                return start + tab;
            }
            line_start = source[start..].find('\n').map(|i| start + i + 1);
        }
        return offset;
    }
    if message.contains("tab") {
        let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
        let indentation = &source[line_start..offset];
        if indentation.bytes().all(|b| b == b' ' || b == b'\t')
            && let Some(tab) = indentation.find('\t')
        {
            return line_start + tab;
        }
    }
    offset
}

/// A double-quoted scalar may run over several lines, so a `"` left
/// unclosed while typing takes everything up to the next `"` in the file,
/// and the scanner complains only there, about what follows it. When that
/// scalar opened on an earlier line, its opening quote is where the author
/// is most likely typing: the position of that quote.
fn unclosed_double_quote(source: &str, message: &str, offset: usize) -> Option<usize> {
    if !message.contains("after double-quoted scalar") {
        return None;
    }
    let bytes = source.as_bytes();
    let escaped = |at: usize| {
        let backslashes = bytes[..at]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        backslashes % 2 == 1
    };
    // The scalar's closing quote is the last unescaped `"` before the
    // trailing content; inside a double-quoted scalar every `"` is escaped,
    // so the unescaped one before it opened the scalar.
    let before = &source[..offset.min(source.len())];
    let closing = (0..before.len())
        .rev()
        .find(|&at| bytes[at] == b'"' && !escaped(at))?;
    let opening = (0..closing)
        .rev()
        .find(|&at| bytes[at] == b'"' && !escaped(at))?;
    source[opening..closing].contains('\n').then_some(opening)
}

fn line_number(source: &str, offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &source.as_bytes()[..offset.min(source.len())]).count() + 1
}

/// Where a quoted scalar really ends: just after its closing quote. The
/// parser's span runs on over the blanks and the comment after it (`"docs"
/// # phaselint: disable=R104`), which would hide that comment from the
/// suppressions and make an edit of the value delete it. Inside a
/// double-quoted scalar every `"` but the last is escaped; inside a
/// single-quoted one every `'` but the last is doubled. The span may start
/// at an anchor or tag written before the opening quote.
fn closing_quote_end(source: &str, span: Span, style: ScalarStyle) -> usize {
    let quote = if style == ScalarStyle::DoubleQuoted {
        b'"'
    } else {
        b'\''
    };
    let bytes = &source.as_bytes()[span.start.min(source.len())..span.end.min(source.len())];
    // Past the anchor and tag, whose names may hold a quote character.
    let mut opening = 0;
    while matches!(bytes.get(opening), Some(b'&' | b'!')) {
        while bytes.get(opening).is_some_and(|b| !b.is_ascii_whitespace()) {
            opening += 1;
        }
        while bytes.get(opening).is_some_and(u8::is_ascii_whitespace) {
            opening += 1;
        }
    }
    if bytes.get(opening) != Some(&quote) {
        return span.end;
    }
    let mut at = opening + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' if quote == b'"' => at += 2,
            b'\'' if quote == b'\'' && bytes.get(at + 1) == Some(&b'\'') => at += 2,
            b if b == quote => return span.start + at + 1,
            _ => at += 1,
        }
    }
    span.end
}

/// Parses one YAML document into a spanned tree.
///
/// Returns `Ok(None)` for an empty document (no content at all).
pub fn parse(source: &str, limits: Limits) -> Result<Option<Tree<'_>>, SyntaxError> {
    if source.len() > limits.max_bytes || source.len() >= (LEN_MASK as usize) {
        return Err(SyntaxError::Unloadable {
            message: crate::input::oversized(Some(source.len() as u64), limits.max_bytes as u64),
            span: Span::empty(0),
        });
    }
    // saphyr reads NUL as the end of the input and then reports a confusing
    // "unexpected end of stream" far from the cause; YAML forbids it anyway.
    if let Some(offset) = source.find('\0') {
        return Err(SyntaxError::Yaml {
            message: "a NUL byte (U+0000) is not allowed in YAML; is this a binary file?"
                .to_string(),
            offset,
        });
    }
    let mut offsets = OffsetMap::new(source);
    let mut parser = Parser::new_from_str(source);
    let mut nodes: Vec<Raw> = Vec::new();
    let mut texts = String::new();
    // The finished children of the open collections, innermost last; a
    // collection's run moves to `nodes` when it closes.
    let mut pending: Vec<Raw> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: Vec<(usize, Raw, usize)> = Vec::new();
    let mut alias_budget = limits.max_alias_nodes;
    let mut root: Option<Raw> = None;
    let mut documents = 0usize;
    let mut count = 0usize;

    while let Some(event) = parser.next_event() {
        let (event, raw_span) = event.map_err(|e: ScanError| {
            let offset = offsets.byte(e.marker().index());
            // The scanner has a nesting limit of its own for flow collections.
            if e.info().contains("recursion limit") {
                SyntaxError::Unloadable {
                    message: format!("nesting is deeper than {} levels", limits.max_depth),
                    span: Span::empty(offset),
                }
            } else if let Some(opening) = unclosed_double_quote(source, e.info(), offset) {
                SyntaxError::Yaml {
                    message: format!(
                        "a double-quoted value opened here is closed only on line {} \
                         (a closing `\"` missing here?); what follows that quote is \
                         not valid YAML",
                        line_number(source, offset)
                    ),
                    offset: opening,
                }
            } else {
                let open = stack.iter().rev().map(|frame| frame.start);
                SyntaxError::Yaml {
                    message: e.info().to_string(),
                    offset: where_the_problem_is(source, e.info(), offset, open),
                }
            }
        })?;
        let span = offsets.span(raw_span);
        let completed = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => None,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(SyntaxError::Unloadable {
                        message: "expected one YAML document, but this file has several (separated by `---`)"
                            .into(),
                        span,
                    });
                }
                None
            }
            Event::Scalar(text, style, anchor, _tag) => {
                // An implicit null (`b:` with nothing after it) is written
                // nowhere; the parser gives it the next token's span.
                let span = match style {
                    ScalarStyle::Plain if text.is_empty() => Span::empty(span.start),
                    ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                        Span::new(span.start, closing_quote_end(source, span, style))
                    }
                    _ => span,
                };
                let plain = style == ScalarStyle::Plain;
                let (data, copied) = match text_in_source(source, span, &text, plain) {
                    Some(at) => (at, 0),
                    None => {
                        let at = texts.len();
                        texts.push_str(&text);
                        (at, COPIED)
                    }
                };
                let raw = Raw {
                    start: span.start as u32,
                    end: span.end as u32,
                    data: data as u32,
                    meta: (KIND_SCALAR << KIND_SHIFT)
                        | if plain { PLAIN } else { 0 }
                        | copied
                        | text.len() as u32,
                };
                Some((raw, anchor))
            }
            Event::Alias(id) => {
                let Some(&(_, raw, size)) = anchors.iter().rev().find(|(a, _, _)| *a == id) else {
                    return Err(SyntaxError::Yaml {
                        message: "alias refers to an unknown anchor".into(),
                        offset: span.start,
                    });
                };
                if size > alias_budget {
                    return Err(SyntaxError::Unloadable {
                        message: format!(
                            "YAML aliases expand to more than {} nodes",
                            limits.max_alias_nodes
                        ),
                        span,
                    });
                }
                alias_budget -= size;
                Some((raw.with_span(span), 0))
            }
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                if let Some(frame) = stack.last()
                    && frame.mapping
                    && (pending.len() - frame.first).is_multiple_of(2)
                {
                    return Err(SyntaxError::Unloadable {
                        message: "mapping keys must be plain strings, not collections".into(),
                        span,
                    });
                }
                if stack.len() >= limits.max_depth {
                    return Err(SyntaxError::Unloadable {
                        message: format!("nesting is deeper than {} levels", limits.max_depth),
                        span,
                    });
                }
                stack.push(Frame {
                    start: span.start,
                    anchor,
                    mapping: matches!(event, Event::MappingStart(..)),
                    first: pending.len(),
                });
                None
            }
            Event::MappingEnd | Event::SequenceEnd => match stack.pop() {
                Some(frame) => {
                    debug_assert!(
                        !frame.mapping || (pending.len() - frame.first).is_multiple_of(2)
                    );
                    let children = &pending[frame.first..];
                    let end = children.last().map_or(span.end, |n| n.end as usize);
                    let end = end.max(span.end.min(source.len())).max(frame.start);
                    let end = collection_end(source, frame.start, end);
                    let first = nodes.len();
                    nodes.extend_from_slice(children);
                    let len = children.len();
                    pending.truncate(frame.first);
                    let kind = if frame.mapping {
                        KIND_MAPPING
                    } else {
                        KIND_SEQUENCE
                    };
                    Some((
                        Raw {
                            start: frame.start as u32,
                            end: end as u32,
                            data: first as u32,
                            meta: (kind << KIND_SHIFT) | len as u32,
                        },
                        frame.anchor,
                    ))
                }
                None => None,
            },
        };
        let Some((raw, anchor)) = completed else {
            continue;
        };
        count += 1;
        if count > limits.max_nodes {
            return Err(SyntaxError::Unloadable {
                message: format!(
                    "the file has more than {} YAML nodes (keys, values and collections)",
                    limits.max_nodes
                ),
                span: raw.span(),
            });
        }
        if anchor != 0 {
            let size = subtree_size(&nodes, raw);
            anchors.push((anchor, raw, size));
        }
        match stack.last() {
            None => root = Some(raw),
            Some(frame) => {
                if frame.mapping
                    && (pending.len() - frame.first).is_multiple_of(2)
                    && raw.kind() != KIND_SCALAR
                {
                    return Err(SyntaxError::Unloadable {
                        message: "mapping keys must be plain strings, not collections".into(),
                        span: raw.span(),
                    });
                }
                pending.push(raw);
            }
        }
    }
    drop(pending);
    nodes.shrink_to_fit();
    texts.shrink_to_fit();
    Ok(root.map(|root| Tree {
        source,
        nodes,
        texts,
        root,
    }))
}

/// Where `text`, the scalar at `span`, is written verbatim in the source:
/// a plain scalar on one line, a quoted one without escapes or folding.
fn text_in_source(source: &str, span: Span, text: &str, plain: bool) -> Option<usize> {
    let written = source.get(span.start..span.end)?;
    if plain {
        return (written == text).then_some(span.start);
    }
    let inner = written
        .strip_prefix(['\'', '"'])
        .and_then(|w| w.strip_suffix(['\'', '"']))?;
    (inner == text).then_some(span.start + 1)
}

/// The nodes under `raw`, itself included, as alias expansion counts them
/// (a mapping entry counts once for its key).
fn subtree_size(nodes: &[Raw], raw: Raw) -> usize {
    let mut size = 0;
    let mut stack = vec![raw];
    while let Some(raw) = stack.pop() {
        size += 1;
        if raw.kind() != KIND_SCALAR {
            let first = raw.data as usize;
            if let Some(children) = nodes.get(first..first + raw.len()) {
                stack.extend_from_slice(children);
            }
        }
    }
    size
}

/// Block collections end where the parser saw the next token, which may lie
/// after trailing comments and blank lines; trim those so a collection's
/// span ends at its last character of content.
fn collection_end(source: &str, start: usize, end: usize) -> usize {
    let bytes = source.as_bytes();
    let mut end = end.min(bytes.len());
    while end > start && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(src: &str) -> Tree<'_> {
        match parse(src, Limits::default()) {
            Ok(Some(tree)) => tree,
            other => panic!("unexpected parse result: {other:?}"),
        }
    }

    #[test]
    fn spans_are_byte_offsets_even_after_non_ascii_text() {
        let src = "a: \"héllo\"\nb: wörld\n";
        let tree = parse_ok(src);
        let root = tree.root();
        let entries = root.as_mapping().unwrap();
        let b = entries.get(1).unwrap();
        assert_eq!(&src[b.key.span.start..b.key.span.end], "b");
        assert_eq!(&src[b.value.span.start..b.value.span.end], "wörld");
        let a = entries.get(0).unwrap();
        assert_eq!(&src[a.value.span.start..a.value.span.end], "\"héllo\"");
    }

    #[test]
    fn a_quoted_scalar_ends_at_its_closing_quote() {
        let src = "a: \"docs\" # phaselint: disable=R104\nb: 'it''s'   # c\nc: { d: \"x\\\"y\" , e: 'z' }\nf: &g\"x !!str \"h\" # i\nj: \"k\n  l\" # m\n";
        let tree = parse_ok(src);
        let root = tree.root();
        let entries = root.as_mapping().unwrap();
        let text = |node: Node<'_>| &src[node.span.start..node.span.end];
        assert_eq!(text(entries.get(0).unwrap().value), "\"docs\"");
        assert_eq!(text(entries.get(1).unwrap().value), "'it''s'");
        let flow = entries.get(2).unwrap().value.as_mapping().unwrap();
        assert_eq!(text(flow.get(0).unwrap().value), "\"x\\\"y\"");
        assert_eq!(text(flow.get(1).unwrap().value), "'z'");
        assert_eq!(text(entries.get(3).unwrap().value), "&g\"x !!str \"h\"");
        assert_eq!(text(entries.get(4).unwrap().value), "\"k\n  l\"");
    }

    #[test]
    fn implicit_nulls_have_empty_spans() {
        let src = "phases: { ... }\nb:\nc: 1\n";
        let tree = parse_ok(src);
        let root = tree.root();
        let entries = root.as_mapping().unwrap();
        let inner = entries.get(0).unwrap().value.as_mapping().unwrap();
        let null = inner.get(0).unwrap().value;
        assert!(null.is_null());
        assert_eq!(null.span.start, null.span.end, "{:?}", null.span);
        let b = entries.get(1).unwrap().value;
        assert!(b.is_null());
        assert_eq!(b.span.start, b.span.end, "{:?}", b.span);
    }

    #[test]
    fn duplicate_keys_are_kept() {
        let tree = parse_ok("a: 1\na: 2\n");
        let root = tree.root();
        assert_eq!(root.as_mapping().unwrap().len(), 2);
    }

    #[test]
    fn core_schema_resolution() {
        let tree = parse_ok("a: ~\nb: TRUE\nc: 12\nd: 1.5\ne: 0.4.0\nf: '12'\ng: 1e3\n");
        let root = tree.root();
        let got: Vec<String> = root
            .as_mapping()
            .unwrap()
            .iter()
            .map(|e| format!("{:?}", e.value.as_scalar().unwrap().resolve()))
            .collect();
        assert_eq!(
            got,
            [
                "Null",
                "Bool(true)",
                "Int(12)",
                "Float(1.5)",
                "Str(\"0.4.0\")",
                "Str(\"12\")",
                "Float(1000.0)"
            ]
        );
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let src = format!("a: {}{}", "[".repeat(10_000), "]".repeat(10_000));
        let result = parse(&src, Limits::default());
        assert!(
            matches!(result, Err(SyntaxError::Unloadable { .. })),
            "{result:?}"
        );
    }

    #[test]
    fn alias_bombs_are_bounded() {
        let mut src = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let prev = i - 1;
            src.push_str(&format!(
                "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
            ));
        }
        assert!(matches!(
            parse(&src, Limits::default()),
            Err(SyntaxError::Unloadable { .. })
        ));
    }

    #[test]
    fn syntax_errors_carry_an_offset() {
        let err = parse("a: [1, 2\nb: 3\n", Limits::default()).unwrap_err();
        assert!(matches!(err, SyntaxError::Yaml { .. }));
    }

    /// The 1-based line and column of the syntax error in `src`.
    fn error_at(src: &str) -> (usize, usize) {
        let Err(SyntaxError::Yaml { offset, .. }) = parse(src, Limits::default()) else {
            panic!("expected a YAML syntax error in {src:?}");
        };
        let before = &src[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        (line, column)
    }

    #[test]
    fn a_key_without_its_colon_is_reported_on_its_own_line() {
        // At the end of a mapping, followed by a shallower key.
        assert_eq!(error_at("a:\n  b: 1\n  sever\nd: 3\n"), (3, 3));
        // In the middle of a mapping.
        assert_eq!(error_at("a:\n  b: 1\n  sever\n  c: 2\nd: 3\n"), (3, 3));
        // The last line of the file, with and without its line break.
        assert_eq!(error_at("a:\n  b: 1\n  sever\n"), (3, 3));
        assert_eq!(error_at("a:\n  b: 1\n  sever"), (3, 3));
        // Inside a list item, before the next item and at the end.
        assert_eq!(
            error_at("phases:\n  - id: a\n    descr\n  - id: b\n"),
            (3, 5)
        );
        assert_eq!(error_at("phases:\n  - id: a\n    descr\n"), (3, 5));
        // Comments and blank lines between the key and what follows.
        assert_eq!(
            error_at("a:\n  b: 1\n  sever\n\n  # note\n  c: 2\n"),
            (3, 3)
        );
        // A key written over two lines is reported where it starts.
        assert_eq!(error_at("a:\n  b: 1\n  sever\n   more\n  c: 2\n"), (3, 3));
    }

    #[test]
    fn a_first_key_without_its_colon_is_reported_on_its_own_line() {
        // The first key of a list item runs on into the next line's key:
        // the scanner sees one plain scalar and stops at the later `:`.
        let item = "a:\n  required:\n    - nam\n      severity: blocking\n";
        assert_eq!(error_at(item), (3, 7));
        let Err(SyntaxError::Yaml { message, .. }) = parse(item, Limits::default()) else {
            panic!("expected a syntax error");
        };
        assert!(message.contains("runs on to line 4"), "{message}");
        // The first key of a mapping.
        assert_eq!(error_at("phases:\n  a:\n    descr\n    exit: {}\n"), (3, 5));
        // Blank lines in between, and a scalar over three lines.
        assert_eq!(error_at("a:\n  - nam\n\n    more\n    b: 1\n"), (2, 5));
        // A stray `:` inside a plain value on one line stays where the
        // parser stopped, on that line.
        let (line, _) = error_at("a:\n  description: a: b\n  c: 1\n");
        assert_eq!(line, 2);
        let (line, _) = error_at("a:\n  - nam\n  - b: x: y\n");
        assert_eq!(line, 3);
        // A value after `key: ` cannot be a key: a `:` on a line it runs
        // on to stays where the parser stopped.
        assert_eq!(error_at("a:\n  b: long\n   text: x\n"), (3, 8));
    }

    #[test]
    fn an_unclosed_flow_collection_is_reported_at_its_bracket() {
        assert_eq!(error_at("a:\n  b: [1, 2\n  c: 3\nd: 4\n"), (2, 6));
        assert_eq!(error_at("a:\n  b: {x: 1\n  c: 3\nd: 4\n"), (2, 6));
        assert_eq!(error_at("a:\n  b: [1, 2\n"), (2, 6));
        assert_eq!(error_at("a:\n  b: {x: 1\n"), (2, 6));
        // Followed by a line at the same or a shallower indentation.
        assert_eq!(error_at("a:\n  b: [1, 2\n  c: 3\n"), (2, 6));
        assert_eq!(error_at("a:\n  b: [1, 2\nc: 3\n"), (2, 6));
        // The innermost one still open.
        assert_eq!(error_at("a: [1, [2, {x: 3}, [4\nb: 5\n"), (1, 20));
    }

    #[test]
    fn an_unclosed_quote_is_reported_at_the_quote() {
        assert_eq!(error_at("a:\n  b: 'abc\n  c: 3\nd: 4\n"), (2, 6));
        assert_eq!(error_at("a:\n  b: \"abc\n  c: 3\nd: 4\n"), (2, 6));
        assert_eq!(error_at("a:\n  b: 'abc\n"), (2, 6));
        assert_eq!(error_at("a:\n  b: \"abc\n"), (2, 6));
        assert_eq!(error_at("a:\n  b: \"abc"), (2, 6));
        // A later line's `"` closes the value: the complaint about what
        // follows it is shown at the quote left open, not lines later.
        let typed = "a:\n  b: \"abc \\\" d\n    c: \"x\" and more\n  d: \"z\"\n";
        assert_eq!(error_at(typed), (2, 6));
        let Err(SyntaxError::Yaml { message, .. }) = parse(typed, Limits::default()) else {
            panic!("expected a syntax error");
        };
        assert!(message.contains("closed only on line 3"), "{message}");
        // Trailing content after a quoted value on its own line stays there.
        assert_eq!(error_at("a:\n  b: \"abc\" x\n"), (2, 12));
    }

    #[test]
    fn a_tab_in_the_indentation_is_reported_at_the_tab() {
        assert_eq!(error_at("a:\n\tb: 1\n"), (2, 1));
        assert_eq!(error_at("a:\n  b:\n  \t c: 1\n"), (3, 3));
        // A tab that would indent the next line of a plain value.
        assert_eq!(error_at("a:\n  b: int\n\t  c: 1\n"), (3, 1));
        assert_eq!(error_at("a:\n  b: int\n   more\n \t\n  \t c: 1\n"), (5, 3));
    }

    #[test]
    fn multiple_documents_are_refused() {
        assert!(matches!(
            parse("a: 1\n---\nb: 2\n", Limits::default()),
            Err(SyntaxError::Unloadable { .. })
        ));
    }
}
