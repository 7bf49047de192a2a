//! Contracts generated for the tests that probe bounds (included with
//! `#[path]` by the test files that need them).

// Each test file that includes this uses some of it.
#![allow(dead_code)]

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

/// Shapes an attack built to make one stage quadratic, each at a size where
/// the old code ran for tens of seconds or minutes (or printed gigabytes).
pub mod quadratic {
    const HEAD: &str = "schema_version: '1'\npipeline_id: q\n";

    /// `n` references to unknown phases with no close name: the help once
    /// listed every declared phase in every finding.
    pub fn unknown_phases(n: usize) -> String {
        let mut s = format!("{HEAD}phases:\n");
        for i in 0..n {
            s.push_str(&format!("  phase_{i:07}: {{}}\n"));
        }
        s.push_str("checkpoint_integrity:\n");
        for i in 0..n {
            s.push_str(&format!("  - {{checkpoint_id: c{i}, phase: Z}}\n"));
        }
        s
    }

    /// `n` misspelled `source_phase`s, each compared with every phase.
    pub fn misspelled_sources(n: usize) -> String {
        let mut s = format!("{HEAD}phases:\n");
        for i in 0..n {
            s.push_str(&format!(
                "  phase_{i}: {{exit: {{required: [{{name: f{i}}}]}}}}\n"
            ));
        }
        s.push_str("  last:\n    entry:\n      required:\n");
        for i in 0..n {
            s.push_str(&format!(
                "        - {{name: f{i}, source_phase: phaze_{i}}}\n"
            ));
        }
        s
    }

    /// `n` distinct wildcard entry names against `n` exits: every name
    /// matches every other.
    pub fn wildcards(n: usize) -> String {
        let exits: Vec<String> = (0..n).map(|j| format!("{{name: a{j}}}")).collect();
        let entries: Vec<String> = (0..n).map(|i| format!("{{name: '*.k{i}'}}")).collect();
        format!(
            "{HEAD}phases:\n  p0:\n    exit:\n      required: [{}]\n  p1:\n    entry:\n      required: [{}]\n",
            exits.join(", "),
            entries.join(", ")
        )
    }

    /// A chain of `n` phases with edges both ways (one cycle), a field read
    /// at one end and produced at the other: the old fixpoint moved it one
    /// phase per pass.
    pub fn two_way_chain(n: usize) -> String {
        let mut s = format!(
            "{HEAD}phases:\n  s: {{exit: {{required: [{{name: start}}]}}}}\n  p0: {{entry: {{required: [{{name: x}}]}}}}\n"
        );
        for i in 1..n - 1 {
            s.push_str(&format!("  p{i}: {{}}\n"));
        }
        s.push_str(&format!(
            "  p{}: {{exit: {{optional: [{{name: x}}]}}}}\n",
            n - 1
        ));
        s.push_str("graph_topology:\n  edges:\n    - {from: s, to: p0}\n");
        for i in 0..n - 1 {
            s.push_str(&format!(
                "    - {{from: p{i}, to: p{}}}\n    - {{from: p{}, to: p{i}}}\n",
                i + 1,
                i + 1
            ));
        }
        s.push_str(
            "  cycle_invariants:\n    - {cycle_id: c, nodes: [p0, p1], max_iterations: 2}\n",
        );
        s
    }

    /// `n` chains from the first to the last phase of an `n`-phase
    /// topology: a search of the whole graph per chain.
    pub fn far_chains(n: usize) -> String {
        let mut s = format!("{HEAD}phases:\n");
        for i in 0..n {
            if i == 0 || i == n - 1 {
                s.push_str(&format!(
                    "  p{i}: {{exit: {{required: [{{name: c}}]}}, entry: {{required: [{{name: c}}]}}}}\n"
                ));
            } else {
                s.push_str(&format!("  p{i}: {{}}\n"));
            }
        }
        s.push_str("graph_topology:\n  edges:\n");
        for i in 0..n - 1 {
            s.push_str(&format!("  - {{from: p{i}, to: p{}}}\n", i + 1));
        }
        s.push_str("propagation_chains:\n");
        for i in 0..n {
            s.push_str(&format!(
                "- {{chain_id: c{i}, source: {{phase: p0, field: c}}, destination: {{phase: p{}, field: c}}}}\n",
                n - 1
            ));
        }
        s
    }

    /// `phaselint:` repeated `n` times on one comment line: each was looked
    /// back from to the line's start.
    pub fn repeated_markers(n: usize) -> String {
        format!("{HEAD}phases:\n  a: {{}}\n# {}\n", "phaselint:".repeat(n))
    }

    /// `n` safe fixes (upper-case severities) for `--fix`: each was checked
    /// against every edit already taken.
    pub fn many_safe_fixes(n: usize) -> String {
        let mut s = format!("{HEAD}phases:\n  a:\n    exit:\n      required:\n");
        for i in 0..n {
            s.push_str(&format!("        - {{name: f{i}, severity: BLOCKING}}\n"));
        }
        s
    }
}
