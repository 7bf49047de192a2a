//! phaselint's benchmark: a deterministic contract generator and the
//! measurements `phaselint-bench run` prints. See BENCHMARKS.md.

pub mod generate;
pub mod lsp;
