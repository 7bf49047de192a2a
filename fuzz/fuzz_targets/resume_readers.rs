#![no_main]
//! See `phaselint_fuzzing::resume_readers` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| phaselint_fuzzing::resume_readers(data));
