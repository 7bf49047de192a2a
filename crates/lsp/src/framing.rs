//! A guard around tower-lsp-server's transport, which stops reading input
//! for good after any frame its codec rejects (tokio-util's `FramedRead`
//! ends the stream after a decoder error), and whose codec also stalls on a
//! body that is not UTF-8. One malformed message would leave the server deaf.
//!
//! So stdin is read here first: only well-formed JSON-RPC messages are
//! passed on; anything else is answered here with the JSON-RPC error the
//! server should have sent (parse error or invalid request, `id: null`).
//! Both streams of answers go to stdout through one writer, whole frames
//! at a time, so they never interleave.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::UnboundedSender;

const MAX_HEADER_LINE: u64 = 8 * 1024;
const MAX_BODY: usize = 64 * 1024 * 1024;

/// One LSP frame: `Content-Length` header and body.
fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// Reads the next frame's body. `Ok(None)` at end of input; frames without
/// a length are skipped, oversized ones drained without being kept.
async fn read_frame(
    reader: &mut (impl AsyncBufReadExt + Unpin),
) -> std::io::Result<Option<Vec<u8>>> {
    loop {
        let mut content_length = None;
        let mut headers_seen = false;
        loop {
            let mut line = Vec::new();
            let read = (&mut *reader)
                .take(MAX_HEADER_LINE)
                .read_until(b'\n', &mut line)
                .await?;
            if read == 0 {
                return Ok(None);
            }
            let line = String::from_utf8_lossy(&line);
            let line = line.trim();
            if line.is_empty() {
                if headers_seen {
                    break;
                }
                continue;
            }
            headers_seen = true;
            // After a frame whose length was missing or wrong, its body (which
            // ends without a newline) runs into the next header: find the
            // header wherever it starts, so one bad frame costs one message.
            if let Some(at) = line.to_ascii_lowercase().rfind("content-length:") {
                let value = &line[at + "content-length:".len()..];
                content_length = value.trim().parse::<usize>().ok();
            }
        }
        let Some(length) = content_length else {
            continue;
        };
        if length > MAX_BODY {
            tokio::io::copy(
                &mut (&mut *reader).take(length as u64),
                &mut tokio::io::sink(),
            )
            .await?;
            continue;
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).await?;
        return Ok(Some(body));
    }
}

/// Why a body is not a message tower-lsp-server can take, as a JSON-RPC error.
fn malformed(body: &[u8]) -> Option<Value> {
    let error = |code: i64, message: &str| {
        Some(json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}}))
    };
    let Ok(message) = serde_json::from_slice::<Value>(body) else {
        return error(-32700, "Parse error");
    };
    let Some(object) = message.as_object() else {
        return error(-32600, "Invalid request: not a JSON object");
    };
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return error(-32600, "Invalid request: `jsonrpc` must be \"2.0\"");
    }
    let id_ok = object
        .get("id")
        .is_none_or(|id| id.is_null() || id.is_string() || id.is_i64() || id.is_u64());
    let is_request = object.get("method").is_some_and(Value::is_string);
    let is_response = object.contains_key("id")
        && (object.contains_key("result") || object.contains_key("error"));
    if !id_ok || !(is_request || is_response) {
        return error(
            -32600,
            "Invalid request: not a JSON-RPC request, notification or response",
        );
    }
    None
}

/// Passes well-formed messages from `input` to the server and answers the rest.
pub async fn guard_input(
    input: impl AsyncRead + Unpin,
    mut to_server: impl AsyncWrite + Unpin,
    to_client: UnboundedSender<Vec<u8>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(input);
    while let Some(body) = read_frame(&mut reader).await? {
        match malformed(&body) {
            None => {
                to_server.write_all(&frame(&body)).await?;
                to_server.flush().await?;
            }
            Some(error) => {
                let _ = to_client.send(frame(error.to_string().as_bytes()));
            }
        }
    }
    Ok(())
}

/// Splits the server's output back into frames for the one stdout writer.
pub async fn forward_output(
    from_server: impl AsyncRead + Unpin,
    to_client: UnboundedSender<Vec<u8>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(from_server);
    while let Some(body) = read_frame(&mut reader).await? {
        if to_client.send(frame(&body)).is_err() {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_frame_with_a_bad_length_costs_only_itself() {
        let exit = "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}";
        for bad in [
            "Content-Length: abc\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"$/x\"}",
            "Content-Length: -5\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"$/x\"}",
            "Content-Type: x\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"$/x\"}",
            // Ten bytes short: the rest of the body precedes the next header.
            "Content-Length: 22\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"$/x\"}",
        ] {
            let input = format!("{bad}Content-Length: {}\r\n\r\n{exit}", exit.len());
            let mut to_server = Vec::new();
            let (send, _receive) = tokio::sync::mpsc::unbounded_channel();
            guard_input(input.as_bytes(), &mut to_server, send)
                .await
                .unwrap();
            assert!(
                String::from_utf8(to_server).unwrap().ends_with(exit),
                "lost the next message after {bad:?}"
            );
        }
    }

    #[tokio::test]
    async fn only_well_formed_messages_reach_the_server() {
        let input: &[u8] = b"Content-Length: 3\r\n\r\n\xff{}X-Junk: 1\r\n\r\n\
Content-Length: 7\r\n\r\n{\"a\":1}\
Content-Length: 33\r\nContent-Type: x\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}";
        let mut to_server = Vec::new();
        let (send, mut receive) = tokio::sync::mpsc::unbounded_channel();
        guard_input(input, &mut to_server, send).await.unwrap();
        assert_eq!(
            String::from_utf8(to_server).unwrap(),
            "Content-Length: 33\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}"
        );
        let first = String::from_utf8(receive.recv().await.unwrap()).unwrap();
        assert!(first.contains("-32700"), "{first}");
        let second = String::from_utf8(receive.recv().await.unwrap()).unwrap();
        assert!(second.contains("-32600"), "{second}");
    }
}
