//! The values completion offers from the contract that last parsed and the
//! lines around the cursor: a checkpoint's phase, its exit fields, a
//! chain's stops and their fields, `source_phase` candidates.

use crate::model::{CheckpointSpec, Contract};

use super::item::{Completion, CompletionKind};
use super::line::shape;

/// The keys already written in the mapping the line at `offset` belongs
/// to, other than on that line: the lines at the same indentation above and
/// below it, up to the parent key or the start of the list item.
pub(super) fn sibling_keys(source: &str, offset: usize) -> Vec<&str> {
    sibling_entries(source, offset)
        .into_iter()
        .map(|(key, _)| key)
        .collect()
}

/// The value written for `key` in the mapping the line at `offset` belongs
/// to (not on that line), quotes removed.
pub(super) fn sibling_value<'s>(source: &'s str, offset: usize, key: &str) -> Option<&'s str> {
    sibling_entries(source, offset)
        .into_iter()
        .find(|(k, _)| *k == key)
        .map(|(_, value)| value.trim_matches(['"', '\'']))
        .filter(|value| !value.is_empty())
}

/// The entries (key, value as written) of the mapping the line at
/// `offset` belongs to, other than on that line.
pub(super) fn sibling_entries(source: &str, offset: usize) -> Vec<(&str, &str)> {
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
pub(super) fn source_phases(
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
pub(super) fn on_every_path(
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
pub(super) fn staleness_pair_holds(source: &str, offset: usize, key: &str, value: &str) -> bool {
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
pub(super) fn checkpoint_around(contract: &Contract, offset: usize) -> Option<&CheckpointSpec> {
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
pub(super) fn checkpoint_phases(contract: Option<&Contract>, offset: usize) -> Vec<Completion> {
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
pub(super) fn checkpoint_exit_fields(
    contract: Option<&Contract>,
    offset: usize,
) -> Vec<Completion> {
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
pub(super) fn chain_stop_phases(
    source: &str,
    offset: usize,
    contract: Option<&Contract>,
) -> Vec<Completion> {
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
pub(super) fn endpoint_fields(
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
