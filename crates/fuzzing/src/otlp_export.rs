//! `otlp_export`: the OpenTelemetry exporter's readers of outside input.
//! The input's lines up to one `---answer---` are environment variables
//! (`NAME=VALUE`; a line without `=` is an event attribute value), the
//! bytes after it a collector's answer.
//!
//! Invariants:
//! - `from_env` never panics; when it configures an export, every header
//!   name is an HTTP token and no header value, host or path holds a CR,
//!   LF or other control character, so the request head has exactly one
//!   line per header (no header can be smuggled in);
//! - `TRACEPARENT`'s ids are never all zeros, and the span's trace id is
//!   the parent's when there is one;
//! - the span encodes as protobuf that decodes back to the same request,
//!   and as JSON that parses, whatever its strings hold;
//! - any answer is judged without a panic: Ok only for an `HTTP/` status
//!   line with a 2xx code, and the reason for anything else holds no
//!   control character (it is printed on a terminal).

use std::collections::HashMap;
use std::time::{Duration, UNIX_EPOCH};

use phaselint_otlp::{Event, Span, Status, Value, from_env, http, proto};

pub fn otlp_export(data: &[u8]) {
    let (head, answer) = match data.windows(12).position(|w| w == b"---answer---") {
        Some(at) => (&data[..at], &data[at + 12..]),
        None => (data, &[][..]),
    };
    let text = String::from_utf8_lossy(head);
    let mut env = HashMap::new();
    let mut values = Vec::new();
    for line in text.split('\n').take(64) {
        match line.split_once('=') {
            Some((name, value)) if !name.is_empty() => {
                env.insert(name.to_string(), value.to_string());
            }
            _ => values.push(line.to_string()),
        }
    }
    // Without an endpoint in the input, one is given, so the rest is read.
    env.entry("OTEL_EXPORTER_OTLP_ENDPOINT".to_string())
        .or_insert_with(|| "http://127.0.0.1:4318".to_string());
    let (exporter, _warnings) = from_env(|name| env.get(name).cloned());
    if let Some(exporter) = exporter {
        for (name, value) in &exporter.headers {
            assert!(
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic() && b != b':'),
                "header name {name:?}"
            );
            assert!(
                value.chars().all(|c| c == '\t' || !c.is_control()),
                "header value {value:?}"
            );
        }
        let head = http::request_head(&exporter.url, &exporter.headers, "application/json", 10);
        assert_eq!(
            head.matches("\r\n").count(),
            6 + exporter.headers.len() + 1,
            "a header or URL part split the request head: {head:?}"
        );
        assert!(
            head.bytes()
                .all(|b| b == b'\r' || b == b'\n' || b == b'\t' || !b.is_ascii_control()),
            "{head:?}"
        );
        if let Some(parent) = &exporter.parent {
            assert_ne!(parent.trace_id, [0; 16]);
            assert_ne!(parent.span_id, [0; 8]);
        }
        let attributes: Vec<(String, Value)> = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let value = match i % 4 {
                    0 => Value::String(v.clone()),
                    1 => Value::Int(v.len() as i64 - 3),
                    2 => Value::Bool(v.is_empty()),
                    _ => Value::Double(v.parse().unwrap_or(f64::NAN)),
                };
                (v.clone(), value)
            })
            .collect();
        let span = Span {
            name: "phaselint.resume_check".into(),
            start: UNIX_EPOCH + Duration::from_secs(1),
            end: UNIX_EPOCH + Duration::from_secs(2),
            attributes: attributes.clone(),
            events: vec![Event {
                name: values.first().cloned().unwrap_or_default(),
                time_unix_nano: u64::MAX,
                attributes,
            }],
            status: Status::Error(values.last().cloned().unwrap_or_default()),
        };
        let ids = exporter.ids().expect("the system's random generator");
        assert_ne!(ids.trace_id, [0; 16]);
        assert_ne!(ids.span_id, [0; 8]);
        let request = exporter.request(&span, ids);
        let sent = &request.resource_spans[0].scope_spans[0].spans[0];
        if let Some(parent) = &exporter.parent {
            assert_eq!(sent.trace_id, parent.trace_id.to_vec());
            assert_eq!(sent.parent_span_id, parent.span_id.to_vec());
        }
        let protobuf = prost::Message::encode_to_vec(&request);
        let decoded: proto::ExportTraceServiceRequest =
            prost::Message::decode(protobuf.as_slice()).expect("our own encoding decodes");
        // NaN is not equal to itself: compare the encodings instead.
        assert_eq!(prost::Message::encode_to_vec(&decoded), protobuf);
        let json = phaselint_otlp::json(&request).to_string();
        serde_json::from_str::<serde_json::Value>(&json).expect("OTLP/JSON parses");
    }
    match http::judge_answer(answer) {
        Ok(()) => {
            let line = String::from_utf8_lossy(answer);
            let mut parts = line.split("\r\n").next().unwrap_or_default().split(' ');
            assert!(
                parts.next().is_some_and(|v| v.starts_with("HTTP/")),
                "{line:?}"
            );
            let code: Option<u16> = parts.next().and_then(|c| c.parse().ok());
            assert!(code.is_some_and(|c| (200..300).contains(&c)), "{line:?}");
        }
        Err(reason) => assert!(!reason.chars().any(char::is_control), "{reason:?}"),
    }
}
