//! Every help line can be followed. For each rule whose help proposes an
//! edit, the edit is applied to the rule's failing fixture as the help
//! words it, and the file is linted again: the finding is gone, and no new
//! error or warning took its place. Every fix the linter offers (safe or a
//! did-you-mean) is applied the same way.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use phaselint_lint::config::Settings;
use phaselint_lint::diagnostic::{Diagnostic, Severity};
use phaselint_lint::fix::{FixMode, apply_fixes};
use phaselint_lint::rules::{Family, RULES};
use phaselint_lint::{Analysis, DocumentKind, analyze_kind};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(fixture: &str) -> String {
    let path = repo().join("fixtures").join(fixture);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every rule on: following a help must not trip an off-by-default rule
/// at error or warning either. A `*.harness.json` fixture is read as a
/// harness config.
fn lint_fixture(fixture: &str, text: &str) -> Analysis {
    let kind = if fixture.ends_with(".harness.json") {
        DocumentKind::Harness
    } else {
        DocumentKind::Contract
    };
    analyze_kind(text, kind, &Settings::all_rules())
}

/// The errors and warnings of an analysis, as (code, message): positions
/// move when text is inserted above, messages do not.
fn serious(analysis: &Analysis) -> Vec<(&'static str, String)> {
    let mut found: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| matches!(d.severity, Severity::Error | Severity::Warning))
        .map(|d| (d.code.as_str(), d.message.clone()))
        .collect();
    found.sort();
    found
}

/// After the edit, the finding is gone and every error or warning left
/// was there before.
fn assert_followed(what: &str, before: &Analysis, finding: &Diagnostic, after: &Analysis) {
    let gone = !after
        .diagnostics
        .iter()
        .any(|d| d.code == finding.code && d.message == finding.message);
    assert!(
        gone,
        "{what}: `{}` is still reported after following its help:\n{}",
        finding.message, after.source
    );
    let earlier = serious(before);
    let new: Vec<_> = serious(after)
        .into_iter()
        .filter(|f| !earlier.contains(f))
        .collect();
    assert!(
        new.is_empty(),
        "{what}: following the help of `{}` raised {new:?} in:\n{}",
        finding.message,
        after.source
    );
}

/// A rule's help, followed by hand: in `fixture`, the finding of `code`
/// whose help contains `help`, and the edits (find, replace) that do what
/// that help says.
struct Followed {
    fixture: &'static str,
    code: &'static str,
    help: &'static str,
    edits: &'static [(&'static str, &'static str)],
}

const APPEND: &str = "<end of file>";

const FOLLOWED: &[Followed] = &[
    Followed {
        fixture: "C201/fail.contract.yaml",
        code: "C201",
        help: "add `approval_policy: human`",
        edits: &[(
            "      approval_required: true\n",
            "      approval_required: true\n      approval_policy: human\n",
        )],
    },
    Followed {
        fixture: "C202/fail.contract.yaml",
        code: "C202",
        help: "set `approval_required: true`",
        edits: &[(
            "      approval_policy: human_or_orchestrator",
            "      approval_required: true\n      approval_policy: human_or_orchestrator",
        )],
    },
    Followed {
        fixture: "C203/fail.contract.yaml",
        code: "C203",
        help: "add a checkpoint_integrity entry with `phase: generate`",
        edits: &[(
            APPEND,
            "checkpoint_integrity:\n  - checkpoint_id: after_generation\n    phase: generate\n",
        )],
    },
    Followed {
        fixture: "C204/fail.contract.yaml",
        code: "C204",
        help: "add `on_resume.staleness_checks`",
        edits: &[(
            APPEND,
            "    on_resume:\n      staleness_checks:\n        - field: retrieved_context\n          max_age_seconds: 3600\n",
        )],
    },
    Followed {
        fixture: "C205/fail.contract.yaml",
        code: "C205",
        help: "use the real tolerated age",
        edits: &[("max_age_seconds: 0\n", "max_age_seconds: 900\n")],
    },
    Followed {
        fixture: "C205/fail.contract.yaml",
        code: "C205",
        help: "use a positive number of seconds",
        edits: &[("max_age_seconds: -60", "max_age_seconds: 60")],
    },
    Followed {
        fixture: "C206/fail.contract.yaml",
        code: "C206",
        help: "set `on_stale: blocking`",
        edits: &[("on_stale: warning", "on_stale: blocking")],
    },
    Followed {
        fixture: "C207/fail.contract.yaml",
        code: "C207",
        help: "set `on_stale: warning`",
        edits: &[(
            "on_stale: blocking\n          recovery: log_and_continue",
            "on_stale: warning\n          recovery: log_and_continue",
        )],
    },
    Followed {
        fixture: "C208/fail.contract.yaml",
        code: "C208",
        help: "remove `revalidate_entry: true`",
        edits: &[("      revalidate_entry: true\n", "")],
    },
    Followed {
        fixture: "E001/fail.contract.yaml",
        code: "E001",
        help: "fix the YAML at this position",
        edits: &[("type: list\n", "type: list }\n")],
    },
    Followed {
        fixture: "E002/fail.contract.yaml",
        code: "E002",
        help: "remove one of the two",
        edits: &[("          severity: warning\n", "")],
    },
    Followed {
        fixture: "E004/fail.contract.yaml",
        code: "E004",
        help: "quote the value",
        edits: &[("schema_version: 0.2", "schema_version: '0.2'")],
    },
    Followed {
        fixture: "E004/fail.contract.yaml",
        code: "E004",
        help: "write the field as a mapping: `- name: answer`, not `- answer`",
        edits: &[("        - answer\n", "        - name: answer\n")],
    },
    Followed {
        fixture: "E004/fail.contract.yaml",
        code: "E004",
        help: "write a whole number, without quotes",
        edits: &[("max_age_seconds: \"1h\"", "max_age_seconds: 3600")],
    },
    Followed {
        fixture: "E005/fail.contract.yaml",
        code: "E005",
        help: "add `name:` to this mapping",
        edits: &[(
            "        - type: list",
            "        - name: quoted_passages\n          type: list",
        )],
    },
    Followed {
        fixture: "E005/fail.contract.yaml",
        code: "E005",
        help: "add `max_age_seconds:` to this mapping",
        edits: &[(
            "        - field: retrieved_context\n          on_stale",
            "        - field: retrieved_context\n          max_age_seconds: 3600\n          on_stale",
        )],
    },
    Followed {
        fixture: "E006/fail.contract.yaml",
        code: "E006",
        help: "allowed: low, medium, high, critical",
        edits: &[("risk_class: moderate", "risk_class: medium")],
    },
    Followed {
        fixture: "G301/fail.contract.yaml",
        code: "G301",
        help: "add edges `from:`/`to: audit`",
        edits: &[(APPEND, "    - from: generate\n      to: audit\n")],
    },
    Followed {
        fixture: "G301/fail-no-entry.contract.yaml",
        code: "G301",
        help: "remove the edge into the phase that should run first (e.g. `draft`)",
        edits: &[("    - from: critique\n      to: draft\n", "")],
    },
    Followed {
        fixture: "G302/fail.contract.yaml",
        code: "G302",
        help: "add a graph_topology.cycle_invariants entry",
        edits: &[(
            APPEND,
            "  cycle_invariants:\n    - cycle_id: revise\n      nodes: [generate, review]\n      max_iterations: 3\n      invariant_fields: [retrieved_context]\n",
        )],
    },
    Followed {
        fixture: "G303/fail.contract.yaml",
        code: "G303",
        help: "produce it in an earlier phase's exit.required",
        edits: &[(
            "        - name: draft_answer\n      optional:",
            "        - name: draft_answer\n        - name: citations\n      optional:",
        )],
    },
    Followed {
        fixture: "G303/fail.contract.yaml",
        code: "G303",
        help: "produce it on every path (exit.required, not exit.optional)",
        edits: &[(
            "      optional:\n        - name: confidence",
            "        - name: confidence",
        )],
    },
    Followed {
        fixture: "G304/fail.contract.yaml",
        code: "G304",
        help: "remove it from exit",
        edits: &[("        - name: retrieval_scores\n", "")],
    },
    Followed {
        fixture: "G304/fail-sub-paths.contract.yaml",
        code: "G304",
        help: "remove it and its declared sub-paths from exit",
        edits: &[(
            "        - name: scaffold\n        - name: scaffold.files\n",
            "",
        )],
    },
    Followed {
        fixture: "G304/fail-renamed.contract.yaml",
        code: "G304",
        help: "or remove it from exit",
        edits: &[("        - name: module_inventory\n", "")],
    },
    Followed {
        fixture: "G307/fail.contract.yaml",
        code: "G307",
        help: "remove or reorder the chain's stops",
        edits: &[(
            "    waypoints:\n      - phase: review\n        field: retrieved_context\n",
            "",
        )],
    },
    Followed {
        fixture: "G308/fail.contract.yaml",
        code: "G308",
        help: "add the field to the `preserves` list",
        edits: &[(
            "preserves: [ranked_context]",
            "preserves: [ranked_context, retrieval_scores]",
        )],
    },
    Followed {
        fixture: "R102/fail.contract.yaml",
        code: "R102",
        help: "declare `rag.index_snapshot` under `phases.retrieve.exit`",
        edits: &[(
            "        - name: retrieved_context\n  generate:",
            "        - name: retrieved_context\n        - name: rag.index_snapshot\n  generate:",
        )],
    },
    Followed {
        fixture: "R104/fail.contract.yaml",
        code: "R104",
        help: "declare `documents` in `phases.retrieve.exit`",
        edits: &[(
            "        - name: retrieved_context\n  generate:",
            "        - name: retrieved_context\n        - name: documents\n  generate:",
        )],
    },
    Followed {
        fixture: "R104/fail-destination.contract.yaml",
        code: "R104",
        help: "declare `retrieved_context` in `phases.review.entry.enrichment`",
        edits: &[(
            "        - name: draft_answer\n    exit:\n      required:\n        - name: final_answer",
            "        - name: draft_answer\n      enrichment:\n        - name: retrieved_context\n    exit:\n      required:\n        - name: final_answer",
        )],
    },
    Followed {
        fixture: "R104/fail-destination.contract.yaml",
        code: "R104",
        help: "or `exit.optional` (if it writes it)",
        edits: &[(
            "        - name: final_answer\n",
            "        - name: final_answer\n      optional:\n        - name: retrieved_context\n",
        )],
    },
    Followed {
        fixture: "R105/fail.contract.yaml",
        code: "R105",
        help: "rename one of them",
        edits: &[(
            "  - checkpoint_id: post_retrieval\n    phase: generate",
            "  - checkpoint_id: post_generation\n    phase: generate",
        )],
    },
    Followed {
        fixture: "R106/fail.contract.yaml",
        code: "R106",
        help: "rename one of them",
        edits: &[(
            "  - chain_id: answer_flow\n    source:\n      phase: generate",
            "  - chain_id: draft_flow\n    source:\n      phase: generate",
        )],
    },
    Followed {
        fixture: "R108/fail.contract.yaml",
        code: "R108",
        help: "or declare `publish` under `phases`",
        edits: &[(
            "graph_topology:",
            "  publish:\n    entry:\n      required:\n        - name: final_answer\ngraph_topology:",
        )],
    },
    Followed {
        fixture: "R109/fail.contract.yaml",
        code: "R109",
        help: "merge the two staleness checks into one",
        edits: &[(
            "        - field: retrieved_context\n          max_age_seconds: 600\n          on_stale: warning\n          recovery: re_retrieve\n",
            "",
        )],
    },
    Followed {
        fixture: "R110/fail.contract.yaml",
        code: "R110",
        help: "set `source_phase: generate`",
        edits: &[("source_phase: retrieve", "source_phase: generate")],
    },
    Followed {
        fixture: "R110/fail-shared-source.contract.yaml",
        code: "R110",
        help: "set `source_phase: generate` (in every reader)",
        edits: &[
            ("source_phase: retrieve", "source_phase: generate"),
            ("source_phase: retrieve", "source_phase: generate"),
        ],
    },
    Followed {
        fixture: "R110/fail-unproduced.contract.yaml",
        code: "R110",
        help: "add it to `phases.retrieve.exit`",
        edits: &[(
            "        - name: retrieved_context\n  generate:",
            "        - name: retrieved_context\n        - name: citations\n  generate:",
        )],
    },
    Followed {
        fixture: "R110/fail-unproduced.contract.yaml",
        code: "R110",
        help: "or remove `source_phase` if the value comes from outside the pipeline",
        edits: &[("          source_phase: retrieve\n", "")],
    },
    Followed {
        fixture: "R110/fail-own-phase.contract.yaml",
        code: "R110",
        help: "set `source_phase: retrieve`",
        edits: &[("source_phase: generate", "source_phase: retrieve")],
    },
    Followed {
        fixture: "G305/fail.contract.yaml",
        code: "G305",
        help: "add a phase before `snapshot_quota` with a checkpoint_integrity entry",
        edits: &[
            (
                "  snapshot_quota:\n",
                "  reserve:\n    exit:\n      required:\n        - name: reservation\n  snapshot_quota:\n",
            ),
            (
                "  edges:\n",
                "  edges:\n    - from: reserve\n      to: snapshot_quota\n",
            ),
            (APPEND, "  - checkpoint_id: reserved\n    phase: reserve\n"),
        ],
    },
    Followed {
        fixture: "G305/fail.contract.yaml",
        code: "G305",
        help: "add a checkpoint_integrity entry with `phase: select`, so the state before `archive` can be restored",
        edits: &[(APPEND, "  - checkpoint_id: selected\n    phase: select\n")],
    },
    Followed {
        fixture: "G305/fail.contract.yaml",
        code: "G305",
        help: "add a checkpoint_integrity entry with `phase: archive`, so the state before `delete` can be restored",
        edits: &[(APPEND, "  - checkpoint_id: archived\n    phase: archive\n")],
    },
    Followed {
        fixture: "G305/fail-cycle.contract.yaml",
        code: "G305",
        help: "add a checkpoint_integrity entry with `phase: check`, so the state before `write` can be restored",
        edits: &[(APPEND, "  - checkpoint_id: checked\n    phase: check\n")],
    },
    Followed {
        fixture: "G306/fail.contract.yaml",
        code: "G306",
        help: "add a checkpoint_integrity entry with `phase: build` and `on_resume: {approval_required: true, approval_policy: human}`",
        edits: &[(
            APPEND,
            "  - checkpoint_id: built\n    phase: build\n    on_resume:\n      approval_required: true\n      approval_policy: human\n",
        )],
    },
    Followed {
        fixture: "G306/fail.contract.yaml",
        code: "G306",
        help: "set `approval_required: true` and an `approval_policy` in the on_resume of checkpoint `staged`",
        edits: &[(
            "          max_age_seconds: 3600\n",
            "          max_age_seconds: 3600\n      approval_required: true\n      approval_policy: human\n",
        )],
    },
    Followed {
        fixture: "P401/fail.contract.yaml",
        code: "P401",
        help: "add a phase before it with a human-approved checkpoint",
        edits: &[
            (
                "  purge_cache:\n",
                "  request:\n    exit:\n      required:\n        - name: purge_request\n  purge_cache:\n",
            ),
            (
                "  edges:\n",
                "  edges:\n    - from: request\n      to: purge_cache\n",
            ),
            (
                APPEND,
                "  - checkpoint_id: purge_approved\n    phase: request\n    on_resume:\n      approval_required: true\n      approval_policy: human\n",
            ),
        ],
    },
    Followed {
        fixture: "P401/fail.contract.yaml",
        code: "P401",
        help: "give each phase before it a checkpoint_integrity entry with `on_resume: {approval_required: true, approval_policy: human}`",
        edits: &[
            ("approval_policy: orchestrator", "approval_policy: human"),
            (
                APPEND,
                "  - checkpoint_id: urgent_batch_ready\n    phase: prepare_urgent\n    on_resume:\n      approval_required: true\n      approval_policy: human\n",
            ),
        ],
    },
    Followed {
        fixture: "P402/fail.contract.yaml",
        code: "P402",
        help: "add `checkpoint_mode_authorization:` with `authorized_by`, `reason` and `trust_tier`",
        edits: &[(
            "checkpoint_mode: never\n",
            "checkpoint_mode: never\ncheckpoint_mode_authorization:\n  authorized_by: data-platform-oncall\n  reason: cheap to recompute\n  trust_tier: internal\n",
        )],
    },
    Followed {
        fixture: "P403/fail.contract.yaml",
        code: "P403",
        help: "keep to comparisons, boolean and arithmetic operators",
        edits: &[("dest.copy() == source", "dest == source")],
    },
    Followed {
        fixture: "P403/fail.contract.yaml",
        code: "P403",
        help: "write one Python expression of at most 500 characters",
        edits: &[(
            "verification: len(dest) >\n",
            "verification: len(dest) > 0\n",
        )],
    },
    Followed {
        fixture: "P404/fail.contract.yaml",
        code: "P404",
        help: "keep secrets out of the checkpointed context: pass a reference",
        edits: &[
            ("session.accessToken", "session.token_ref"),
            ("session.accessToken", "session.token_ref"),
        ],
    },
    Followed {
        fixture: "P405/fail.contract.yaml",
        code: "P405",
        help: "add a checkpoint_integrity entry with `phase: apply`",
        edits: &[(APPEND, "  - checkpoint_id: after_apply\n    phase: apply\n")],
    },
    Followed {
        fixture: "P406/fail.contract.yaml",
        code: "P406",
        help: "add `description:` to phase `purge`",
        edits: &[(
            "  purge:\n",
            "  purge:\n    description: Deletes the archived accounts from the primary database.\n",
        )],
    },
    Followed {
        fixture: "H501/fail.harness.json",
        code: "H501",
        help: "rename one of them",
        edits: &[(
            r#"{"name": "plan-review", "triggerOn": "pre-done""#,
            r#"{"name": "second-plan-review", "triggerOn": "pre-done""#,
        )],
    },
    Followed {
        fixture: "H502/fail.harness.json",
        code: "H502",
        help: "use `post-planner`, `pre-done` or `feature-claim:<area>`, or remove triggerOn",
        edits: &[(r#""feature-claim:""#, r#""feature-claim:billing""#)],
    },
    Followed {
        fixture: "H503/fail.harness.json",
        code: "H503",
        help: "use only letters, digits, `.`, `_` and `-`, not starting with `.`, at most 100 characters, for example `plan-review`",
        edits: &[(r#""plan review""#, r#""plan-review""#)],
    },
];

#[test]
fn every_help_that_proposes_an_edit_can_be_followed() {
    for followed in FOLLOWED {
        let text = read(followed.fixture);
        let before = lint_fixture(followed.fixture, &text);
        let what = format!("{} in {}", followed.code, followed.fixture);
        let finding = before
            .diagnostics
            .iter()
            .find(|d| {
                d.code == followed.code
                    && d.help
                        .as_deref()
                        .is_some_and(|h| h.contains(followed.help))
            })
            .unwrap_or_else(|| {
                panic!(
                    "{what}: no finding whose help says {:?}; the help changed, so revisit this edit",
                    followed.help
                )
            });
        let mut edited = text.clone();
        for (find, replace) in followed.edits {
            if *find == APPEND {
                edited.push_str(replace);
            } else {
                assert!(edited.contains(find), "{what}: {find:?} not in the fixture");
                edited = edited.replacen(find, replace, 1);
            }
        }
        assert_followed(
            &what,
            &before,
            finding,
            &lint_fixture(followed.fixture, &edited),
        );
    }
}

/// Every help that does not say "did you mean" (those are fixes, checked
/// below) and proposes an edit has an entry in FOLLOWED; a help added
/// without one fails here.
#[test]
fn every_edit_proposing_help_on_a_failing_fixture_is_followed_above() {
    // Helps that propose no edit to the file: what to look at, not what to change.
    let informational = ["ContextCore accepts only lower-case values"];
    // D-codes compare two contracts (`fixtures/diff/`, tests/diff.rs);
    // their helps are about deploying NEW, and they carry no fix.
    for rule in RULES.iter().filter(|r| r.family != Family::Diff) {
        let dir = repo().join("fixtures").join(rule.code.as_str());
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with("fail") {
                continue;
            }
            let fixture = format!("{}/{name}", rule.code);
            let analysis = lint_fixture(&fixture, &read(&fixture));
            for d in analysis.diagnostics.iter().filter(|d| d.code == rule.code) {
                let Some(help) = d.help.as_deref() else {
                    continue;
                };
                if d.fix.is_some() || informational.contains(&help) {
                    continue;
                }
                // The same help for another name is the same edit.
                let covered = FOLLOWED.iter().any(|f| {
                    f.code == rule.code
                        && f.fixture == fixture
                        && template(help).contains(&template(f.help))
                });
                assert!(
                    covered,
                    "{fixture}: the help `{help}` of {} is followed by no test",
                    rule.code
                );
            }
        }
    }
}

/// A help with the names between backticks blanked out.
fn template(help: &str) -> String {
    help.split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { "`_`" } else { part })
        .collect()
}

#[test]
fn every_fix_can_be_applied() {
    // D-codes compare two contracts (`fixtures/diff/`, tests/diff.rs);
    // their helps are about deploying NEW, and they carry no fix.
    for rule in RULES.iter().filter(|r| r.family != Family::Diff) {
        let dir = repo().join("fixtures").join(rule.code.as_str());
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with("fail") {
                continue;
            }
            let fixture = format!("{}/{name}", rule.code);
            let before = lint_fixture(&fixture, &read(&fixture));
            for d in before.diagnostics.iter().filter(|d| d.fix.is_some()) {
                let what = format!("{} fix in {fixture}", d.code);
                let (fixed, applied) =
                    apply_fixes(&before.source, std::slice::from_ref(d), FixMode::Unsafe)
                        .unwrap_or_else(|| panic!("{what}: not applicable"));
                assert_eq!(applied, 1, "{what}");
                assert_followed(&what, &before, d, &lint_fixture(&fixture, &fixed));
            }
        }
    }
}
