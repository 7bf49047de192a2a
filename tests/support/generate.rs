//! Contracts generated for the tests that probe bounds (included with
//! `#[path]` by the test files that need them).

/// A contract whose phases form one cycle and each read `fields` fields of
/// their own that the previous phase writes: every field is available, and
/// the graph analyses see phases × fields facts at once.
pub fn cycle_contract(phases: usize, fields: usize) -> String {
    let names = |phase: usize| -> String {
        (0..fields)
            .map(|j| format!("{{name: f{}}}", phase * fields + j))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = String::from("schema_version: '1'\npipeline_id: cycle\nphases:\n");
    text.push_str(&format!(
        "  start: {{exit: {{required: [{}]}}}}\n",
        names(0)
    ));
    for p in 0..phases {
        text.push_str(&format!(
            "  p{p}: {{entry: {{required: [{}]}}, exit: {{required: [{}]}}}}\n",
            names(p),
            names((p + 1) % phases)
        ));
    }
    text.push_str("graph_topology:\n  edges:\n    - {from: start, to: p0}\n");
    for p in 0..phases {
        text.push_str(&format!(
            "    - {{from: p{p}, to: p{}}}\n",
            (p + 1) % phases
        ));
    }
    text.push_str(
        "  cycle_invariants:\n    - {cycle_id: loop, nodes: [p0, p1], max_iterations: 3}\n",
    );
    text
}
