//! Fixes read back as they promise. Every fix of every fixture, and of
//! contracts generated with hostile names and values written in every
//! YAML style, goes through `phaselint_fuzzing::fixes::check_every_fix`
//! (the `fixes` fuzz target's checks): the file still loads, with the same
//! shape and every other scalar as it was, the rewritten scalar reads the
//! value the fix's title names, the finding is gone, and `--fix` reaches a
//! fixed point. Then the defects that led here, through the binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use phaselint_fuzzing::fixes::check_every_fix;
use phaselint_lint::DocumentKind;
use phaselint_lint::config::Settings;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn kind_of(path: &Path) -> Option<DocumentKind> {
    let name = path.file_name()?.to_str()?;
    if name.ends_with(".harness.json") || name == "config.json" {
        Some(DocumentKind::Harness)
    } else if name.ends_with(".yaml") || name.ends_with(".yml") {
        Some(DocumentKind::Contract)
    } else {
        None
    }
}

#[test]
fn every_fix_of_every_fixture_reads_back_as_promised() {
    let settings = Settings::all_rules();
    let mut files = Vec::new();
    files_under(&repo().join("fixtures"), &mut files);
    let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
    for path in &files {
        let Some(kind) = kind_of(path) else { continue };
        let text = std::fs::read_to_string(path).unwrap();
        let analysis = phaselint_lint::analyze_kind(&text, kind, &settings);
        let checked = check_every_fix(&analysis, &settings);
        for (code, n) in checked.by_code {
            *by_code.entry(code).or_default() += n;
        }
    }
    // Every rule that offers a fix and whose fixture shows one was checked.
    for code in [
        "S001", "S002", "E003", "E006", "R101", "R103", "R107", "R110", "G303", "G304", "H502",
    ] {
        assert!(
            by_code.get(code).is_some_and(|&n| n > 0),
            "no {code} fix among the fixtures: {by_code:?}"
        );
    }
}

/// A small deterministic generator (xorshift64*): the same cases on every
/// run, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Pieces of names that YAML reads as something else when written plain.
const HOSTILE: &[&str] = &[
    ": ", " #", "#", "&", "*", "!", "|", ">", "'", "\"", "%", "@", "`", "- ", "? ", ":", " ",
    "yes", "no", "null", "~", "1", "0x1F", "1e3", ".5", ",", "[", "]", "{", "}", "\\", "é", "😀",
    "\u{85}", "\u{2028}", "\u{FEFF}", "\u{7}", "\t", "---", "...", "<<", "=",
];

fn hostile_name(rng: &mut Rng) -> String {
    let mut name = String::new();
    // Where the hostile piece goes matters: first (an indicator), last
    // (trailing space, `:`), or inside.
    let pieces = 1 + rng.below(2);
    for _ in 0..pieces {
        match rng.below(3) {
            0 => {
                name.insert_str(0, rng.pick(HOSTILE));
                name.push_str("deploy");
            }
            1 => {
                name.push_str("deploy");
                name.push_str(rng.pick(HOSTILE));
            }
            _ => {
                name.push_str("dep");
                name.push_str(rng.pick(HOSTILE));
                name.push_str("loy");
            }
        }
    }
    name
}

/// `value` double-quoted, each character randomly escaped (`\x`, `\u`,
/// `\U`) or not: the decoded value is what counts.
fn double_quoted(rng: &mut Rng, value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        let code = c as u32;
        let must = matches!(c, '"' | '\\') || c.is_control() || code == 0xFEFF || code == 0x2028;
        match (must, rng.below(4)) {
            (_, 0) if code < 0x100 => out.push_str(&format!("\\x{code:02X}")),
            (_, 1) if code < 0x10000 => out.push_str(&format!("\\u{code:04X}")),
            (_, 2) => out.push_str(&format!("\\U{code:08X}")),
            (true, _) => out.push_str(&format!("\\U{code:08X}")),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `value` as a scalar in a random style (plain, single- or double-quoted,
/// literal or folded with any chomping and a header comment); `indent` is
/// the indentation of the block's lines. Some of these do not read back as
/// `value` (a plain `#x` is a comment): the checks hold whatever the file
/// reads as.
fn written(rng: &mut Rng, value: &str, indent: &str) -> String {
    // Properties before the scalar: the rewrite must leave them be.
    let properties = rng.pick(&["", "", "", "&anchor ", "!!str ", "&a !!str "]);
    let scalar = scalar_in_style(rng, value, indent);
    format!("{properties}{scalar}")
}

fn scalar_in_style(rng: &mut Rng, value: &str, indent: &str) -> String {
    match rng.below(5) {
        0 => value.to_string(),
        1 => format!("'{}'", value.replace('\'', "''")),
        2 => double_quoted(rng, value),
        _ => {
            let style = rng.pick(&["|", ">"]);
            let chomp = rng.pick(&["", "-", "+"]);
            let comment = rng.pick(&["", " # note", " # a: | b"]);
            let blank = rng.pick(&["", "\n"]);
            format!("{style}{chomp}{comment}\n{blank}{indent}{value}\n")
        }
    }
}

/// A contract whose checkpoint names a hostile phase with a typo (R101),
/// whose field has an enum value in the wrong case or misspelt (S002,
/// E006), and a misspelt key (E003), each written in a random style.
fn generated(rng: &mut Rng) -> String {
    let phase = hostile_name(rng);
    let mut typo: Vec<char> = phase.chars().collect();
    let at = typo.len() / 2;
    typo.remove(at);
    let typo: String = typo.into_iter().collect();
    let severity = rng.pick(&[
        "BLOCKING", "Blocking", "WARNING", "Advisory", "blockin", "BLOKING", "warnng",
    ]);
    let recovery = rng.pick(&["RE_RETRIEVE", "Re_Retrieve", "re_retreive", "FAIL", "fial"]);
    let key = rng.pick(&["descripton", "desciption", "description"]);
    let key = match rng.below(3) {
        0 => key.to_string(),
        1 => format!("'{key}'"),
        _ => double_quoted(rng, key),
    };
    // The value may end its line (a block scalar has its own line break).
    let line = |s: String| if s.ends_with('\n') { s } else { s + "\n" };
    let mut text = String::from("schema_version: \"1\"\npipeline_id: p\nphases:\n");
    text.push_str(&format!("  {}:\n", double_quoted(rng, &phase)));
    text.push_str(&format!("    {key}: {}", line(written(rng, "x", "      "))));
    text.push_str("    exit:\n      required:\n        - name: f\n");
    text.push_str(&format!(
        "          severity: {}",
        line(written(rng, severity, "            "))
    ));
    text.push_str("  zzzzzzzzzzzz:\n    description: other\n");
    text.push_str("checkpoint_integrity:\n  - checkpoint_id: c\n");
    text.push_str(&format!(
        "    phase: {}",
        line(written(rng, &typo, "      "))
    ));
    text.push_str("    on_resume:\n      staleness_checks:\n        - field: f\n");
    text.push_str("          max_age_seconds: 60\n");
    text.push_str(&format!(
        "          recovery: {}",
        line(written(rng, recovery, "            "))
    ));
    text
}

#[test]
fn fixes_of_hostile_scalars_in_every_style_read_back_as_promised() {
    let settings = Settings::all_rules();
    let mut rng = Rng(0x5EED_F1C5);
    let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
    for _ in 0..400 {
        let text = generated(&mut rng);
        let analysis = phaselint_lint::analyze(&text, &settings);
        for (code, n) in check_every_fix(&analysis, &settings).by_code {
            *by_code.entry(code).or_default() += n;
        }
    }
    eprintln!("fixes checked: {by_code:?}");
    // The generator must reach what it is for.
    for (code, least) in [("R101", 150), ("S002", 150), ("E006", 100), ("E003", 100)] {
        assert!(
            by_code.get(code).is_some_and(|&n| n >= least),
            "only {:?} {code} fixes: {by_code:?}",
            by_code.get(code)
        );
    }
}

// ---- The defects, through the binary ----

fn phaselint(dir: &Path, args: &[&str]) -> (String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_phaselint"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

const HEAD: &str = "schema_version: \"1\"\npipeline_id: p\nphases:\n";

/// `--fix` on `text`, then a second `--fix`: the file after the first, and
/// what the second printed.
fn fix_twice(text: &str, unsafe_fixes: bool) -> (String, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.contract.yaml");
    std::fs::write(&file, text).unwrap();
    let mut args = vec!["lint", "--fix", "c.contract.yaml"];
    if unsafe_fixes {
        args.insert(2, "--unsafe-fixes");
    }
    let (_, first) = phaselint(dir.path(), &args);
    assert!(first.contains("fixed 1 finding"), "{first}");
    let fixed = std::fs::read_to_string(&file).unwrap();
    let (out, err) = phaselint(dir.path(), &args);
    (fixed, out, err)
}

#[test]
fn s002_lowercases_the_value_not_its_escape_sequences() {
    for value in ["\"\\U00000042LOCKING\"", "\"BLOCK\\u0049NG\""] {
        let text = format!(
            "{HEAD}  a:\n    exit:\n      required:\n        - name: x\n          severity: {value}\n"
        );
        let (fixed, out, err) = fix_twice(&text, false);
        assert!(fixed.ends_with("severity: \"blocking\"\n"), "{fixed}");
        // A fixed point: the second run finds nothing.
        assert!(!err.contains("fixed"), "{value}: {err}");
        assert!(out.contains("All checks passed"), "{value}: {out}");
    }
}

#[test]
fn did_you_mean_fixes_quote_a_name_that_plain_yaml_would_misread() {
    for (declared, typo, expected) in [
        (
            "\"deploy: prod\"",
            "deploy prod",
            "phase: \"deploy: prod\"\n",
        ),
        ("\"#review\"", "review", "phase: \"#review\"\n"),
        ("\"yes-gate\"", "yesgate", "phase: yes-gate\n"),
    ] {
        let text = format!(
            "{HEAD}  {declared}:\n    exit:\n      required:\n        - name: x\ncheckpoint_integrity:\n  - checkpoint_id: c\n    phase: {typo}\n"
        );
        let (fixed, out, err) = fix_twice(&text, true);
        assert!(fixed.ends_with(expected), "{fixed}");
        assert!(!err.contains("fixed"), "{err}");
        for code in ["E001", "E004", "R101"] {
            assert!(!out.contains(code), "{code} after the fix:\n{out}");
        }
    }
}

#[test]
fn a_fix_in_a_folded_scalar_keeps_its_line_break_and_the_next_key() {
    let text = format!(
        "{HEAD}  a:\n    exit:\n      required:\n        - name: x\n          severity: >\n            BLOCKING\n    description: after\n"
    );
    let (fixed, out, err) = fix_twice(&text, true);
    assert!(
        fixed.ends_with("severity: >-\n            blocking\n    description: after\n"),
        "{fixed}"
    );
    assert!(out.contains("All checks passed"), "{out}\n{err}");
}

/// `--fix` on a 0600 contract: the temporary file it writes beside it is
/// never readable by others, not even for the length of the write (the
/// directory is watched while a large file is written), and the file
/// keeps its mode.
#[cfg(unix)]
#[test]
fn a_private_contract_is_never_readable_by_others_while_fixed() {
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.contract.yaml");
    // Large enough that writing and syncing it takes a while.
    let mut text = format!(
        "{HEAD}  a:\n    exit:\n      required:\n        - name: x\n          severity: BLOCKING\n"
    );
    let padding = format!("# {}\n", "x".repeat(1000));
    while text.len() < 24 << 20 {
        text.push_str(&padding);
    }
    std::fs::write(&file, &text).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();

    let done = Arc::new(AtomicBool::new(false));
    let seen: Arc<Mutex<Vec<(String, u32)>>> = Arc::default();
    let watcher = {
        let (done, seen, dir) = (done.clone(), seen.clone(), dir.path().to_path_buf());
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if name.contains(".phaselint-")
                        && let Ok(metadata) = entry.metadata()
                    {
                        seen.lock()
                            .unwrap()
                            .push((name, metadata.permissions().mode() & 0o7777));
                    }
                }
            }
        })
    };
    // The usual umask, which on its own would leave a new file 0644.
    let status = Command::new("sh")
        .arg("-c")
        .arg("umask 022 && exec \"$0\" lint --fix --quiet c.contract.yaml")
        .arg(env!("CARGO_BIN_EXE_phaselint"))
        .current_dir(dir.path())
        .status()
        .unwrap();
    done.store(true, Ordering::SeqCst);
    watcher.join().unwrap();
    assert!(status.code().is_some(), "{status}");
    let fixed = std::fs::read_to_string(&file).unwrap();
    assert!(fixed.contains("severity: blocking\n"), "not fixed");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600, "the fixed file's mode is {mode:o}");
    let seen = seen.lock().unwrap();
    let open: Vec<String> = seen
        .iter()
        .filter(|(_, mode)| mode & 0o077 != 0)
        .map(|(name, mode)| format!("{name} {mode:o}"))
        .collect();
    assert!(
        open.is_empty(),
        "temporary files readable by others while written: {:?}",
        &open[..open.len().min(3)]
    );
    eprintln!("observed the temporary file {} times", seen.len());
}
