//! A guard around tower-lsp-server's transport, which stops reading input
//! for good after any frame its codec rejects (tokio-util's `FramedRead`
//! ends the stream after a decoder error), and whose codec also stalls on a
//! body that is not UTF-8. One malformed message would leave the server deaf.
//!
//! So stdin is read here first: only messages that decode as the very types
//! tower-lsp-server's codec decodes into are passed on (a duplicate key or
//! an `id` beyond i64 would stop its reader); anything else is answered
//! here with the JSON-RPC error the server should have sent (parse error or
//! invalid request, `id: null`). A frame whose length is missing, wrong or
//! absurd costs that one message: the next header is found wherever it
//! starts. Both streams of answers go to stdout through one writer, whole
//! frames at a time, so they never interleave.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::UnboundedSender;

const MAX_HEADER_LINE: u64 = 8 * 1024;
/// The largest body passed on: a document at its 32 MiB bound, JSON
/// escaping doubling it at most (a line break is two bytes), and 1 MiB
/// for the message around it. A longer frame is skipped, not read.
pub const MAX_BODY: usize = 2 * 32 * 1024 * 1024 + 1024 * 1024;

/// One LSP frame: `Content-Length` header and body.
fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// Reads the next frame's body. `Ok(None)` at end of input. A frame without
/// a usable length, or with one over `max_body`, is skipped: its body is
/// read as lines like any other non-header text until the next header.
async fn read_frame(
    reader: &mut (impl AsyncBufReadExt + Unpin),
    max_body: usize,
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
                content_length = value
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&length| length <= max_body);
            }
        }
        let Some(length) = content_length else {
            continue;
        };
        let mut body = vec![0; length];
        return match reader.read_exact(&mut body).await {
            Ok(_) => Ok(Some(body)),
            // The input ended inside a body: that is the end of the input.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        };
    }
}

/// What tower-lsp-server's codec decodes a body into (its own `Message`,
/// which it keeps private): a body that does not decode as this would end
/// its reading for good.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Message {
    #[allow(dead_code)]
    Response(tower_lsp_server::jsonrpc::Response),
    #[allow(dead_code)]
    Request(tower_lsp_server::jsonrpc::Request),
}

/// Why a body is not a message tower-lsp-server can take, as a JSON-RPC error.
pub fn malformed(body: &[u8]) -> Option<Value> {
    let error = |code: i64, message: &str| {
        Some(json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}}))
    };
    let Ok(text) = std::str::from_utf8(body) else {
        return error(-32700, "Parse error: the message is not UTF-8");
    };
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
        return error(-32700, "Parse error");
    }
    match serde_json::from_str::<Message>(text) {
        Ok(_) => None,
        Err(_) => error(
            -32600,
            "Invalid request: not a JSON-RPC 2.0 request, notification or response (a key given twice, an id that is not a string or a 64-bit integer, or a missing field)",
        ),
    }
}

/// Passes well-formed messages from `input` to the server and answers the rest.
pub async fn guard_input(
    input: impl AsyncRead + Unpin,
    mut to_server: impl AsyncWrite + Unpin,
    to_client: UnboundedSender<Vec<u8>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(input);
    while let Some(body) = read_frame(&mut reader, MAX_BODY).await? {
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
    // The server's own answers are passed on whatever their size.
    while let Some(body) = read_frame(&mut reader, usize::MAX).await? {
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

    #[test]
    fn what_the_codec_would_refuse_is_malformed() {
        for bad in [
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{},"params":{}}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"shutdown"}"#,
            r#"[1,2]"#,
        ] {
            assert!(malformed(bad.as_bytes()).is_some(), "passed on: {bad}");
        }
        for good in [
            r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"shutdown","params":null}"#,
            r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":null}"#,
        ] {
            assert_eq!(malformed(good.as_bytes()), None, "refused: {good}");
        }
    }

    #[tokio::test]
    async fn an_absurd_length_costs_only_its_frame() {
        let exit = "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}";
        let input = format!(
            "Content-Length: 18446744073709551615\r\n\r\n{{}}Content-Length: {}\r\n\r\n{exit}",
            exit.len()
        );
        let mut to_server = Vec::new();
        let (send, _receive) = tokio::sync::mpsc::unbounded_channel();
        guard_input(input.as_bytes(), &mut to_server, send)
            .await
            .unwrap();
        assert!(String::from_utf8(to_server).unwrap().ends_with(exit));
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
