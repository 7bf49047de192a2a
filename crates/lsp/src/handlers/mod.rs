//! One file per LSP method, each a function over a cached analysis.

pub mod code_action;
pub mod completion;
pub mod diagnostics;
pub mod hover;
pub mod navigation;
pub mod rename;
pub mod symbols;
