//! One file per LSP method, each a function over a cached analysis.

pub mod code_action;
pub mod code_lens;
pub mod completion;
pub mod diagnostics;
pub mod hover;
pub mod navigation;
pub mod pulled_diagnostics;
pub mod rename;
pub mod structure;
pub mod symbols;
pub mod workspace_symbols;
