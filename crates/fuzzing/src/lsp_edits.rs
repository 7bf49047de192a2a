//! The `lsp_edits` target: the language server in-process, a contract
//! opened and then edited by a script of keystrokes that break its YAML
//! (brackets, quotes, colons, tabs, line breaks) and undo them, with
//! hover, definition, references, outline and completion asked for in
//! between. The server must answer every request without an error, every
//! finding it publishes must be inside the text of its version, and once
//! the script is done the document's findings must be a fresh open's
//! (when the final text parses; otherwise, at least its E001).
//!
//! Input: a contract, a line `---edits---`, then the script; without that
//! line, the whole input is the script, run on a fixture with findings.
//! The script is read four bytes a step: what to do (its high bit: wait
//! for that version's findings, as an editor pausing between keys does),
//! where (two bytes), and what to type.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

const FIXTURE: &str = include_str!("../../../fixtures/R105/fail.contract.yaml");
/// What is typed: YAML's indicators, blanks, a letter, a multi-byte letter.
const TYPED: &[&str] = &[
    ":", " ", "\n", "[", "]", "{", "}", "\"", "'", "-", "#", "\t", "a", "é", ",", "  ",
];
/// The most steps of a script (a step costs an analysis).
const MAX_STEPS: usize = 48;
const WAIT: Duration = Duration::from_secs(20);

/// The (line, UTF-16 column) of byte `offset`.
fn position(text: &str, offset: usize) -> Value {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column: usize = before[line_start..].chars().map(char::len_utf16).sum();
    json!({"line": line, "character": column})
}

fn boundary(text: &str, mut offset: usize) -> usize {
    offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Whether an LSP range lies inside `text` (UTF-16 columns).
fn inside(text: &str, range: &Value) -> bool {
    let lines: Vec<&str> = text.split('\n').collect();
    ["start", "end"].iter().all(|end| {
        let line = range[end]["line"].as_u64().unwrap_or(u64::MAX) as usize;
        let column = range[end]["character"].as_u64().unwrap_or(u64::MAX) as usize;
        lines
            .get(line)
            .is_some_and(|l| column <= l.chars().map(char::len_utf16).sum::<usize>())
    })
}

struct Session {
    input: tokio::io::DuplexStream,
    incoming: tokio::sync::mpsc::UnboundedReceiver<Value>,
    backlog: Vec<Value>,
    next_id: i64,
}

impl Session {
    async fn send(&mut self, message: Value) {
        let body = message.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.input
            .write_all(frame.as_bytes())
            .await
            .expect("the server reads its input");
    }

    async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    async fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&wanted) {
            return self.backlog.remove(i);
        }
        loop {
            let message = tokio::time::timeout(WAIT, self.incoming.recv())
                .await
                .expect("the server answers within 20 s")
                .expect("the server is still running");
            if wanted(&message) {
                return message;
            }
            self.backlog.push(message);
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let response = self
            .wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
            .await;
        assert!(
            response.get("error").is_none(),
            "{method} answered with an error: {response}"
        );
        response["result"].clone()
    }

    async fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let message = self
            .wait_for(|m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri
                    && m["params"]["version"] == version
            })
            .await;
        message["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

/// Reads the server's frames into a channel, so it never blocks on a full
/// output while the session writes.
async fn read_frames(
    output: tokio::io::DuplexStream,
    frames: tokio::sync::mpsc::UnboundedSender<Value>,
) {
    let mut reader = BufReader::new(output);
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
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
        if reader.read_exact(&mut body).await.is_err() {
            return;
        }
        if let Ok(message) = serde_json::from_slice(&body)
            && frames.send(message).is_err()
        {
            return;
        }
    }
}

fn sorted(diagnostics: &[Value]) -> Vec<String> {
    let mut all: Vec<String> = diagnostics.iter().map(Value::to_string).collect();
    all.sort();
    all
}

pub fn lsp_edits(data: &[u8]) {
    const SEPARATOR: &[u8] = b"\n---edits---\n";
    let (text, script) = match data.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) {
        Some(at) => (
            String::from_utf8_lossy(&data[..at]).into_owned(),
            &data[at + SEPARATOR.len()..],
        ),
        None => (FIXTURE.to_string(), data),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(run(text, script));
}

/// How many versions of the edited document were published with an E001
/// and findings carried from the last text that parsed (for the target's
/// own test: that its scripts do break the YAML, and the server carries).
async fn run(mut text: String, script: &[u8]) -> usize {
    let (input, server_input) = tokio::io::duplex(1 << 16);
    let (server_output, output) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(phaselint_lsp::serve(server_input, server_output, || {}));
    let (frames, incoming) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(read_frames(output, frames));
    let mut session = Session {
        input,
        incoming,
        backlog: Vec::new(),
        next_id: 1,
    };
    session
        .request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {}}),
        )
        .await;
    session.notify("initialized", json!({})).await;
    let uri = "file:///fuzz/edited.contract.yaml";
    session
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        )
        .await;
    let mut texts: HashMap<i64, String> = HashMap::from([(1, text.clone())]);
    let mut version = 1;
    // What undoes each edit made so far: (offset, removed text, inserted length).
    let mut undo: Vec<(usize, String, usize)> = Vec::new();
    for step in script.chunks_exact(4).take(MAX_STEPS) {
        let (what, at, typed) = (
            step[0],
            usize::from(step[1]) << 8 | usize::from(step[2]),
            step[3],
        );
        let offset = boundary(&text, at % (text.len() + 1));
        let change = match what % 4 {
            0 => {
                let inserted = TYPED[usize::from(typed) % TYPED.len()];
                undo.push((offset, String::new(), inserted.len()));
                Some((offset, offset, inserted.to_string()))
            }
            1 => {
                let end = boundary(&text, offset + 1 + usize::from(typed % 8));
                undo.push((offset, text[offset..end].to_string(), 0));
                Some((offset, end, String::new()))
            }
            2 => undo
                .pop()
                .map(|(start, removed, inserted)| (start, start + inserted, removed)),
            _ => {
                let position = position(&text, offset);
                let at = json!({"textDocument": {"uri": uri}, "position": position});
                match typed % 5 {
                    0 => drop(session.request("textDocument/hover", at).await),
                    1 => drop(session.request("textDocument/definition", at).await),
                    2 => {
                        let mut params = at;
                        params["context"] = json!({"includeDeclaration": true});
                        drop(session.request("textDocument/references", params).await);
                    }
                    3 => drop(session.request("textDocument/completion", at).await),
                    _ => drop(
                        session
                            .request(
                                "textDocument/documentSymbol",
                                json!({"textDocument": {"uri": uri}}),
                            )
                            .await,
                    ),
                }
                None
            }
        };
        let Some((start, end, with)) = change else {
            continue;
        };
        version += 1;
        let range = json!({"start": position(&text, start), "end": position(&text, end)});
        text.replace_range(start..end, &with);
        texts.insert(version, text.clone());
        session
            .notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": range, "text": with}]}),
            )
            .await;
        // An editor's pause: this version's findings arrive before the
        // next keystroke (else a burst: only the last one is analyzed).
        if what & 0x80 != 0 {
            let published = session.diagnostics(uri, version).await;
            session.backlog.push(json!({
                "method": "textDocument/publishDiagnostics",
                "params": {"uri": uri, "version": version, "diagnostics": published},
            }));
        }
    }
    // The outline after the last edit, then the last version's findings.
    session
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let last = session.diagnostics(uri, version).await;
    // Every finding published on the way lies inside its version's text.
    for message in session.backlog.iter().chain([&json!({
        "method": "textDocument/publishDiagnostics",
        "params": {"uri": uri, "version": version, "diagnostics": last.clone()},
    })]) {
        if message["method"] != "textDocument/publishDiagnostics" || message["params"]["uri"] != uri
        {
            continue;
        }
        let Some(text) = message["params"]["version"]
            .as_i64()
            .and_then(|v| texts.get(&v))
        else {
            continue;
        };
        for diagnostic in message["params"]["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
        {
            assert!(
                inside(text, &diagnostic["range"]),
                "a finding outside its text: {diagnostic}"
            );
            for related in diagnostic["relatedInformation"]
                .as_array()
                .into_iter()
                .flatten()
            {
                assert!(inside(text, &related["location"]["range"]), "{related}");
            }
        }
    }
    let fresh_uri = "file:///fuzz/fresh.contract.yaml";
    session
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": fresh_uri, "languageId": "yaml", "version": 1, "text": text}}),
        )
        .await;
    let fresh = session.diagnostics(fresh_uri, 1).await;
    // Related locations name their document.
    let fresh: Vec<Value> = fresh
        .iter()
        .map(|d| {
            serde_json::from_str(&d.to_string().replace(fresh_uri, uri))
                .expect("JSON with one string replaced by another")
        })
        .collect();
    let broken_versions = session
        .backlog
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
        .chain([&json!({"params": {"diagnostics": last.clone()}})])
        .filter(|m| {
            m["params"]["diagnostics"].as_array().is_some_and(|ds| {
                ds.iter().any(|d| d["code"] == "E001") && ds.iter().any(|d| d["code"] != "E001")
            })
        })
        .count();
    let is_e001 = |d: &&Value| d["code"] == "E001";
    if fresh.iter().any(|d| is_e001(&d)) {
        // Broken at the end: the same E001, with what the last text that
        // parsed said about the other lines.
        let e001: Vec<Value> = last.iter().filter(is_e001).cloned().collect();
        let fresh_e001: Vec<Value> = fresh.iter().filter(is_e001).cloned().collect();
        assert_eq!(sorted(&e001), sorted(&fresh_e001));
    } else {
        assert_eq!(
            sorted(&last),
            sorted(&fresh),
            "the edited document and a fresh open of its text disagree"
        );
    }
    session.request("shutdown", Value::Null).await;
    session.notify("exit", Value::Null).await;
    drop(session);
    let _ = tokio::time::timeout(WAIT, server).await;
    broken_versions
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One step of a script: what, where, what to type.
    fn step(what: u8, offset: usize, typed: u8) -> [u8; 4] {
        [what, (offset >> 8) as u8, offset as u8, typed]
    }

    fn typed(s: &str) -> u8 {
        TYPED.iter().position(|t| *t == s).unwrap() as u8
    }

    /// A key typed without its colon, then an unclosed `[`, each asked
    /// about and undone: the target's own break-and-repair round.
    #[test]
    fn a_script_breaks_and_repairs_the_yaml() {
        let line = "        - name: retrieved_context\n";
        let end_of_exit = FIXTURE.find(line).unwrap() + line.len() - 1;
        let value = FIXTURE.find("re_retrieve").unwrap();
        let name = FIXTURE.find("generate:").unwrap();
        let mut script = Vec::new();
        // `\n  a` at the end of the line: a key without its colon.
        for (after, s) in [(0, "\n"), (1, "  "), (3, "a")] {
            script.extend(step(0x80, end_of_exit + after, typed(s)));
        }
        for request in 0..5 {
            script.extend(step(3, name + 3 + 3, request));
        }
        script.extend([step(0x82, 0, 0), step(0x82, 0, 0), step(0x82, 0, 0)].concat());
        script.extend(step(0x80, value, typed("[")));
        for request in 0..5 {
            script.extend(step(3, name + 3, request));
        }
        script.extend(step(0x82, 0, 0));
        let runtime = tokio::runtime::Runtime::new().unwrap();
        // The key without its colon and the open bracket, each with the
        // fixture's R105 carried.
        assert!(runtime.block_on(run(FIXTURE.to_string(), &script)) >= 2);
        // The same with the script after a contract of its own.
        let mut input = FIXTURE.as_bytes().to_vec();
        input.extend_from_slice(b"\n---edits---\n");
        input.extend(script);
        lsp_edits(&input);
    }
}
