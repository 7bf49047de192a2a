use std::sync::Arc;

use super::*;
use crate::config::Dialect;
use crate::dataflow;
use crate::field_path::FieldIndex;
use crate::field_path::FieldPath;
use crate::model::{Contract, FieldSeverity};
use crate::syntax::{Limits, parse};

fn contract_of(src: &str) -> Arc<Contract> {
    let tree = parse(src, Limits::default()).unwrap().unwrap();
    let lines = crate::line_index::LineIndex::new(src);
    let settings = crate::config::Settings::default();
    let mut findings = crate::findings::Findings::new(src, &lines, &settings);
    let (contract, _) = crate::schema::build(tree.root(), src, Dialect::Phaselint, &mut findings);
    let (diagnostics, _) = findings.finish();
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    Arc::new(contract)
}

fn graph_of(src: &str) -> (Arc<Contract>, PhaseGraph) {
    let contract = contract_of(src);
    let graph = PhaseGraph::build(contract.clone());
    (contract, graph)
}

const BRANCH: &str = r#"
schema_version: "1"
pipeline_id: p
phases:
  classify:
    exit: { required: [{ name: domain }, { name: tier }] }
  simple:
    exit: { required: [{ name: context }], optional: [{ name: hint }] }
  complex:
    exit: { required: [{ name: context }, { name: confidence }] }
  generate:
    entry: { required: [{ name: context }, { name: confidence }, { name: domain }, { name: hint }, { name: tier }] }
  orphan: {}
graph_topology:
  edges:
    - { from: classify, to: simple, drops: [tier] }
    - { from: classify, to: complex }
    - { from: simple, to: generate }
    - { from: complex, to: generate, preserves: [context, confidence, domain, tier] }
"#;

#[test]
fn must_and_may_availability_through_a_branch() {
    let (_, graph) = graph_of(BRANCH);
    // generate requires context, confidence, domain, hint, tier.
    assert_eq!(
        graph.entry_presence(3),
        [
            Presence::Always,
            Presence::Sometimes,
            Presence::Always,
            // Only an optional output.
            Presence::Sometimes,
            // Dropped on one branch, kept on the other.
            Presence::Sometimes,
        ]
    );
}

#[test]
fn held_after_a_phase_is_what_every_path_there_produces() {
    let (_, graph) = graph_of(BRANCH);
    let name = |n: &str| FieldPath::new(n);
    let (context, confidence, domain, hint, tier, nothing) = (
        name("context"),
        name("confidence"),
        name("domain"),
        name("hint"),
        name("tier"),
        name("nothing"),
    );
    // After generate (3): context on both branches, confidence only on
    // one, hint only optional, tier dropped on one branch; generate's
    // blocking entry fields stay in the context all the same.
    assert_eq!(
        graph.held_after(&[
            (3, &context),
            (3, &confidence),
            (3, &domain),
            (3, &hint),
            (3, &tier),
            (3, &nothing),
        ]),
        [true, true, true, true, true, false]
    );
    // After simple (1): its own exit and what crosses the edge from
    // classify, which drops `tier`.
    assert_eq!(
        graph.held_after(&[
            (1, &context),
            (1, &domain),
            (1, &tier),
            (1, &hint),
            (2, &tier)
        ]),
        [true, true, false, false, true]
    );
}

#[test]
fn reachability_and_entries() {
    let (_, graph) = graph_of(BRANCH);
    assert_eq!(graph.entries(), &[0, 4]);
    assert!(!graph.has_edges(4));
    assert!(graph.reaches(0, 3));
    assert!(!graph.reaches(1, 2));
}

#[test]
fn cycles_are_strongly_connected_components() {
    let (_, graph) = graph_of(
        r#"
schema_version: "1"
pipeline_id: p
phases: { a: {}, b: {}, c: {}, d: {} }
graph_topology:
  edges: [{ from: a, to: b }, { from: b, to: c }, { from: c, to: b }, { from: c, to: d }]
"#,
    );
    assert_eq!(graph.cycles(), &[vec![1, 2]]);
    assert!((0..4).all(|p| graph.is_reachable(p)));
    let order: Vec<usize> = graph
        .components_in(Direction::Forward)
        .map(|c| graph.first_node(c))
        .collect();
    assert_eq!(order.len(), 3);
    assert_eq!((order[0], order[2]), (0, 3), "topological order");
}

#[test]
fn liveness_sees_reads_downstream_only() {
    let (_, graph) = graph_of(BRANCH);
    // classify's domain and tier are read by generate.
    assert_eq!(graph.exit_read_later(0), [true, true]);
    // generate is last; orphan reads nothing and has no successor.
    assert_eq!(graph.exit_read_later(3), [] as [bool; 0]);
    let (contract, graph) = graph_of(
        "schema_version: '1'\npipeline_id: p\nphases:\n  a: { exit: { required: [{ name: context.items }, { name: unused }] } }\n  b: { entry: { required: [{ name: context }] } }\n",
    );
    // A read of `context` counts for a write of `context.items`.
    assert_eq!(contract.phases.len(), 2);
    assert_eq!(graph.exit_read_later(0), [true, false]);
}

#[test]
fn field_analyses_run_only_when_asked() {
    let (_, graph) = graph_of(BRANCH);
    assert!(graph.entry_presence.get().is_none());
    assert!(graph.exit_read_later.get().is_none());
    let _ = graph.entry_presence(3);
    assert!(graph.entry_presence.get().is_some());
    assert!(graph.exit_read_later.get().is_none());
}

#[test]
fn long_chains_do_not_recurse_per_phase() {
    let mut src = String::from("schema_version: '1'\npipeline_id: p\nphases:\n");
    for i in 0..40_000 {
        src.push_str(&format!("  p{i}: {{}}\n"));
    }
    // A small stack, as worker threads have: no analysis may recurse per phase.
    let handle = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || {
            let (_, graph) = graph_of(&src);
            let _ = graph.entry_presence(0);
            let _ = graph.exit_read_later(0);
            graph.phase_count()
        })
        .unwrap();
    assert_eq!(handle.join().unwrap(), 40_000);
}

/// A deterministic pseudo-random contract: phases read fields that
/// other phases write (required or optional, sometimes as a sub-path or
/// a wildcard), edges skip forward, some edges go back (cycles when
/// `back_edges`), and some drop or preserve fields.
fn random_contract(seed: u64, phases: usize, back_edges: bool) -> String {
    let mut state = seed | 1;
    let mut next = |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound.max(1) as u64) as usize
    };
    let mut src =
        String::from("schema_version: '1'\npipeline_id: p\npipeline_inputs: [f0]\nphases:\n");
    for p in 0..phases {
        let reads: Vec<String> = (0..next(4))
            .map(|_| {
                let f = next(phases * 2 + 2);
                match next(6) {
                    0 => format!("{{ name: f{f}.part }}"),
                    1 => "{ name: '*.part' }".to_string(),
                    _ => format!("{{ name: f{f} }}"),
                }
            })
            .collect();
        let enrich = if next(3) == 0 {
            format!("{{ name: f{} }}", next(phases * 2 + 2))
        } else {
            String::new()
        };
        src.push_str(&format!(
                "  p{p}:\n    entry: {{ required: [{}], enrichment: [{enrich}] }}\n    exit: {{ required: [{{ name: f{} }}], optional: [{{ name: f{} }}] }}\n",
                reads.join(", "),
                2 * p + 1,
                2 * p + 2
            ));
    }
    src.push_str("graph_topology:\n  edges:\n");
    for p in 1..phases {
        for _ in 0..=next(2) {
            let from = if back_edges && next(5) == 0 {
                p + next(phases - p)
            } else {
                next(p)
            };
            let filter = match next(4) {
                0 => format!(", drops: [f{}]", next(2 * phases + 2)),
                1 => format!(
                    ", preserves: [f{}, f{}]",
                    next(2 * phases + 2),
                    next(2 * phases + 2)
                ),
                _ => String::new(),
            };
            src.push_str(&format!("    - {{ from: p{from}, to: p{p}{filter} }}\n"));
        }
    }
    src
}

/// Availability and liveness the plainest way: one set of field names
/// per phase, coverage by `FieldPath::covers`, passes over every phase
/// until nothing changes. Shares no code with the solver.
fn reference(contract: &Contract, graph: &PhaseGraph) -> (Vec<Vec<Presence>>, Vec<Vec<bool>>) {
    use std::collections::BTreeSet;
    let phases = &contract.phases;
    let n = phases.len();
    let facts: Vec<&FieldPath> = phases
        .iter()
        .flat_map(|p| p.entry_required().iter().map(|f| &f.name.value))
        .collect();
    let covered = |names: &mut dyn Iterator<Item = &FieldPath>| -> BTreeSet<usize> {
        let names: Vec<&FieldPath> = names.collect();
        (0..facts.len())
            .filter(|&i| names.iter().any(|n| n.covers(facts[i])))
            .collect()
    };
    let all: BTreeSet<usize> = (0..facts.len()).collect();
    let edges: Vec<(usize, usize, EdgeOrigin)> = graph.edges().collect();
    let passes = |origin: EdgeOrigin, fact: usize| match origin {
        EdgeOrigin::Topology(i) => contract.topology.as_ref().unwrap().edges[i].passes(facts[fact]),
        EdgeOrigin::Sequence => true,
    };
    let gen_must: Vec<BTreeSet<usize>> = phases
        .iter()
        .map(|p| {
            covered(
                &mut p.exit_required().iter().map(|f| &f.name.value).chain(
                    p.entry_required()
                        .iter()
                        .filter(|f| f.severity() == FieldSeverity::Blocking)
                        .map(|f| &f.name.value),
                ),
            )
        })
        .collect();
    let gen_may: Vec<BTreeSet<usize>> = phases
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut s = covered(&mut p.exit_optional().iter().map(|f| &f.name.value));
            s.extend(&gen_must[i]);
            s
        })
        .collect();
    let mut must: Vec<BTreeSet<usize>> = vec![all.clone(); n];
    let mut may: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for &e in graph.entries() {
        let p = &phases[e];
        must[e] = covered(
            &mut contract
                .pipeline_inputs
                .iter()
                .map(|s| &s.value)
                .chain(p.entry_required().iter().map(|f| &f.name.value)),
        );
        may[e] = must[e].clone();
        may[e].extend(covered(
            &mut p.entry_enrichment().iter().map(|f| &f.name.value),
        ));
    }
    loop {
        let mut changed = false;
        for p in 0..n {
            if graph.is_entry(p) {
                continue;
            }
            let mut m = all.clone();
            let mut y = BTreeSet::new();
            for &(q, _, origin) in edges.iter().filter(|e| e.1 == p) {
                let out_must: BTreeSet<usize> = must[q]
                    .union(&gen_must[q])
                    .copied()
                    .filter(|&f| passes(origin, f))
                    .collect();
                let out_may: BTreeSet<usize> = may[q]
                    .union(&gen_may[q])
                    .copied()
                    .filter(|&f| passes(origin, f))
                    .collect();
                m = m.intersection(&out_must).copied().collect();
                y.extend(out_may);
            }
            if m != must[p] || y != may[p] {
                must[p] = m;
                may[p] = y;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let presence = phases
        .iter()
        .enumerate()
        .map(|(p, phase)| {
            phase
                .entry_required()
                .iter()
                .map(|f| {
                    let id = facts
                        .iter()
                        .position(|x| x.as_str() == f.name.value.as_str())
                        .unwrap();
                    if must[p].contains(&id) {
                        Presence::Always
                    } else if may[p].contains(&id) {
                        Presence::Sometimes
                    } else {
                        Presence::Never
                    }
                })
                .collect()
        })
        .collect();
    // Liveness: names read after each phase.
    let mut live: Vec<BTreeSet<&str>> = vec![BTreeSet::new(); n];
    loop {
        let mut changed = false;
        for p in (0..n).rev() {
            let mut out = BTreeSet::new();
            for &(_, s, _) in edges.iter().filter(|e| e.0 == p) {
                out.extend(live[s].iter().copied());
                out.extend(phases[s].entry_fields().map(|f| f.name.value.as_str()));
            }
            if out != live[p] {
                live[p] = out;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let read_later = phases
        .iter()
        .enumerate()
        .map(|(p, phase)| {
            phase
                .exit_fields()
                .map(|f| {
                    live[p]
                        .iter()
                        .any(|r| FieldPath::new(*r).overlaps(&f.name.value))
                })
                .collect()
        })
        .collect();
    (presence, read_later)
}

fn solved(contract: &Arc<Contract>, width: Option<usize>) -> (Vec<Vec<Presence>>, Vec<Vec<bool>>) {
    dataflow::tests::WIDTH.with(|w| w.set(width));
    let graph = PhaseGraph::build(contract.clone());
    let n = contract.phases.len();
    let presence = (0..n).map(|p| graph.entry_presence(p).to_vec()).collect();
    let read = (0..n).map(|p| graph.exit_read_later(p).to_vec()).collect();
    dataflow::tests::WIDTH.with(|w| w.set(None));
    (presence, read)
}

#[test]
fn the_solver_agrees_with_a_plain_fixpoint_with_and_without_cycles_in_any_window() {
    let mut saw_cycle = false;
    let mut saw_gap = false;
    for seed in 1..60u64 {
        let cyclic = seed % 2 == 0;
        let src = random_contract(seed, 3 + (seed as usize % 25), cyclic);
        let contract = contract_of(&src);
        let graph = PhaseGraph::build(contract.clone());
        saw_cycle |= !graph.cycles().is_empty();
        let expected = reference(&contract, &graph);
        saw_gap |= expected.0.iter().flatten().any(|p| *p != Presence::Always);
        assert_eq!(solved(&contract, None), expected, "seed {seed}\n{src}");
        // Windows of one word: most facts solved in a later window.
        assert_eq!(
            solved(&contract, Some(64)),
            expected,
            "seed {seed}, windowed"
        );
    }
    assert!(
        saw_cycle && saw_gap,
        "the generator should make cycles and gaps"
    );
}

#[test]
fn many_windows_give_the_same_answers_as_one() {
    // 300 facts in windows of 64 bits: five windows.
    let src = random_contract(7, 150, true);
    let contract = contract_of(&src);
    let graph = PhaseGraph::build(contract.clone());
    let facts = FieldIndex::new(
        contract
            .phases
            .iter()
            .flat_map(|p| p.entry_required().iter().map(|f| &f.name.value)),
    )
    .len();
    assert!(facts > 128, "{facts} facts");
    assert_eq!(solved(&contract, Some(64)), reference(&contract, &graph));
}

#[test]
fn chain_routes_agree_with_a_search_per_leg() {
    for seed in 1..40u64 {
        let mut src = random_contract(seed, 4 + (seed as usize % 20), seed % 2 == 0);
        let phases = 4 + (seed as usize % 20);
        let mut state = seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1;
        let mut next = |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        src.push_str("propagation_chains:\n");
        for c in 0..8 {
            let stops: Vec<String> = (0..2 + next(3))
                .map(|_| {
                    format!(
                        "{{ phase: p{}, field: f{} }}",
                        next(phases),
                        next(2 * phases + 2)
                    )
                })
                .collect();
            let (source, rest) = stops.split_first().unwrap();
            let (destination, waypoints) = rest.split_last().unwrap();
            src.push_str(&format!(
                    "  - {{ chain_id: c{c}, source: {source}, destination: {destination}, waypoints: [{}] }}\n",
                    waypoints.join(", ")
                ));
        }
        let contract = contract_of(&src);
        let graph = PhaseGraph::build(contract.clone());
        let topology = contract.topology.as_ref().unwrap();
        for (c, chain) in contract.chains.iter().enumerate() {
            let stops: Vec<&crate::model::Endpoint> = chain.stops().collect();
            let routes = graph.chain_routes(c);
            assert_eq!(routes.len(), stops.len() - 1, "seed {seed}");
            for (pair, route) in stops.windows(2).zip(routes) {
                let field = &pair[0].field.as_ref().unwrap().value;
                assert_eq!(
                    route.reaches,
                    graph.reaches(route.from, route.to),
                    "seed {seed}"
                );
                let passes = graph.reaches_by(route.from, route.to, |origin| match origin {
                    EdgeOrigin::Topology(i) => topology.edges[i].passes(field),
                    EdgeOrigin::Sequence => true,
                });
                assert_eq!(route.passes, passes, "seed {seed} chain {c}\n{src}");
            }
        }
    }
}

#[test]
fn declaration_order_without_topology() {
    let (_, graph) =
        graph_of("schema_version: '1'\npipeline_id: p\nphases: { a: {}, b: {}, c: {} }\n");
    assert_eq!(graph.successors(0).collect::<Vec<_>>(), vec![1]);
    assert_eq!(graph.entries(), &[0]);
    assert!(!graph.from_topology());
}
