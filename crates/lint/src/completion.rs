//! What may be typed at a position: keys valid at the cursor, phase names,
//! the exit fields of a checkpoint's phase, enum values. The cursor's place
//! is read from the text's indentation, because the text being typed is
//! rarely valid YAML; names come from the last contract that parsed.

use crate::format::{EnumKind, ValueType};
use crate::model::{CheckpointSpec, Contract};
use crate::syntax::{Node, NodeKind, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Key,
    Phase,
    Field,
    EnumValue,
    Value,
    /// A rule code in a suppression comment.
    RuleCode,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    pub documentation: Option<String>,
    /// What to insert, when it differs from the label (`key: `).
    pub insert_text: Option<String>,
    /// How the client orders the items, when not by label: the best first.
    pub sort_text: Option<String>,
}

impl Completion {
    fn new(label: impl Into<String>, kind: CompletionKind) -> Self {
        Completion {
            label: label.into(),
            kind,
            detail: None,
            documentation: None,
            insert_text: None,
            sort_text: None,
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
    // A comment holds no contract value; suppression codes are
    // `complete_suppression_code`'s.
    if in_comment(source, offset) {
        return Vec::new();
    }
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
                let staleness = path.ends_with(&["staleness_checks", "-"]);
                return values
                    .into_iter()
                    .filter(|(value, _)| {
                        !staleness || staleness_pair_holds(source, offset, key, value)
                    })
                    .map(|(value, doc)| {
                        let mut item = Completion::new(value, CompletionKind::EnumValue);
                        item.detail = Some(what.to_string());
                        item.documentation = Some(doc.to_string());
                        item
                    })
                    .collect();
            }
            if key == "source_phase" && path.first() == Some(&"phases") {
                return source_phases(source, offset, contract, path.get(1).copied());
            }
            if key == "phase" && path.first() == Some(&"checkpoint_integrity") {
                return checkpoint_phases(contract, offset);
            }
            if key == "phase" && path.first() == Some(&"propagation_chains") {
                return chain_stop_phases(source, offset, contract);
            }
            if matches!(value_type, Some(ValueType::PhaseName)) {
                return phase_names();
            }
            if key == "field" && path.starts_with(&["checkpoint_integrity"]) {
                return checkpoint_exit_fields(contract, offset);
            }
            if key == "field" && path.starts_with(&["propagation_chains"]) {
                let text = source;
                // `propagation_chains`, `-`, then `source`, `waypoints` or `destination`.
                let source = path.get(2) == Some(&"source");
                return endpoint_fields(text, contract, offset, source);
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

/// Whether `offset` is inside a comment: after a `#` that starts the line's
/// content or follows a blank, outside a quoted scalar (a quote opens a
/// scalar only where one begins: at the line's content start, or after
/// `: `, `- `, `[`, `{` or `,`).
fn in_comment(source: &str, offset: usize) -> bool {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &source.as_bytes()[line_start..offset];
    let mut quote: Option<u8> = None;
    let mut previous = b' ';
    for (i, &b) in before.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'#' if matches!(previous, b' ' | b'\t') => return true,
                b'"' | b'\'' => {
                    let opener = before[..i]
                        .iter()
                        .rev()
                        .find(|c| !matches!(c, b' ' | b'\t'));
                    if opener.is_none_or(|c| matches!(c, b':' | b'-' | b'[' | b'{' | b',')) {
                        quote = Some(b);
                    }
                }
                _ => {}
            },
        }
        previous = b;
    }
    false
}

/// Rule codes for the suppression comment at `offset`, when the position
/// is where a code of its list goes (`None` elsewhere): each code a comment
/// can silence, not yet listed, labelled with the rule's name. The codes
/// found where the comment applies come first (on its line and the next
/// for `disable=`, anywhere for `disable-file=`), most findings first,
/// then the rest in code order.
pub fn complete_suppression_code(
    analysis: &crate::Analysis,
    offset: usize,
) -> Option<Vec<Completion>> {
    let at = crate::suppression::suppression_at(&analysis.source, &analysis.line_index, offset)?;
    let typed = at.typed.trim().to_ascii_uppercase();
    let mut found: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for d in &analysis.diagnostics {
        let line = analysis.line_index.line_of(d.span.start);
        if at.file_level || line == at.line || line == at.line + 1 {
            *found.entry(d.code.as_str()).or_default() += 1;
        }
    }
    let already = |code: &str| {
        at.listed
            .iter()
            .any(|listed| listed == code && !code.eq_ignore_ascii_case(at.code.trim()))
    };
    let mut rules: Vec<&crate::rules::Rule> = crate::rules::RULES
        .iter()
        .copied()
        .filter(|r| r.suppressible && !r.always_on && r.family != crate::rules::Family::Diff)
        .filter(|r| r.code.as_str().starts_with(typed.as_str()) && !already(r.code.as_str()))
        .collect();
    // Most findings first; `sort_by_key` is stable, so the rest keep code order.
    rules.sort_by_key(|r| std::cmp::Reverse(found.get(r.code.as_str()).copied().unwrap_or(0)));
    Some(
        rules
            .into_iter()
            .enumerate()
            .map(|(rank, rule)| {
                let mut item = Completion::new(rule.code.as_str(), CompletionKind::RuleCode);
                item.detail = Some(rule.name.to_string());
                let count = found.get(rule.code.as_str()).copied().unwrap_or(0);
                item.documentation = Some(match count {
                    0 => rule.summary.to_string(),
                    1 => format!("{}\n\n1 finding where this comment applies", rule.summary),
                    n => format!(
                        "{}\n\n{n} findings where this comment applies",
                        rule.summary
                    ),
                });
                item.sort_text = Some(format!("{rank:04}"));
                item
            })
            .collect(),
    )
}

/// The keys already written in the mapping the line at `offset` belongs
/// to, other than on that line: the lines at the same indentation above and
/// below it, up to the parent key or the start of the list item.
fn sibling_keys(source: &str, offset: usize) -> Vec<&str> {
    sibling_entries(source, offset)
        .into_iter()
        .map(|(key, _)| key)
        .collect()
}

/// The value written for `key` in the mapping the line at `offset` belongs
/// to (not on that line), quotes removed.
fn sibling_value<'s>(source: &'s str, offset: usize, key: &str) -> Option<&'s str> {
    sibling_entries(source, offset)
        .into_iter()
        .find(|(k, _)| *k == key)
        .map(|(_, value)| value.trim_matches(['"', '\'']))
        .filter(|value| !value.is_empty())
}

/// The entries (key, value as written) of the mapping the line at
/// `offset` belongs to, other than on that line.
fn sibling_entries(source: &str, offset: usize) -> Vec<(&str, &str)> {
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
            keys.extend(s.key.zip(s.value));
            break;
        }
        if s.first < column {
            break;
        }
        if s.first == column && !s.item {
            keys.extend(s.key.zip(s.value));
        }
    }
    // Below the line, the mapping goes on, unless the line starts a new
    // list item with no key yet (the lines below are the next item's).
    if !here.item || here.key.is_some() {
        for line in source[line_end..].lines().filter(is_content) {
            let s = shape(line);
            if s.first < column || (s.item && s.first == column) {
                break;
            }
            if s.first == column {
                keys.extend(s.key.zip(s.value));
            }
        }
    }
    keys
}

/// The phases a `source_phase:` of a field that phase `reader` reads can
/// name without a finding: those that produce the field (its exit, as R110
/// asks) and come before the reader on some path of the phase graph. The
/// best come first: a phase on every path to the reader that guarantees the
/// field (`exit.required`), then the others, each in declaration order.
fn source_phases(
    source: &str,
    offset: usize,
    contract: Option<&Contract>,
    reader: Option<&str>,
) -> Vec<Completion> {
    let Some(contract) = contract else {
        return Vec::new();
    };
    let Some(reader) = reader.and_then(|r| contract.phase_index(r)) else {
        return Vec::new();
    };
    let Some(field) = sibling_value(source, offset, "name").map(crate::field_path::FieldPath::new)
    else {
        return Vec::new();
    };
    let producers: Vec<usize> = (0..contract.phases.len())
        .filter(|&p| p != reader && contract.phases[p].produces(&field))
        .collect();
    if producers.is_empty() {
        return Vec::new();
    }
    // The graph of the contract the names come from, built for this answer:
    // the last contract that parsed has none kept with it.
    let graph = crate::graph::PhaseGraph::build(std::sync::Arc::new(contract.clone()));
    let mut ranked: Vec<(bool, usize)> = producers
        .into_iter()
        .filter(|&p| graph.reaches(p, reader))
        .map(|p| {
            let guaranteed = contract.phases[p]
                .exit_required()
                .iter()
                .any(|f| f.name.value.covers(&field));
            let best = guaranteed && on_every_path(&graph, contract, p, reader);
            (!best, p)
        })
        .collect();
    ranked.sort_unstable();
    ranked
        .into_iter()
        .enumerate()
        .map(|(rank, (not_best, p))| {
            let phase = &contract.phases[p];
            let mut item = Completion::new(phase.name.clone(), CompletionKind::Phase);
            item.detail = Some(if not_best {
                format!("produces `{field}` on some paths")
            } else {
                format!("produces `{field}` on every path")
            });
            item.documentation = phase.description().map(|d| d.value.clone());
            item.sort_text = Some(format!("{rank:04}"));
            item
        })
        .collect()
}

/// Whether every path from an entry of the graph to `to` passes `through`:
/// no entry other than `through` reaches `to` once the edges leaving
/// `through` are set aside. In declaration order every earlier phase is.
fn on_every_path(
    graph: &crate::graph::PhaseGraph,
    contract: &Contract,
    through: usize,
    to: usize,
) -> bool {
    if !graph.from_topology() {
        return through < to;
    }
    // One search per entry: past a few dozen entries the ranking is not
    // worth a completion's time, and every candidate stays offered.
    const ENTRIES_SEARCHED: usize = 32;
    if graph.entries().len() > ENTRIES_SEARCHED {
        return false;
    }
    let Some(topology) = contract.topology.as_ref() else {
        return false;
    };
    let through_name = contract.phases[through].name.as_str();
    let leaves_through = |origin: crate::graph::EdgeOrigin| match origin {
        crate::graph::EdgeOrigin::Topology(i) => topology
            .edges
            .get(i)
            .and_then(|e| e.from.as_ref())
            .is_some_and(|from| from.value == through_name),
        crate::graph::EdgeOrigin::Sequence => false,
    };
    graph
        .entries()
        .iter()
        .filter(|&&entry| entry != through)
        .all(|&entry| entry != to && !graph.reaches_by(entry, to, |o| !leaves_through(o)))
}

/// Whether `value` for `key` (`on_stale` or `recovery`) of the staleness
/// check at `offset` agrees with the other as written: `recovery: fail`
/// only with a blocking `on_stale` (C206), `log_and_continue` only with a
/// non-blocking one (C207; blocking is the default).
fn staleness_pair_holds(source: &str, offset: usize, key: &str, value: &str) -> bool {
    let other = |k: &str| sibling_value(source, offset, k).map(str::to_ascii_lowercase);
    match key {
        "on_stale" => match other("recovery").as_deref() {
            Some("fail") => value == "blocking",
            Some("log_and_continue") => value != "blocking",
            _ => true,
        },
        "recovery" => match other("on_stale").as_deref() {
            None | Some("blocking") => value != "log_and_continue",
            Some(_) => value != "fail",
        },
        _ => true,
    }
}

/// The checkpoint spec `offset` is in: the last one that starts before it.
fn checkpoint_around(contract: &Contract, offset: usize) -> Option<&CheckpointSpec> {
    contract
        .checkpoints
        .iter()
        .filter(|c| c.span.start <= offset)
        .max_by_key(|c| c.span.start)
}

/// The phases the checkpoint around `offset` can be taken after without a
/// finding: each produces every field its staleness checks watch (R102)
/// and, when it sets `revalidate_entry: true`, has a successor (C208).
/// Those with exit fields come first (a checkpoint keeps what its phase
/// produced), each group in declaration order.
fn checkpoint_phases(contract: Option<&Contract>, offset: usize) -> Vec<Completion> {
    let Some(contract) = contract else {
        return Vec::new();
    };
    let spec = checkpoint_around(contract, offset);
    let watched: Vec<&crate::field_path::FieldPath> = spec
        .into_iter()
        .flat_map(|c| &c.on_resume.staleness_checks)
        .filter_map(|check| check.field.as_ref().map(|f| &f.value))
        .collect();
    let revalidates = spec
        .and_then(|c| c.on_resume.revalidate_entry.as_ref())
        .is_some_and(|r| r.value);
    let graph =
        revalidates.then(|| crate::graph::PhaseGraph::build(std::sync::Arc::new(contract.clone())));
    let mut phases: Vec<(bool, usize)> = contract
        .phases
        .iter()
        .enumerate()
        .filter(|(_, p)| watched.iter().all(|field| p.produces(field)))
        .filter(|(i, _)| {
            graph
                .as_ref()
                .is_none_or(|g| g.successors(*i).next().is_some())
        })
        .map(|(i, p)| (p.exit_fields().next().is_none(), i))
        .collect();
    phases.sort_unstable();
    phases
        .into_iter()
        .enumerate()
        .map(|(rank, (no_exit, i))| {
            let phase = &contract.phases[i];
            let mut item = Completion::new(phase.name.clone(), CompletionKind::Phase);
            let exits = phase.exit_fields().count();
            item.detail = Some(if no_exit {
                "phase with no exit fields".to_string()
            } else {
                format!(
                    "phase with {exits} exit field{}",
                    if exits == 1 { "" } else { "s" }
                )
            });
            item.documentation = phase.description().map(|d| d.value.clone());
            item.sort_text = Some(format!("{rank:04}"));
            item
        })
        .collect()
}

/// The exit fields of the phase of the checkpoint around `offset`.
fn checkpoint_exit_fields(contract: Option<&Contract>, offset: usize) -> Vec<Completion> {
    let Some(contract) = contract else {
        return Vec::new();
    };
    let spec = checkpoint_around(contract, offset);
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

/// The phases the chain stop around `offset` can name without a finding:
/// its field declared as R104 asks (a source's phase produces it, another
/// stop's phase reads or writes it), and each leg to and from the stop
/// kept as G307 and G308 decide it: the previous stop's phase reaches this
/// one along a path that lets the previous stop's field through, and this
/// one reaches the next stop's along a path that lets its own field
/// through (the graph's `reaches_by` over `Edge::passes`, which
/// `chain_routes` is tested to agree with). A stop with no field written
/// yet is held only to the route: R104 and the legs' field have nothing to
/// check, and any phase that keeps the stops in a reachable order leaves
/// the chain as clean as it was. A neighbour stop whose phase is not known
/// sets no condition (G307 and G308 check no such chain). Declaration order.
fn chain_stop_phases(source: &str, offset: usize, contract: Option<&Contract>) -> Vec<Completion> {
    use crate::field_path::FieldPath;
    let Some(contract) = contract else {
        return Vec::new();
    };
    // The stop at `offset`: the last one starting before it, in the chain
    // that holds `offset` (a chain not in the parsed contract has none).
    let found = contract
        .chains
        .iter()
        .filter(|c| c.span.start <= offset && offset <= c.span.end)
        .flat_map(|c| {
            let stops: Vec<&crate::model::Endpoint> = c.stops().collect();
            (0..stops.len())
                .filter(|&k| stops[k].span.start <= offset)
                .max_by_key(|&k| stops[k].span.start)
                .map(|k| (c, stops, k))
        })
        .next_back();
    let written_field = sibling_value(source, offset, "field").map(FieldPath::new);
    let (field, previous, next, is_source) = match &found {
        Some((chain, stops, k)) => {
            let k = *k;
            let field = written_field.or_else(|| stops[k].field.as_ref().map(|f| f.value.clone()));
            let phase_of = |stop: &crate::model::Endpoint| {
                stop.phase
                    .as_ref()
                    .and_then(|p| contract.phase_index(&p.value))
            };
            let previous = k
                .checked_sub(1)
                .and_then(|p| stops.get(p))
                .and_then(|stop| {
                    phase_of(stop).map(|i| (i, stop.field.as_ref().map(|f| &f.value)))
                });
            let next = stops.get(k + 1).and_then(|stop| phase_of(stop));
            let is_source = k == 0 && chain.source.is_some();
            (field, previous, next, is_source)
        }
        None => (written_field, None, None, false),
    };
    let graph = (previous.is_some() || next.is_some())
        .then(|| crate::graph::PhaseGraph::build(std::sync::Arc::new(contract.clone())));
    let topology = contract.topology.as_ref();
    // Whether the leg `from` → `to` carrying `field` is clean for G307/G308.
    let leg_holds = |from: usize, to: usize, field: Option<&FieldPath>| -> bool {
        let Some(graph) = graph.as_ref() else {
            return true;
        };
        if from == to {
            return true;
        }
        match (field, topology) {
            (Some(field), Some(topology)) if graph.from_topology() => {
                graph.reaches_by(from, to, |origin| match origin {
                    crate::graph::EdgeOrigin::Topology(i) => {
                        topology.edges.get(i).is_none_or(|e| e.passes(field))
                    }
                    crate::graph::EdgeOrigin::Sequence => true,
                })
            }
            _ => graph.reaches(from, to),
        }
    };
    contract
        .phases
        .iter()
        .enumerate()
        .filter(|(_, phase)| match &field {
            None => true,
            Some(field) if is_source => phase.produces(field),
            Some(field) => phase.produces(field) || phase.reads(field),
        })
        .filter(|&(p, _)| {
            previous.is_none_or(|(from, carried)| leg_holds(from, p, carried))
                && next.is_none_or(|to| leg_holds(p, to, field.as_ref()))
        })
        .map(|(_, phase)| {
            let mut item = Completion::new(phase.name.clone(), CompletionKind::Phase);
            item.detail = Some(match &field {
                Some(field) if is_source => format!("produces `{field}`"),
                Some(field) => format!("reads or writes `{field}`"),
                None => "phase".to_string(),
            });
            item.documentation = phase.description().map(|d| d.value.clone());
            item
        })
        .collect()
}

/// The fields a chain endpoint around `offset` can name: what R104 accepts,
/// the exit fields of a source's phase, any field of a later stop's phase.
fn endpoint_fields(
    text: &str,
    contract: Option<&Contract>,
    offset: usize,
    source: bool,
) -> Vec<Completion> {
    let Some(contract) = contract else {
        return Vec::new();
    };
    // The stop's `phase:` as written beside the field; the last parsed
    // contract's stop at this place when the text has none.
    let written = sibling_value(text, offset, "phase").map(|name| contract.phase(name));
    let phase = written.unwrap_or_else(|| {
        contract
            .chains
            .iter()
            .flat_map(|c| c.stops())
            .filter(|e| e.span.start <= offset)
            .max_by_key(|e| e.span.start)
            .and_then(|e| e.phase.as_ref())
            .and_then(|p| contract.phase(&p.value))
    });
    let Some(phase) = phase else {
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
        // `log_and_continue` cannot recover a blocking field (C207).
        assert_eq!(labels(&recovery), ["re_retrieve", "re_generate", "fail"]);
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
    fn source_phase_offers_producers_before_the_reader_best_first() {
        // a -> b -> d and a -> c -> d: `x` is guaranteed by `a` (on every
        // path to `d`), only possibly by `b` (one branch), produced by `e`
        // after `d`, and `d` reads it itself.
        let text = "\
schema_version: '1'
pipeline_id: p
phases:
  a:
    exit: { required: [{ name: x }] }
  b:
    exit: { optional: [{ name: x }] }
  c: {}
  d:
    entry:
      required:
        - name: x
          source_phase: a
    exit: { optional: [{ name: x }] }
  e:
    exit: { required: [{ name: x }] }
graph_topology:
  edges:
    - { from: a, to: b }
    - { from: a, to: c }
    - { from: b, to: d }
    - { from: c, to: d }
    - { from: d, to: e }
";
        let analysis = crate::analyze(text, &Settings::default());
        let offset = text.find("source_phase: ").unwrap() + "source_phase: ".len();
        let items = complete(text, offset, analysis.contract.as_deref());
        assert_eq!(labels(&items), ["a", "b"]);
        assert_eq!(
            items[0].detail.as_deref(),
            Some("produces `x` on every path")
        );
        assert!(items[0].sort_text < items[1].sort_text);
    }

    #[test]
    fn a_chain_stop_phase_offers_phases_that_keep_the_chain_clean() {
        // a -> b -> d, a -> c -> d (dropping `x`), d -> e; `f` is apart.
        let contract = |source: &str, destination: &str| {
            format!(
                "\
schema_version: '1'
pipeline_id: p
phases:
  a:
    exit: {{ required: [{{ name: x }}] }}
  b:
    exit: {{ optional: [{{ name: x }}] }}
  c:
    exit: {{ optional: [{{ name: x }}] }}
  d:
    entry: {{ required: [{{ name: x }}] }}
  e:
    exit: {{ optional: [{{ name: x }}] }}
  f: {{}}
graph_topology:
  edges:
    - {{ from: a, to: b }}
    - {{ from: a, to: c }}
    - {{ from: b, to: d }}
    - {{ from: c, to: d, drops: [x] }}
    - {{ from: d, to: e }}
propagation_chains:
  - chain_id: k
    source:
      phase: {source}
      field: x
    destination:
      phase: {destination}
      field: x
",
            )
        };
        let complete_at = |text: &str| {
            let (text, offset) = at_cursor(text);
            let analysis = crate::analyze(&text, &Settings::default());
            labels(&complete(&text, offset, analysis.contract.as_deref()))
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        // A source produces `x` and reaches `d` along a path keeping it:
        // not `c` (G308: its only way drops `x`), not `e` (G307), not `d`
        // or `f` (R104).
        assert_eq!(complete_at(&contract("|", "d")), ["a", "b"]);
        // A destination after `b` reads or writes `x` and is reached.
        assert_eq!(complete_at(&contract("b", "|")), ["b", "d", "e"]);
        // With no field yet, only the route counts: what reaches `d`.
        let no_field = contract("|", "d").replacen("|\n      field: x\n", "|\n", 1);
        assert_eq!(complete_at(&no_field), ["a", "b", "c", "d"]);
    }

    #[test]
    fn checkpoint_phase_offers_phases_that_produce_what_it_watches() {
        let text = "\
schema_version: '1'
pipeline_id: p
phases:
  plan: {}
  retrieve:
    exit: { required: [{ name: docs }] }
  index:
    exit: { required: [{ name: docs }, { name: scores }] }
  generate: {}
checkpoint_integrity:
  - checkpoint_id: k
    phase: retrieve
    on_resume:
      staleness_checks:
        - field: docs
          max_age_seconds: 5
";
        let analysis = crate::analyze(text, &Settings::default());
        let offset = text.find("phase: retrieve").unwrap() + "phase: ".len();
        let items = complete(text, offset, analysis.contract.as_deref());
        assert_eq!(labels(&items), ["retrieve", "index"]);
        // Without staleness checks, every phase, those with exit fields first.
        let bare = text.split("    on_resume").next().unwrap();
        let analysis = crate::analyze(bare, &Settings::default());
        let items = complete(bare, offset, analysis.contract.as_deref());
        let mut ranked = items.clone();
        ranked.sort_by(|a, b| a.sort_text.cmp(&b.sort_text));
        assert_eq!(labels(&ranked), ["retrieve", "index", "plan", "generate"]);
    }

    #[test]
    fn staleness_enums_agree_with_each_other() {
        let base = "checkpoint_integrity:\n  - checkpoint_id: k\n    on_resume:\n      staleness_checks:\n        - field: f\n";
        let at = |lines: &str| {
            let text = format!("{base}{lines}");
            let offset = text.find('|').unwrap();
            let text = text.replacen('|', "", 1);
            labels(&complete(&text, offset, None))
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            at("          recovery: fail\n          on_stale: |"),
            ["blocking"]
        );
        assert_eq!(
            at("          on_stale: warning\n          recovery: |"),
            ["re_retrieve", "re_generate", "log_and_continue"]
        );
        // Blocking is the default: no `log_and_continue` without `on_stale`.
        assert_eq!(
            at("          recovery: |"),
            ["re_retrieve", "re_generate", "fail"]
        );
    }

    #[test]
    fn comments_get_no_contract_completion() {
        let analysis = crate::analyze(CONTRACT, &Settings::default());
        let contract = analysis.contract.as_deref();
        let text = format!("{CONTRACT}  - checkpoint_id: j\n    phase: retrieve  # after ");
        assert!(complete(&text, text.len(), contract).is_empty());
        let text = format!("{CONTRACT}# phases:\n#   ");
        assert!(complete(&text, text.len(), contract).is_empty());
        // A `#` inside a quoted value is text.
        let text = format!("{CONTRACT}  - checkpoint_id: 'a #b'\n    phase: ");
        assert_eq!(labels(&complete(&text, text.len(), contract)), ["retrieve"]);
    }

    #[test]
    fn suppression_codes_rank_the_findings_where_the_comment_applies() {
        let text =
            "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\n# phaselint: disable=\nx: 1\n";
        let analysis = crate::analyze(text, &Settings::default());
        let offset = text.find("disable=").unwrap() + "disable=".len();
        let items = complete_suppression_code(&analysis, offset).unwrap();
        assert_eq!(items[0].label, "E003", "the unknown key on the next line");
        assert_eq!(items[0].detail.as_deref(), Some("unknown-key"));
        assert!(items.iter().all(|i| i.label != "E001" && i.label != "S001"));
        // Typed so far: only codes that start with it.
        let typed = text.replace("disable=", "disable=c2");
        let analysis = crate::analyze(&typed, &Settings::default());
        let offset = typed.find("disable=c2").unwrap() + "disable=c2".len();
        let items = complete_suppression_code(&analysis, offset).unwrap();
        assert!(!items.is_empty() && items.iter().all(|i| i.label.starts_with("C2")));
        // Not in the list: nothing to say.
        assert!(complete_suppression_code(&analysis, 3).is_none());
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
