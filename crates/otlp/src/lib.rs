//! phaselint's OpenTelemetry export: one span, sent once over OTLP/HTTP to
//! the collector the standard `OTEL_*` environment variables name.
//!
//! `config::from_env` reads the environment (nothing but three variables
//! when no endpoint is set); `Exporter::export` encodes a `Span` as
//! `http/protobuf` or `http/json` and POSTs it within the timeout, one
//! attempt, no retries. This crate knows nothing of resume checks: the
//! CLI builds the span from a report.

pub mod config;
pub mod http;
pub mod proto;

use std::sync::mpsc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

pub use config::{Exporter, Parent, Protocol, VARIABLES, from_env};

/// An attribute value. OTLP's other kinds (arrays, maps, bytes) are not
/// needed by phaselint's events.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    String(String),
    Bool(bool),
    Int(i64),
    Double(f64),
}

/// A span event.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub name: String,
    pub time_unix_nano: u64,
    pub attributes: Vec<(String, Value)>,
}

/// How the span ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// The operation did what it does (OTLP's `STATUS_CODE_UNSET`).
    Unset,
    /// It failed, with why.
    Error(String),
}

/// The span to export.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub name: String,
    pub start: SystemTime,
    pub end: SystemTime,
    pub attributes: Vec<(String, Value)>,
    pub events: Vec<Event>,
    pub status: Status,
}

/// The span's identity in its trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ids {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
}

/// Nanoseconds since the Unix epoch (0 before it).
pub fn unix_nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

impl Exporter {
    /// Ids for the span: the parent's trace (from `TRACEPARENT`) or a new
    /// random one, and a new random span id, from the operating system's
    /// generator. A failing generator is an error, never a fixed id.
    pub fn ids(&self) -> Result<Ids, String> {
        let mut random = [0u8; 24];
        // An all-zero id is invalid in W3C trace-context and OTLP: draw again.
        for _ in 0..4 {
            getrandom::fill(&mut random)
                .map_err(|e| format!("the system's random generator failed: {e}"))?;
            let mut trace_id = [0u8; 16];
            let mut span_id = [0u8; 8];
            trace_id.copy_from_slice(&random[..16]);
            span_id.copy_from_slice(&random[16..]);
            if let Some(parent) = &self.parent {
                trace_id = parent.trace_id;
            }
            if trace_id != [0; 16] && span_id != [0; 8] {
                return Ok(Ids { trace_id, span_id });
            }
        }
        Err("the system's random generator gave zeros".into())
    }

    /// Whether the span is to be sent at all: the default sampler
    /// (`parentbased_always_on`) drops a span whose remote parent was not
    /// sampled (trace flags `00`).
    pub fn samples(&self) -> bool {
        self.parent.as_ref().is_none_or(Parent::sampled)
    }

    /// The OTLP request that carries `span`.
    pub fn request(&self, span: &Span, ids: Ids) -> proto::ExportTraceServiceRequest {
        let key_values = |pairs: &[(String, Value)]| -> Vec<proto::KeyValue> {
            pairs
                .iter()
                .map(|(key, value)| proto::KeyValue {
                    key: key.clone(),
                    value: Some(any_value(value)),
                })
                .collect()
        };
        let resource: Vec<(String, Value)> = self
            .resource
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let (parent_span_id, trace_state, flags) = match &self.parent {
            // W3C flags in the low byte; 0x100 | 0x200: whether the parent
            // is remote is known, and it is.
            Some(parent) => (
                parent.span_id.to_vec(),
                parent.trace_state.clone(),
                u32::from(parent.flags) | 0x300,
            ),
            None => (Vec::new(), String::new(), 0x01 | 0x100),
        };
        proto::ExportTraceServiceRequest {
            resource_spans: vec![proto::ResourceSpans {
                resource: Some(proto::Resource {
                    attributes: key_values(&resource),
                }),
                scope_spans: vec![proto::ScopeSpans {
                    scope: Some(proto::InstrumentationScope {
                        name: "phaselint".into(),
                        version: env!("CARGO_PKG_VERSION").into(),
                    }),
                    spans: vec![proto::Span {
                        trace_id: ids.trace_id.to_vec(),
                        span_id: ids.span_id.to_vec(),
                        trace_state,
                        parent_span_id,
                        flags,
                        name: span.name.clone(),
                        kind: 1,
                        start_time_unix_nano: unix_nanos(span.start),
                        end_time_unix_nano: unix_nanos(span.end),
                        attributes: key_values(&span.attributes),
                        events: span
                            .events
                            .iter()
                            .map(|event| proto::Event {
                                time_unix_nano: event.time_unix_nano,
                                name: event.name.clone(),
                                attributes: key_values(&event.attributes),
                            })
                            .collect(),
                        status: Some(match &span.status {
                            Status::Unset => proto::Status {
                                message: String::new(),
                                code: 0,
                            },
                            Status::Error(message) => proto::Status {
                                message: message.clone(),
                                code: 2,
                            },
                        }),
                    }],
                }],
            }],
        }
    }

    /// The request body in the configured encoding.
    pub fn body(&self, request: &proto::ExportTraceServiceRequest) -> Vec<u8> {
        match self.protocol {
            Protocol::Protobuf => prost::Message::encode_to_vec(request),
            Protocol::Json => json(request).to_string().into_bytes(),
        }
    }

    /// Sends `span`: one attempt, returning within the timeout whatever
    /// the collector does (refuses, never answers, answers an error). The
    /// request runs on its own thread so that even resolving the host's
    /// name, which the standard library cannot bound, does not hold the
    /// caller past the deadline; the thread is left to the process's exit.
    pub fn export(&self, span: &Span) -> Result<(), String> {
        let deadline = Instant::now() + self.timeout;
        if !self.samples() {
            return Ok(());
        }
        let ids = self.ids()?;
        let body = self.body(&self.request(span, ids));
        let (url, headers, content_type) = (
            self.url.clone(),
            self.headers.clone(),
            self.protocol.content_type(),
        );
        let (sent, answer) = mpsc::channel();
        std::thread::Builder::new()
            .name("otlp-export".into())
            .spawn(move || {
                let _ = sent.send(http::post(&url, &headers, content_type, &body, deadline));
            })
            .map_err(|e| format!("cannot start the export: {e}"))?;
        let waited = deadline.saturating_duration_since(Instant::now());
        match answer.recv_timeout(waited) {
            Ok(result) => result,
            Err(_) => Err(format!(
                "no answer within the timeout ({} ms)",
                self.timeout.as_millis()
            )),
        }
    }
}

fn any_value(value: &Value) -> proto::AnyValue {
    use proto::any_value::Value as V;
    proto::AnyValue {
        value: Some(match value {
            Value::String(s) => V::StringValue(s.clone()),
            Value::Bool(b) => V::BoolValue(*b),
            Value::Int(i) => V::IntValue(*i),
            Value::Double(d) => V::DoubleValue(*d),
        }),
    }
}

/// The OTLP/JSON encoding of a request (the OTLP specification's "JSON
/// Protobuf Encoding"): proto3 JSON with lowerCamelCase keys, trace and
/// span ids as hex strings instead of base64, enums as integers, 64-bit
/// integers as decimal strings.
pub fn json(request: &proto::ExportTraceServiceRequest) -> serde_json::Value {
    use serde_json::{Value as J, json};
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let key_values = |pairs: &[proto::KeyValue]| -> J {
        J::Array(
            pairs
                .iter()
                .map(|kv| {
                    use proto::any_value::Value as V;
                    let value = match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                        Some(V::StringValue(s)) => json!({ "stringValue": s }),
                        Some(V::BoolValue(b)) => json!({ "boolValue": b }),
                        Some(V::IntValue(i)) => json!({ "intValue": i.to_string() }),
                        // Non-finite doubles are strings in proto3 JSON.
                        Some(V::DoubleValue(d)) if d.is_finite() => json!({ "doubleValue": d }),
                        Some(V::DoubleValue(d)) => json!({
                            "doubleValue": if d.is_nan() { "NaN" } else if *d > 0.0 { "Infinity" } else { "-Infinity" }
                        }),
                        None => json!({}),
                    };
                    json!({ "key": kv.key, "value": value })
                })
                .collect(),
        )
    };
    let resource_spans: Vec<J> = request
        .resource_spans
        .iter()
        .map(|rs| {
            let scope_spans: Vec<J> = rs
                .scope_spans
                .iter()
                .map(|ss| {
                    let spans: Vec<J> = ss
                        .spans
                        .iter()
                        .map(|span| {
                            let mut object = json!({
                                "traceId": hex(&span.trace_id),
                                "spanId": hex(&span.span_id),
                                "flags": span.flags,
                                "name": span.name,
                                "kind": span.kind,
                                "startTimeUnixNano": span.start_time_unix_nano.to_string(),
                                "endTimeUnixNano": span.end_time_unix_nano.to_string(),
                                "attributes": key_values(&span.attributes),
                                "events": span.events.iter().map(|e| json!({
                                    "timeUnixNano": e.time_unix_nano.to_string(),
                                    "name": e.name,
                                    "attributes": key_values(&e.attributes),
                                })).collect::<Vec<_>>(),
                            });
                            if let Some(fields) = object.as_object_mut() {
                                if !span.parent_span_id.is_empty() {
                                    fields.insert(
                                        "parentSpanId".into(),
                                        hex(&span.parent_span_id).into(),
                                    );
                                }
                                if !span.trace_state.is_empty() {
                                    fields.insert(
                                        "traceState".into(),
                                        span.trace_state.clone().into(),
                                    );
                                }
                                if let Some(status) = &span.status {
                                    let mut s = serde_json::Map::new();
                                    if !status.message.is_empty() {
                                        s.insert("message".into(), status.message.clone().into());
                                    }
                                    s.insert("code".into(), status.code.into());
                                    fields.insert("status".into(), J::Object(s));
                                }
                            }
                            object
                        })
                        .collect();
                    let scope = ss.scope.as_ref().map_or(
                        J::Null,
                        |scope| json!({ "name": scope.name, "version": scope.version }),
                    );
                    json!({ "scope": scope, "spans": spans })
                })
                .collect();
            let resource = rs.resource.as_ref().map_or(
                J::Null,
                |r| json!({ "attributes": key_values(&r.attributes) }),
            );
            json!({ "resource": resource, "scopeSpans": scope_spans })
        })
        .collect();
    json!({ "resourceSpans": resource_spans })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn exporter(protocol: Protocol, parent: Option<Parent>) -> Exporter {
        Exporter {
            url: http::Url::parse("http://127.0.0.1:4318/v1/traces").unwrap(),
            protocol,
            headers: vec![],
            timeout: Duration::from_millis(1000),
            resource: vec![
                ("service.name".into(), "svc".into()),
                ("team".into(), "a".into()),
            ],
            parent,
        }
    }

    fn span() -> Span {
        Span {
            name: "phaselint.resume_check".into(),
            start: UNIX_EPOCH + Duration::from_nanos(1_700_000_000_123_456_789),
            end: UNIX_EPOCH + Duration::from_nanos(1_700_000_000_223_456_789),
            attributes: vec![
                ("phaselint.decision".into(), Value::String("blocked".into())),
                ("phaselint.exit_code".into(), Value::Int(1)),
            ],
            events: vec![Event {
                name: "context.checkpoint.stale_field".into(),
                time_unix_nano: 1_767_225_600_000_000_000,
                attributes: vec![
                    ("checkpoint.stale.field".into(), Value::String("a.b".into())),
                    (
                        "checkpoint.stale.elapsed_seconds".into(),
                        Value::Int(i64::MAX),
                    ),
                    (
                        "checkpoint.stale.recovery_attempted".into(),
                        Value::Bool(false),
                    ),
                    ("ratio".into(), Value::Double(0.5)),
                ],
            }],
            status: Status::Error("no verdict".into()),
        }
    }

    fn parent() -> Parent {
        config::parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
            .unwrap()
    }

    #[test]
    fn protobuf_decodes_back_to_the_same_request() {
        let exporter = exporter(Protocol::Protobuf, Some(parent()));
        let ids = exporter.ids().unwrap();
        let request = exporter.request(&span(), ids);
        let body = exporter.body(&request);
        let decoded: proto::ExportTraceServiceRequest =
            prost::Message::decode(body.as_slice()).unwrap();
        assert_eq!(decoded, request);
        let sent = &decoded.resource_spans[0].scope_spans[0].spans[0];
        assert_eq!(sent.trace_id, parent().trace_id.to_vec());
        assert_eq!(sent.parent_span_id, parent().span_id.to_vec());
        assert_eq!(sent.span_id, ids.span_id.to_vec());
        assert_eq!(sent.start_time_unix_nano, 1_700_000_000_123_456_789);
        assert_eq!(sent.events[0].attributes.len(), 4);
        assert_eq!(sent.status.as_ref().unwrap().code, 2);
    }

    #[test]
    fn json_uses_the_otlp_names_hex_ids_and_string_int64s() {
        let exporter = exporter(Protocol::Json, Some(parent()));
        let ids = Ids {
            trace_id: parent().trace_id,
            span_id: [1, 2, 3, 4, 5, 6, 7, 8],
        };
        let body = exporter.body(&exporter.request(&span(), ids));
        let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let resource = &value["resourceSpans"][0]["resource"]["attributes"];
        assert_eq!(resource[0]["key"], "service.name");
        assert_eq!(resource[0]["value"]["stringValue"], "svc");
        let scope_spans = &value["resourceSpans"][0]["scopeSpans"][0];
        assert_eq!(scope_spans["scope"]["name"], "phaselint");
        let span = &scope_spans["spans"][0];
        assert_eq!(span["traceId"], "0af7651916cd43dd8448eb211c80319c");
        assert_eq!(span["spanId"], "0102030405060708");
        assert_eq!(span["parentSpanId"], "b7ad6b7169203331");
        assert_eq!(span["kind"], 1);
        assert_eq!(span["startTimeUnixNano"], "1700000000123456789");
        assert_eq!(span["endTimeUnixNano"], "1700000000223456789");
        assert_eq!(span["status"]["code"], 2);
        assert_eq!(span["status"]["message"], "no verdict");
        assert_eq!(span["attributes"][1]["value"]["intValue"], "1");
        let event = &span["events"][0];
        assert_eq!(event["timeUnixNano"], "1767225600000000000");
        assert_eq!(
            event["attributes"][1]["value"]["intValue"],
            i64::MAX.to_string()
        );
        assert_eq!(event["attributes"][2]["value"]["boolValue"], false);
        assert_eq!(event["attributes"][3]["value"]["doubleValue"], 0.5);
        // No snake_case key anywhere.
        fn keys(value: &serde_json::Value, out: &mut Vec<String>) {
            match value {
                serde_json::Value::Object(map) => {
                    for (k, v) in map {
                        out.push(k.clone());
                        keys(v, out);
                    }
                }
                serde_json::Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
                _ => {}
            }
        }
        let mut all = Vec::new();
        keys(&value, &mut all);
        assert!(all.iter().all(|k| !k.contains('_')), "{all:?}");
    }

    #[test]
    fn without_a_parent_the_trace_is_new_and_random() {
        let exporter = exporter(Protocol::Protobuf, None);
        let (a, b) = (exporter.ids().unwrap(), exporter.ids().unwrap());
        assert_ne!(a.trace_id, b.trace_id);
        assert_ne!(a.span_id, b.span_id);
        let request = exporter.request(&span(), a);
        let sent = &request.resource_spans[0].scope_spans[0].spans[0];
        assert!(sent.parent_span_id.is_empty());
        assert!(sent.trace_state.is_empty());
    }

    #[test]
    fn an_unsampled_parent_is_not_exported() {
        let mut unsampled = parent();
        unsampled.flags = 0;
        assert!(!exporter(Protocol::Protobuf, Some(unsampled)).samples());
        assert!(exporter(Protocol::Protobuf, Some(parent())).samples());
        assert!(exporter(Protocol::Protobuf, None).samples());
    }
}
