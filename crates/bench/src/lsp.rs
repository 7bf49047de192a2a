//! Language-server figures: edit-to-diagnostics latency and the server's
//! memory, measured against the real `phaselint lsp` process.
//!
//! Latency is timed in the client, from writing a `didChange` to reading
//! the `publishDiagnostics` of that version, so it is an upper bound of the
//! server-side time (it adds the pipe and the 8 ms debounce).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub struct LspFigures {
    pub p50: Duration,
    pub p95: Duration,
    pub edits: usize,
    /// The reference timed after each edit (a parse of the same text), its
    /// median, and the median over the edits of latency / reference.
    pub reference: Duration,
    pub ratio: f64,
    /// `didOpen` of the same text under a new name to its first
    /// `publishDiagnostics`: the median over `opens` documents.
    pub open_p50: Duration,
    pub opens: usize,
    /// Resident memory after opening and editing, and its high-water mark.
    pub rss_kib: Option<u64>,
    pub peak_rss_kib: Option<u64>,
}

struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
}

impl Client {
    fn start(phaselint: &Path) -> Result<Self, String> {
        let mut child = Command::new(phaselint)
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", phaselint.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (send, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = 0;
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
                        length = n.parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                if let Ok(message) = serde_json::from_slice::<Value>(&body)
                    && send.send(message).is_err()
                {
                    return;
                }
            }
        });
        Ok(Client {
            child,
            stdin,
            incoming,
        })
    }

    fn send(&mut self, message: Value) -> Result<(), String> {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len())
            .map_err(|e| e.to_string())?;
        self.stdin.flush().map_err(|e| e.to_string())
    }

    fn wait(&mut self, wanted: impl Fn(&Value) -> bool) -> Result<Value, String> {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .incoming
                .recv_timeout(left)
                .map_err(|e| format!("no answer from the server: {e}"))?;
            if message.get("method").is_some() && message.get("id").is_some() {
                let id = message["id"].clone();
                self.send(json!({"jsonrpc": "2.0", "id": id, "result": null}))?;
                continue;
            }
            if wanted(&message) {
                return Ok(message);
            }
        }
    }

    fn published(&mut self, uri: &str, version: i64) -> Result<(), String> {
        self.wait(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        })
        .map(|_| ())
    }

    fn memory(&self) -> (Option<u64>, Option<u64>) {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
        else {
            return (None, None);
        };
        let field = |name: &str| {
            status
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        };
        (field("VmRSS:"), field("VmHWM:"))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Opens `text`, then makes `edits` one-character edits (typing and
/// deleting a character at the end of line `line`), waiting for the
/// diagnostics of each before the next. After each edit `reference` runs
/// once in this process, so the two are compared on the same machine state.
pub fn measure(
    phaselint: &Path,
    text: &str,
    edits: usize,
    mut reference: impl FnMut() -> Duration,
) -> Result<LspFigures, String> {
    let mut client = Client::start(phaselint)?;
    client.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": null, "rootUri": null, "capabilities": {}}}))?;
    client.wait(|m| m["id"] == 1)?;
    client.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}))?;
    let uri = "file:///tmp/phaselint-bench.contract.yaml";
    client.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}}))?;
    client.published(uri, 1)?;

    // Edit the description of the first phase, in the middle of the file's
    // first screen: the whole document is re-analyzed each time anyway.
    let line = text
        .lines()
        .position(|l| l.trim_start().starts_with("description:"))
        .unwrap_or(0);
    let column = text
        .lines()
        .nth(line)
        .map_or(0, |l| l.encode_utf16().count());
    let mut latencies = Vec::with_capacity(edits);
    let mut references = Vec::with_capacity(edits);
    let mut ratios = Vec::with_capacity(edits);
    for i in 0..edits {
        let version = i as i64 + 2;
        let change = if i % 2 == 0 {
            json!({"range": {"start": {"line": line, "character": column}, "end": {"line": line, "character": column}}, "text": "x"})
        } else {
            json!({"range": {"start": {"line": line, "character": column}, "end": {"line": line, "character": column + 1}}, "text": ""})
        };
        let started = Instant::now();
        client.send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}}))?;
        client.published(uri, version)?;
        let latency = started.elapsed();
        let took = reference();
        ratios.push(latency.as_secs_f64() / took.as_secs_f64().max(1e-9));
        latencies.push(latency);
        references.push(took);
    }
    latencies.sort();
    references.sort();
    ratios.sort_by(f64::total_cmp);
    // Memory as it stays while the document is open, once the server has
    // handed back what the replaced analysis held.
    std::thread::sleep(Duration::from_millis(500));
    let (rss_kib, peak_rss_kib) = client.memory();
    // After the memory figures, so that the documents opened here do not
    // raise them.
    // Opening: each time a new document, so nothing is cached or debounced
    // from an earlier version; closed again so memory stays comparable.
    let opens = 20;
    let mut open_latencies = Vec::with_capacity(opens);
    for k in 0..opens {
        let other = format!("file:///tmp/phaselint-bench-open-{k}.contract.yaml");
        let started = Instant::now();
        client.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": other, "languageId": "yaml", "version": 1, "text": text}}}))?;
        client.published(&other, 1)?;
        open_latencies.push(started.elapsed());
        client.send(json!({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": other}}}))?;
    }
    open_latencies.sort();
    Ok(LspFigures {
        p50: percentile(&latencies, 50.0),
        p95: percentile(&latencies, 95.0),
        edits,
        reference: percentile(&references, 50.0),
        ratio: ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN),
        open_p50: percentile(&open_latencies, 50.0),
        opens,
        rss_kib,
        peak_rss_kib,
    })
}

/// Figures of a document opened with a workspace of many contracts.
pub struct WorkspaceFigures {
    /// `didOpen` (sent right after `initialized`) to the document's first
    /// `publishDiagnostics`, median over `rounds` fresh servers: with the
    /// workspace folder, and with none (the same server, no walk).
    pub with_workspace_p50: Duration,
    pub without_workspace_p50: Duration,
    pub rounds: usize,
    /// `initialized` to the moment `workspace/symbol` finds the last
    /// contract's symbol: the whole workspace indexed (median).
    pub indexed_p50: Duration,
    /// Resident memory once the workspace is indexed, and its high-water
    /// mark (of the last round).
    pub rss_kib: Option<u64>,
    pub peak_rss_kib: Option<u64>,
}

/// Opens `text` as `open` (a file inside `root`) in a fresh server, once
/// with `root` as its workspace folder and once without, `rounds` times
/// each, alternately. `last_symbol` is a name only the last contract of
/// the workspace defines, searched for to see the index complete.
pub fn measure_workspace(
    phaselint: &Path,
    root: &Path,
    open: &Path,
    text: &str,
    last_symbol: &str,
    rounds: usize,
) -> Result<WorkspaceFigures, String> {
    let root_uri = format!("file://{}", root.display());
    let uri = format!("file://{}", open.display());
    let mut with = Vec::with_capacity(rounds);
    let mut without = Vec::with_capacity(rounds);
    let mut indexed = Vec::with_capacity(rounds);
    let mut memory = (None, None);
    for _ in 0..rounds {
        for workspace in [true, false] {
            let mut client = Client::start(phaselint)?;
            let params = if workspace {
                json!({"processId": null, "rootUri": root_uri, "workspaceFolders": [{"uri": root_uri, "name": "bench"}], "capabilities": {}})
            } else {
                json!({"processId": null, "rootUri": null, "capabilities": {}})
            };
            client.send(
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}),
            )?;
            client.wait(|m| m["id"] == 1)?;
            let started = Instant::now();
            client.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}))?;
            client.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}}))?;
            client.published(&uri, 1)?;
            let first = started.elapsed();
            if !workspace {
                without.push(first);
                continue;
            }
            with.push(first);
            let mut id = 2;
            loop {
                client.send(json!({"jsonrpc": "2.0", "id": id, "method": "workspace/symbol", "params": {"query": last_symbol}}))?;
                let answer = client.wait(|m| m["id"] == id)?;
                id += 1;
                if answer["result"].as_array().is_some_and(|a| !a.is_empty()) {
                    break;
                }
                if started.elapsed() > Duration::from_secs(600) {
                    return Err("the workspace was not indexed within 10 minutes".into());
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            indexed.push(started.elapsed());
            memory = client.memory();
        }
    }
    with.sort();
    without.sort();
    indexed.sort();
    Ok(WorkspaceFigures {
        with_workspace_p50: percentile(&with, 50.0),
        without_workspace_p50: percentile(&without, 50.0),
        rounds,
        indexed_p50: percentile(&indexed, 50.0),
        rss_kib: memory.0,
        peak_rss_kib: memory.1,
    })
}
