//! One HTTP/1.1 POST over a plain TCP connection, within a deadline.
//!
//! Why not an HTTP client crate: the export is one request to one URL,
//! answered by a status line; what matters is that nothing in it can wait
//! past the deadline, which a socket with per-operation timeouts computed
//! from the deadline gives directly, without another dependency tree.
//! `https://` is refused (TLS would bring rustls or a system library into
//! a command whose start-up time is measured); a local collector or agent
//! on `http://` forwards with TLS.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Instant;

/// At most this much of the answer is read: the status line, the headers
/// and the start of an error body.
const MAX_ANSWER: usize = 16 * 1024;

/// An `http://` URL: host, port, path (with any query).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    pub host: String,
    pub port: u16,
    pub path: String,
    /// As given, for messages.
    pub text: String,
}

impl Url {
    pub fn parse(text: &str) -> Result<Url, String> {
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("https://") {
            return Err(
                "https is not supported by phaselint's exporter; send to a collector or agent on http:// (a local one forwards with TLS)".into(),
            );
        }
        if !lower.starts_with("http://") {
            return Err("it is not an http:// URL".into());
        }
        let rest = &text["http://".len()..];
        let (authority, path) = match rest.find(['/', '?', '#']) {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, ""),
        };
        let path = path.split('#').next().unwrap_or_default();
        let path = if path.is_empty() || path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_string()
        };
        if authority.contains('@') {
            return Err("user information in the URL is not supported; use OTEL_EXPORTER_OTLP_HEADERS for credentials".into());
        }
        let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
            let (host, after) = rest
                .split_once(']')
                .ok_or("its IPv6 address has no closing `]`")?;
            let port = match after {
                "" => None,
                _ => Some(
                    after
                        .strip_prefix(':')
                        .ok_or("junk after the IPv6 address")?,
                ),
            };
            (format!("[{host}]"), port)
        } else {
            match authority.rsplit_once(':') {
                Some((host, port)) => (host.to_string(), Some(port)),
                None => (authority.to_string(), None),
            }
        };
        if host.is_empty() || host == "[]" {
            return Err("it names no host".into());
        }
        if !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-_[]:%".contains(&b))
        {
            return Err("its host has characters a host name cannot have".into());
        }
        if path.bytes().any(|b| b.is_ascii_control() || b == b' ') {
            return Err("its path has spaces or control characters".into());
        }
        let port = match port {
            None => 80,
            Some(port) => port
                .parse::<u16>()
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(|| format!("its port `{port}` is not a number from 1 to 65535"))?,
        };
        Ok(Url {
            host,
            port,
            path,
            text: text.to_string(),
        })
    }

    /// The `Host` header's value.
    fn authority(&self) -> String {
        if self.port == 80 {
            self.host.clone()
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The host as the resolver takes it (no brackets).
    fn resolvable(&self) -> &str {
        self.host.trim_start_matches('[').trim_end_matches(']')
    }
}

/// POSTs `body` to `url`; Ok on a 2xx answer. Every step (resolving,
/// connecting, writing, reading) stops at `deadline`. Resolving a name is
/// the one step the standard library cannot bound, which is why the
/// caller runs this on a thread it stops waiting for at the deadline.
pub fn post(
    url: &Url,
    headers: &[(String, String)],
    content_type: &str,
    body: &[u8],
    deadline: Instant,
) -> Result<(), String> {
    let remaining = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| "no answer within the timeout".to_string())
    };
    let addresses: Vec<SocketAddr> = (url.resolvable(), url.port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve `{}`: {e}", url.host))?
        .collect();
    let mut last_error = format!("`{}` resolves to no address", url.host);
    let mut stream = None;
    for address in addresses {
        match TcpStream::connect_timeout(&address, remaining()?) {
            Ok(connected) => {
                stream = Some(connected);
                break;
            }
            Err(e) => last_error = format!("cannot connect to {address}: {e}"),
        }
    }
    let mut stream = stream.ok_or(last_error)?;
    let _ = stream.set_nodelay(true);
    let mut message = request_head(url, headers, content_type, body.len()).into_bytes();
    message.extend_from_slice(body);
    stream
        .set_write_timeout(Some(remaining()?))
        .map_err(|e| e.to_string())?;
    stream
        .write_all(&message)
        .map_err(|e| format!("cannot send: {}", timed_out(e)))?;
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        stream
            .set_read_timeout(Some(remaining()?))
            .map_err(|e| e.to_string())?;
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                if answer.is_empty() {
                    return Err(format!("no answer: {}", timed_out(e)));
                }
                break;
            }
        }
        // A success needs nothing past its status line; an error's body
        // says why, so read on until the answer ends or the bound.
        if status_of(&answer).is_some_and(|(code, _)| (200..300).contains(&code))
            || answer.len() >= MAX_ANSWER
            || complete(&answer)
        {
            break;
        }
    }
    judge_answer(&answer)
}

/// The request line and headers of the POST, ending with the blank line.
/// `Url::parse` and `config` keep CR, LF and other control characters out
/// of every part, so each header is one line.
pub fn request_head(
    url: &Url,
    headers: &[(String, String)],
    content_type: &str,
    length: usize,
) -> String {
    let mut head = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\nConnection: close\r\nUser-Agent: phaselint/{}\r\n",
        url.path,
        url.authority(),
        env!("CARGO_PKG_VERSION"),
    );
    for (name, value) in headers {
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    head
}

/// What the collector's answer (as much of it as was read) means: Ok for a
/// 2xx status, else why not, without control characters (it is printed on
/// a terminal).
pub fn judge_answer(answer: &[u8]) -> Result<(), String> {
    match status_of(answer) {
        Some((code, _)) if (200..300).contains(&code) => Ok(()),
        Some((_, line)) => {
            let body = answer
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .map(|at| String::from_utf8_lossy(&answer[at + 4..]).into_owned())
                .unwrap_or_default();
            let body: String = body
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .take(200)
                .collect();
            let body = body.trim();
            Err(if body.is_empty() {
                format!("the collector answered `{line}`")
            } else {
                format!("the collector answered `{line}`: {body}")
            })
        }
        None => Err("the answer is not HTTP".into()),
    }
}

/// "timed out" for the two ways the platform says so.
fn timed_out(error: std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            "no answer within the timeout".into()
        }
        _ => error.to_string(),
    }
}

/// The status code and line, once the line is complete.
fn status_of(answer: &[u8]) -> Option<(u16, String)> {
    let end = answer.windows(2).position(|w| w == b"\r\n")?;
    let line = String::from_utf8_lossy(&answer[..end]).into_owned();
    let mut parts = line.splitn(3, ' ');
    let version = parts.next()?;
    if !version.starts_with("HTTP/") {
        return None;
    }
    let code = parts.next()?.parse().ok()?;
    let line: String = line.chars().filter(|c| !c.is_control()).take(120).collect();
    Some((code, line))
}

/// Whether the headers ended and a `Content-Length` body is all there.
fn complete(answer: &[u8]) -> bool {
    let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    length.is_some_and(|length| answer.len() >= end + 4 + length)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let url = Url::parse("http://127.0.0.1:4318/v1/traces").unwrap();
        assert_eq!(
            (url.host.as_str(), url.port, url.path.as_str()),
            ("127.0.0.1", 4318, "/v1/traces")
        );
        assert_eq!(url.authority(), "127.0.0.1:4318");
        let url = Url::parse("http://[::1]:4318").unwrap();
        assert_eq!(
            (url.host.as_str(), url.port, url.path.as_str()),
            ("[::1]", 4318, "/")
        );
        assert_eq!(url.resolvable(), "::1");
        let url = Url::parse("HTTP://collector/x?y=1#frag").unwrap();
        assert_eq!((url.port, url.path.as_str()), (80, "/x?y=1"));
        for bad in [
            "https://collector:4318",
            "collector:4318",
            "http://:4318",
            "http://user:pw@collector",
            "http://collector:99999",
            "http://collector:0",
            "http://collector:x",
            "http://coll ector",
            "http://collector/a b",
            "http://[::1",
        ] {
            assert!(Url::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn status_lines() {
        assert_eq!(status_of(b"HTTP/1.1 200 OK\r\n").map(|s| s.0), Some(200));
        assert_eq!(status_of(b"HTTP/1.1 200 OK"), None);
        assert_eq!(status_of(b"SSH-2.0\r\n"), None);
        assert!(complete(b"HTTP/1.1 400 Bad\r\ncontent-length: 2\r\n\r\nab"));
        assert!(!complete(
            b"HTTP/1.1 400 Bad\r\ncontent-length: 3\r\n\r\nab"
        ));
    }
}
