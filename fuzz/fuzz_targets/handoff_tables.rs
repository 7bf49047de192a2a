#![no_main]
//! See `phaselint_fuzzing::handoff_tables` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| phaselint_fuzzing::handoff_tables::handoff_tables(data));
