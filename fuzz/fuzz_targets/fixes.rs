#![no_main]
//! See `phaselint_fuzzing::fixes` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| phaselint_fuzzing::fixes::fixes(data));
