//! A deterministic contract generator: the same arguments give the same
//! bytes, on every machine, so benchmark figures can be compared run to run.
//!
//! The shape follows the real contracts in the corpus: about 70 lines per
//! phase (a description, entry.required fields that earlier phases produce,
//! entry.enrichment with `source_phase`, exit.required/optional fields with
//! `type`, `severity`, `description` and some `quality` blocks), one
//! propagation chain every 10 phases, one checkpoint every 25 phases with
//! staleness checks on fields that phase exits, long-running phases that
//! those checkpoints cover, and after each checkpoint a phase with side
//! effects (irreversible and high-risk past a human approval, reversible
//! otherwise); half the chains carry a `verification` expression. The generated contract is meant to be clean: no
//! error-severity findings (a unit test holds the generator to that).
//!
//! With `topology`, a `graph_topology` follows declaration order except for
//! a diamond every 12 phases: a fork phase, two parallel branch phases, and
//! a merge phase. The edges into the merge carry `preserves` lists holding
//! every field that the merge and later phases require from before the fork,
//! and both branches produce the field the merge requires from them.

mod plan;
mod render;

use plan::{
    CHAIN_EVERY, CHECKPOINT_EVERY, ChainPlan, CheckpointPlan, DIAMOND_EVERY, Diamond, EntryField,
    ExitField, PIPELINE_INPUTS, PhasePlan, Role,
};
use render::render;

/// Verification expressions ContextCore loads (P403 parses each).
const VERIFICATIONS: &[&str] = &[
    "dest == source",
    "dest is not None and len(dest) > 0",
    "dest not in (None, '', 'unknown')",
    "context.get('request_id') is not None and dest == source",
    "len(dest) <= len(source) if source else dest is None",
];

/// Phases a consumer looks back to for the fields it requires.
const REQUIRE_WINDOW: usize = 15;
/// Phases a consumer looks back to for its enrichment fields.
const ENRICH_WINDOW: usize = 20;
/// The seed `contract` uses.
const DEFAULT_SEED: u64 = 0x5eed_c0de_2024_0001;

const VERBS: &[&str] = &[
    "extract",
    "normalize",
    "classify",
    "enrich",
    "validate",
    "plan",
    "design",
    "implement",
    "integrate",
    "review",
    "summarize",
    "route",
    "score",
    "index",
    "retrieve",
    "rank",
    "merge",
    "publish",
    "audit",
    "package",
];

// No noun may look like a secret (P404: password, secret, token, api_key,
// credential, .env).
const NOUNS: &[&str] = &[
    "records",
    "summary",
    "manifest",
    "report",
    "metrics",
    "schema",
    "outline",
    "inventory",
    "results",
    "graph",
    "bundle",
    "snapshot",
    "catalog",
    "draft",
    "scores",
    "layout",
    "features",
    "labels",
    "batches",
    "segments",
    "chunks",
    "embeddings",
    "citations",
    "entities",
    "findings",
    "artifacts",
    "checksums",
    "lineage",
    "profile",
    "baseline",
    "estimates",
    "budget",
    "routes",
    "assignments",
    "calibration",
    "context",
];

const SUBFIELDS: &[&str] = &["items", "count", "status", "version", "by_task", "digest"];
const QUALIFIERS: &[&str] = &["hint", "extra", "debug", "raw", "stats", "preview"];
const TYPES: &[&str] = &[
    "str", "int", "dict", "list", "bool", "float", "any", "string",
];
const METRICS: &[&str] = &["line_count", "section_count", "success_rate", "coverage"];
/// A small xorshift64* generator: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `count` distinct indices of `0..n`.
    fn distinct(&mut self, n: usize, count: usize) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::with_capacity(count);
        while out.len() < count.min(n) {
            let i = self.below(n);
            if !out.contains(&i) {
                out.push(i);
            }
        }
        out
    }
}

/// A generated contract with `phases` phases (`topology`: with a
/// `graph_topology` of diamonds), from the fixed default seed.
pub fn contract(phases: usize, topology: bool) -> String {
    contract_seeded(phases, topology, DEFAULT_SEED)
}

/// Like [`contract`], from another seed (the file tree uses one per file).
pub fn contract_seeded(phases: usize, topology: bool, seed: u64) -> String {
    let mut rng = Rng::new(seed ^ (phases as u64).rotate_left(32));
    let n = phases.max(1);

    let mut roles = vec![Role::Plain; n];
    let mut diamonds: Vec<Diamond> = Vec::new();
    if topology {
        let mut fork = DIAMOND_EVERY / 2;
        while fork + 3 < n {
            roles[fork + 1] = Role::Branch(fork);
            roles[fork + 2] = Role::Branch(fork);
            roles[fork + 3] = Role::Merge(fork);
            diamonds.push(Diamond {
                fork,
                shared_field: format!("routed_{}_{fork}", rng.pick(NOUNS)),
                preserves: Vec::new(),
            });
            fork += DIAMOND_EVERY;
        }
    }
    let is_branch = |p: usize| matches!(roles[p], Role::Branch(_));

    // Exits first: every consumer below picks from them.
    let mut plans: Vec<PhasePlan> = (0..n)
        .map(|i| {
            let verb = rng.pick(VERBS);
            let nouns = rng.distinct(NOUNS.len(), 8);
            let exit_required = (0..4)
                .map(|k| {
                    let noun = NOUNS[nouns[k]];
                    let name = if k == 3 {
                        format!("{noun}_{i}.{}", rng.pick(SUBFIELDS))
                    } else {
                        format!("{noun}_{i}")
                    };
                    let quality = (k == 0 && rng.chance(35))
                        .then(|| (rng.pick(METRICS), if rng.chance(50) { "0.7" } else { "10" }));
                    ExitField {
                        description: format!("{} from the {verb} stage", capitalized(noun)),
                        name,
                        ty: rng.pick(TYPES),
                        severity: "blocking",
                        quality,
                    }
                })
                .chain(match roles[i] {
                    Role::Branch(fork) => {
                        let shared = diamonds
                            .iter()
                            .find(|d| d.fork == fork)
                            .map_or_else(String::new, |d| d.shared_field.clone());
                        vec![ExitField {
                            name: shared,
                            ty: "dict",
                            severity: "blocking",
                            description: "Routed output; either branch produces it".to_string(),
                            quality: None,
                        }]
                    }
                    _ => Vec::new(),
                })
                .collect();
            let exit_optional = (4..4 + 3 + rng.below(2))
                .map(|k| {
                    let noun = NOUNS[nouns[k]];
                    ExitField {
                        name: format!("{noun}_{i}_{}", rng.pick(QUALIFIERS)),
                        ty: rng.pick(TYPES),
                        severity: "advisory",
                        description: format!("Optional {noun} detail; readers cope without it"),
                        quality: None,
                    }
                })
                .collect();
            PhasePlan {
                name: format!("{verb}_{i:05}"),
                description: format!(
                    "{} the {} for stage {i} of the pipeline",
                    capitalized(verb),
                    NOUNS[nouns[0]]
                ),
                entry_required: Vec::new(),
                enrichment: Vec::new(),
                exit_required,
                exit_optional,
                expected_duration: None,
                long_running: false,
                side_effects: None,
                risk_class: None,
            }
        })
        .collect();

    // Entry fields: required ones from earlier phases' exit.required (never
    // from a branch, which runs on one path only), enrichment from earlier
    // exit.optional with the producing phase as source_phase.
    let mut read_required: Vec<Vec<bool>> = vec![vec![false; 4]; n];
    let mut read_optional: Vec<Vec<bool>> = vec![vec![false; 3]; n];
    for k in 0..n {
        let mut required: Vec<EntryField> = Vec::new();
        if k == 0 {
            for input in PIPELINE_INPUTS {
                required.push(EntryField {
                    name: (*input).to_string(),
                    ty: "str",
                    severity: "blocking",
                    source_phase: None,
                    description: "Supplied by the caller when the run starts".to_string(),
                });
            }
        } else {
            let producers: Vec<usize> = (k.saturating_sub(REQUIRE_WINDOW)..k)
                .filter(|&j| !is_branch(j))
                .collect();
            let wanted = 3 + rng.below(2);
            let mut tries = 0;
            while required.len() < wanted && !producers.is_empty() && tries < 20 {
                tries += 1;
                // Prefer fields nobody reads yet, so most exits have a reader
                // (real contracts have some dead writes, not a majority).
                let (j, f) = prefer_unread(&mut rng, &producers, 4, &read_required);
                read_required[j][f] = true;
                let field = &plans[j].exit_required[f];
                let name = if !field.name.contains('.') && rng.chance(20) {
                    format!("{}.{}", field.name, rng.pick(SUBFIELDS))
                } else {
                    field.name.clone()
                };
                if required.iter().any(|f| f.name == name) {
                    continue;
                }
                let source_phase = rng.chance(30).then_some(j);
                required.push(EntryField {
                    description: format!("Read from {}", plans[j].name),
                    name,
                    ty: field.ty,
                    severity: "blocking",
                    source_phase,
                });
            }
            if rng.chance(15) {
                required.push(EntryField {
                    name: "request_id".to_string(),
                    ty: "str",
                    severity: "blocking",
                    source_phase: None,
                    description: "Correlates the stage with the caller's request".to_string(),
                });
            }
            if let Role::Merge(fork) = roles[k]
                && let Some(d) = diamonds.iter().find(|d| d.fork == fork)
            {
                required.push(EntryField {
                    name: d.shared_field.clone(),
                    ty: "dict",
                    severity: "blocking",
                    source_phase: None,
                    description: "Whichever branch ran produced it".to_string(),
                });
            }
        }
        let mut enrichment: Vec<EntryField> = Vec::new();
        let sibling = |j: usize| match (roles[j], roles[k]) {
            (Role::Branch(a), Role::Branch(b)) => a == b,
            _ => false,
        };
        let sources: Vec<usize> = (k.saturating_sub(ENRICH_WINDOW)..k)
            .filter(|&j| !sibling(j))
            .collect();
        let wanted = 2 + rng.below(2);
        let mut tries = 0;
        while enrichment.len() < wanted && !sources.is_empty() && tries < 20 {
            tries += 1;
            let (j, f) = prefer_unread(&mut rng, &sources, 3, &read_optional);
            read_optional[j][f] = true;
            let field = &plans[j].exit_optional[f];
            if enrichment.iter().any(|f| f.name == field.name) {
                continue;
            }
            enrichment.push(EntryField {
                name: field.name.clone(),
                ty: field.ty,
                severity: if rng.chance(50) {
                    "advisory"
                } else {
                    "warning"
                },
                source_phase: Some(j),
                description: format!("Optional input from {}", plans[j].name),
            });
        }
        plans[k].entry_required = required;
        plans[k].enrichment = enrichment;
    }

    // Chains: from a field a phase exits to a phase up to 11 later that
    // requires it, through waypoints on every path (never a branch).
    let mut chains: Vec<ChainPlan> = Vec::new();
    for s in (1..n).filter(|s| s % CHAIN_EVERY == 1) {
        if is_branch(s) {
            continue;
        }
        let d = (s + 4 + rng.below(8)).min(n - 1);
        if d < s + 2 {
            continue;
        }
        let field = plans[s].exit_required[rng.below(4)].name.clone();
        if !plans[d].entry_required.iter().any(|f| f.name == field) {
            let description = format!("Propagated from {}", plans[s].name);
            plans[d].entry_required.push(EntryField {
                name: field.clone(),
                ty: "any",
                severity: "blocking",
                source_phase: Some(s),
                description,
            });
        }
        let between: Vec<usize> = (s + 1..d).filter(|&w| !is_branch(w)).collect();
        let count = rng.below(4).min(between.len());
        let mut waypoints: Vec<usize> = rng
            .distinct(between.len(), count)
            .into_iter()
            .map(|i| between[i])
            .collect();
        waypoints.sort_unstable();
        let noun = field.split('_').next().unwrap_or("field");
        chains.push(ChainPlan {
            id: format!("{noun}_{s}_to_{d}"),
            source: s,
            waypoints,
            destination: d,
            field,
            severity: if rng.chance(50) {
                "warning"
            } else {
                "advisory"
            },
            verification: rng.chance(50).then(|| rng.pick(VERIFICATIONS)),
        });
    }

    // Checkpoints, and long-running phases only where one covers them.
    let mut checkpoints: Vec<CheckpointPlan> = Vec::new();
    for c in (0..n.saturating_sub(1)).filter(|c| c % CHECKPOINT_EVERY == 5) {
        let mut fields = vec![(
            plans[c].exit_required[0].name.clone(),
            [600, 3600, 86400][rng.below(3)],
            "blocking",
            if rng.chance(50) {
                "re_generate"
            } else {
                "re_retrieve"
            },
        )];
        if rng.chance(50) {
            fields.push((
                plans[c].exit_optional[0].name.clone(),
                86400,
                "warning",
                "log_and_continue",
            ));
        }
        let nth = c / CHECKPOINT_EVERY;
        if nth.is_multiple_of(2) {
            plans[c].expected_duration = Some("2h");
        }
        if nth % 3 == 1 {
            plans[c].long_running = true;
        }
        let approval = nth % 2 == 1;
        // The phase after a checkpoint mutates, as governed pipelines do:
        // irreversibly and at high risk past a human approval, reversibly
        // otherwise; only where the checkpointed phase is the one way in
        // (not a merge, nor the fork's other branch).
        let only_after_c = match roles[c + 1] {
            Role::Plain => true,
            Role::Branch(fork) => fork == c,
            Role::Merge(_) => false,
        };
        if only_after_c {
            let after = &mut plans[c + 1];
            if approval {
                after.side_effects = Some("irreversible");
                after.risk_class = Some("high");
            } else {
                after.side_effects = Some("reversible");
            }
        }
        checkpoints.push(CheckpointPlan {
            phase: c,
            fields,
            approval,
        });
    }
    for (i, plan) in plans.iter_mut().enumerate() {
        if i % 7 == 3 && plan.expected_duration.is_none() {
            plan.expected_duration = Some("10m");
        }
    }

    // What each merge must let through from before its fork.
    for d in &mut diamonds {
        let merge = d.fork + 3;
        let mut keep = vec![d.shared_field.clone()];
        for plan in &plans[merge..n.min(merge + REQUIRE_WINDOW + 12)] {
            for f in &plan.entry_required {
                if keep.contains(&f.name) || PIPELINE_INPUTS.contains(&f.name.as_str()) {
                    continue;
                }
                let produced_before_fork = plans[..=d.fork]
                    .iter()
                    .rev()
                    .take(REQUIRE_WINDOW + 12)
                    .any(|p| p.exit_required.iter().any(|e| covers(&e.name, &f.name)));
                if produced_before_fork {
                    keep.push(f.name.clone());
                }
            }
        }
        d.preserves = keep;
    }

    render(&plans, &chains, &checkpoints, &diamonds, topology, n)
}

/// A phase of `from` and one of its first `width` fields, preferring a
/// field not read yet (three tries, then whatever came last).
fn prefer_unread(
    rng: &mut Rng,
    from: &[usize],
    width: usize,
    read: &[Vec<bool>],
) -> (usize, usize) {
    let mut pick = (0, 0);
    for _ in 0..3 {
        pick = (from[rng.below(from.len())], rng.below(width));
        if !read[pick.0][pick.1] {
            break;
        }
    }
    pick
}

/// Whether declaring `a` declares `b` (`b` is `a` or a sub-path).
fn covers(a: &str, b: &str) -> bool {
    b == a || (b.starts_with(a) && b.as_bytes().get(a.len()) == Some(&b'.'))
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use phaselint_lint::config::Settings;
    use phaselint_lint::diagnostic::Severity;

    fn findings(text: &str) -> Vec<String> {
        let analysis = phaselint_lint::analyze(text, &Settings::default());
        analysis
            .diagnostics
            .iter()
            .map(|d| {
                let line = analysis.line_index.line_of(d.span.start) + 1;
                format!("{} {:?} line {line}: {}", d.code, d.severity, d.message)
            })
            .collect()
    }

    fn assert_no_errors(text: &str) {
        let analysis = phaselint_lint::analyze(text, &Settings::default());
        let errors: Vec<String> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
        assert!(analysis.contract().is_some());
    }

    #[test]
    fn generated_contracts_have_no_errors() {
        assert_no_errors(&contract(60, false));
        assert_no_errors(&contract(60, true));
    }

    #[test]
    fn generated_contracts_have_no_warnings_either() {
        for topology in [false, true] {
            let text = contract(60, topology);
            let warnings: Vec<String> = findings(&text)
                .into_iter()
                .filter(|f| !f.contains(" Info "))
                .collect();
            assert!(warnings.is_empty(), "topology={topology}: {warnings:#?}");
        }
    }

    #[test]
    fn deterministic() {
        assert_eq!(contract(40, true), contract(40, true));
        assert_ne!(contract_seeded(10, false, 1), contract_seeded(10, false, 2));
    }

    #[test]
    fn size_is_about_seventy_lines_per_phase() {
        let lines = contract(200, false).lines().count();
        assert!((60 * 200..85 * 200).contains(&lines), "{lines} lines");
    }

    #[test]
    fn topology_has_diamonds_with_preserves() {
        let text = contract(30, true);
        assert!(text.contains("graph_topology:"));
        assert!(text.contains("preserves: ["));
        assert!(text.contains("merge_points:"));
    }
}
