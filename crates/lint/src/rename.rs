//! Renaming a field: which places name it, what each becomes, and when a
//! rename must be refused because it would change what the contract means.
//!
//! The field renamed is the dotted path up to the segment under the cursor:
//! on `docs` of `docs.items` it is `docs`, on `items` it is `docs.items`.
//! Renaming `a` to `b` rewrites every name whose leading segments are
//! literally `a` (`a`, `a.x`, `a.*` become `b`, `b.x`, `b.*`) wherever a
//! field is named: entry and exit declarations, chain endpoints, staleness
//! checks, pipeline inputs, topology nodes, edges' `preserves`/`drops`,
//! cycle invariants, merge policies, and the keys a chain's `verification`
//! reads from `context` (`context['a']`, `context.get('a')`).
//!
//! A name that is not rewritten but relates to `a` or `b` through its
//! segments or a wildcard (`*.x`, the containing `a` of `a.x`, a `b`
//! already declared) would change what it covers, so the rename is refused
//! with that name and its place, unless it relates to both old and new
//! paths the same way (`docs` still contains `docs.items` renamed to
//! `docs.entries`). A path with a `*` is never renamed itself.
//!
//! Each name is rewritten through `scalar_edit`, so its quoting stays
//! valid; a verification key is edited in place when its characters map
//! one to one into the YAML scalar (one line, plain or quoted, the key not
//! spelt with escapes), and the rename is refused otherwise. Before the
//! edits are answered, the edited text is parsed again and every field
//! name in it must read as planned.

use ruff_python_ast::visitor::{Visitor, walk_expr};
use ruff_python_ast::{CmpOp, Expr, PythonVersion};
use ruff_python_parser::{Mode, ParseOptions};
use ruff_text_size::Ranged;

use crate::config::Settings;
use crate::diagnostic::Edit;
use crate::field_path::FieldPath;
use crate::index::{Symbol, SymbolIndex};
use crate::model::Contract;
use crate::syntax::Span;

/// The field a rename at a position would rename: its path and where that
/// path is written at the position (a prefix of the name there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenameTarget {
    pub path: FieldPath,
    pub span: Span,
}

/// One place a field is named, with the span of its scalar (for a
/// verification key: of the key's characters in the source), or the reason
/// the place cannot be edited exactly.
#[derive(Clone, Debug)]
struct Place {
    name: FieldPath,
    span: Span,
    kind: PlaceKind,
}

#[derive(Clone, Debug)]
enum PlaceKind {
    /// A scalar that is the field name, rewritten whole.
    Scalar,
    /// A key inside a chain's verification; `Err` says why its characters
    /// cannot be located in the YAML text.
    Verification { chain: String, exact: bool },
}

/// The field under `offset` that a rename would rename, `Ok(None)` when no
/// field name is there, or the reason it cannot be renamed.
pub fn target(
    source: &str,
    contract: &Contract,
    index: &SymbolIndex,
    offset: usize,
) -> Result<Option<RenameTarget>, String> {
    let place = index
        .at(offset)
        .and_then(|o| match &o.symbol {
            Symbol::Field { name, .. } => Some(Place {
                name: name.clone(),
                span: o.span,
                kind: PlaceKind::Scalar,
            }),
            Symbol::Phase { .. } => None,
        })
        .or_else(|| {
            extra_places(source, contract)
                .into_iter()
                .find(|p| p.span.start <= offset && offset <= p.span.end)
        });
    let Some(place) = place else {
        return Ok(None);
    };
    target_in(source, &place, offset).map(Some)
}

/// The prefix of `place`'s name up to the segment under `offset`.
fn target_in(source: &str, place: &Place, offset: usize) -> Result<RenameTarget, String> {
    let name = place.name.as_str();
    if let PlaceKind::Verification {
        chain,
        exact: false,
    } = &place.kind
    {
        return Err(not_exact(chain, name));
    }
    // Where the name's characters are: the scalar's own text when it reads
    // as written (plain or quoted without escapes), else the whole scalar.
    let written = source.get(place.span.start..place.span.end).unwrap_or("");
    let inner = if written == name {
        Some(place.span.start)
    } else if written.len() == name.len() + 2
        && (written.starts_with('\'') || written.starts_with('"'))
        && written.get(1..written.len() - 1) == Some(name)
    {
        Some(place.span.start + 1)
    } else {
        None
    };
    let (path, span) = match inner {
        Some(start) => {
            let mut within = offset.saturating_sub(start).min(name.len());
            while !name.is_char_boundary(within) {
                within -= 1;
            }
            let end = name[within..].find('.').map_or(name.len(), |i| within + i);
            (&name[..end], Span::new(start, start + end))
        }
        None => (name, place.span),
    };
    if path.split('.').any(|s| s == "*") {
        return Err(format!(
            "`{path}` has a wildcard segment and names no one field; rename the field it matches where it is declared"
        ));
    }
    Ok(RenameTarget {
        path: FieldPath::new(path),
        span,
    })
}

/// The edits that rename the field under `offset` to `new_name` in
/// `source`, or the reason they cannot: no field there, an invalid or
/// colliding new name, a place that cannot be edited exactly.
pub fn rename_field(source: &str, offset: usize, new_name: &str) -> Result<Vec<Edit>, String> {
    let settings = Settings::default();
    let analysis = crate::analyze(source, &settings);
    let contract = analysis
        .contract()
        .ok_or("the contract does not parse; fix its syntax errors first")?;
    let index = SymbolIndex::build(contract);
    let target =
        target(source, contract, &index, offset)?.ok_or("there is no field name here to rename")?;
    check_name(new_name)?;
    let old = target.path;
    let new = FieldPath::new(new_name);
    if old == new {
        return Ok(Vec::new());
    }
    let places = places(source, contract, &index);
    let mut edits = Vec::new();
    let mut planned = Vec::with_capacity(places.len());
    for place in &places {
        let Some(renamed) = renamed(&place.name, &old, &new) else {
            if let Some(reason) = conflict(source, &place.name, &old, &new, place.span) {
                return Err(reason);
            }
            planned.push(place.name.clone());
            continue;
        };
        match &place.kind {
            PlaceKind::Scalar => {
                edits.extend(
                    crate::scalar_edit::edits(source, place.span, renamed.as_str()).ok_or_else(
                        || {
                            format!(
                                "`{}` at {} cannot be rewritten",
                                place.name,
                                line_of(source, place.span)
                            )
                        },
                    )?,
                );
            }
            PlaceKind::Verification { chain, exact } => {
                if !exact {
                    return Err(not_exact(chain, place.name.as_str()));
                }
                // Only the renamed leading segments change; the rest of the
                // key, and of the expression, stays as written.
                edits.push(Edit {
                    span: Span::new(place.span.start, place.span.start + old.as_str().len()),
                    replacement: new.as_str().to_string(),
                });
            }
        }
        planned.push(renamed);
    }
    edits.sort_by_key(|e| (e.span.start, e.span.end));
    verify(source, &edits, &planned)?;
    Ok(edits)
}

/// The new name of `name` when `old` is its leading segments, written
/// literally.
fn renamed(name: &FieldPath, old: &FieldPath, new: &FieldPath) -> Option<FieldPath> {
    let rest = name.as_str().strip_prefix(old.as_str())?;
    if rest.is_empty() {
        Some(new.clone())
    } else if rest.starts_with('.') {
        Some(FieldPath::new(format!("{new}{rest}")))
    } else {
        None
    }
}

/// Whether `name`'s first segments match `path`'s, `*` matching any one
/// segment on either side: then `name` and some sub-path of `path` cover
/// one another.
fn agrees(name: &FieldPath, path: &FieldPath) -> bool {
    name.segments()
        .zip(path.segments())
        .all(|(a, b)| a == b || a == "*" || b == "*")
}

/// Why keeping `name` as it is while `old` becomes `new` would change what
/// it covers or is covered by, or `None` when nothing changes.
fn conflict(
    source: &str,
    name: &FieldPath,
    old: &FieldPath,
    new: &FieldPath,
    span: Span,
) -> Option<String> {
    let (with_old, with_new) = (agrees(name, old), agrees(name, new));
    let same_depth = old.segments().count() == new.segments().count();
    // An ancestor of both paths, or a wildcard name matching both at the
    // same depth, keeps the same relation to every renamed name.
    let shorter = name.segments().count() < old.segments().count().min(new.segments().count());
    if with_old == with_new && (!with_old || same_depth || shorter) {
        return None;
    }
    let at = line_of(source, span);
    Some(if with_new && !with_old {
        if name == new || new.covers(name) || name.covers(new) {
            format!(
                "`{new}` would collide with the field `{name}` already named at {at}; choose another name"
            )
        } else {
            format!(
                "`{name}` at {at} would match `{new}` after the rename but does not match `{old}` now; choose another name"
            )
        }
    } else if !name.as_str().contains('*') && name.covers(old) {
        format!(
            "`{name}` at {at} contains `{old}`, and would not contain `{new}`: keep the `{name}.` prefix in the new name, or rename `{name}` itself"
        )
    } else {
        format!(
            "`{name}` at {at} matches `{old}` through a wildcard and would not match `{new}` the same way; rename it by hand, or choose a name with the same leading segments"
        )
    })
}

fn not_exact(chain: &str, name: &str) -> String {
    format!(
        "the verification of chain `{chain}` reads `{name}` through text that does not map one to one into the YAML (an escape, a multi-line or block scalar, or a concatenated string); rewrite it on one line without escapes, then rename"
    )
}

/// A field name: dot-separated segments of letters, digits, `_` and `-`.
fn check_name(new_name: &str) -> Result<(), String> {
    let valid = !new_name.is_empty()
        && new_name.split('.').all(|segment| {
            !segment.is_empty()
                && segment
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        });
    if valid {
        Ok(())
    } else {
        Err(format!(
            "`{new_name}` is not a valid field name: use dot-separated segments of letters, digits, `_` and `-` (no `*`)"
        ))
    }
}

fn line_of(source: &str, span: Span) -> String {
    let line = source
        .get(..span.start)
        .map_or(0, |before| before.matches('\n').count())
        + 1;
    format!("line {line}")
}

/// Every place a field is named, in source order.
fn places(source: &str, contract: &Contract, index: &SymbolIndex) -> Vec<Place> {
    let mut places: Vec<Place> = index
        .occurrences()
        .iter()
        .filter_map(|o| match &o.symbol {
            Symbol::Field { name, .. } => Some(Place {
                name: name.clone(),
                span: o.span,
                kind: PlaceKind::Scalar,
            }),
            Symbol::Phase { .. } => None,
        })
        .collect();
    places.extend(extra_places(source, contract));
    places.sort_by_key(|p| (p.span.start, p.span.end));
    places
}

/// The places `SymbolIndex` does not hold: merge-policy keys and the keys
/// chains' verifications read from `context`.
fn extra_places(source: &str, contract: &Contract) -> Vec<Place> {
    let mut places = Vec::new();
    if let Some(topology) = &contract.topology {
        for merge in &topology.merge_points {
            for (field, _) in &merge.merge_policy {
                places.push(Place {
                    name: FieldPath::new(&field.value),
                    span: field.span,
                    kind: PlaceKind::Scalar,
                });
            }
        }
    }
    for chain in &contract.chains {
        let Some(verification) = &chain.verification else {
            continue;
        };
        let chain_id = chain
            .chain_id
            .as_ref()
            .map_or("(unnamed)", |c| c.value.as_str());
        for key in context_keys(&verification.value) {
            let mapped = key
                .exact
                .then(|| {
                    in_source(
                        source,
                        verification.span,
                        &verification.value,
                        key.range.clone(),
                    )
                })
                .flatten();
            places.push(Place {
                name: FieldPath::new(&key.name),
                span: mapped.unwrap_or(verification.span),
                kind: PlaceKind::Verification {
                    chain: chain_id.to_string(),
                    exact: mapped.is_some(),
                },
            });
        }
    }
    places
}

/// A key read from `context` in a verification expression: its value, and
/// the byte range of its characters in the expression when the literal
/// spells them as they are (one part, no escapes).
struct ContextKey {
    name: String,
    range: std::ops::Range<usize>,
    exact: bool,
}

/// The string literals an expression reads from `context`:
/// `context['k']`, `context["k"]`, `context.get('k', ...)`, `'k' in context`.
fn context_keys(expression: &str) -> Vec<ContextKey> {
    // P403 bounds what ContextCore accepts; the rest is not worth reading.
    if expression.len() > 2_000 {
        return Vec::new();
    }
    let options = ParseOptions::from(Mode::Expression).with_target_version(PythonVersion::PY312);
    let Ok(parsed) = ruff_python_parser::parse(expression, options) else {
        return Vec::new();
    };
    let ruff_python_ast::Mod::Expression(module) = parsed.syntax() else {
        return Vec::new();
    };
    let mut finder = ContextKeys {
        expression,
        found: Vec::new(),
    };
    finder.visit_expr(&module.body);
    finder.found
}

struct ContextKeys<'e> {
    expression: &'e str,
    found: Vec<ContextKey>,
}

fn is_context(expr: &Expr) -> bool {
    matches!(expr, Expr::Name(name) if name.id.as_str() == "context")
}

impl ContextKeys<'_> {
    fn key(&mut self, expr: &Expr) {
        let Expr::StringLiteral(literal) = expr else {
            return;
        };
        let name = literal.value.to_str().to_string();
        let range = literal.range();
        let (start, end) = (range.start().to_usize(), range.end().to_usize());
        let text = self.expression.get(start..end).unwrap_or("");
        // One literal without prefix or escapes: its characters sit between
        // its quotes exactly as the value reads.
        let quote = ["'''", "\"\"\"", "'", "\""]
            .into_iter()
            .find(|q| text.starts_with(q) && text.ends_with(q) && text.len() >= 2 * q.len());
        let exact = quote.is_some_and(|q| {
            text.get(q.len()..text.len() - q.len()) == Some(name.as_str()) && !name.contains('\\')
        });
        let inner = quote.map_or(0, str::len);
        self.found.push(ContextKey {
            name,
            range: start + inner..end.saturating_sub(inner).max(start + inner),
            exact,
        });
    }
}

impl<'a> Visitor<'a> for ContextKeys<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Subscript(subscript) if is_context(&subscript.value) => {
                self.key(&subscript.slice);
            }
            // `'k' in context`, `'k' not in context`, also inside a chain
            // of comparisons.
            Expr::Compare(compare) => {
                for (at, op) in compare.ops.iter().enumerate() {
                    let operand = match at {
                        0 => Some(compare.left.as_ref()),
                        _ => compare.comparators.get(at - 1),
                    };
                    if matches!(op, CmpOp::In | CmpOp::NotIn)
                        && compare.comparators.get(at).is_some_and(is_context)
                        && let Some(operand) = operand
                    {
                        self.key(operand);
                    }
                }
            }
            Expr::Call(call) => {
                if let Expr::Attribute(attribute) = call.func.as_ref()
                    && is_context(&attribute.value)
                    && attribute.attr.as_str() == "get"
                    && let Some(first) = call.arguments.args.first()
                {
                    self.key(first);
                }
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// The source span of `range` of the value of the scalar at `span`, when
/// each of those characters is written as itself on one line (a plain
/// scalar, or a quoted one where the range holds no escape); `None` when
/// the characters cannot be located exactly.
fn in_source(source: &str, span: Span, value: &str, range: std::ops::Range<usize>) -> Option<Span> {
    let written = source.get(span.start..span.end)?;
    if range.start > range.end {
        return None;
    }
    if written.contains(['\n', '\r']) {
        return in_block(source, span, value, range);
    }
    // For each character of the value: where it is written, and whether
    // it is written as itself.
    let mut map: Vec<(usize, usize, bool)> = Vec::new();
    let mut decoded = String::new();
    match written.as_bytes().first()? {
        b'\'' => {
            let inner = written.get(1..written.len().checked_sub(1)?)?;
            let mut chars = inner.char_indices().peekable();
            while let Some((at, c)) = chars.next() {
                let start = span.start + 1 + at;
                if c == '\'' && chars.peek().map(|(_, n)| *n) == Some('\'') {
                    chars.next();
                    map.push((start, start + 2, false));
                } else {
                    map.push((start, start + c.len_utf8(), true));
                }
                decoded.push(c);
            }
        }
        b'"' => {
            let inner = written.get(1..written.len().checked_sub(1)?)?;
            let mut at = 0;
            while at < inner.len() {
                let c = inner[at..].chars().next()?;
                let start = span.start + 1 + at;
                if c == '\\' {
                    let (ch, length) = escape(&inner[at..])?;
                    // One entry per byte of the value.
                    for _ in 0..ch.len_utf8() {
                        map.push((start, start + length, false));
                    }
                    decoded.push(ch);
                    at += length;
                } else {
                    for _ in 0..c.len_utf8() {
                        map.push((start, start + c.len_utf8(), true));
                    }
                    decoded.push(c);
                    at += c.len_utf8();
                }
            }
            if decoded != value {
                return None;
            }
            return exact_span(&map, range);
        }
        _ => {
            if written != value {
                return None;
            }
            return Some(Span::new(span.start + range.start, span.start + range.end));
        }
    }
    // Single-quoted: one entry per character; expand to one per byte.
    let mut per_byte = Vec::with_capacity(value.len());
    for ((start, end, same), c) in map.iter().zip(decoded.chars()) {
        for _ in 0..c.len_utf8() {
            per_byte.push((*start, *end, *same));
        }
    }
    if decoded != value {
        return None;
    }
    exact_span(&per_byte, range)
}

/// `in_source` for a scalar written over lines: exact only where the
/// value's line holding `range` is the same text as the source's line at
/// the same distance from the first content line, after the block's
/// indentation (a literal block, `|`; a folded one's lines are joined, so
/// they differ and the answer is `None`).
fn in_block(source: &str, span: Span, value: &str, range: std::ops::Range<usize>) -> Option<Span> {
    let line_start = source.get(..span.start)?.rfind('\n').map_or(0, |i| i + 1);
    let indentation = span.start - line_start;
    if !source
        .get(line_start..span.start)?
        .bytes()
        .all(|b| b == b' ')
    {
        return None;
    }
    let wanted = value.get(range.clone())?;
    if range.is_empty() || wanted.contains('\n') {
        return None;
    }
    let line = value.get(..range.start)?.matches('\n').count();
    let value_line_start = value.get(..range.start)?.rfind('\n').map_or(0, |i| i + 1);
    let value_line = value.get(value_line_start..)?.split('\n').next()?;
    let column = range.start - value_line_start;
    let mut at = line_start;
    for _ in 0..line {
        at += source.get(at..span.end)?.find('\n')? + 1;
    }
    let source_line = source.get(at..span.end)?.split('\n').next()?;
    let content = source_line.strip_suffix('\r').unwrap_or(source_line);
    if content.get(indentation..)? != value_line {
        return None;
    }
    let start = at + indentation + column;
    (source.get(start..start + wanted.len())? == wanted)
        .then(|| Span::new(start, start + wanted.len()))
}

/// The span covering `range` when every byte of it is written as itself.
fn exact_span(map: &[(usize, usize, bool)], range: std::ops::Range<usize>) -> Option<Span> {
    if range.is_empty() {
        return None;
    }
    let bytes = map.get(range.clone())?;
    if !bytes.iter().all(|(_, _, same)| *same) {
        return None;
    }
    Some(Span::new(bytes.first()?.0, bytes.last()?.1))
}

/// The character a double-quoted escape stands for and its length in the
/// source; `None` for one that is not valid (or spans lines).
fn escape(text: &str) -> Option<(char, usize)> {
    let mut chars = text.chars();
    chars.next()?;
    let c = chars.next()?;
    let hex = |digits: usize| {
        let code = text.get(2..2 + digits)?;
        let code = u32::from_str_radix(code, 16).ok()?;
        Some((char::from_u32(code)?, 2 + digits))
    };
    Some(match c {
        'x' => return hex(2),
        'u' => return hex(4),
        'U' => return hex(8),
        '0' => ('\0', 2),
        'a' => ('\x07', 2),
        'b' => ('\x08', 2),
        't' | '\t' => ('\t', 2),
        'n' => ('\n', 2),
        'v' => ('\x0b', 2),
        'f' => ('\x0c', 2),
        'r' => ('\r', 2),
        'e' => ('\x1b', 2),
        ' ' => (' ', 2),
        '"' => ('"', 2),
        '/' => ('/', 2),
        '\\' => ('\\', 2),
        'N' => ('\u{85}', 2),
        '_' => ('\u{a0}', 2),
        'L' => ('\u{2028}', 2),
        'P' => ('\u{2029}', 2),
        _ => return None,
    })
}

/// Applies `edits` (sorted, disjoint) and checks that the new text parses
/// and names, place by place, exactly the fields `planned`.
fn verify(source: &str, edits: &[Edit], planned: &[FieldPath]) -> Result<(), String> {
    let mut text = String::with_capacity(source.len() + 64);
    let mut at = 0;
    for edit in edits {
        let before = source
            .get(at..edit.span.start)
            .ok_or("two places of the rename overlap; rename them by hand")?;
        text.push_str(before);
        text.push_str(&edit.replacement);
        at = edit.span.end;
    }
    text.push_str(source.get(at..).unwrap_or(""));
    let analysis = crate::analyze(&text, &Settings::default());
    let failed = || {
        "the renamed text would not read as planned (a name written in a way phaselint cannot rewrite exactly); rename by hand".to_string()
    };
    let contract = analysis.contract().ok_or_else(failed)?;
    let index = SymbolIndex::build(contract);
    let now: Vec<FieldPath> = places(&text, contract, &index)
        .into_iter()
        .map(|p| p.name)
        .collect();
    if now != planned {
        return Err(failed());
    }
    Ok(())
}

#[cfg(test)]
mod tests;
