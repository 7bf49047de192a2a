//! What may be typed at a position: keys valid at the cursor, phase names,
//! the exit fields of a checkpoint's phase, enum values. The cursor's place
//! is read from the text's indentation, because the text being typed is
//! rarely valid YAML; names come from the last contract that parsed.

use crate::format::{EnumKind, ValueType};
use crate::model::Contract;
use crate::syntax::{Node, NodeKind, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Key,
    Phase,
    Field,
    EnumValue,
    Value,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    pub documentation: Option<String>,
    /// What to insert, when it differs from the label (`key: `).
    pub insert_text: Option<String>,
}

impl Completion {
    fn new(label: impl Into<String>, kind: CompletionKind) -> Self {
        Completion {
            label: label.into(),
            kind,
            detail: None,
            documentation: None,
            insert_text: None,
        }
    }
}

/// One line's shape: where its content starts, whether it is a list item
/// (`- `), and the key it defines, if any.
#[derive(Debug)]
struct LineShape<'a> {
    first: usize,
    item: bool,
    key_col: usize,
    key: Option<&'a str>,
    /// Text after `key:`, trimmed; `None` when the line has no key.
    value: Option<&'a str>,
}

fn shape(line: &str) -> LineShape<'_> {
    let first = line.len() - line.trim_start_matches(' ').len();
    let mut rest = &line[first..];
    let mut key_col = first;
    let item = rest == "-" || rest.starts_with("- ");
    if item {
        let after = rest[1..].trim_start_matches(' ');
        key_col = line.len() - after.len();
        rest = after;
    }
    let (key, value) = match split_key(rest) {
        Some((k, v)) => (Some(k), Some(v)),
        None => (None, None),
    };
    LineShape {
        first,
        item,
        key_col,
        key,
        value,
    }
}

/// `key: value` -> (`key`, `value`); quotes around the key are removed.
fn split_key(text: &str) -> Option<(&str, &str)> {
    if text.starts_with('#') || text.starts_with('{') || text.starts_with('[') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (None, b'"' | b'\'') if i == 0 => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b':') if bytes.get(i + 1).is_none_or(|n| *n == b' ' || *n == b'\t') => {
                let key = text[..i].trim().trim_matches(['"', '\'']);
                let value = text[i + 1..].trim();
                let value = value.split(" #").next().unwrap_or("").trim();
                return Some((key, value));
            }
            (None, b'#') if i > 0 && bytes[i - 1] == b' ' => return None,
            _ => {}
        }
    }
    None
}

/// Where the cursor is, in terms of the contract's structure.
#[derive(Debug, PartialEq, Eq)]
pub struct CursorContext {
    /// Keys from the root to the mapping the cursor is in; `-` is a list item.
    pub path: Vec<String>,
    pub position: CursorPosition,
}

#[derive(Debug, PartialEq, Eq)]
pub enum CursorPosition {
    /// Typing a key (the prefix typed so far).
    Key { prefix: String },
    /// Typing the value of `key`, or an item of the list under `key`.
    Value { key: String, prefix: String },
}

pub fn cursor_context(source: &str, offset: usize) -> CursorContext {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
    let current = &source[line_start..offset];
    let here = shape(current);

    let mut path: Vec<String> = Vec::new();
    let mut limit = here.first;
    for line in source[..line_start].lines().rev() {
        if limit == 0 {
            break;
        }
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let s = shape(line);
        if s.item && s.first < limit {
            if s.key_col < limit
                && let Some(key) = s.key
            {
                path.push(key.to_string());
            }
            path.push("-".to_string());
            limit = s.first;
        } else if !s.item && s.first < limit {
            if let Some(key) = s.key {
                path.push(key.to_string());
            }
            limit = s.first;
        }
    }
    path.reverse();

    let position = match (here.key, here.value) {
        (Some(key), Some(value)) => {
            if here.item {
                path.push("-".to_string());
            }
            let value = value.trim_start_matches('[');
            let prefix = value
                .rsplit(',')
                .next()
                .unwrap_or("")
                .trim()
                .trim_matches(['"', '\'']);
            CursorPosition::Value {
                key: key.to_string(),
                prefix: prefix.to_string(),
            }
        }
        _ => {
            let typed = current[here.key_col.min(current.len())..].trim();
            if here.item {
                // `- x` is a new mapping item where the list holds mappings,
                // otherwise a scalar item of the list's key.
                let mut item_path: Vec<&str> = path.iter().map(String::as_str).collect();
                item_path.push("-");
                if crate::format::mapping_at(&item_path).is_some() {
                    path.push("-".to_string());
                    CursorPosition::Key {
                        prefix: typed.to_string(),
                    }
                } else {
                    let key = path.pop().unwrap_or_default();
                    CursorPosition::Value {
                        key,
                        prefix: typed.trim_matches(['"', '\'']).to_string(),
                    }
                }
            } else {
                CursorPosition::Key {
                    prefix: typed.to_string(),
                }
            }
        }
    };
    CursorContext { path, position }
}

/// What real contracts write as a field's `type`.
const TYPES: &[&str] = &["str", "int", "float", "bool", "list", "dict", "any"];

/// Completions at `offset`. `contract` supplies phase and field names; pass
/// the last one that parsed when the current text does not.
pub fn complete(source: &str, offset: usize, contract: Option<&Contract>) -> Vec<Completion> {
    let context = cursor_context(source, offset);
    let path: Vec<&str> = context.path.iter().map(String::as_str).collect();
    let phase_names = || -> Vec<Completion> {
        contract
            .into_iter()
            .flat_map(|c| &c.phases)
            .map(|p| {
                let mut item = Completion::new(p.name.clone(), CompletionKind::Phase);
                item.detail = Some("phase".into());
                item.documentation = p.description().map(|d| d.value.clone());
                item
            })
            .collect()
    };
    match context.position {
        CursorPosition::Key { .. } => {
            if path == ["graph_topology", "nodes"] {
                return phase_names()
                    .into_iter()
                    .map(|mut c| {
                        c.insert_text = Some(format!("{}:", c.label));
                        c
                    })
                    .collect();
            }
            let Some(mapping) = crate::format::mapping_at(&path) else {
                return Vec::new();
            };
            // A key the mapping already has would be a duplicate (E002).
            let present = sibling_keys(source, offset);
            mapping
                .keys
                .iter()
                .filter(|key| !present.contains(&key.name))
                .map(|key| {
                    let mut item = Completion::new(key.name, CompletionKind::Key);
                    item.insert_text = Some(format!("{}: ", key.name));
                    let mut detail = key.value.describe();
                    if key.extension {
                        detail.push_str(" (phaselint extension)");
                    }
                    item.detail = Some(detail);
                    item.documentation = Some(key.description.to_string());
                    item
                })
                .collect()
        }
        CursorPosition::Value { key, .. } => {
            let key = key.as_str();
            let value_type = crate::format::value_type_at(&path, key);
            // A list item's value is of the list's item type.
            let value_type: Option<&ValueType> = match value_type {
                Some(ValueType::List(item)) => Some(item),
                other => other,
            };
            if let Some(ValueType::Enum(kind)) = value_type {
                let (what, values) = kind.values();
                return values
                    .into_iter()
                    .map(|(value, doc)| {
                        let mut item = Completion::new(value, CompletionKind::EnumValue);
                        item.detail = Some(what.to_string());
                        item.documentation = Some(doc.to_string());
                        item
                    })
                    .collect();
            }
            if matches!(value_type, Some(ValueType::PhaseName)) {
                return phase_names();
            }
            if key == "field" && path.starts_with(&["checkpoint_integrity"]) {
                return checkpoint_exit_fields(contract, offset);
            }
            if key == "field" && path.starts_with(&["propagation_chains"]) {
                let source = path.get(1) == Some(&"source");
                return endpoint_fields(contract, offset, source);
            }
            if matches!(value_type, Some(ValueType::Bool)) {
                return ["true", "false"]
                    .into_iter()
                    .map(|v| Completion::new(v, CompletionKind::Value))
                    .collect();
            }
            if key == "type" && crate::format::mapping_at(&path).is_some_and(|m| m.name == "Field")
            {
                return TYPES
                    .iter()
                    .map(|t| Completion::new(*t, CompletionKind::Value))
                    .collect();
            }
            Vec::new()
        }
    }
}

/// The keys already written in the mapping the line at `offset` belongs
/// to, other than on that line: the lines at the same indentation above and
/// below it, up to the parent key or the start of the list item.
fn sibling_keys(source: &str, offset: usize) -> Vec<&str> {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[offset..]
        .find('\n')
        .map_or(source.len(), |i| offset + i);
    let here = shape(&source[line_start..offset]);
    let column = here.key_col;
    let is_content = |line: &&str| {
        let trimmed = line.trim_start();
        !trimmed.is_empty() && !trimmed.starts_with('#')
    };
    let mut keys = Vec::new();
    for line in source[..line_start].lines().rev().filter(is_content) {
        let s = shape(line);
        if s.item && s.key_col == column {
            // The first key of this list item, then the item ends.
            keys.extend(s.key);
            break;
        }
        if s.first < column {
            break;
        }
        if s.first == column && !s.item {
            keys.extend(s.key);
        }
    }
    if !here.item {
        for line in source[line_end..].lines().filter(is_content) {
            let s = shape(line);
            if s.first < column || (s.item && s.first == column) {
                break;
            }
            if s.first == column {
                keys.extend(s.key);
            }
        }
    }
    keys
}

/// The exit fields of the phase of the checkpoint around `offset`.
fn checkpoint_exit_fields(contract: Option<&Contract>, offset: usize) -> Vec<Completion> {
    let Some(contract) = contract else {
        return Vec::new();
    };
    let spec = contract
        .checkpoints
        .iter()
        .filter(|c| c.span.start <= offset)
        .max_by_key(|c| c.span.start);
    let Some(phase) = spec
        .and_then(|s| s.phase.as_ref())
        .and_then(|p| contract.phase(&p.value))
    else {
        return Vec::new();
    };
    phase
        .exit_fields()
        .map(|f| {
            let mut item = Completion::new(f.name.value.as_str(), CompletionKind::Field);
            item.detail = Some(format!("exit field of `{}`", phase.name));
            item.documentation = f.description().map(|d| d.value.clone());
            item
        })
        .collect()
}

/// The fields a chain endpoint around `offset` can name: what R104 accepts,
/// the exit fields of a source's phase, any field of a later stop's phase.
fn endpoint_fields(contract: Option<&Contract>, offset: usize, source: bool) -> Vec<Completion> {
    let Some(contract) = contract else {
        return Vec::new();
    };
    let stop = contract
        .chains
        .iter()
        .flat_map(|c| c.stops())
        .filter(|e| e.span.start <= offset)
        .max_by_key(|e| e.span.start);
    let Some(phase) = stop
        .and_then(|e| e.phase.as_ref())
        .and_then(|p| contract.phase(&p.value))
    else {
        return Vec::new();
    };
    let item = |f: &crate::model::Field, how: &str| {
        let mut item = Completion::new(f.name.value.as_str(), CompletionKind::Field);
        item.detail = Some(format!("{how} field of `{}`", phase.name));
        item.documentation = f.description().map(|d| d.value.clone());
        item
    };
    let mut items: Vec<Completion> = phase.exit_fields().map(|f| item(f, "exit")).collect();
    if !source {
        items.extend(phase.entry_fields().map(|f| item(f, "entry")));
    }
    let mut seen = std::collections::HashSet::new();
    items.retain(|i| seen.insert(i.label.clone()));
    items
}

/// Longer than any key or enum value of the format: a longer word is
/// neither, and scanning for one stops there.
pub const LONGEST_WORD: usize = 32;

/// The word (ASCII letters, digits and `_`) around `offset`, when there is
/// one of at most `LONGEST_WORD` bytes: the cheap test before a hover or
/// an enum lookup parses the document again.
pub fn word_at(source: &str, offset: usize) -> Option<Span> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let offset = offset.min(source.len());
    if !source.is_char_boundary(offset) {
        return None;
    }
    // The word's start: after the last character before `offset` that is
    // not part of a word (a byte index plus that character's width, which
    // need not be one).
    let mut start = offset;
    for (i, c) in source[..offset].char_indices().rev() {
        if !is_word(c) {
            break;
        }
        if offset - i > LONGEST_WORD {
            return None;
        }
        start = i;
    }
    let end = source[offset..]
        .char_indices()
        .take(LONGEST_WORD + 1)
        .find(|&(_, c)| !is_word(c))
        .map_or(source.len(), |(i, _)| offset + i);
    (start < end && end - start <= LONGEST_WORD).then(|| Span::new(start, end))
}

/// Whether the word around `offset` is spelled like some enum value: the
/// cheap test before `enum_value_at`, which needs the whole YAML tree.
pub fn may_be_enum_value(source: &str, offset: usize) -> bool {
    word_at(source, offset).is_some_and(|word| {
        let word = source[word.start..word.end].to_ascii_lowercase();
        EnumKind::ALL
            .iter()
            .any(|kind| kind.values().1.iter().any(|(v, _)| *v == word))
    })
}

/// The key under `offset`: the keys from the root to its mapping (`-` for
/// list items), and the key itself.
pub fn key_at<'t>(document: Node<'t>, offset: usize) -> Option<(Vec<&'t str>, &'t str)> {
    let mut path = Vec::new();
    let mut node = document;
    loop {
        match node.kind() {
            NodeKind::Mapping(entries) => {
                if let Some(entry) = entries
                    .iter()
                    .find(|e| e.key.span.start <= offset && offset <= e.key.span.end)
                {
                    return Some((path, entry.key.text));
                }
                let entry = entries
                    .iter()
                    .find(|e| e.value.span.start <= offset && offset <= e.value.span.end)?;
                path.push(entry.key.text);
                node = entry.value;
            }
            NodeKind::Sequence(items) => {
                node = items
                    .iter()
                    .find(|n| n.span.start <= offset && offset <= n.span.end)?;
                path.push("-");
            }
            NodeKind::Scalar(_) => return None,
        }
    }
}

/// An enum value under the cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnumValueAt {
    /// What the enum is called ("recovery strategy").
    pub what: &'static str,
    /// The canonical value.
    pub value: &'static str,
    pub meaning: &'static str,
    /// Where the value is written.
    pub span: crate::syntax::Span,
}

/// The enum value under `offset`, by the format's type of the key at that
/// path.
pub fn enum_value_at(document: Node<'_>, offset: usize) -> Option<EnumValueAt> {
    /// The keys from the root to the scalar under `offset` (`-` for list
    /// items), and the scalar.
    fn walk<'a>(node: Node<'a>, path: &mut Vec<&'a str>, offset: usize) -> Option<Node<'a>> {
        match node.kind() {
            NodeKind::Mapping(entries) => {
                let entry = entries
                    .iter()
                    .find(|e| e.value.span.start <= offset && offset <= e.value.span.end)?;
                path.push(entry.key.text);
                match entry.value.kind() {
                    NodeKind::Scalar(_) => Some(entry.value),
                    _ => walk(entry.value, path, offset),
                }
            }
            NodeKind::Sequence(items) => {
                let item = items
                    .iter()
                    .find(|n| n.span.start <= offset && offset <= n.span.end)?;
                path.push("-");
                match item.kind() {
                    NodeKind::Scalar(_) => Some(item),
                    _ => walk(item, path, offset),
                }
            }
            NodeKind::Scalar(_) => None,
        }
    }
    let mut path = Vec::new();
    let scalar = walk(document, &mut path, offset)?;
    let text = scalar.as_scalar()?.text;
    // A list item's type is the list's item type.
    let (key, parent) = match path.split_last()? {
        (&"-", rest) => {
            let (key, parent) = rest.split_last()?;
            (*key, parent)
        }
        (key, parent) => (*key, parent),
    };
    let value_type = crate::format::value_type_at(parent, key)?;
    let kind = match value_type {
        ValueType::Enum(kind) | ValueType::List(ValueType::Enum(kind)) => *kind,
        _ => return None,
    };
    let (what, values) = kind.values();
    let lowered = text.to_lowercase();
    values
        .into_iter()
        .find(|(value, _)| *value == lowered)
        .map(|(value, meaning)| EnumValueAt {
            what,
            value,
            meaning,
            span: scalar.span,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    fn at_cursor(text_with_cursor: &str) -> (String, usize) {
        let offset = text_with_cursor.find('|').unwrap();
        (text_with_cursor.replacen('|', "", 1), offset)
    }

    fn context(text_with_cursor: &str) -> CursorContext {
        let (text, offset) = at_cursor(text_with_cursor);
        cursor_context(&text, offset)
    }

    #[test]
    fn paths_follow_indentation_and_list_items() {
        let c = context(
            "phases:\n  plan:\n    exit:\n      required:\n        - name: x\n          ty|",
        );
        assert_eq!(c.path, ["phases", "plan", "exit", "required", "-"]);
        assert_eq!(
            c.position,
            CursorPosition::Key {
                prefix: "ty".into()
            }
        );

        let c = context("propagation_chains:\n  - chain_id: c\n    source:\n      phase: re|");
        assert_eq!(c.path, ["propagation_chains", "-", "source"]);
        assert_eq!(
            c.position,
            CursorPosition::Value {
                key: "phase".into(),
                prefix: "re".into()
            }
        );

        let c = context("phases:\n  plan:\n    entry:\n      required:\n        - |");
        assert_eq!(c.path, ["phases", "plan", "entry", "required", "-"]);

        let c =
            context("graph_topology:\n  merge_points:\n    - node: g\n      sources:\n        - |");
        assert_eq!(c.path, ["graph_topology", "merge_points", "-"]);
        assert_eq!(
            c.position,
            CursorPosition::Value {
                key: "sources".into(),
                prefix: String::new()
            }
        );

        let c = context("a: 1\n# comment\n|");
        assert_eq!(c.path, Vec::<String>::new());
    }

    const CONTRACT: &str = "\
schema_version: '1'
pipeline_id: p
phases:
  retrieve:
    description: Fetch documents
    exit: { required: [{ name: docs }], optional: [{ name: scores }] }
  generate: {}
checkpoint_integrity:
  - checkpoint_id: k
    phase: retrieve
    on_resume:
      staleness_checks:
        - field: docs
          max_age_seconds: 5
";

    fn labels(items: &[Completion]) -> Vec<&str> {
        items.iter().map(|c| c.label.as_str()).collect()
    }

    #[test]
    fn completes_keys_phases_fields_and_enums() {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        let contract = analysis.contract.as_deref();
        let complete_at = |text: &str| {
            let (text, offset) = at_cursor(text);
            complete(&text, offset, contract)
        };
        let root = complete_at("schema_version: '1'\n|");
        assert!(labels(&root).contains(&"checkpoint_integrity"));
        assert!(!labels(&root).contains(&"schema_version"), "already there");
        // Keys the mapping has above and below the cursor are not offered
        // again; those of nested or neighbouring mappings are.
        let siblings = complete_at(
            "phases:\n  plan:\n    description: x\n    entry:\n      required: []\n    |\n    exit: {}\n  other:\n    long_running: true\n",
        );
        assert_eq!(
            labels(&siblings),
            [
                "long_running",
                "expected_duration",
                "side_effects",
                "risk_class"
            ]
        );
        let in_item = complete_at(
            "checkpoint_integrity:\n  - checkpoint_id: a\n    phase: p\n    |\n  - checkpoint_id: b\n    on_resume: {}\n",
        );
        assert_eq!(labels(&in_item), ["on_resume"]);
        let phase_keys = complete_at("phases:\n  plan:\n    |");
        assert_eq!(
            labels(&phase_keys),
            [
                "description",
                "entry",
                "exit",
                "long_running",
                "expected_duration",
                "side_effects",
                "risk_class"
            ]
        );
        assert_eq!(
            labels(&complete_at("checkpoint_integrity:\n  - phase: |")),
            ["retrieve", "generate"]
        );
        let fields = format!("{CONTRACT}        - field: |");
        assert_eq!(labels(&complete_at(&fields)), ["docs", "scores"]);
        let severity = complete_at(
            "phases:\n  a:\n    exit:\n      required:\n        - name: x\n          severity: |",
        );
        assert_eq!(labels(&severity), ["blocking", "warning", "advisory"]);
        assert!(severity[0].documentation.is_some());
        let recovery = complete_at(
            "checkpoint_integrity:\n  - checkpoint_id: k\n    on_resume:\n      staleness_checks:\n        - on_stale: blocking\n          recovery: re|",
        );
        assert_eq!(recovery.len(), 4);
        // By where the key is, not by its name alone: `recovery` under an
        // unknown key is not the format's.
        assert!(complete_at("x:\n  recovery: re|").is_empty());
        let merge = complete_at(
            "graph_topology:\n  merge_points:\n    - node: m\n      merge_policy:\n        answer: |",
        );
        assert_eq!(
            labels(&merge),
            [
                "required_from_any",
                "required_from_all",
                "prefer_latest",
                "union_all"
            ]
        );
        // Keys carry their type and description from the format.
        let keys =
            complete_at("checkpoint_integrity:\n  - checkpoint_id: k\n    on_resume:\n      |");
        let approval = keys.iter().find(|k| k.label == "approval_policy").unwrap();
        assert_eq!(
            approval.detail.as_deref(),
            Some("`human` | `orchestrator` | `human_or_orchestrator` | `auto_if_fresh`")
        );
        assert_eq!(
            approval.documentation.as_deref(),
            Some("Who may approve the resume.")
        );
    }

    #[test]
    fn a_chain_endpoint_field_completes_from_its_phase() {
        let text = "\
schema_version: '1'
pipeline_id: p
phases:
  retrieve:
    exit: { required: [{ name: docs }], optional: [{ name: scores }] }
  generate:
    entry: { required: [{ name: docs }] }
    exit: { required: [{ name: answer }] }
propagation_chains:
  - chain_id: c
    source:
      phase: retrieve
      field: docs
    destination:
      phase: generate
      field: answer
";
        let analysis = crate::analyze(text, &Settings::default());
        let contract = analysis.contract.as_deref();
        let at = |needle: &str| {
            let offset = text.find(needle).unwrap() + needle.len();
            labels(&complete(text, offset, contract))
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        // A source names what its phase produces; a destination anything
        // its phase declares (R104).
        assert_eq!(at("phase: retrieve\n      field: "), ["docs", "scores"]);
        assert_eq!(at("phase: generate\n      field: "), ["answer", "docs"]);
    }

    #[test]
    fn words_after_multi_byte_characters() {
        // The character before the word is two bytes wide.
        assert!(!may_be_enum_value("description: éx\n", 15));
        assert!(may_be_enum_value("severity: éblocking\n", 17));
        assert!(may_be_enum_value("a: 😀human", 7));
        assert!(!may_be_enum_value(&"a".repeat(100), 50));
        for offset in 0..="d: éé€😀x".len() {
            let _ = may_be_enum_value("d: éé€😀x", offset);
        }
    }

    #[test]
    fn enum_values_under_the_cursor() {
        let source = "phases:\n  a:\n    risk_class: HIGH\n";
        let root = crate::syntax::parse(source, crate::syntax::Limits::default())
            .unwrap()
            .unwrap();
        let offset = source.find("HIGH").unwrap() + 1;
        let EnumValueAt {
            what,
            value,
            meaning: doc,
            span,
        } = enum_value_at(root.root(), offset).unwrap();
        assert_eq!(&source[span.start..span.end], "HIGH", "the value's range");
        assert_eq!((what, value), ("risk class", "high"));
        assert!(doc.contains("approval gate"));
        assert!(enum_value_at(root.root(), 3).is_none());
        // The cheap test agrees, without the tree.
        assert!(may_be_enum_value(source, offset));
        assert!(may_be_enum_value(source, source.find("HIGH").unwrap()));
        assert!(!may_be_enum_value(source, source.find("risk").unwrap()));
        assert!(!may_be_enum_value(source, 3));
    }
}
