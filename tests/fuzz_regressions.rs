//! Every input a fuzzer ever found a fault with, kept in
//! `fuzz/regressions/<target>/` and replayed here on the stable toolchain
//! through the same checks the fuzz target makes (`phaselint-fuzzing`).

use std::path::Path;

#[test]
fn every_input_a_fuzzer_found_a_fault_with_is_handled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut replayed = 0;
    for (target, check) in phaselint_fuzzing::TARGETS {
        let dir = root.join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).expect("a regression input");
            eprintln!("replaying {}", file.display());
            check(&data);
            replayed += 1;
        }
    }
    assert!(replayed > 0, "no inputs under {}", root.display());
}

/// The targets run a little of every input kind, so a harness that stopped
/// checking anything would show here.
#[test]
fn each_target_runs_on_a_real_contract() {
    let contract = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/valid/branch-merge.contract.yaml"),
    )
    .expect("a fixture");
    for (_, check) in phaselint_fuzzing::TARGETS {
        check(&contract);
    }
}
