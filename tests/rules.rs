//! Every rule against its fixtures and its page:
//! - `fixtures/CODE/fail*.contract.yaml` triggers CODE, snapshotted with
//!   only CODE enabled (and the load errors E001/E007, which are always
//!   on), so adding a rule rewrites no other rule's snapshot,
//! - one smoke snapshot runs every rule over every fixture,
//! - `fixtures/CODE/pass.contract.yaml` does not,
//! - the page's "Example that fails" triggers CODE and its "Fix" does not,
//! - `fixtures/valid/` produces no diagnostic at all.
//!
//! A diff rule (D6xx, `Family::Diff`) compares two contracts: its fixtures
//! are NEWs under `fixtures/diff/CODE/`, each diffed against
//! `fixtures/diff/base.contract.yaml`, and its page's "Example that fails"
//! holds an OLD and a NEW, its "Fix" a NEW diffed against the same OLD.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write;
use std::path::{Path, PathBuf};

use phaselint_lint::config::{Config, Overrides, Settings};
use phaselint_lint::diagnostic::Diagnostic;
use phaselint_lint::diagnostic::Severity;
use phaselint_lint::line_index::ColumnUnit;
use phaselint_lint::rules::Check;
use phaselint_lint::rules::{Family, RULES, Rule, RuleId};
use phaselint_lint::{Analysis, DocumentKind, analyze, analyze_bytes, analyze_kind};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fixture's kind by its name: `*.harness.json` is a harness config.
fn kind_of(path: &Path) -> DocumentKind {
    if path.to_string_lossy().ends_with(".harness.json") {
        DocumentKind::Harness
    } else {
        DocumentKind::Contract
    }
}

fn lint_file(path: &Path) -> Analysis {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    analyze_bytes(&bytes, kind_of(path), &Settings::all_rules())
}

/// The kind of document a rule reads, and how its fixtures and page
/// examples are written.
fn rule_kind(rule: &Rule) -> (DocumentKind, &'static str, &'static str) {
    match rule.check {
        Some(Check::Harness(_)) => (DocumentKind::Harness, "pass.harness.json", "```json\n"),
        _ => (DocumentKind::Contract, "pass.contract.yaml", "```yaml\n"),
    }
}

/// One line per finding: `line:col-line:col CODE severity message`, then its
/// related spans, help and fix, indented.
fn describe(analysis: &Analysis) -> String {
    let pos = |offset| {
        let p = analysis
            .line_index
            .position(&analysis.source, offset, ColumnUnit::Chars);
        format!("{}:{}", p.line + 1, p.column + 1)
    };
    let mut out = String::new();
    for d in &analysis.diagnostics {
        writeln!(
            out,
            "{}-{} {} {} {}",
            pos(d.span.start),
            pos(d.span.end),
            d.code,
            d.severity.as_str(),
            d.message
        )
        .unwrap();
        for r in &d.related {
            writeln!(
                out,
                "    related {}-{}: {}",
                pos(r.span.start),
                pos(r.span.end),
                r.message
            )
            .unwrap();
        }
        if let Some(help) = &d.help {
            writeln!(out, "    help: {help}").unwrap();
        }
        if let Some(fix) = &d.fix {
            let edits: Vec<String> = fix
                .edits
                .iter()
                .map(|e| {
                    format!(
                        "{}-{} => {:?}",
                        pos(e.span.start),
                        pos(e.span.end),
                        e.replacement
                    )
                })
                .collect();
            writeln!(
                out,
                "    fix ({:?}): {} [{}]",
                fix.applicability,
                fix.title,
                edits.join(", ")
            )
            .unwrap();
        }
    }
    out
}

/// A diff's findings as `describe` shows a file's: positions in NEW,
/// related ones in the file they name.
fn describe_diff(new: &Analysis, findings: &[Diagnostic]) -> String {
    let pos = |source: &str, index: &phaselint_lint::line_index::LineIndex, offset| {
        let p = index.position(source, offset, ColumnUnit::Chars);
        format!("{}:{}", p.line + 1, p.column + 1)
    };
    let mut out = String::new();
    for d in findings {
        let at = |o| pos(&new.source, &new.line_index, o);
        writeln!(
            out,
            "{}-{} {} {} {}",
            at(d.span.start),
            at(d.span.end),
            d.code,
            d.severity.as_str(),
            d.message
        )
        .unwrap();
        for r in &d.related {
            let (name, at): (String, Box<dyn Fn(usize) -> String>) = match &r.file {
                Some(f) => (
                    format!("{} ", f.path.display()),
                    Box::new(|o| pos(&f.source, &f.line_index, o)),
                ),
                None => (String::new(), Box::new(at)),
            };
            writeln!(
                out,
                "    related {name}{}-{}: {}",
                at(r.span.start),
                at(r.span.end),
                r.message
            )
            .unwrap();
        }
        if let Some(help) = &d.help {
            writeln!(out, "    help: {help}").unwrap();
        }
    }
    out
}

/// The findings of `phaselint diff` from `old` to `new`, as the command
/// makes them (default settings), OLD shown as `OLD`.
fn diff_texts(old: &str, new: &str) -> (Analysis, Vec<Diagnostic>) {
    let old = analyze(old, &Settings::default());
    let new = analyze(new, &Settings::default());
    let findings =
        phaselint_lint::diff::diff(&old, &new).unwrap_or_else(|e| panic!("no diff: {e}"));
    (new, findings)
}

fn is_diff(rule: &Rule) -> bool {
    rule.family == Family::Diff
}

/// Where a rule's fixtures are.
fn fixture_dir(rule: &Rule) -> PathBuf {
    if is_diff(rule) {
        repo().join("fixtures/diff").join(rule.code.as_str())
    } else {
        repo().join("fixtures").join(rule.code.as_str())
    }
}

fn codes(analysis: &Analysis) -> Vec<RuleId> {
    analysis.diagnostics.iter().map(|d| d.code).collect()
}

/// The settings of `select = ["CODE"]`: the rule alone, and the load
/// errors, which no selection turns off. The other schema codes are off
/// too: a fixture's snapshot shows what its own rule says, and adding a
/// key or a rule changes no other rule's snapshots. S001 reports a
/// comment that silences nothing only for a code that is on, so its
/// fixtures also select the codes their comments name.
fn only(rule: &Rule, fixture: &str) -> Settings {
    let mut select = vec![rule.code.to_string()];
    if rule.code == "S001" {
        select.extend(suppressed_codes(fixture));
    }
    let mut config = Config::defaults(&repo());
    config
        .apply(&Overrides {
            select: Some(select),
            ..Overrides::default()
        })
        .unwrap();
    config.settings().clone()
}

/// The codes `# phaselint: disable=…` and `disable-file=…` comments name.
fn suppressed_codes(text: &str) -> Vec<String> {
    text.split("# phaselint: disable")
        .skip(1)
        .filter_map(|rest| rest.split_once('='))
        .flat_map(|(_, codes)| {
            let codes = codes.lines().next().unwrap_or("");
            codes
                .split(',')
                .map(|c| c.trim().to_string())
                .collect::<Vec<_>>()
        })
        .filter(|c| !c.is_empty())
        .collect()
}

fn lint_file_with(path: &Path, settings: &Settings) -> Analysis {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    analyze_bytes(&bytes, kind_of(path), settings)
}

#[test]
fn every_rule_has_a_fixture_pair_that_triggers_it_and_one_that_does_not() {
    let mut checked = 0;
    let base = std::fs::read_to_string(repo().join("fixtures/diff/base.contract.yaml")).unwrap();
    for rule in RULES {
        let dir = fixture_dir(rule);
        let mut fails: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("fail"))
            .collect();
        fails.sort();
        assert!(!fails.is_empty(), "{} has no failing fixture", rule.code);
        if is_diff(rule) {
            for fail in fails {
                let (new, found) = diff_texts(&base, &std::fs::read_to_string(&fail).unwrap());
                let described = describe_diff(&new, &found);
                assert!(
                    found.iter().any(|d| d.code == rule.code),
                    "{} does not trigger {}:\n{described}",
                    fail.display(),
                    rule.code,
                );
                let stem = fail.file_stem().unwrap().to_string_lossy();
                let name = format!("{}__{}", rule.code, stem.replace(".contract", ""));
                insta::assert_snapshot!(name, described);
            }
            let pass = std::fs::read_to_string(dir.join("pass.contract.yaml")).unwrap();
            let (new, found) = diff_texts(&base, &pass);
            assert!(
                found.iter().all(|d| d.code != rule.code),
                "{}/pass.contract.yaml triggers {}:\n{}",
                dir.display(),
                rule.code,
                describe_diff(&new, &found)
            );
            checked += 1;
            continue;
        }
        for fail in fails {
            let text = std::fs::read_to_string(&fail).unwrap_or_default();
            let analysis = lint_file_with(&fail, &only(rule, &text));
            assert!(
                codes(&analysis).contains(&rule.code),
                "{} does not trigger {}:\n{}",
                fail.display(),
                rule.code,
                describe(&analysis)
            );
            let name = format!(
                "{}__{}",
                rule.code,
                fail.file_stem()
                    .unwrap()
                    .to_string_lossy()
                    .replace(".contract", "")
                    .replace(".harness", "")
            );
            insta::assert_snapshot!(name, describe(&analysis));
        }
        let pass = dir.join(rule_kind(rule).1);
        let analysis = lint_file(&pass);
        assert!(
            !codes(&analysis).contains(&rule.code),
            "{} triggers {}:\n{}",
            pass.display(),
            rule.code,
            describe(&analysis)
        );
        checked += 1;
    }
    assert_eq!(checked, RULES.len());
}

/// Every rule over every rule fixture, in one snapshot: what the
/// isolated snapshots above leave out (one rule's finding on another's
/// fixture, a rule firing where it should not). A new rule that fires on
/// another rule's fixture changes this file, and only this one.
#[test]
fn every_rule_over_every_fixture() {
    let everything = Settings::all_rules();
    let mut out = String::new();
    for rule in RULES.iter().filter(|r| !is_diff(r)) {
        let dir = fixture_dir(rule);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            let analysis = lint_file_with(&file, &everything);
            let shown = file.strip_prefix(repo()).unwrap_or(&file);
            writeln!(out, "{}", shown.display()).unwrap();
            for d in &analysis.diagnostics {
                let at = |offset| {
                    let p =
                        analysis
                            .line_index
                            .position(&analysis.source, offset, ColumnUnit::Chars);
                    format!("{}:{}", p.line + 1, p.column + 1)
                };
                writeln!(
                    out,
                    "  {}-{} {} {}",
                    at(d.span.start),
                    at(d.span.end),
                    d.code,
                    d.severity.as_str()
                )
                .unwrap();
            }
        }
    }
    insta::assert_snapshot!("all_rules_over_all_fixtures", out);
}

/// The first block fenced with `fence` (```yaml or ```json) after
/// `heading` in a rule page.
fn code_block<'a>(page: &'a str, heading: &str, fence: &str) -> Option<&'a str> {
    let section = &page[page.find(heading)?..];
    let start = section.find(fence)? + fence.len();
    let end = section[start..].find("\n```")?;
    Some(&section[start..start + end + 1])
}

#[test]
fn every_rule_page_example_fails_and_its_fix_passes() {
    for rule in RULES {
        assert!(
            rule.doc
                .starts_with(&format!("# {}: {}", rule.code, rule.name)),
            "rules/{}.md must start with `# {}: {}`",
            rule.code,
            rule.code,
            rule.name
        );
        for heading in [
            "## What it checks",
            "## Why",
            "## Example that fails",
            "## Fix",
            "## Configuration",
        ] {
            assert!(
                rule.doc.contains(heading),
                "rules/{}.md lacks `{heading}`",
                rule.code
            );
        }
        let (kind, _, fence) = rule_kind(rule);
        if is_diff(rule) {
            let example = &rule.doc[rule.doc.find("## Example that fails").unwrap()..];
            let old = code_block(example, "", fence)
                .unwrap_or_else(|| panic!("rules/{}.md has no OLD example", rule.code));
            let after_old = &example[example.find(old).unwrap() + old.len()..];
            let new = code_block(after_old, "", fence)
                .unwrap_or_else(|| panic!("rules/{}.md has no NEW example", rule.code));
            let (analyzed, found) = diff_texts(old, new);
            assert!(
                found.iter().any(|d| d.code == rule.code),
                "rules/{}.md: the failing example does not trigger it:\n{}",
                rule.code,
                describe_diff(&analyzed, &found)
            );
            let fixed = code_block(rule.doc, "## Fix", fence)
                .unwrap_or_else(|| panic!("rules/{}.md has no fixed example", rule.code));
            let (analyzed, found) = diff_texts(old, fixed);
            assert!(
                found.iter().all(|d| d.code != rule.code),
                "rules/{}.md: the fixed example still triggers it:\n{}",
                rule.code,
                describe_diff(&analyzed, &found)
            );
            continue;
        }
        let failing = code_block(rule.doc, "## Example that fails", fence)
            .unwrap_or_else(|| panic!("rules/{}.md has no failing example", rule.code));
        let analysis = analyze_kind(failing, kind, &Settings::all_rules());
        assert!(
            codes(&analysis).contains(&rule.code),
            "rules/{}.md: the failing example does not trigger it:\n{}",
            rule.code,
            describe(&analysis)
        );
        let fixed = code_block(rule.doc, "## Fix", fence)
            .unwrap_or_else(|| panic!("rules/{}.md has no fixed example", rule.code));
        let analysis = analyze_kind(fixed, kind, &Settings::all_rules());
        assert!(
            !codes(&analysis).contains(&rule.code),
            "rules/{}.md: the fixed example still triggers it:\n{}",
            rule.code,
            describe(&analysis)
        );
    }
}

/// Writes `text` to `path` under `PHASELINT_BLESS=1`; otherwise fails when
/// they differ.
fn generated(path: &Path, text: &str) {
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    if on_disk == text {
        return;
    }
    if std::env::var_os("PHASELINT_BLESS").is_some() {
        std::fs::write(path, text).unwrap();
        return;
    }
    panic!(
        "{} is stale: it is generated from the rule declarations and the format tables (`format/tables.rs`); run `PHASELINT_BLESS=1 cargo test -p phaselint-lint --test rules` and review the diff",
        path.display()
    );
}

#[test]
fn rule_pages_headers_configuration_and_the_index_are_generated() {
    for rule in RULES {
        let path = repo().join("rules").join(format!("{}.md", rule.code));
        generated(&path, &phaselint_lint::rules::page::render(rule));
    }
    generated(
        &repo().join("rules/README.md"),
        &phaselint_lint::rules::page::index(),
    );
    generated(
        &repo().join("docs/contract-format.md"),
        &phaselint_lint::format::reference(),
    );
    // The project README's families are prose, so they are checked, not
    // generated; it states no count of rules, which each new rule would
    // have to edit (`rules/README.md`, generated, is the list).
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let mut families: Vec<&str> = RULES.iter().map(|r| r.family.as_str()).collect();
    families.sort_unstable();
    families.dedup();
    let in_words = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ];
    let claim = format!(
        "rules come in {} families",
        in_words.get(families.len()).unwrap_or(&"many")
    );
    assert!(readme.contains(&claim), "README.md must say `{claim}`");
}

#[test]
fn every_page_in_rules_is_a_registered_rule() {
    for entry in std::fs::read_dir(repo().join("rules")).unwrap() {
        let path = entry.unwrap().path();
        let code = path.file_stem().unwrap().to_string_lossy().to_string();
        if code == "README" {
            continue;
        }
        assert!(
            RULES.iter().any(|r| r.code.as_str() == code),
            "{} has no registered rule",
            path.display()
        );
    }
}

#[test]
fn valid_fixtures_are_silent() {
    let dir = repo().join("fixtures/valid");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let analysis = lint_file(&path);
        assert!(
            analysis.diagnostics.is_empty(),
            "{} is not clean:\n{}",
            path.display(),
            describe(&analysis)
        );
        count += 1;
    }
    assert!(count >= 3, "expected the valid fixtures, found {count}");
}

#[test]
fn suppression_comments_silence_findings_and_unused_ones_are_reported() {
    let source = "\
schema_version: '1'
pipeline_id: p
phases:
  retrieve:
    # phaselint: disable=G304
    exit: { required: [{ name: unused_a }] }
  generate:
    exit: { required: [{ name: unused_b }] }  # phaselint: disable=G304
  review:
    exit: { required: [{ name: unused_c }] }
  publish: {}
# phaselint: disable=C204
";
    let analysis = analyze(source, &Settings::all_rules());
    insta::assert_snapshot!(describe(&analysis), @r#"
    10:32-10:40 G304 info `unused_c` is produced by `review` but no later phase reads it
        help: read it in a later phase's entry, name it in a propagation chain, or remove it from exit
    12:22-12:26 S001 info unused suppression: no C204 finding on this line or the next
        help: remove the code from the comment; stale suppressions hide future findings
        fix (Safe): Remove unused suppression of C204 [12:1-13:1 => ""]
    "#);

    let file_level = format!("# phaselint: disable-file=G304,R101\n{source}");
    let analysis = analyze(&file_level, &Settings::all_rules());
    let found = codes(&analysis);
    assert!(
        !found.iter().any(|c| *c == "G304"),
        "{}",
        describe(&analysis)
    );
    let unused: Vec<&str> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.code == "S001")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        unused,
        [
            "unused suppression: no R101 finding in this file",
            "unused suppression: no C204 finding on this line or the next",
        ]
    );
}

#[test]
fn unreadable_yaml_cannot_be_suppressed() {
    let source = "# phaselint: disable-file=E001\nphases: [unclosed\n";
    let analysis = analyze(source, &Settings::default());
    assert_eq!(
        codes(&analysis),
        ["S001", "E001"],
        "{}",
        describe(&analysis)
    );
    assert!(
        analysis.diagnostics[0]
            .message
            .contains("cannot be suppressed")
    );
}

#[test]
fn non_utf8_input_is_reported() {
    let analysis = analyze_bytes(
        b"schema_version: \"\xff\"\n",
        DocumentKind::Contract,
        &Settings::default(),
    );
    assert_eq!(codes(&analysis), ["E007"]);
    assert!(analysis.diagnostics[0].message.contains("not valid UTF-8"));
}

#[test]
fn empty_and_non_mapping_documents_are_reported() {
    for source in ["", "# only a comment\n", "- a\n- b\n", "just a string\n"] {
        let analysis = analyze(source, &Settings::default());
        assert_eq!(
            codes(&analysis),
            ["E007"],
            "{source:?}: {}",
            describe(&analysis)
        );
    }
}

#[test]
fn contextcore_dialect_makes_non_canonical_case_an_error() {
    // ContextCore rejects `BLOCKING`: under its dialect the file must not pass.
    let source = "\
schema_version: '1'
pipeline_id: p
phases:
  run: { exit: { required: [{ name: x, severity: BLOCKING }] } }
";
    let level = |settings: &Settings| {
        analyze(source, settings)
            .diagnostics
            .iter()
            .filter(|d| d.code == "S002")
            .map(|d| d.severity)
            .collect::<Vec<_>>()
    };
    assert_eq!(level(&Settings::default()), [Severity::Warning]);
    let mut contextcore = Settings::default();
    contextcore.dialect = phaselint_lint::config::Dialect::Contextcore;
    assert_eq!(level(&contextcore), [Severity::Error]);
}

#[test]
fn a_placeholder_phase_body_gives_its_schema_error_only() {
    // The skeleton's phase bodies are placeholders: E003 says so, and the
    // chains naming their fields are not also R104/R110 findings.
    let source = "\
schema_version: '1'
pipeline_id: p
phases:
  design:
    todo: fill in entry and exit
  build:
    entry: { required: [{ name: spec, source_phase: design }] }
    exit: { required: [{ name: artifact }] }
propagation_chains:
  - chain_id: spec_to_build
    source: { phase: design, field: spec }
    destination: { phase: build, field: spec }
";
    let analysis = analyze(source, &Settings::default());
    assert_eq!(codes(&analysis), ["E003"], "{}", describe(&analysis));
}

#[test]
fn contextcore_dialect_reports_extension_keys() {
    let source = "\
schema_version: '1'
pipeline_id: p
pipeline_inputs: [request]
phases:
  run:
    long_running: true
    side_effects: none
";
    let mut settings = Settings::default();
    settings.dialect = phaselint_lint::config::Dialect::Contextcore;
    let analysis = analyze(source, &settings);
    let e003: Vec<&str> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.code == "E003")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        e003,
        [
            "`pipeline_inputs` in the contract root is a phaselint extension that ContextCore rejects",
            "`long_running` in `phases.run` is a phaselint extension that ContextCore rejects",
            "`side_effects` in `phases.run` is a phaselint extension that ContextCore rejects",
        ]
    );
    assert!(
        analyze(source, &Settings::default())
            .diagnostics
            .iter()
            .all(|d| d.code != "E003")
    );
}

#[test]
fn hostile_inputs_give_diagnostics_not_panics() {
    let deep_block: String = (0..200)
        .map(|i| format!("{}k{i}:\n", "  ".repeat(i)))
        .collect();
    let cases = [
        "a: [".repeat(5_000),
        format!("x: {}{}", "{a: ".repeat(3_000), "}".repeat(3_000)),
        deep_block,
        "\u{feff}schema_version: '1'\n".to_string(),
        "phases: !!binary aGVsbG8=\n".to_string(),
        "? [complex, key]\n: value\n".to_string(),
        "a: &x 1\nb: *y\n".to_string(),
        "schema_version: '1'\npipeline_id: p\nphases:\n  \"\": {}\n".to_string(),
        "\0\0\0".to_string(),
    ];
    for source in &cases {
        let analysis = analyze(source, &Settings::default());
        assert!(
            !analysis.diagnostics.is_empty(),
            "{:?} passed silently",
            &source[..source.len().min(40)]
        );
    }
}

#[test]
fn a_nul_byte_is_reported_where_it_is() {
    let analysis = analyze(
        "schema_version: \"1\0\"\npipeline_id: p\n",
        &Settings::default(),
    );
    let described = describe(&analysis);
    assert_eq!(
        described.lines().next(),
        Some(
            "1:19-1:20 E001 error YAML syntax error: a NUL byte (U+0000) is not allowed in YAML; is this a binary file?"
        ),
        "{described}"
    );
}

#[test]
fn truncated_and_mangled_fixtures_never_panic() {
    let mut inputs = Vec::new();
    for rule in RULES {
        let dir = fixture_dir(rule);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("fail")
            {
                inputs.push(path);
            }
        }
    }
    for entry in std::fs::read_dir(repo().join("fixtures/valid")).unwrap() {
        inputs.push(entry.unwrap().path());
    }
    for path in inputs {
        let kind = kind_of(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let boundaries: Vec<usize> = (0..text.len())
            .step_by(3)
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for cut in boundaries {
            let truncated = &text[..cut];
            let analysis = analyze_kind(truncated, kind, &Settings::default());
            // Every finding must point inside the text it was given.
            for d in &analysis.diagnostics {
                assert!(
                    d.span.start <= d.span.end && d.span.end <= truncated.len(),
                    "{}: {d:?}",
                    path.display()
                );
            }
            // Dropping one character at the cut is another kind of damage.
            let mut mangled = text.clone();
            if let Some(ch) = mangled[cut..].chars().next() {
                mangled.replace_range(cut..cut + ch.len_utf8(), "");
                let _ = analyze(&mangled, &Settings::default());
            }
        }
    }
}

#[test]
fn schema_errors_silence_the_rules_that_depend_on_what_they_removed() {
    // `exits` is misspelled: retrieve's exit fields are unknown, so R102,
    // R104, R110, G303 and G304 must not report what E003 explains.
    let source = "\
schema_version: '1'
pipeline_id: p
phases:
  retrieve:
    exits: { required: [{ name: documents }] }
  generate:
    entry: { required: [{ name: documents, source_phase: retrieve }] }
    exit: { required: [{ name: answer }] }
  review:
    entry: { required: [{ name: answer }] }
propagation_chains:
  - chain_id: c
    source: { phase: retrieve, field: documents }
    destination: { phase: generate, field: documents }
checkpoint_integrity:
  - checkpoint_id: k
    phase: retrieve
    on_resume: { staleness_checks: [{ field: documents, max_age_seconds: 60 }] }
graph_topology:
  edges:
    - { from: retrieve, to: generate }
    - { from: generate }
";
    let analysis = analyze(source, &Settings::default());
    assert_eq!(
        codes(&analysis),
        ["E003", "E005"],
        "{}",
        describe(&analysis)
    );
    // Fixed, the same contract is clean but for the dropped edge's phase.
    let fixed = source
        .replace("exits:", "exit:")
        .replace("{ from: generate }", "{ from: generate, to: review }");
    let analysis = analyze(&fixed, &Settings::default());
    assert!(analysis.diagnostics.is_empty(), "{}", describe(&analysis));
}
