//! The shape of a contract, as `format.rs` declares it: one walk over the
//! spanned tree that builds the model and reports every schema problem at
//! once, as pydantic lists them all. Anything malformed is left out of the
//! model, so later rules never see it and stay silent (no cascades).

use std::collections::HashMap;
use std::fmt;

use crate::config::Dialect;
use crate::diagnostic::Diagnostic;
use crate::field_path::FieldPath;
use crate::findings::Findings;
use crate::model::*;
use crate::rules::schema::{
    e002_duplicate_key, e003_unknown_key, e004_wrong_type, e005_missing_required_key,
    e006_invalid_enum_value, s002_non_canonical_case,
};
use crate::syntax::{Entry, Mapping as YamlMapping, Node, NodeKind, Resolved, Sequence, Span};

use crate::format::{
    AUTHORIZATION, CHAIN, CHECKPOINT, CYCLE_INVARIANT, EDGE, ENDPOINT, ENTRY, EVALUATION, EXIT,
    FIELD, HARNESS_CHECKPOINT_TYPE, HARNESS_CHECKPOINTS, HARNESS_ROOT, MERGE_POINT, Mapping,
    ON_RESUME, PHASE, QUALITY, ROOT, STALENESS, TOPOLOGY, TOPOLOGY_NODE, ValueType,
};

/// How much of a key a path shows.
const SHOWN_KEY_CHARS: usize = 64;

/// Where a value sits, rendered only when a message needs it.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    /// The root of a harness config.
    HarnessRoot,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }

    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root | Path::HarnessRoot => Ok(()),
            Path::Key(parent, key) => {
                if !matches!(parent, Path::Root | Path::HarnessRoot) {
                    parent.write(f)?;
                    f.write_str(".")?;
                }
                // A long key is shown by its start: a path is rendered into
                // every message about what lies under it.
                let key: std::borrow::Cow<'_, str> = match key.char_indices().nth(SHOWN_KEY_CHARS) {
                    Some((cut, _)) => format!("{}…", &key[..cut]).into(),
                    None => (*key).into(),
                };
                // Keys that would read as path syntax are quoted: `phases."..."`.
                if !key.is_empty()
                    && key
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
                {
                    write!(f, "{key}")
                } else {
                    write!(f, "{key:?}")
                }
            }
            Path::Index(parent, index) => {
                parent.write(f)?;
                write!(f, "[{index}]")
            }
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => f.write_str("the contract root"),
            Path::HarnessRoot => f.write_str("the harness config's root"),
            _ => {
                f.write_str("`")?;
                self.write(f)?;
                f.write_str("`")
            }
        }
    }
}

/// The known keys of one mapping, the last occurrence of each (as YAML
/// loaders keep it).
struct Keys<'n> {
    spec: &'static Mapping,
    found: Vec<(&'static str, Entry<'n>)>,
}

impl<'n> Keys<'n> {
    /// The table is the one source of truth: a builder that reads a key
    /// the table lacks, or as another type than the table declares, is a
    /// bug that every test with that key catches.
    fn declared(&self, key: &str, reads_as: fn(&ValueType) -> bool) {
        let declared = self.spec.key(key).map(|k| &k.value);
        debug_assert!(
            declared.is_some_and(reads_as),
            "`{}.{key}` is read as another type than the format table's {declared:?}",
            self.spec.name,
        );
    }

    /// The type the table declares for `key`: what the builder reads it as.
    fn declared_type(&self, key: &str) -> Option<&'static ValueType> {
        self.spec.key(key).map(|k| &k.value)
    }

    fn entry(&self, key: &str) -> Option<Entry<'n>> {
        debug_assert!(
            self.spec.key(key).is_some(),
            "`{}.{key}` is read but not in the format table",
            self.spec.name
        );
        self.found
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, e)| *e)
    }

    fn value(&self, key: &str) -> Option<Node<'n>> {
        self.entry(key).map(|e| e.value)
    }

    /// The value, unless it is absent or an explicit null (pydantic's
    /// `Optional[...] = None` accepts both).
    fn present(&self, key: &str) -> Option<Node<'n>> {
        self.value(key).filter(|n| !n.is_null())
    }
}

pub(crate) struct Walker<'s, 'f> {
    source: &'s str,
    dialect: Dialect,
    /// The document is JSON: helps say how to write JSON, not YAML.
    json: bool,
    findings: &'f mut Findings<'s>,
    /// What the model built so far takes in memory, estimated as it is
    /// built; past `MAX_MODEL_BYTES` nothing more is built.
    model_bytes: usize,
    over_budget: bool,
}

/// What a string of `len` bytes takes on the heap.
fn heap(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        len.div_ceil(16) * 16 + 16
    }
}

/// Reads a harness config with the same walker: E002, E004 and E005 from
/// the harness tables, whose mappings are open.
pub(crate) fn build_harness<'s>(
    root: Node<'_>,
    source: &'s str,
    findings: &mut Findings<'s>,
) -> HarnessConfig {
    let mut walker = Walker {
        source,
        dialect: Dialect::Phaselint,
        json: crate::DocumentKind::Harness.is_json(source),
        findings,
        model_bytes: 0,
        over_budget: false,
    };
    walker.harness(root)
}

/// The contract's model, and whether it stayed within `MAX_MODEL_BYTES`
/// (an E007 says so when it did not, and the model is partial).
pub(crate) fn build<'s>(
    root: Node<'_>,
    source: &'s str,
    dialect: Dialect,
    findings: &mut Findings<'s>,
) -> (Contract, bool) {
    let mut walker = Walker {
        source,
        dialect,
        json: false,
        findings,
        model_bytes: 0,
        over_budget: false,
    };
    let contract = walker.contract(root);
    (contract, !walker.over_budget)
}

impl Walker<'_, '_> {
    fn report(&mut self, diagnostic: Diagnostic) {
        self.findings.push(diagnostic);
    }

    /// Counts `bytes` more of model; false (and an E007, the first time)
    /// when that is past `MAX_MODEL_BYTES`: the caller builds nothing.
    fn charge(&mut self, bytes: usize, at: Span) -> bool {
        if self.over_budget {
            return false;
        }
        self.model_bytes += bytes;
        if self.model_bytes <= crate::MAX_MODEL_BYTES {
            return true;
        }
        self.over_budget = true;
        self.report(crate::rules::schema::e007_unloadable_document::diagnostic(
            at,
            &format!(
                "what it declares would take more than {} MiB in memory once read (phaselint reads no further than this)",
                crate::MAX_MODEL_BYTES / (1024 * 1024)
            ),
            crate::DocumentKind::Contract.noun(),
        )
        .with_help("split the pipeline into several contracts, or keep long texts (descriptions) out of it"));
        false
    }

    /// The first line of a node, for findings about a whole mapping.
    fn first_line(&self, span: Span) -> Span {
        let start = span.start.min(self.source.len());
        // A one-line flow mapping ends before the line does: look no
        // further than the node (a line of a million `{}` would otherwise
        // be scanned to its end for each of them).
        let end = if span.end > start {
            span.end.min(self.source.len())
        } else {
            self.source.len()
        };
        let within = &self.source.as_bytes()[start..end];
        let line_end = start + memchr::memchr2(b'\n', b'\r', within).unwrap_or(within.len());
        Span::new(start, line_end)
    }

    fn wrong_type(&mut self, node: Node<'_>, path: &Path<'_>, expected: &str) {
        self.wrong_type_under(node, None, path, expected);
    }

    /// A wrong type where the value is written; where nothing is written
    /// (an implicit null: `phases: { ... }`, `pipeline_id:`), at the key.
    fn wrong_type_under(
        &mut self,
        node: Node<'_>,
        key: Option<Span>,
        path: &Path<'_>,
        expected: &str,
    ) {
        let implicit_null = node.is_null() && node.span.start == node.span.end;
        let span = match key {
            Some(key) if implicit_null => key,
            _ if node.as_scalar().is_some() => node.span,
            _ => self.first_line(node.span),
        };
        self.report(e004_wrong_type::diagnostic(
            span,
            &path.to_string(),
            expected,
            node.type_name(),
            self.json,
        ));
    }

    /// A mapping of the format: reports its duplicate keys (E002), unknown
    /// keys (E003, with a rename to the likeliest key) and missing required
    /// keys (E005), all from the format's table.
    fn mapping<'n>(
        &mut self,
        node: Node<'n>,
        path: &Path<'_>,
        spec: &'static Mapping,
    ) -> Option<Keys<'n>> {
        let Some(entries) = node.as_mapping() else {
            self.wrong_type(node, path, "a mapping");
            return None;
        };
        let dialect = self.dialect;
        // Only an unknown key's message needs the list, so build it then.
        let valid = || -> Vec<&'static str> {
            spec.keys
                .iter()
                .filter(|k| !k.extension || dialect == Dialect::Phaselint)
                .map(|k| k.name)
                .collect()
        };
        // The last occurrence of each known key (a mapping may repeat a key
        // a million times: each is E002's, and only the last counts).
        let mut found: Vec<(&'static str, Entry<'n>)> = Vec::new();
        let mut unknown = 0usize;
        self.report_duplicates(entries, path);
        for entry in entries {
            match spec.key(entry.key.text) {
                None if spec.open => {}
                Some(key) => {
                    if key.extension && self.dialect == Dialect::Contextcore {
                        self.report(e003_unknown_key::extension_in_contextcore_dialect(
                            key.name,
                            entry.key.span,
                            &path.to_string(),
                        ));
                    }
                    match found.iter_mut().find(|(name, _)| *name == key.name) {
                        Some(slot) => slot.1 = entry,
                        None => found.push((key.name, entry)),
                    }
                }
                None => unknown += 1,
            }
        }
        // An unknown key most likely means a key the mapping lacks: offer
        // those first (`max_age_second` for a missing `max_age_seconds`).
        let mut renamed: Vec<&'static str> = Vec::new();
        if unknown > 0 {
            let valid = valid();
            let help = e003_unknown_key::valid_keys_help(spec.name, &valid);
            let absent: Vec<&'static str> = valid
                .iter()
                .copied()
                .filter(|k| !found.iter().any(|(f, _)| f == k))
                .collect();
            for entry in entries.iter().filter(|e| spec.key(e.key.text).is_none()) {
                let suggestion = crate::suggest::closest(entry.key.text, absent.iter().copied())
                    .or_else(|| crate::suggest::closest(entry.key.text, valid.iter().copied()));
                if let Some(name) = suggestion
                    && !renamed.contains(&name)
                {
                    renamed.push(name);
                }
                self.report(e003_unknown_key::diagnostic(
                    self.source,
                    entry.key.text,
                    entry.key.span,
                    &path.to_string(),
                    suggestion,
                    help,
                ));
            }
        }
        // A missing key that an unknown one was suggested to become is
        // that E003's finding, not also an E005.
        for key in spec.keys.iter().filter(|k| k.required) {
            if found.iter().any(|(f, _)| *f == key.name) || renamed.contains(&key.name) {
                continue;
            }
            let first_line = self.first_line(node.span);
            self.report(e005_missing_required_key::diagnostic(
                first_line,
                &path.to_string(),
                key.name,
                self.json,
            ));
        }
        Some(Keys { spec, found })
    }

    fn report_duplicates(&mut self, entries: YamlMapping<'_>, path: &Path<'_>) {
        // Most mappings have a handful of keys: comparing with the earlier
        // ones is cheaper than hashing every key of every mapping.
        let mut first_seen: HashMap<&str, Span> = HashMap::new();
        for (i, entry) in entries.iter().enumerate() {
            let key = entry.key.text;
            let first = if entries.len() <= 16 {
                entries
                    .iter()
                    .take(i)
                    .find(|e| e.key.text == key)
                    .map(|e| e.key.span)
            } else {
                match first_seen.get(key) {
                    Some(&span) => Some(span),
                    None => {
                        first_seen.insert(key, entry.key.span);
                        None
                    }
                }
            };
            if let Some(first) = first {
                self.report(e002_duplicate_key::diagnostic(
                    key,
                    &path.to_string(),
                    first,
                    entry.key.span,
                    self.json,
                ));
            }
        }
    }

    fn string(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Spanned<String>> {
        match node.as_scalar().map(|s| s.resolve()) {
            Some(Resolved::Str(text)) => {
                if !self.charge(heap(text.len()), node.span) {
                    return None;
                }
                Some(Spanned::new(text.to_string(), node.span))
            }
            _ => {
                self.wrong_type(node, path, "a string");
                None
            }
        }
    }

    fn non_empty_string(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Spanned<String>> {
        let value = self.string(node, path)?;
        if value.value.trim().is_empty() {
            self.report(e004_wrong_type::invalid(
                value.span,
                &path.to_string(),
                "must not be empty",
            ));
            return None;
        }
        Some(value)
    }

    /// An optional text key, read as the table declares it.
    fn opt_string(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        path: &Path<'_>,
    ) -> Option<Spanned<String>> {
        let node = keys.present(key)?;
        self.text(keys, key, node, &path.key(key))
    }

    /// A text, read by the reader of the type the table declares for
    /// `key`: a `NonEmptyString` key (or a phase's name) is refused when
    /// empty or blank, a `String` key is not. The builder names the key, never the reader,
    /// so it cannot read a non-empty key as a plain string.
    fn text(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        node: Node<'_>,
        path: &Path<'_>,
    ) -> Option<Spanned<String>> {
        match keys.declared_type(key) {
            Some(ValueType::NonEmptyString | ValueType::PhaseName) => {
                self.non_empty_string(node, path)
            }
            declared => {
                debug_assert!(
                    matches!(declared, Some(ValueType::String)),
                    "`{}.{key}` is read as text, but the format table declares {declared:?}",
                    keys.spec.name
                );
                self.string(node, path)
            }
        }
    }

    /// A required text (a reason, a version).
    fn required_text(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        path: &Path<'_>,
    ) -> Option<Spanned<String>> {
        let entry = keys.entry(key)?;
        if entry.value.is_null() {
            self.wrong_type_under(
                entry.value,
                Some(entry.key.span),
                &path.key(key),
                "a string",
            );
            return None;
        }
        self.text(keys, key, entry.value, &path.key(key))
    }

    /// A required name (an id, a phase): a text of at most `MAX_NAME_BYTES`.
    fn required_string(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        path: &Path<'_>,
    ) -> Option<Spanned<String>> {
        let text = self.required_text(keys, key, path)?;
        self.within_name_bound(text, &path.key(key))
    }

    /// A name: a non-empty text of at most `MAX_NAME_BYTES`. Names are
    /// what messages quote, and a finding about each of a million fields
    /// would otherwise copy a long name a million times.
    fn name(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Spanned<String>> {
        let text = self.non_empty_string(node, path)?;
        self.within_name_bound(text, path)
    }

    fn within_name_bound(
        &mut self,
        text: Spanned<String>,
        path: &Path<'_>,
    ) -> Option<Spanned<String>> {
        if text.value.len() <= crate::MAX_NAME_BYTES {
            return Some(text);
        }
        self.long_name(text.span, text.value.len(), path);
        None
    }

    fn long_name(&mut self, span: Span, len: usize, path: &Path<'_>) {
        self.report(e004_wrong_type::invalid(
            span,
            &path.to_string(),
            &format!(
                "is a name of {len} bytes; a name is at most {} bytes",
                crate::MAX_NAME_BYTES
            ),
        ));
    }

    fn field_path(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Spanned<FieldPath>> {
        let name = self.name(node, path)?;
        if name.value.split('.').any(str::is_empty) {
            self.report(e004_wrong_type::invalid(
                name.span,
                &path.to_string(),
                "is not a valid dotted field name (empty segment)",
            ));
            return None;
        }
        // Names up to 24 bytes are kept inline, not on the heap.
        if name.value.len() <= 24 {
            self.model_bytes -= heap(name.value.len());
        }
        Some(Spanned::new(FieldPath::new(name.value), name.span))
    }

    fn bool(&mut self, keys: &Keys<'_>, key: &str, path: &Path<'_>) -> Option<Spanned<bool>> {
        keys.declared(key, |t| matches!(t, ValueType::Bool));
        let node = keys.present(key)?;
        match node.as_scalar().map(|s| s.resolve()) {
            Some(Resolved::Bool(b)) => Some(Spanned::new(b, node.span)),
            _ => {
                self.wrong_type(node, &path.key(key), "true or false");
                None
            }
        }
    }

    fn int(&mut self, keys: &Keys<'_>, key: &str, path: &Path<'_>) -> Option<Spanned<i64>> {
        keys.declared(key, |t| matches!(t, ValueType::Int));
        let node = keys.present(key)?;
        match node.as_scalar().map(|s| s.resolve()) {
            Some(Resolved::Int(i)) => Some(Spanned::new(i, node.span)),
            _ => {
                self.wrong_type(node, &path.key(key), "an integer");
                None
            }
        }
    }

    fn number(&mut self, keys: &Keys<'_>, key: &str, path: &Path<'_>) -> Option<Spanned<f64>> {
        keys.declared(key, |t| matches!(t, ValueType::Number));
        let node = keys.present(key)?;
        match node.as_scalar().map(|s| s.resolve()) {
            Some(Resolved::Int(i)) => Some(Spanned::new(i as f64, node.span)),
            Some(Resolved::Float(f)) => Some(Spanned::new(f, node.span)),
            _ => {
                self.wrong_type(node, &path.key(key), "a number");
                None
            }
        }
    }

    fn enum_node<E: EnumValue>(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Spanned<E>> {
        let Some(Resolved::Str(text)) = node.as_scalar().map(|s| s.resolve()) else {
            self.wrong_type(node, path, &format!("a {}", E::WHAT));
            return None;
        };
        if let Some(value) = E::parse_canonical(text) {
            return Some(Spanned::new(value, node.span));
        }
        let lowered = text.to_lowercase();
        if let Some(value) = E::parse_canonical(&lowered) {
            let mut diagnostic = s002_non_canonical_case::diagnostic(
                self.source,
                text,
                value.as_str(),
                node.span,
                E::WHAT,
            );
            if self.dialect == Dialect::Contextcore {
                // ContextCore refuses to load the file, so it cannot pass.
                s002_non_canonical_case::as_contextcore_error(&mut diagnostic);
            }
            self.report(diagnostic);
            return Some(Spanned::new(value, node.span));
        }
        let allowed: Vec<&'static str> = E::ALL.iter().map(|(name, _, _)| *name).collect();
        self.report(e006_invalid_enum_value::diagnostic(
            self.source,
            text,
            node.span,
            &path.to_string(),
            E::WHAT,
            &allowed,
        ));
        None
    }

    fn enum_value<E: EnumValue>(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        path: &Path<'_>,
    ) -> Option<Spanned<E>> {
        keys.declared(key, |t| matches!(t, ValueType::Enum(_)));
        let node = keys.present(key)?;
        self.enum_node(node, &path.key(key))
    }

    /// An optional list: absent or null is empty. Fewer items than the
    /// format's minimum is reported (E004) and the items are kept.
    fn list<'n>(&mut self, keys: &Keys<'n>, key: &str, path: &Path<'_>) -> Sequence<'n> {
        keys.declared(key, |t| matches!(t, ValueType::List(_)));
        let Some(node) = keys.present(key) else {
            return Sequence::default();
        };
        let Some(items) = node.as_sequence() else {
            self.wrong_type(node, &path.key(key), "a list");
            return Sequence::default();
        };
        if let Some((least, why)) = keys.spec.key(key).and_then(|k| k.min_items)
            && items.len() < least
        {
            self.report(e004_wrong_type::invalid(
                node.span,
                &path.key(key).to_string(),
                &format!("needs at least {least} {key} ({why})"),
            ));
        }
        items
    }

    fn string_list(&mut self, keys: &Keys<'_>, key: &str, path: &Path<'_>) -> Vec<Spanned<String>> {
        let here = path.key(key);
        let items = self.list(keys, key, path);
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                let name = self.name(item, &here.index(i))?;
                self.charge(std::mem::size_of_val(&name), item.span)
                    .then_some(name)
            })
            .collect()
    }

    fn field_path_list(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        path: &Path<'_>,
    ) -> Vec<Spanned<FieldPath>> {
        let here = path.key(key);
        let items = self.list(keys, key, path);
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                let name = self.field_path(item, &here.index(i))?;
                self.charge(std::mem::size_of_val(&name), item.span)
                    .then_some(name)
            })
            .collect()
    }

    fn contract(&mut self, root: Node<'_>) -> Contract {
        let path = Path::Root;
        let mut contract = Contract {
            span: root.span,
            ..Contract::default()
        };
        let Some(keys) = self.mapping(root, &path, &ROOT) else {
            return contract;
        };
        contract.schema_version = self.required_text(&keys, "schema_version", &path);
        contract.pipeline_id = self.required_string(&keys, "pipeline_id", &path);
        contract.description = self.opt_string(&keys, "description", &path);
        if keys.entry("phases").is_some()
            && let Some(node) = keys.value("phases")
            && let Some(phases) = self.phases(node, &path.key("phases"))
        {
            contract.set_phases(phases);
            contract.phases_known = true;
        }
        let chains = path.key("propagation_chains");
        for (i, item) in self
            .list(&keys, "propagation_chains", &path)
            .iter()
            .enumerate()
        {
            if let Some(chain) = self.chain(item, &chains.index(i)) {
                contract.chains.push(chain);
            }
        }
        let checkpoints = path.key("checkpoint_integrity");
        for (i, item) in self
            .list(&keys, "checkpoint_integrity", &path)
            .iter()
            .enumerate()
        {
            if let Some(spec) = self.checkpoint(item, &checkpoints.index(i)) {
                contract.checkpoints.push(spec);
            }
        }
        if let Some(node) = keys.present("graph_topology") {
            // An unreadable topology still counts as one whose edges are
            // unknown, so graph rules do not judge the declaration order.
            contract.topology = self
                .topology(node, &path.key("graph_topology"))
                .or_else(|| {
                    Some(GraphTopology {
                        span: node.span,
                        ..GraphTopology::default()
                    })
                });
        }
        contract.checkpoint_mode = self.enum_value(&keys, "checkpoint_mode", &path);
        if let Some(node) = keys.present("checkpoint_mode_authorization") {
            let here = path.key("checkpoint_mode_authorization");
            // Written but malformed is still written: the schema error
            // says what is wrong, and P402 (none written) stays silent.
            let mut authorization = Authorization {
                span: node.span,
                authorized_by: None,
                reason: None,
                trust_tier: None,
            };
            if let Some(auth) = self.mapping(node, &here, &AUTHORIZATION) {
                authorization.authorized_by = self.required_text(&auth, "authorized_by", &here);
                authorization.reason = self.required_text(&auth, "reason", &here);
                authorization.trust_tier = self.required_text(&auth, "trust_tier", &here);
            }
            contract.checkpoint_mode_authorization = Some(authorization);
        }
        contract.pipeline_inputs = self.field_path_list(&keys, "pipeline_inputs", &path);
        contract
    }

    fn phases(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Vec<Phase>> {
        let Some(entries) = node.as_mapping() else {
            self.wrong_type(node, path, "a mapping of phase names to phases");
            return None;
        };
        if let Some(over) = entries.get(crate::MAX_PHASES) {
            // Each phase costs its model, a node of the graph and its place
            // in every analysis: past the bound, none is built.
            self.report(crate::rules::schema::e007_unloadable_document::diagnostic(
                over.key.span,
                &format!(
                    "more than {} phases; phaselint does not read the phases of such a contract",
                    crate::MAX_PHASES
                ),
                crate::DocumentKind::Contract.noun(),
            )
            .with_help("split the pipeline into several contracts"));
            return None;
        }
        self.report_duplicates(entries, path);
        let mut phases: Vec<Phase> = Vec::with_capacity(entries.len());
        let mut index_of: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
        for entry in entries {
            let name = entry.key.text;
            let here = path.key(name);
            if name.trim().is_empty() {
                self.report(e004_wrong_type::invalid(
                    entry.key.span,
                    &path.to_string(),
                    "has a phase with an empty name",
                ));
                continue;
            }
            if name.len() > crate::MAX_NAME_BYTES {
                self.long_name(entry.key.span, name.len(), &here);
                continue;
            }
            let Some(phase) = self.phase(&entry, &here) else {
                continue;
            };
            // A duplicate keeps its first position and its last body, as a
            // Python dict does when PyYAML loads it.
            match index_of.get(name) {
                Some(&i) => phases[i] = phase,
                None => {
                    index_of.insert(name, phases.len());
                    phases.push(phase);
                }
            }
        }
        Some(phases)
    }

    /// Whether an E-code was reported since `before` (a count of them):
    /// the part built since then is incomplete.
    fn errors_since(&self, before: usize) -> bool {
        self.findings.errors() > before
    }

    fn phase(&mut self, entry: &Entry, path: &Path<'_>) -> Option<Phase> {
        let node = entry.value;
        if node.as_mapping().is_none() {
            self.wrong_type_under(node, Some(entry.key.span), path, "a mapping");
            return None;
        }
        let before_phase = self.findings.unsure();
        let keys = self.mapping(node, path, &PHASE)?;
        // An unknown or repeated key in the phase's body (a misspelled
        // `exits:`, a `...` placeholder, a second `exit:`) may hold fields
        // the model does not see: the field lists are then incomplete.
        let body_unsure = self.findings.unsure() > before_phase;
        let mut details = PhaseDetails {
            description: self.opt_string(&keys, "description", path),
            long_running: self.bool(&keys, "long_running", path),
            expected_duration: None,
            side_effects: self.enum_value(&keys, "side_effects", path),
            risk_class: self.enum_value(&keys, "risk_class", path),
        };
        let mut lists = PhaseFields::default();
        let before_fields = self.findings.errors();
        if let Some(entry_node) = keys.present("entry") {
            let here = path.key("entry");
            if let Some(entry_keys) = self.mapping(entry_node, &here, &ENTRY) {
                self.fields(&entry_keys, "required", &here, &mut lists);
                lists.end_list();
                self.fields(&entry_keys, "enrichment", &here, &mut lists);
            }
        }
        while lists.lists_ended() < 2 {
            lists.end_list();
        }
        if let Some(exit_node) = keys.present("exit") {
            let here = path.key("exit");
            if let Some(exit_keys) = self.mapping(exit_node, &here, &EXIT) {
                self.fields(&exit_keys, "required", &here, &mut lists);
                lists.end_list();
                self.fields(&exit_keys, "optional", &here, &mut lists);
            }
        }
        let complete = !body_unsure && !self.errors_since(before_fields);
        if let Some(duration) = keys.present("expected_duration") {
            let here = path.key("expected_duration");
            let seconds = match duration.as_scalar().map(|s| s.resolve()) {
                Some(Resolved::Int(i)) => u64::try_from(i).ok(),
                Some(Resolved::Str(text)) => crate::duration::parse_seconds(text),
                _ => None,
            };
            match seconds {
                Some(s) => details.expected_duration = Some(Spanned::new(s, duration.span)),
                None => self.wrong_type(
                    duration,
                    &here,
                    "a duration such as `90s`, `15m`, `2h`, `1d` or whole seconds",
                ),
            }
        }
        let cost = std::mem::size_of::<Phase>()
            + heap(entry.key.text.len())
            + if details == PhaseDetails::default() {
                0
            } else {
                heap(std::mem::size_of::<PhaseDetails>())
            };
        if !self.charge(cost, node.span) {
            return None;
        }
        Some(Phase::new(
            entry.key.text.to_string(),
            entry.key.span,
            node.span,
            complete,
            lists,
            details,
        ))
    }

    fn fields(&mut self, keys: &Keys<'_>, key: &str, path: &Path<'_>, into: &mut PhaseFields) {
        let here = path.key(key);
        let items = self.list(keys, key, path);
        for (i, item) in items.iter().enumerate() {
            if let Some(field) = self.field(item, &here.index(i)) {
                into.push(field);
            }
        }
    }

    fn field(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Field> {
        let keys = self.mapping(node, path, &FIELD)?;
        let name = if keys.entry("name").is_some() {
            keys.value("name")
                .and_then(|n| self.field_path(n, &path.key("name")))
        } else {
            None
        };
        let field_type = self.opt_string(&keys, "type", path);
        let severity = self.enum_value(&keys, "severity", path);
        let description = self.opt_string(&keys, "description", path);
        let source_phase = match keys.present("source_phase") {
            Some(n) => self.name(n, &path.key("source_phase")),
            None => None,
        };
        let constraints = keys.present("constraints").and_then(|n| {
            if n.as_mapping().is_some() {
                Some(n.span)
            } else {
                self.wrong_type(n, &path.key("constraints"), "a mapping");
                None
            }
        });
        let quality = keys.present("quality").and_then(|n| {
            let here = path.key("quality");
            let q = self.mapping(n, &here, &QUALITY)?;
            Some(Quality {
                metric: self.opt_string(&q, "metric", &here),
                threshold: self.number(&q, "threshold", &here),
                on_below: self.enum_value(&q, "on_below", &here),
                description: self.opt_string(&q, "description", &here),
            })
        });
        let evaluation = keys.present("evaluation").and_then(|n| {
            let here = path.key("evaluation");
            let e = self.mapping(n, &here, &EVALUATION)?;
            Some(Evaluation {
                required: self.bool(&e, "required", &here),
                policy: self.opt_string(&e, "policy", &here),
                threshold: self.number(&e, "threshold", &here),
                evaluator: self.opt_string(&e, "evaluator", &here),
                on_unevaluated: self.enum_value(&e, "on_unevaluated", &here),
                on_below_threshold: self.enum_value(&e, "on_below_threshold", &here),
            })
        });
        // Only where a default is written: the resume check reads its
        // value from the file, and a null default is none.
        let default = keys.present("default").map(|n| n.span);
        let rare = FieldRare {
            default,
            constraints,
            quality,
            evaluation,
        };
        let rare = (rare != FieldRare::default()).then(|| Box::new(rare));
        // A type of up to 24 bytes is kept inline.
        if let Some(t) = &field_type
            && t.value.len() <= 24
        {
            self.model_bytes -= heap(t.value.len());
        }
        let details = FieldDetails {
            field_type: field_type.map(|t| Spanned::new(t.value.as_str().into(), t.span)),
            description,
            source_phase,
            rare,
        };
        let name = name?;
        let mut cost = std::mem::size_of::<Field>();
        if details != FieldDetails::default() {
            cost += heap(std::mem::size_of::<FieldDetails>())
                + details
                    .rare
                    .as_ref()
                    .map_or(0, |_| heap(std::mem::size_of::<FieldRare>()));
        }
        if !self.charge(cost, node.span) {
            return None;
        }
        Some(Field::new(name, node.span, severity, details))
    }

    fn endpoint(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Endpoint> {
        let keys = self.mapping(node, path, &ENDPOINT)?;
        let phase = self.required_string(&keys, "phase", path);
        let field = if keys.entry("field").is_some() {
            keys.value("field")
                .and_then(|n| self.field_path(n, &path.key("field")))
        } else {
            None
        };
        if !self.charge(std::mem::size_of::<Endpoint>(), node.span) {
            return None;
        }
        Some(Endpoint {
            phase,
            field,
            span: node.span,
        })
    }

    fn chain(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Chain> {
        let keys = self.mapping(node, path, &CHAIN)?;
        let chain_id = self.required_string(&keys, "chain_id", path);
        let source = if keys.entry("source").is_some() {
            keys.value("source")
                .and_then(|n| self.endpoint(n, &path.key("source")))
        } else {
            None
        };
        let here = path.key("waypoints");
        let waypoints = self
            .list(&keys, "waypoints", path)
            .iter()
            .enumerate()
            .filter_map(|(i, n)| self.endpoint(n, &here.index(i)))
            .collect();
        let destination = if keys.entry("destination").is_some() {
            keys.value("destination")
                .and_then(|n| self.endpoint(n, &path.key("destination")))
        } else {
            None
        };
        if !self.charge(std::mem::size_of::<Chain>(), node.span) {
            return None;
        }
        Some(Chain {
            chain_id,
            span: node.span,
            description: self.opt_string(&keys, "description", path),
            source,
            waypoints,
            destination,
            severity: self.enum_value(&keys, "severity", path),
            verification: self.opt_string(&keys, "verification", path),
        })
    }

    fn checkpoint(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<CheckpointSpec> {
        let keys = self.mapping(node, path, &CHECKPOINT)?;
        let checkpoint_id = self.required_string(&keys, "checkpoint_id", path);
        let phase = self.required_string(&keys, "phase", path);
        let mut on_resume = OnResume::default();
        if let Some(n) = keys.present("on_resume") {
            let here = path.key("on_resume");
            if let Some(r) = self.mapping(n, &here, &ON_RESUME) {
                on_resume.span = Some(n.span);
                on_resume.revalidate_entry = self.bool(&r, "revalidate_entry", &here);
                on_resume.approval_required = self.bool(&r, "approval_required", &here);
                on_resume.approval_policy = self.enum_value(&r, "approval_policy", &here);
                let checks = here.key("staleness_checks");
                for (i, item) in self.list(&r, "staleness_checks", &here).iter().enumerate() {
                    if let Some(check) = self.staleness_check(item, &checks.index(i)) {
                        on_resume.staleness_checks.push(check);
                    }
                }
            }
        }
        if !self.charge(std::mem::size_of::<CheckpointSpec>(), node.span) {
            return None;
        }
        Some(CheckpointSpec {
            checkpoint_id,
            phase,
            span: node.span,
            on_resume,
        })
    }

    fn staleness_check(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<StalenessCheck> {
        let keys = self.mapping(node, path, &STALENESS)?;
        let field = if keys.entry("field").is_some() {
            keys.value("field")
                .and_then(|n| self.field_path(n, &path.key("field")))
        } else {
            None
        };
        let max_age_seconds = if keys.entry("max_age_seconds").is_some() {
            match keys.value("max_age_seconds") {
                Some(n) if n.is_null() => {
                    self.wrong_type(
                        n,
                        &path.key("max_age_seconds"),
                        "an integer number of seconds",
                    );
                    None
                }
                _ => self.int(&keys, "max_age_seconds", path),
            }
        } else {
            None
        };
        if !self.charge(std::mem::size_of::<StalenessCheck>(), node.span) {
            return None;
        }
        Some(StalenessCheck {
            field,
            span: node.span,
            max_age_seconds,
            on_stale: self.enum_value(&keys, "on_stale", path),
            recovery: self.enum_value(&keys, "recovery", path),
            description: self.opt_string(&keys, "description", path),
        })
    }

    fn topology(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<GraphTopology> {
        let keys = self.mapping(node, path, &TOPOLOGY)?;
        let mut topology = GraphTopology {
            span: node.span,
            graph_id: self.opt_string(&keys, "graph_id", path),
            description: self.opt_string(&keys, "description", path),
            ..GraphTopology::default()
        };
        if let Some(nodes) = keys.present("nodes") {
            let here = path.key("nodes");
            match nodes.as_mapping() {
                Some(entries) => {
                    self.report_duplicates(entries, &here);
                    for entry in entries {
                        let node_path = here.key(entry.key.text);
                        if entry.key.text.len() > crate::MAX_NAME_BYTES {
                            self.long_name(entry.key.span, entry.key.text.len(), &node_path);
                            continue;
                        }
                        let id = Spanned::new(entry.key.text.to_string(), entry.key.span);
                        let mut topology_node = TopologyNode {
                            id,
                            requires: Vec::new(),
                            produces: Vec::new(),
                            optional: Vec::new(),
                            description: None,
                        };
                        if !entry.value.is_null()
                            && let Some(k) = self.mapping(entry.value, &node_path, &TOPOLOGY_NODE)
                        {
                            topology_node.requires =
                                self.field_path_list(&k, "requires", &node_path);
                            topology_node.produces =
                                self.field_path_list(&k, "produces", &node_path);
                            topology_node.optional =
                                self.field_path_list(&k, "optional", &node_path);
                            topology_node.description =
                                self.opt_string(&k, "description", &node_path);
                        }
                        if self.charge(std::mem::size_of::<TopologyNode>(), entry.key.span) {
                            topology.nodes.push(topology_node);
                        }
                    }
                }
                None => self.wrong_type(nodes, &here, "a mapping of node ids"),
            }
        }
        let edges = path.key("edges");
        let before_edges = self.findings.errors();
        for (i, item) in self.list(&keys, "edges", path).iter().enumerate() {
            let here = edges.index(i);
            let Some(k) = self.mapping(item, &here, &EDGE) else {
                continue;
            };
            let from = self.required_string(&k, "from", &here);
            let to = self.required_string(&k, "to", &here);
            let preserves = k
                .present("preserves")
                .map(|_| self.field_path_list(&k, "preserves", &here));
            if !self.charge(std::mem::size_of::<TopologyEdge>(), item.span) {
                continue;
            }
            topology.edges.push(TopologyEdge {
                span: item.span,
                from,
                to,
                condition: self.opt_string(&k, "condition", &here),
                preserves,
                drops: self.field_path_list(&k, "drops", &here),
                description: self.opt_string(&k, "description", &here),
            });
        }
        topology.edges_complete = !self.errors_since(before_edges);
        let merges = path.key("merge_points");
        for (i, item) in self.list(&keys, "merge_points", path).iter().enumerate() {
            let here = merges.index(i);
            let Some(k) = self.mapping(item, &here, &MERGE_POINT) else {
                continue;
            };
            let node_name = self.required_string(&k, "node", &here);
            let sources = if k.entry("sources").is_some() {
                self.string_list(&k, "sources", &here)
            } else {
                Vec::new()
            };
            let mut merge_policy = Vec::new();
            if let Some(policy) = k.present("merge_policy") {
                let policy_path = here.key("merge_policy");
                match policy.as_mapping() {
                    Some(entries) => {
                        self.report_duplicates(entries, &policy_path);
                        for entry in entries {
                            let field_path = policy_path.key(entry.key.text);
                            if entry.key.text.len() > crate::MAX_NAME_BYTES {
                                self.long_name(entry.key.span, entry.key.text.len(), &field_path);
                                continue;
                            }
                            if let Some(value) =
                                self.enum_node::<MergePolicy>(entry.value, &field_path)
                            {
                                merge_policy.push((
                                    Spanned::new(entry.key.text.to_string(), entry.key.span),
                                    value,
                                ));
                            }
                        }
                    }
                    None => self.wrong_type(
                        policy,
                        &policy_path,
                        "a mapping of field names to merge policies",
                    ),
                }
            }
            let cost = std::mem::size_of::<MergePoint>()
                + merge_policy.len()
                    * std::mem::size_of::<(Spanned<String>, Spanned<MergePolicy>)>();
            if !self.charge(cost, item.span) {
                continue;
            }
            topology.merge_points.push(MergePoint {
                span: item.span,
                node: node_name,
                sources,
                merge_policy,
            });
        }
        let cycles = path.key("cycle_invariants");
        for (i, item) in self
            .list(&keys, "cycle_invariants", path)
            .iter()
            .enumerate()
        {
            let here = cycles.index(i);
            let Some(k) = self.mapping(item, &here, &CYCLE_INVARIANT) else {
                continue;
            };
            let cycle_id = self.required_string(&k, "cycle_id", &here);
            let nodes = if k.entry("nodes").is_some() {
                self.string_list(&k, "nodes", &here)
            } else {
                Vec::new()
            };
            let max_iterations = self.int(&k, "max_iterations", &here);
            if let Some(max) = &max_iterations
                && max.value < 1
            {
                self.report(e004_wrong_type::invalid(
                    max.span,
                    &here.key("max_iterations").to_string(),
                    "must be at least 1",
                ));
            }
            if !self.charge(std::mem::size_of::<CycleInvariant>(), item.span) {
                continue;
            }
            topology.cycle_invariants.push(CycleInvariant {
                span: item.span,
                cycle_id,
                nodes,
                max_iterations,
                invariant_fields: self.field_path_list(&k, "invariant_fields", &here),
                description: self.opt_string(&k, "description", &here),
            });
        }
        Some(topology)
    }
}

impl Walker<'_, '_> {
    fn harness(&mut self, root: Node<'_>) -> HarnessConfig {
        let mut config = HarnessConfig::default();
        let path = Path::HarnessRoot;
        let Some(keys) = self.mapping(root, &path, &HARNESS_ROOT) else {
            return config;
        };
        let Some(node) = keys.present("checkpoints") else {
            return config;
        };
        let here = path.key("checkpoints");
        let Some(checkpoints) = self.mapping(node, &here, &HARNESS_CHECKPOINTS) else {
            return config;
        };
        config.enabled = self.bool(&checkpoints, "enabled", &here);
        let types = here.key("types");
        for (i, item) in self.list(&checkpoints, "types", &here).iter().enumerate() {
            let at = types.index(i);
            let Some(entry) = self.mapping(item, &at, &HARNESS_CHECKPOINT_TYPE) else {
                continue;
            };
            if !self.charge(std::mem::size_of::<HarnessCheckpoint>(), item.span) {
                continue;
            }
            config.checkpoints.push(HarnessCheckpoint {
                span: item.span,
                name: self.required_string(&entry, "name", &at),
                trigger_on: self.opt_string(&entry, "triggerOn", &at),
                description: self.opt_string(&entry, "description", &at),
            });
        }
        config
    }
}

/// Whether a parsed document looks like a context contract at all: walked
/// files of another kind that share the suffix are skipped, not reported.
pub fn looks_like_context_contract(root: Node<'_>) -> bool {
    match root.kind() {
        NodeKind::Mapping(entries) => entries.iter().any(|e| {
            matches!(
                e.key.text,
                "schema_version" | "pipeline_id" | "phases" | "checkpoint_integrity"
            )
        }),
        _ => false,
    }
}
