#![no_main]
//! See `phaselint_fuzzing::otlp_export` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| phaselint_fuzzing::otlp_export::otlp_export(data));
