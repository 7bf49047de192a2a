//! Configuration inheritance (`extend`) and `phaselint config`, through
//! the real binary and the real language server: a chain of three files
//! (a `pyproject.toml` among them) merged as ruff merges, cycles and
//! missing files refused with exit 3.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

#[path = "support/lsp_client.rs"]
mod lsp_client;
use lsp_client::{Lsp, uri_of};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/valid")
        .join(name)
}

fn phaselint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `pyproject.toml` ← `team/base.toml` ← `team/svc/phaselint.toml`, each
/// setting something the others do not, and three contracts from the
/// corpus: `a` (S002, C208, R102 by default), `c` and `legacy/b` (R104,
/// R110, and G304 once every rule is selected).
fn chain() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[project]\nname = \"x\"\n\n[tool.phaselint]\nselect = [\"ALL\"]\nignore = [\"S002\"]\n\n[tool.phaselint.severity]\nR104 = \"error\"\n",
    );
    write(
        root,
        "team/base.toml",
        "extend = \"../pyproject.toml\"\nextend-ignore = [\"C208\"]\n\n[severity]\nR102 = \"error\"\n\n[per-file-ignores]\n\"svc/legacy/**\" = [\"R110\"]\n",
    );
    write(
        root,
        "team/svc/phaselint.toml",
        "extend = \"../base.toml\"\n\n[severity]\nR104 = \"info\"\n\n[per-file-ignores]\n\"legacy/**\" = [\"G304\"]\n",
    );
    let artisan =
        std::fs::read_to_string(corpus("artisan-pipeline.0769774f.contract.yaml")).unwrap();
    write(
        root,
        "team/svc/a.contract.yaml",
        &std::fs::read_to_string(corpus("req10-example.contract.yaml")).unwrap(),
    );
    write(root, "team/svc/c.contract.yaml", &artisan);
    write(root, "team/svc/legacy/b.contract.yaml", &artisan);
    dir
}

/// Each file's findings as `CODE severity` → count, from `--format json`.
fn findings(root: &Path, args: &[&str]) -> BTreeMap<String, BTreeMap<String, usize>> {
    let mut all = vec!["lint", "--format", "json"];
    all.extend_from_slice(args);
    let out = phaselint(root, &all);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    let mut by_file: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for d in report["diagnostics"].as_array().unwrap() {
        let key = format!(
            "{} {}",
            d["code"].as_str().unwrap(),
            d["severity"].as_str().unwrap()
        );
        *by_file
            .entry(d["path"].as_str().unwrap().to_string())
            .or_default()
            .entry(key)
            .or_default() += 1;
    }
    by_file
}

fn codes(of: Option<&BTreeMap<String, usize>>) -> Vec<&str> {
    of.map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

#[test]
fn a_chain_of_three_files_is_merged_as_ruff_merges() {
    let dir = chain();
    let by_file = findings(dir.path(), &["team/svc"]);
    // The defaults first, to see what the chain changes.
    let defaults = findings(dir.path(), &["--no-config", "team/svc"]);
    assert_eq!(
        codes(defaults.get("team/svc/a.contract.yaml")),
        ["C208 info", "R102 warning", "S002 warning"]
    );
    assert_eq!(
        codes(defaults.get("team/svc/c.contract.yaml")),
        ["R104 warning", "R110 warning"]
    );

    // a: S002 ignored by the pyproject, C208 by base.toml's extend-ignore
    // (added to it, not replacing it), R102 raised by base.toml.
    assert_eq!(
        codes(by_file.get("team/svc/a.contract.yaml")),
        ["R102 error"]
    );
    // c: every rule selected by the pyproject (G304 is off by default);
    // R104 "error" there, "info" in the nearest file, which wins.
    assert_eq!(
        codes(by_file.get("team/svc/c.contract.yaml")),
        ["G304 info", "R104 info", "R110 warning"]
    );
    // legacy/b: both files' per-file-ignores apply, each glob relative to
    // the folder of the file that declared it.
    assert_eq!(
        codes(by_file.get("team/svc/legacy/b.contract.yaml")),
        ["R104 info"]
    );

    // The command line still goes on top of the merged chain.
    let flagged = findings(
        dir.path(),
        &[
            "--select",
            "R1",
            "--severity",
            "R110=error",
            "team/svc/c.contract.yaml",
        ],
    );
    assert_eq!(
        codes(flagged.get("team/svc/c.contract.yaml")),
        ["R104 info", "R110 error"]
    );
}

#[test]
fn select_in_the_nearest_file_replaces_and_extend_select_adds() {
    let dir = chain();
    let root = dir.path();
    // `select` starts over: the pyproject's ALL is gone, so G304 (off by
    // default) with it; `extend-select` then adds it back for `c` only
    // through a second layer.
    write(
        root,
        "team/svc/phaselint.toml",
        "extend = \"../base.toml\"\nselect = [\"R\"]\n",
    );
    assert_eq!(
        codes(findings(root, &["team/svc/c.contract.yaml"]).get("team/svc/c.contract.yaml")),
        ["R104 error", "R110 warning"]
    );
    write(
        root,
        "team/svc/phaselint.toml",
        "extend = \"../base.toml\"\nselect = [\"R\"]\nextend-select = [\"G304\"]\nignore = []\n",
    );
    // `ignore = []` replaces the chain's ignores: C208 (base.toml's
    // extend-ignore) would come back, but `select` no longer has it.
    assert_eq!(
        codes(findings(root, &["team/svc/c.contract.yaml"]).get("team/svc/c.contract.yaml")),
        ["G304 info", "R104 error", "R110 warning"]
    );
}

#[test]
fn phaselint_config_names_where_each_value_came_from() {
    let dir = chain();
    let out = phaselint(dir.path(), &["config", "team/svc/legacy/b.contract.yaml"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let expected = [
        "# read from team/svc/phaselint.toml, which extends team/base.toml, which extends pyproject.toml",
        "select = [\"ALL\"]",
        "# pyproject.toml:5 `tool.phaselint.select`",
        "extend-ignore = [\"C208\"]",
        "# team/base.toml:2 `extend-ignore`",
        "severity.R104 = \"info\"",
        "# team/svc/phaselint.toml:4 `severity.R104`",
        "per-file-ignores.\"svc/legacy/**\" = [\"R110\"]",
        "long_running_threshold = \"15m\"",
        "# rules: ",
    ];
    for line in expected {
        assert!(text.contains(line), "{line}\n{text}");
    }
    // The overridden R104 = "error" of the pyproject is not shown.
    assert!(!text.contains("R104 = \"error\""), "{text}");
    assert!(text.contains("long_running_threshold = \"15m\"") && text.contains("# default"));

    // With a flag, the command line is named; as JSON, the same facts.
    let out = phaselint(
        dir.path(),
        &[
            "config",
            "--format",
            "json",
            "--ignore",
            "R110",
            "team/svc/c.contract.yaml",
        ],
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let settings = json["settings"].as_array().unwrap();
    let select = settings.iter().find(|s| s["key"] == "select").unwrap();
    assert_eq!(select["value"], json!(["ALL"]));
    assert_eq!(select["origin"]["line"], 5);
    assert!(
        select["origin"]["path"]
            .as_str()
            .unwrap()
            .ends_with("pyproject.toml")
    );
    assert!(settings.iter().any(|s| s["key"] == "extend-ignore"
        && s["origin"] == json!({"kind": "command line", "option": "--ignore"})));
    let off: Vec<&str> = json["rules"]["off"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        off.contains(&"R110") && off.contains(&"C208") && off.contains(&"S002"),
        "{off:?}"
    );
    assert_eq!(json["sources"].as_array().unwrap().len(), 3);
}

#[test]
fn a_cycle_is_exit_3_with_the_chain() {
    let dir = chain();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[tool.phaselint]\nextend = \"team/svc/phaselint.toml\"\n",
    );
    for args in [
        &["lint", "team/svc/c.contract.yaml"][..],
        &["config", "team/svc"][..],
    ] {
        let out = phaselint(root, args);
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let chain = format!(
            "{svc} -> {base} -> {py} -> {svc}",
            svc = root.join("team/svc/phaselint.toml").display(),
            base = root.join("team/base.toml").display(),
            py = root.join("pyproject.toml").display()
        );
        assert!(
            err.contains(&chain) && err.contains("makes a cycle"),
            "{err}"
        );
        assert!(
            err.contains("`tool.phaselint.extend = \"team/svc/phaselint.toml\"` (line 2)"),
            "{err}"
        );
    }
    // A file that extends itself.
    write(root, "self.toml", "extend = \"./self.toml\"\n");
    let out = phaselint(
        root,
        &["lint", "--config", "self.toml", "team/svc/c.contract.yaml"],
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("self.toml -> self.toml"));
}

#[test]
fn a_missing_or_broken_extended_file_is_exit_3_naming_the_file_that_extends_it() {
    let dir = chain();
    let root = dir.path();
    write(
        root,
        "team/svc/phaselint.toml",
        "extend = \"../nope.toml\"\n",
    );
    let out = phaselint(root, &["lint", "team/svc/c.contract.yaml"]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}:",
            root.join("team/svc/phaselint.toml").display()
        )) && err.contains("`extend = \"../nope.toml\"` (line 1)")
            && err.contains("is not a file"),
        "{err}"
    );
    // A bad key in the extended file: that file and key, and who extends it.
    write(
        root,
        "team/svc/phaselint.toml",
        "extend = \"../base.toml\"\n",
    );
    write(root, "team/base.toml", "\n[severity]\nR102 = \"loud\"\n");
    let out = phaselint(root, &["lint", "team/svc/c.contract.yaml"]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("base.toml: `severity.R102`: `loud` is not a level")
            && err.contains("extended by"),
        "{err}"
    );
    // A pyproject.toml without the table cannot be extended.
    write(
        root,
        "team/base.toml",
        "extend = \"../other/pyproject.toml\"\n",
    );
    write(root, "other/pyproject.toml", "[project]\nname = \"y\"\n");
    let out = phaselint(root, &["lint", "team/svc/c.contract.yaml"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no [tool.phaselint] table"));
}

#[test]
fn a_chain_longer_than_the_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..40 {
        write(
            root,
            &format!("c{i}.toml"),
            &format!("extend = \"c{}.toml\"\n", i + 1),
        );
    }
    write(
        root,
        "x.contract.yaml",
        "schema_version: '1'\npipeline_id: p\nphases: {}\n",
    );
    let out = phaselint(root, &["lint", "--config", "c0.toml", "x.contract.yaml"]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at most 32 files long"), "{err}");
}

/// Severity numbers of LSP diagnostics by code.
fn levels(diagnostics: &[Value]) -> BTreeMap<String, i64> {
    diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_language_server_uses_the_merged_chain_and_reloads_when_an_extended_file_changes() {
    let dir = chain();
    let root = dir.path();
    let file = root.join("team/svc/a.contract.yaml");
    let uri = uri_of(&file);
    let mut lsp = Lsp::start();
    lsp.initialize_with_encodings(&[]);
    lsp.open(&uri, &std::fs::read_to_string(&file).unwrap());
    // R102 is an error by base.toml; S002 and C208 are ignored by the
    // pyproject and base.toml.
    assert_eq!(
        levels(&lsp.diagnostics(&uri, 1)),
        BTreeMap::from([("R102".to_string(), 1)])
    );
    // base.toml is neither a phaselint.toml nor a pyproject.toml: its
    // change still reloads the configuration of the open document.
    write(
        root,
        "team/base.toml",
        "extend = \"../pyproject.toml\"\n\n[severity]\nR102 = \"info\"\n",
    );
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri_of(&root.join("team/base.toml")), "type": 2}]}),
    );
    assert_eq!(
        levels(&lsp.diagnostics(&uri, 1)),
        BTreeMap::from([("C208".to_string(), 3), ("R102".to_string(), 3)])
    );
    assert_eq!(lsp.request("shutdown", Value::Null), Value::Null);
    lsp.notify("exit", Value::Null);
    let status = lsp.child.wait().unwrap();
    assert!(status.success(), "exit status {status}");
}
