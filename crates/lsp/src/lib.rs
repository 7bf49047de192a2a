//! phaselint's language server: a thin LSP layer over the same
//! `phaselint_lint::analyze` the CLI uses. It only translates; every answer
//! comes from a cached per-document `Analysis`.

mod analyzer;
mod carried;
mod edit_map;
pub mod framing;
mod handlers;
mod indexing;
mod markdown;
mod positions;
mod server;
mod state;
#[cfg(test)]
mod test_rng;
mod text;
mod workspace;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tower_lsp_server::{LspService, Server};

/// Serves LSP over any pair of byte streams until the input ends or the
/// client sends `exit`, without the framing guard `run_stdio` puts in
/// front: for the `lsp_edits` fuzz target, which drives the server
/// in-process with well-formed messages. Needs a tokio runtime.
pub async fn serve(
    input: impl tokio::io::AsyncRead + Unpin,
    output: impl tokio::io::AsyncWrite,
    release_memory: fn(),
) {
    let flag = Arc::new(AtomicBool::new(false));
    let (service, socket) =
        LspService::new(move |client| server::Server::new(client, flag, release_memory));
    Server::new(input, output, socket)
        .concurrency_level(1)
        .serve(service)
        .await;
}

/// Serves LSP on stdin/stdout until the client sends `exit` or closes the
/// stream. Returns whether `shutdown` came first (the exit status is then
/// 0, else 1, as the protocol asks); an error only if the async runtime
/// cannot start.
///
/// `release_memory` is called on the analysis thread after a large
/// document's previous analysis is dropped: the binary owns the allocator,
/// and only it knows how to make that allocator give freed memory back.
pub fn run_stdio(release_memory: fn()) -> std::io::Result<bool> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let shut_down = Arc::new(AtomicBool::new(false));
    let flag = shut_down.clone();
    runtime.block_on(async move {
        let mut builder =
            LspService::build(move |client| server::Server::new(client, flag, release_memory));
        // Test builds say how large the server's caches are.
        if cfg!(debug_assertions) {
            builder = builder.custom_method("phaselint/cacheSizes", server::Server::cache_sizes);
        }
        let (service, socket) = builder.finish();
        let (server_input, guarded) = tokio::io::duplex(1 << 16);
        let (server_output, answers) = tokio::io::duplex(1 << 16);
        let (to_client, mut frames) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
        let errors = to_client.clone();
        // A read error on stdin ends the input like end-of-file does.
        tokio::spawn(async move {
            let _ = framing::guard_input(tokio::io::stdin(), guarded, errors).await;
        });
        tokio::spawn(async move {
            let _ = framing::forward_output(answers, to_client).await;
        });
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let mut stdout = tokio::io::stdout();
            while let Some(frame) = frames.recv().await {
                if stdout.write_all(&frame).await.is_err() || stdout.flush().await.is_err() {
                    break;
                }
            }
        });
        // One message at a time: document changes must apply in arrival order.
        Server::new(server_input, server_output, socket)
            .concurrency_level(1)
            .serve(service)
            .await;
        // Let the last answers (the `shutdown` response) reach stdout.
        let _ = tokio::time::timeout(std::time::Duration::from_millis(200), writer).await;
    });
    // The stdin reader may be parked in a blocking read; do not wait for it.
    runtime.shutdown_background();
    Ok(shut_down.load(Ordering::SeqCst))
}
