#![no_main]
//! See `phaselint_fuzzing::resume_check` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| phaselint_fuzzing::resume_check(data));
