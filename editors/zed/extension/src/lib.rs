//! Zed extension for phaselint: runs `phaselint lsp` (LSP over stdio) for
//! YAML files. The binary is not downloaded: install it with
//! `cargo install --path crates/cli` from the phaselint repository, or point
//! `lsp.phaselint.binary.path` in Zed's settings at it.

use zed_extension_api::{self as zed, serde_json, settings::LspSettings, LanguageServerId, Result};

const SERVER_NAME: &str = "phaselint";

struct PhaselintExtension;

impl zed::Extension for PhaselintExtension {
    fn new() -> Self {
        PhaselintExtension
    }

    fn language_server_command(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        // `lsp.phaselint.binary` in settings.json wins over the PATH lookup.
        let binary = LspSettings::for_worktree(SERVER_NAME, worktree)
            .ok()
            .and_then(|settings| settings.binary);
        let configured_path = binary.as_ref().and_then(|b| b.path.clone());
        let args = binary
            .and_then(|b| b.arguments)
            .unwrap_or_else(|| vec!["lsp".to_string()]);

        let command = match configured_path {
            Some(path) => path,
            None => worktree.which(SERVER_NAME).ok_or_else(|| {
                "phaselint was not found on PATH. Install it with `cargo install --path crates/cli` \
                 from the phaselint repository, or set lsp.phaselint.binary.path in Zed's settings."
                    .to_string()
            })?,
        };

        Ok(zed::Command {
            command,
            args,
            env: worktree.shell_env(),
        })
    }

    fn language_server_initialization_options(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        // For example { "configPath": "/abs/path/phaselint.toml" }.
        Ok(LspSettings::for_worktree(SERVER_NAME, worktree)
            .ok()
            .and_then(|settings| settings.initialization_options))
    }
}

zed::register_extension!(PhaselintExtension);
