#![no_main]
//! See `phaselint_fuzzing::manifest_scope` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| phaselint_fuzzing::manifest_scope::manifest_scope(data));
