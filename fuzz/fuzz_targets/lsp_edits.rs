#![no_main]
//! See `phaselint_fuzzing::lsp_edits` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| phaselint_fuzzing::lsp_edits::lsp_edits(data));
