//! The `lsp_framing` target: the language server's framing guard.

/// The language server's framing guard in front of tower-lsp-server's own
/// transport: whatever bytes arrive, every frame the guard passes on must
/// be one the real codec accepts, so a request after them is still served.
pub fn lsp_framing(data: &[u8]) {
    use tower_lsp_server::jsonrpc::Result;
    use tower_lsp_server::ls_types::{InitializeParams, InitializeResult};
    use tower_lsp_server::{LanguageServer, LspService, Server};

    struct Minimal;
    impl LanguageServer for Minimal {
        async fn initialize(&self, _: InitializeParams) -> Result<InitializeResult> {
            Ok(InitializeResult::default())
        }
        async fn shutdown(&self) -> Result<()> {
            Ok(())
        }
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        // What the guard passes on, and what it answers itself.
        let mut passed = Vec::new();
        let (answers, mut answered) = tokio::sync::mpsc::unbounded_channel();
        phaselint_lsp::framing::guard_input(data, &mut passed, answers)
            .await
            .expect("reading from memory does not fail");
        while let Ok(answer) = answered.try_recv() {
            let body = answer
                .split(|&b| b == b'\n')
                .next_back()
                .unwrap_or_default();
            let _: serde_json::Value =
                serde_json::from_slice(body).expect("the guard answers in JSON");
        }
        // An `exit` it passed on ends the session as it should.
        let exits = frames(&passed).any(|body| {
            serde_json::from_slice::<serde_json::Value>(body)
                .is_ok_and(|m| m.get("method").and_then(|m| m.as_str()) == Some("exit"))
        });
        let last = br#"{"jsonrpc":"2.0","id":"after-the-fuzz","method":"shutdown"}"#;
        passed.extend_from_slice(format!("Content-Length: {}\r\n\r\n", last.len()).as_bytes());
        passed.extend_from_slice(last);

        let (service, socket) = LspService::new(|_| Minimal);
        let mut output = Vec::new();
        let serve = Server::new(&passed[..], &mut output, socket).serve(service);
        if tokio::time::timeout(std::time::Duration::from_secs(10), serve)
            .await
            .is_err()
        {
            panic!("the server did not finish reading the guard's output");
        }
        let served = String::from_utf8_lossy(&output).contains("\"id\":\"after-the-fuzz\"");
        assert!(
            served || exits,
            "the guard passed on a frame that stopped the server"
        );
    });
}

/// The bodies of well-formed frames, as the guard writes them.
fn frames(mut bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        let rest = bytes.strip_prefix(b"Content-Length: ")?;
        let end = rest.iter().position(|&b| b == b'\r')?;
        let length: usize = std::str::from_utf8(&rest[..end]).ok()?.parse().ok()?;
        let body_start = end + 4;
        let body = rest.get(body_start..body_start + length)?;
        bytes = &rest[body_start + length..];
        Some(body)
    })
}
