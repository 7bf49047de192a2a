//! The walker's readers: one mapping checked against its table (unknown,
//! repeated and missing keys), and each typed value read as the table
//! declares it, within the model's memory budget.

use std::collections::HashMap;

use crate::config::Dialect;
use crate::diagnostic::Diagnostic;
use crate::field_path::FieldPath;
use crate::format::{Mapping, ValueType};
use crate::model::*;
use crate::rules::schema::{
    e002_duplicate_key, e003_unknown_key, e004_wrong_type, e005_missing_required_key,
    e006_invalid_enum_value, s002_non_canonical_case,
};
use crate::syntax::{Mapping as YamlMapping, Node, Resolved, Sequence, Span};

use super::{Keys, MAX_KEYS_PER_MAPPING, Path, Walker, heap};

impl Walker<'_, '_> {
    pub(super) fn report(&mut self, diagnostic: Diagnostic) {
        self.findings.push(diagnostic);
    }

    /// Counts `bytes` more of model; false (and an E007, the first time)
    /// when that is past `MAX_MODEL_BYTES`: the caller builds nothing.
    pub(super) fn charge(&mut self, bytes: usize, at: Span) -> bool {
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
    pub(super) fn first_line(&self, span: Span) -> Span {
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

    pub(super) fn wrong_type(&mut self, node: Node<'_>, path: &Path<'_>, expected: &str) {
        self.wrong_type_under(node, None, path, expected);
    }

    /// A wrong type where the value is written; where nothing is written
    /// (an implicit null: `phases: { ... }`, `pipeline_id:`), at the key.
    pub(super) fn wrong_type_under(
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
    pub(super) fn mapping<'n>(
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
        let mut written_at = [0u32; MAX_KEYS_PER_MAPPING];
        let mut unknown = 0usize;
        self.report_duplicates(entries, path);
        for (i, entry) in entries.iter().enumerate() {
            match spec.keys.iter().position(|k| k.name == entry.key.text) {
                None if spec.open => {}
                Some(position) => {
                    let key = &spec.keys[position];
                    if key.extension && self.dialect == Dialect::Contextcore {
                        self.report(e003_unknown_key::extension_in_contextcore_dialect(
                            key.name,
                            entry.key.span,
                            &path.to_string(),
                        ));
                    }
                    // A tree has at most `MAX_NODES` nodes, so the index fits.
                    if let Some(slot) = written_at.get_mut(position) {
                        *slot = i as u32 + 1;
                    }
                }
                None => unknown += 1,
            }
        }
        let keys = Keys {
            spec,
            entries,
            written_at,
        };
        // An unknown key most likely means a key the mapping lacks: offer
        // those first (`max_age_second` for a missing `max_age_seconds`).
        let mut renamed: Vec<&'static str> = Vec::new();
        if unknown > 0 {
            let valid = valid();
            let help = e003_unknown_key::valid_keys_help(spec.name, &valid);
            let absent: Vec<&'static str> = valid
                .iter()
                .copied()
                .filter(|k| keys.entry(k).is_none())
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
        for (position, key) in spec.keys.iter().enumerate().filter(|(_, k)| k.required) {
            if keys.written(position).is_some() || renamed.contains(&key.name) {
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
        Some(keys)
    }

    pub(super) fn report_duplicates(&mut self, entries: YamlMapping<'_>, path: &Path<'_>) {
        // Most mappings have a handful of keys: comparing with the earlier
        // ones, kept on the stack, is cheaper than hashing every key of
        // every mapping.
        const FEW: usize = 16;
        let mut earlier = [("", Span::default()); FEW];
        let mut first_seen: HashMap<&str, Span> = HashMap::new();
        for (i, entry) in entries.iter().enumerate() {
            let key = entry.key.text;
            let first = if entries.len() <= FEW {
                let first = earlier
                    .iter()
                    .take(i)
                    .find(|(text, _)| *text == key)
                    .map(|(_, span)| *span);
                if let Some(slot) = earlier.get_mut(i) {
                    *slot = (key, entry.key.span);
                }
                first
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

    /// A string's text, charged to the model as the copy the caller makes.
    fn charged_text<'n>(&mut self, node: Node<'n>, path: &Path<'_>) -> Option<&'n str> {
        match node.as_scalar().map(|s| s.resolve()) {
            Some(Resolved::Str(text)) => self.charge(heap(text.len()), node.span).then_some(text),
            _ => {
                self.wrong_type(node, path, "a string");
                None
            }
        }
    }

    fn non_empty_text<'n>(&mut self, node: Node<'n>, path: &Path<'_>) -> Option<&'n str> {
        let text = self.charged_text(node, path)?;
        if text.trim().is_empty() {
            self.report(e004_wrong_type::invalid(
                node.span,
                &path.to_string(),
                "must not be empty",
            ));
            return None;
        }
        Some(text)
    }

    /// An optional text key, read as the table declares it.
    pub(super) fn opt_string(
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
    pub(super) fn text(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        node: Node<'_>,
        path: &Path<'_>,
    ) -> Option<Spanned<String>> {
        let text = self.text_in_place(keys, key, node, path)?;
        Some(Spanned::new(text.to_string(), node.span))
    }

    /// `text`, borrowed from the tree: for a caller that keeps it in
    /// another form (a short type name, inline), so no `String` is made
    /// only to be dropped.
    pub(super) fn text_in_place<'n>(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        node: Node<'n>,
        path: &Path<'_>,
    ) -> Option<&'n str> {
        match keys.declared_type(key) {
            Some(ValueType::NonEmptyString | ValueType::PhaseName(_)) => {
                self.non_empty_text(node, path)
            }
            declared => {
                debug_assert!(
                    matches!(declared, Some(ValueType::String | ValueType::TypeName)),
                    "`{}.{key}` is read as text, but the format table declares {declared:?}",
                    keys.spec.name
                );
                self.charged_text(node, path)
            }
        }
    }

    /// A required text (a reason, a version).
    pub(super) fn required_text(
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
    pub(super) fn required_string(
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
    pub(super) fn name(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Spanned<String>> {
        let text = self.name_text(node, path)?;
        Some(Spanned::new(text.to_string(), node.span))
    }

    /// `name`, borrowed from the tree.
    fn name_text<'n>(&mut self, node: Node<'n>, path: &Path<'_>) -> Option<&'n str> {
        let text = self.non_empty_text(node, path)?;
        if text.len() > crate::MAX_NAME_BYTES {
            self.long_name(node.span, text.len(), path);
            return None;
        }
        Some(text)
    }

    pub(super) fn within_name_bound(
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

    pub(super) fn long_name(&mut self, span: Span, len: usize, path: &Path<'_>) {
        self.report(e004_wrong_type::invalid(
            span,
            &path.to_string(),
            &format!(
                "is a name of {len} bytes; a name is at most {} bytes",
                crate::MAX_NAME_BYTES
            ),
        ));
    }

    pub(super) fn field_path(
        &mut self,
        node: Node<'_>,
        path: &Path<'_>,
    ) -> Option<Spanned<FieldPath>> {
        // Read in place: a contract has a field name per field, and a
        // `String` of each, dropped once copied, cost an allocation each.
        let name = self.name_text(node, path)?;
        if name.split('.').any(str::is_empty) {
            self.report(e004_wrong_type::invalid(
                node.span,
                &path.to_string(),
                "is not a valid dotted field name (empty segment)",
            ));
            return None;
        }
        // Names up to 24 bytes are kept inline, not on the heap.
        if name.len() <= 24 {
            self.model_bytes -= heap(name.len());
        }
        Some(Spanned::new(FieldPath::new(name), node.span))
    }

    pub(super) fn bool(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        path: &Path<'_>,
    ) -> Option<Spanned<bool>> {
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

    pub(super) fn int(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        path: &Path<'_>,
    ) -> Option<Spanned<i64>> {
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

    pub(super) fn number(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        path: &Path<'_>,
    ) -> Option<Spanned<f64>> {
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

    pub(super) fn enum_node<E: EnumValue>(
        &mut self,
        node: Node<'_>,
        path: &Path<'_>,
    ) -> Option<Spanned<E>> {
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

    pub(super) fn enum_value<E: EnumValue>(
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
    pub(super) fn list<'n>(&mut self, keys: &Keys<'n>, key: &str, path: &Path<'_>) -> Sequence<'n> {
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

    pub(super) fn string_list(
        &mut self,
        keys: &Keys<'_>,
        key: &str,
        path: &Path<'_>,
    ) -> Vec<Spanned<String>> {
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

    pub(super) fn field_path_list(
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
}
