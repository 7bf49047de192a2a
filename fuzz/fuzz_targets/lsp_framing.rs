#![no_main]
//! See `phaselint_fuzzing::lsp_framing` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| phaselint_fuzzing::lsp_framing(data));
