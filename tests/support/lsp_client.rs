//! The JSON-RPC client over the real `phaselint lsp` process that the
//! end-to-end LSP tests share (`lsp.rs`, `lsp_typing.rs`,
//! `lsp_workspace.rs`, `lsp_rename.rs`, `lsp_plain_text.rs`). Helpers only
//! one test file uses are written there, in its own `impl Lsp`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long `wait_for` waits unless `with_timeout` says otherwise.
pub const TIMEOUT: Duration = Duration::from_secs(30);

pub struct Lsp {
    pub child: Child,
    pub stdin: ChildStdin,
    pub incoming: Receiver<Value>,
    /// Messages read while waiting for something else, in arrival order.
    pub backlog: Vec<Value>,
    /// Methods of the requests the server sent (each answered with `null`).
    pub server_requests: Vec<String>,
    pub next_id: i64,
    /// How long `wait_for` waits for a message it wants.
    pub timeout: Duration,
}

impl Lsp {
    /// A server not yet initialized.
    pub fn start() -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_phaselint"));
        command.arg("lsp");
        Lsp::spawn(command)
    }

    /// A server initialized with the client `capabilities`.
    pub fn start_with(capabilities: Value) -> Self {
        let mut lsp = Lsp::start();
        lsp.initialize_with(capabilities);
        lsp
    }

    /// The server `command` runs, its stdio piped to this client.
    pub fn spawn(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.unwrap_or(0)];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                if let Ok(message) = serde_json::from_slice(&body)
                    && send.send(message).is_err()
                {
                    return;
                }
            }
        });
        Lsp {
            child,
            stdin,
            incoming,
            backlog: Vec::new(),
            server_requests: Vec::new(),
            next_id: 1,
            timeout: TIMEOUT,
        }
    }

    /// This client, waiting up to `timeout` for each message it wants.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn send_raw(&mut self, body: &[u8]) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(body).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its whole response (result or error).
    pub fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// Reads one message, answering the server's own requests (capability
    /// registration) with `null` and noting their methods.
    pub fn receive(&mut self, deadline: Instant) -> Value {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(message) => {
                    if message.get("method").is_some() && message.get("id").is_some() {
                        self.server_requests
                            .push(message["method"].as_str().unwrap_or("").to_string());
                        let id = message["id"].clone();
                        self.send(json!({"jsonrpc": "2.0", "id": id, "result": null}));
                        continue;
                    }
                    return message;
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("timed out; unmatched messages: {:#?}", self.backlog)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the server exited; messages: {:#?}", self.backlog)
                }
            }
        }
    }

    /// The next message `wanted` takes, those kept while waiting first.
    pub fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&wanted) {
            return self.backlog.remove(i);
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let message = self.receive(deadline);
            if wanted(&message) {
                return message;
            }
            self.backlog.push(message);
        }
    }

    /// Waits for the diagnostics of `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let message = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        message["params"]["diagnostics"].as_array().unwrap().clone()
    }

    /// The next diagnostics published for `uri`, whatever their version.
    pub fn published(&mut self, uri: &str) -> Vec<Value> {
        let message = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        message["params"]["diagnostics"].as_array().unwrap().clone()
    }

    /// `initialize` offering `encodings` and dynamic file-watcher
    /// registration, then `initialized`.
    pub fn initialize_with_encodings(&mut self, encodings: &[&str]) -> Value {
        self.initialize_with(json!({
            "general": {"positionEncodings": encodings},
            "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}},
        }))
    }

    pub fn initialize_with(&mut self, capabilities: Value) -> Value {
        let result = self.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": capabilities}),
        );
        self.notify("initialized", json!({}));
        result
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        );
    }

    /// The whole response to `method` at (line, character) of `uri`, with
    /// the `extra` params.
    pub fn at_raw(
        &mut self,
        method: &str,
        uri: &str,
        (line, character): (u32, u32),
        extra: Value,
    ) -> Value {
        let mut params = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        self.request_raw(method, params)
    }

    /// The result of `method` at (line, character) of `uri`, with the
    /// `extra` params (an error fails the test).
    pub fn at(
        &mut self,
        method: &str,
        uri: &str,
        line: u32,
        character: u32,
        extra: Value,
    ) -> Value {
        let response = self.at_raw(method, uri, (line, character), extra);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }
}

impl Drop for Lsp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `file://` URI of `path`.
pub fn uri_of(path: &Path) -> String {
    format!("file://{}", std::path::absolute(path).unwrap().display())
}
