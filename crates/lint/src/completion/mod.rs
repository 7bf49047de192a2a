//! What may be typed at a position: keys valid at the cursor, phase names,
//! the exit fields of a checkpoint's phase, enum values. The cursor's place
//! is read from the text's indentation, because the text being typed is
//! rarely valid YAML; names come from the last contract that parsed.

mod at;
mod item;
mod line;
#[cfg(test)]
mod tests;
mod values;

pub(crate) use at::word_at;
#[cfg(test)]
pub(crate) use at::{EnumValueAt, LONGEST_WORD};
pub use at::{enum_value_at, key_at, may_be_enum_value};
pub use item::{Completion, CompletionKind};

use crate::format::{FieldNames, PhaseNames, TYPE_NAMES, ValueType};
use crate::model::Contract;
use line::shape;
use values::*;

/// Where the cursor is, in terms of the contract's structure.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct CursorContext {
    /// Keys from the root to the mapping the cursor is in; `-` is a list item.
    pub(crate) path: Vec<String>,
    pub(crate) position: CursorPosition,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CursorPosition {
    /// Typing a key (the prefix typed so far).
    Key { prefix: String },
    /// Typing the value of `key`, or an item of the list under `key`.
    Value { key: String, prefix: String },
}

pub(crate) fn cursor_context(source: &str, offset: usize) -> CursorContext {
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
    match context.position {
        CursorPosition::Key { .. } => {
            let Some(mapping) = crate::format::mapping_at(&path) else {
                return author_named_keys(source, offset, &path, contract);
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
            value_type.map_or_else(Vec::new, |value_type| {
                values_of_type(value_type, source, offset, &path, contract)
            })
        }
    }
}

/// The values of `value_type` that fit at `offset`, the cursor's place
/// `path`: chosen by the type alone, never by the key's name, so a new key
/// of a type completes as the others of it do.
fn values_of_type(
    value_type: &ValueType,
    source: &str,
    offset: usize,
    path: &[&str],
    contract: Option<&Contract>,
) -> Vec<Completion> {
    match value_type {
        ValueType::PhaseName(names) => match names {
            PhaseNames::Any => phase_names(contract),
            PhaseNames::CheckpointPhase => checkpoint_phases(contract, offset),
            PhaseNames::ChainStop => chain_stop_phases(source, offset, contract),
            // `phases`, then the reading phase's name.
            PhaseNames::FieldSource => {
                source_phases(source, offset, contract, path.get(1).copied())
            }
        },
        ValueType::FieldPath(names) => match names {
            FieldNames::Any => Vec::new(),
            FieldNames::CheckpointPhaseExit => checkpoint_exit_fields(contract, offset),
            FieldNames::ChainStopPhase => {
                // `propagation_chains`, `-`, then `source`, `waypoints` or
                // `destination`.
                let at_source = path.get(2) == Some(&"source");
                endpoint_fields(source, contract, offset, at_source)
            }
        },
        ValueType::Bool => ["true", "false"]
            .into_iter()
            .map(|v| Completion::new(v, CompletionKind::Value))
            .collect(),
        ValueType::TypeName => TYPE_NAMES
            .iter()
            .map(|t| Completion::new(*t, CompletionKind::Value))
            .collect(),
        _ => Vec::new(),
    }
}

/// The keys that fit in a mapping of keys of the author's choosing (the
/// nodes of `graph_topology`): the names its declared key type offers.
fn author_named_keys(
    source: &str,
    offset: usize,
    path: &[&str],
    contract: Option<&Contract>,
) -> Vec<Completion> {
    let Some((last, parent)) = path.split_last() else {
        return Vec::new();
    };
    let declared = crate::format::mapping_at(parent)
        .and_then(|m| m.key(last))
        .map(|k| &k.value);
    let Some(ValueType::MapOf { key, .. }) = declared else {
        return Vec::new();
    };
    values_of_type(key, source, offset, path, contract)
        .into_iter()
        .map(|mut item| {
            item.insert_text = Some(format!("{}:", item.label));
            item
        })
        .collect()
}

/// Every phase of the contract.
fn phase_names(contract: Option<&Contract>) -> Vec<Completion> {
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
