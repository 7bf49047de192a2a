//! Turning phaselint on over a repository that already has findings,
//! through the real binary on copies of the shared corpus: `--baseline`,
//! `--write-baseline`, `baseline = "…"` and `--add-suppressions`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

#[path = "support/binary.rs"]
mod binary;
use binary::{Run, phaselint};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn corpus() -> PathBuf {
    repo().join("../shared/corpus")
}

/// A temporary copy of `corpus/<folder>` under `<temp>/<folder>`.
fn copy_corpus(temp: &Path, folder: &str) {
    let target = temp.join(folder);
    std::fs::create_dir_all(&target).unwrap();
    for entry in std::fs::read_dir(corpus().join(folder)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            std::fs::copy(&path, target.join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// The findings of a concise report: its lines that name a code.
fn findings(out: &Run) -> Vec<String> {
    out.stdout
        .lines()
        .filter(|l| l.contains(".contract.yaml:") || l.contains("config.json:"))
        .map(str::to_string)
        .collect()
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} has no `{from}`", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// The number of findings a baseline file records.
fn recorded(path: &Path) -> u64 {
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(value["version"], 1);
    value["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["count"].as_u64().unwrap())
        .sum()
}

const EDITED: &str = "valid/artisan-pipeline.0769774f.contract.yaml";

#[test]
fn a_baseline_reports_only_what_is_new_and_counts_what_was_fixed() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    copy_corpus(dir, "valid");
    let all = phaselint(dir, &["lint", "--format", "concise", "valid"]);
    let today = findings(&all).len();
    assert!(today > 100, "the corpus has warnings: {}", all.stdout);

    let written = phaselint(
        dir,
        &[
            "lint",
            "--format",
            "concise",
            "--write-baseline",
            "baseline.json",
            "valid",
        ],
    );
    assert_eq!(written.code, 0, "{}", written.stderr);
    assert_eq!(
        written.stdout,
        format!("All checks passed (24 files).\n{today} findings hidden by the baseline.\n")
    );
    assert!(
        written
            .stderr
            .contains(&format!("wrote {today} findings in "))
    );
    assert_eq!(recorded(&dir.join("baseline.json")) as usize, today);

    let baselined = [
        "lint",
        "--format",
        "concise",
        "--baseline",
        "baseline.json",
        "valid",
    ];
    let out = phaselint(dir, &baselined);
    assert_eq!(out.code, 0);
    assert_eq!(findings(&out), Vec::<String>::new());

    // Unrelated edits: lines added above everything, another phase's
    // description changed, a comment reindented, lines added inside the
    // phases.
    let file = dir.join(EDITED);
    edit(
        &file,
        "schema_version:",
        "# added\n\n# lines\nschema_version:",
    );
    edit(
        &file,
        "description: \"Preflight checks + plan deconstruction\"",
        "description: \"Preflight checks, then the plan taken apart\"",
    );
    edit(
        &file,
        "# Declares what context",
        "      # Declares what context",
    );
    edit(&file, "phases:\n", "phases:\n\n  # the phases, in order\n");
    let out = phaselint(dir, &baselined);
    assert_eq!(findings(&out), Vec::<String>::new(), "{}", out.stdout);
    assert_eq!(
        out.stdout,
        format!("All checks passed (24 files).\n{today} findings hidden by the baseline.\n")
    );

    // One new defect: exactly one finding, in every format.
    edit(
        &file,
        "description: \"Preflight checks, then the plan taken apart\"",
        "description: \"Preflight checks, then the plan taken apart\"\n    long_running: true",
    );
    let out = phaselint(dir, &baselined);
    let new = findings(&out);
    assert_eq!(new.len(), 1, "{}", out.stdout);
    assert!(
        new[0].contains("C203") && new[0].contains("`plan`"),
        "{}",
        new[0]
    );
    assert_eq!(out.code, 0, "a warning alone does not fail");
    let strict = phaselint(
        dir,
        &[
            "lint",
            "--baseline",
            "baseline.json",
            "--max-warnings",
            "0",
            "valid",
        ],
    );
    assert_eq!(strict.code, 1, "the exit code follows what is reported");
    type Count = fn(&serde_json::Value) -> usize;
    let counts: [(&str, Count); 3] = [
        ("json", |v| v["diagnostics"].as_array().unwrap().len()),
        ("sarif", |v| {
            v["runs"][0]["results"].as_array().unwrap().len()
        }),
        ("gitlab", |v| v.as_array().unwrap().len()),
    ];
    for (format, count) in counts {
        let out = phaselint(
            dir,
            &[
                "lint",
                "--format",
                format,
                "--baseline",
                "baseline.json",
                "valid",
            ],
        );
        let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(count(&value), 1, "{format}: {}", out.stdout);
        assert!(
            out.stderr
                .contains(&format!("{} findings hidden by the baseline", today)),
            "{format}: {}",
            out.stderr
        );
    }
    let github = phaselint(
        dir,
        &[
            "lint",
            "--format",
            "github",
            "--baseline",
            "baseline.json",
            "valid",
        ],
    );
    assert_eq!(github.stdout.lines().count(), 1, "{}", github.stdout);
    let junit = phaselint(
        dir,
        &[
            "lint",
            "--format",
            "junit",
            "--baseline",
            "baseline.json",
            "valid",
        ],
    );
    let junit_findings = ["[error]", "[warning]", "[info]"]
        .iter()
        .map(|level| junit.stdout.matches(level).count())
        .sum::<usize>();
    assert_eq!(junit_findings, 1, "{}", junit.stdout);

    // A baselined finding fixed: counted, and named under --verbose.
    edit(&file, "  # the phases, in order\n", "");
    let before = std::fs::read_to_string(&file).unwrap();
    let line = before
        .lines()
        .position(|l| l.contains("source_phase: implement"))
        .unwrap();
    let without: Vec<&str> = before
        .lines()
        .enumerate()
        .filter(|&(i, _)| i != line)
        .map(|(_, l)| l)
        .collect();
    let text = without.join("\n") + "\n";
    let removed = before.lines().nth(line).unwrap();
    std::fs::write(&file, text).unwrap();
    let out = phaselint(dir, &baselined);
    assert_eq!(findings(&out).len(), 1, "only the C203: {}", out.stdout);
    let gone_line = "1 finding in the baseline no longer occurs: run `phaselint lint --write-baseline baseline.json` to shrink it.\n";
    assert!(out.stdout.ends_with(gone_line), "{removed}: {}", out.stdout);
    let verbose = phaselint(
        dir,
        &["lint", "--verbose", "--baseline", "baseline.json", "valid"],
    );
    assert!(
        verbose.stderr.contains(&format!(
            "fixed since baseline.json: 1 finding R110 in {EDITED} (`implement`)"
        )),
        "{}",
        verbose.stderr
    );

    // Writing it again: the fixed one drops out, the new one comes in.
    let write_again = [
        "lint",
        "--write-baseline",
        "baseline.json",
        "--format",
        "concise",
        "valid",
    ];
    let rewritten = phaselint(dir, &write_again);
    assert_eq!(rewritten.code, 0);
    assert!(rewritten.stderr.contains(&format!("(it held {today})")));
    assert_eq!(recorded(&dir.join("baseline.json")) as usize, today);
    let out = phaselint(dir, &baselined);
    assert_eq!(
        out.stdout,
        format!("All checks passed (24 files).\n{today} findings hidden by the baseline.\n")
    );
    // The new defect fixed too: the rewritten baseline is one smaller.
    edit(&file, "\n    long_running: true", "");
    let shrunk = phaselint(dir, &write_again);
    assert!(
        shrunk
            .stderr
            .contains(&format!("wrote {} findings", today - 1)),
        "{}",
        shrunk.stderr
    );
    assert_eq!(recorded(&dir.join("baseline.json")) as usize, today - 1);
}

#[test]
fn a_baseline_written_for_some_files_keeps_the_others() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    copy_corpus(dir, "valid");
    let all = phaselint(dir, &["lint", "--write-baseline", "b.json", "valid"]);
    assert_eq!(all.code, 0);
    let total = recorded(&dir.join("b.json"));
    let one = phaselint(dir, &["lint", "--write-baseline", "b.json", EDITED]);
    assert_eq!(one.code, 0);
    assert_eq!(recorded(&dir.join("b.json")), total);
    assert!(
        one.stderr
            .contains("of them kept from files not linted in this run")
    );
    // The same baseline from another working directory.
    let out = phaselint(
        &dir.join("valid"),
        &[
            "lint",
            "--format",
            "concise",
            "--baseline",
            "../b.json",
            ".",
        ],
    );
    assert_eq!(findings(&out), Vec::<String>::new(), "{}", out.stdout);
}

#[test]
fn the_configuration_names_a_baseline_relative_to_itself() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    copy_corpus(dir, "valid");
    std::fs::create_dir(dir.join("ci")).unwrap();
    std::fs::write(
        dir.join("phaselint.toml"),
        "baseline = \"ci/baseline.json\"\n",
    )
    .unwrap();
    let missing = phaselint(dir, &["lint", "valid"]);
    assert_eq!(missing.code, 3);
    assert!(
        missing.stderr.contains("cannot read the baseline `")
            && missing.stderr.contains("ci/baseline.json`: there is no such file; write it with `phaselint lint --write-baseline"),
        "{}",
        missing.stderr
    );
    let written = phaselint(
        dir,
        &["lint", "--write-baseline", "ci/baseline.json", "valid"],
    );
    assert_eq!(written.code, 0, "{}", written.stderr);
    // From inside the folder: the configuration is found, its baseline
    // read relative to it.
    let inside = phaselint(&dir.join("valid"), &["lint", "--format", "concise", "."]);
    assert_eq!(inside.code, 0);
    assert!(
        inside.stdout.starts_with("All checks passed (24 files).\n"),
        "{}",
        inside.stdout
    );
    assert!(inside.stdout.contains("findings hidden by the baseline."));
    let everything = phaselint(
        dir,
        &["lint", "--format", "concise", "--no-baseline", "valid"],
    );
    assert!(findings(&everything).len() > 100);
    // The same key in pyproject.toml.
    std::fs::remove_file(dir.join("phaselint.toml")).unwrap();
    std::fs::write(
        dir.join("pyproject.toml"),
        "[tool.phaselint]\nbaseline = \"ci/baseline.json\"\n",
    )
    .unwrap();
    let out = phaselint(dir, &["lint", "--format", "concise", "valid"]);
    assert_eq!(findings(&out), Vec::<String>::new(), "{}", out.stdout);
}

#[test]
fn a_baseline_that_cannot_be_used_is_exit_3_naming_it() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    copy_corpus(dir, "valid");
    for (name, text, says) in [
        (
            "broken.json",
            "{\"version\": 1, \"findings\": [",
            "cannot use the baseline `broken.json`: it is not a phaselint baseline: EOF while parsing a list at line 1 column 28",
        ),
        (
            "newer.json",
            "{\"version\": 7, \"findings\": []}",
            "cannot use the baseline `newer.json`: it is a baseline of format version 7",
        ),
        (
            "other.json",
            "[1, 2]",
            "cannot use the baseline `other.json`: it is not a phaselint baseline",
        ),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
        let out = phaselint(dir, &["lint", "--baseline", name, "valid"]);
        assert_eq!(out.code, 3, "{name}");
        assert!(out.stderr.contains(says), "{name}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{name}: nothing is reported");
    }
    let out = phaselint(dir, &["lint", "--baseline", "valid", "valid"]);
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("cannot read the baseline `valid`"),
        "{}",
        out.stderr
    );
    let out = phaselint(
        dir,
        &[
            "lint",
            "--baseline",
            "b.json",
            "--add-suppressions",
            "valid",
        ],
    );
    assert_eq!(out.code, 3, "{}", out.stderr);
}

#[test]
fn suppressions_silence_every_suppressible_finding_and_change_nothing_else() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    copy_corpus(dir, "valid");
    copy_corpus(dir, "invalid");
    // A few fixtures with findings, and a JSON harness config.
    std::fs::create_dir_all(dir.join("fixtures/.harness")).unwrap();
    for code in ["C203", "C205", "E003", "G303", "P401", "R101", "S002"] {
        std::fs::copy(
            repo().join(format!("fixtures/{code}/fail.contract.yaml")),
            dir.join(format!("fixtures/{code}.contract.yaml")),
        )
        .unwrap();
    }
    std::fs::copy(
        repo().join("fixtures/H501/fail.harness.json"),
        dir.join("fixtures/.harness/config.json"),
    )
    .unwrap();
    let contracts: Vec<PathBuf> = ["valid", "invalid", "fixtures"]
        .iter()
        .flat_map(|d| std::fs::read_dir(dir.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    let graph = |path: &Path| {
        let out = phaselint(dir, &["graph", path.to_str().unwrap(), "--format", "json"]);
        (out.code, out.stdout)
    };
    let graphs: Vec<_> = contracts.iter().map(|p| graph(p)).collect();
    let before = phaselint(
        dir,
        &["lint", "--format", "json", "valid", "invalid", "fixtures"],
    );
    let count = |out: &Run, suppressible: bool| {
        let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        value["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                ["E001", "E007", "S001"].contains(&d["code"].as_str().unwrap()) != suppressible
            })
            .count()
    };
    assert!(count(&before, true) > 150);

    let added = phaselint(
        dir,
        &[
            "lint",
            "--add-suppressions",
            "--format",
            "json",
            "valid",
            "invalid",
            "fixtures",
        ],
    );
    let said = &added.stderr;
    assert!(
        said.contains("phaselint: note: skipped fixtures/.harness/config.json: it is JSON, which has no comments"),
        "{said}"
    );
    assert!(
        said.contains("phaselint: added ") && said.contains(" suppression comments in "),
        "{said}"
    );
    // What is left is the harness config's finding, which JSON cannot silence.
    assert_eq!(count(&added, true), 1, "{}", added.stdout);
    assert_eq!(added.code, 1);

    let after = phaselint(
        dir,
        &["lint", "--format", "json", "valid", "invalid", "fixtures"],
    );
    assert_eq!(count(&after, true), 1, "{}", after.stdout);
    assert_eq!(count(&after, false), count(&before, false), "no new S001");
    let graphs_after: Vec<_> = contracts.iter().map(|p| graph(p)).collect();
    assert_eq!(graphs_after, graphs, "every file reads as the same YAML");

    // A second run finds nothing to add and writes nothing.
    let texts: Vec<String> = contracts
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let again = phaselint(
        dir,
        &["lint", "--add-suppressions", "valid", "invalid", "fixtures"],
    );
    assert!(
        again
            .stderr
            .contains("phaselint: no suppression comments to add"),
        "{}",
        again.stderr
    );
    let texts_after: Vec<String> = contracts
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert_eq!(texts_after, texts);
    let merged = std::fs::read_to_string(dir.join("invalid/req10-skeleton.contract.yaml")).unwrap();
    assert!(
        merged
            .contains("checkpoint_integrity: [ ... ]   # NEW, optional  # phaselint: disable=E004"),
        "{merged}"
    );
}

#[test]
fn suppressions_go_where_yaml_keeps_them_a_comment() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let file = dir.join("x.contract.yaml");
    let source = "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\ncheckpoint_integrity:\n  - {checkpoint_id: k,\n     phase: nope,\n     on_resume: {}}\nnotes: |\n  # text, not a comment\nextra: 1  # phaselint: disable=C204\n";
    std::fs::write(&file, source).unwrap();
    let out = phaselint(
        dir,
        &[
            "lint",
            "--add-suppressions",
            "--format",
            "concise",
            "x.contract.yaml",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "schema_version: '1'\npipeline_id: p\nphases:\n  a: {}\ncheckpoint_integrity:  # phaselint: disable=C204\n  - {checkpoint_id: k,\n     phase: nope,\n     on_resume: {}}\nnotes: |  # phaselint: disable=E003\n  # text, not a comment\nextra: 1  # phaselint: disable=C204,E003\n"
    );
    assert!(
        out.stderr.contains("phaselint: note: x.contract.yaml:7: R101 not suppressed: its line ends inside a flow collection"),
        "{}",
        out.stderr
    );
    // The R101 is still reported, and the C204 on the last line is the
    // S001 it was before.
    let report = &out.stdout;
    let codes: Vec<&str> = report
        .lines()
        .filter_map(|l| l.split(": ").nth(1).map(|rest| &rest[..4]))
        .collect();
    assert_eq!(codes, ["R101", "S001"], "{}", out.stdout);
}
