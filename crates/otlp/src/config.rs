//! What the OpenTelemetry SDK environment variables say about the one
//! export phaselint makes: where to, in which encoding, with which headers
//! and resource, within which time, under which parent. The semantics are
//! those of the OpenTelemetry specification's "Environment Variable
//! Specification" (`OTEL_SDK_DISABLED`, `OTEL_SERVICE_NAME`,
//! `OTEL_RESOURCE_ATTRIBUTES`) and "OpenTelemetry Protocol Exporter"
//! (`OTEL_EXPORTER_OTLP_*`, each overridden by its `_TRACES_` variant),
//! except the timeout's default: 1 s instead of 10 s, because a gate must
//! not wait long on its telemetry.

use std::time::Duration;

use crate::http::Url;

/// The exporter's timeout when no variable sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(1000);
/// The resource's `service.name` when `OTEL_SERVICE_NAME` and
/// `OTEL_RESOURCE_ATTRIBUTES` name none.
pub const DEFAULT_SERVICE_NAME: &str = "phaselint";
/// More header or resource entries than this are a mistake, not a
/// configuration: the rest are left out with a warning.
const MAX_ENTRIES: usize = 64;
/// W3C trace-context bounds `tracestate` to 32 list members; 512 bytes is
/// the length propagators must at least carry.
const MAX_TRACE_STATE: usize = 512;

/// The OTLP/HTTP encodings (`OTEL_EXPORTER_OTLP_PROTOCOL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `http/protobuf`, the default.
    Protobuf,
    /// `http/json`.
    Json,
}

impl Protocol {
    pub fn content_type(self) -> &'static str {
        match self {
            Protocol::Protobuf => "application/x-protobuf",
            Protocol::Json => "application/json",
        }
    }
}

/// The parent of the exported span, from `TRACEPARENT` (and `TRACESTATE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parent {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    /// W3C trace flags; bit 0 is "sampled".
    pub flags: u8,
    pub trace_state: String,
}

impl Parent {
    /// Whether the parent's trace is recorded: the specification's default
    /// sampler (`parentbased_always_on`) records a span exactly when its
    /// remote parent was sampled.
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }
}

/// An export that the environment asks for.
#[derive(Clone, Debug)]
pub struct Exporter {
    pub url: Url,
    pub protocol: Protocol,
    /// Extra request headers, names as given.
    pub headers: Vec<(String, String)>,
    /// The whole export's time: resolve, connect, send, answer.
    pub timeout: Duration,
    /// The resource's attributes, `service.name` first.
    pub resource: Vec<(String, String)>,
    pub parent: Option<Parent>,
}

/// Every environment variable `from_env` reads (a test holds it to that),
/// for callers that must run without them (the benchmark, the tests).
pub const VARIABLES: &[&str] = &[
    "OTEL_SDK_DISABLED",
    "OTEL_SERVICE_NAME",
    "OTEL_RESOURCE_ATTRIBUTES",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "OTEL_EXPORTER_OTLP_TIMEOUT",
    "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
    "TRACEPARENT",
    "TRACESTATE",
];

/// The exporter the environment configures, if any, with the warnings to
/// print about what it could not use. `var` reads a variable (the process
/// environment, or a table in tests). Only `OTEL_SDK_DISABLED` and the two
/// endpoint variables are read unless an endpoint is set.
pub fn from_env(var: impl Fn(&str) -> Option<String>) -> (Option<Exporter>, Vec<String>) {
    let mut warnings = Vec::new();
    let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
    if set("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return (None, warnings);
    }
    // The traces endpoint is used as is; the general one is a base URL the
    // signal's path is appended to.
    let (variable, url) = if let Some(url) = set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
        ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", url.trim().to_string())
    } else if let Some(base) = set("OTEL_EXPORTER_OTLP_ENDPOINT") {
        let base = base.trim();
        let url = if base.ends_with('/') {
            format!("{base}v1/traces")
        } else {
            format!("{base}/v1/traces")
        };
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url)
    } else {
        return (None, warnings);
    };
    let traces_or = |name: &str| {
        set(&name.replacen("OTEL_EXPORTER_OTLP_", "OTEL_EXPORTER_OTLP_TRACES_", 1))
            .map(|v| {
                (
                    name.replacen("OTEL_EXPORTER_OTLP_", "OTEL_EXPORTER_OTLP_TRACES_", 1),
                    v,
                )
            })
            .or_else(|| set(name).map(|v| (name.to_string(), v)))
    };
    let url = match Url::parse(&url) {
        Ok(url) => url,
        Err(reason) => {
            warnings.push(format!(
                "{variable} `{url}` cannot be used, so the resume check's span is not exported: {reason}"
            ));
            return (None, warnings);
        }
    };
    let protocol = match traces_or("OTEL_EXPORTER_OTLP_PROTOCOL") {
        None => Protocol::Protobuf,
        Some((name, value)) => match value.trim() {
            "http/protobuf" => Protocol::Protobuf,
            "http/json" => Protocol::Json,
            other => {
                warnings.push(format!(
                    "{name} `{other}` is not supported, so the resume check's span is not exported: phaselint exports over OTLP/HTTP, `http/protobuf` (the default) or `http/json`"
                ));
                return (None, warnings);
            }
        },
    };
    let timeout = match traces_or("OTEL_EXPORTER_OTLP_TIMEOUT") {
        None => DEFAULT_TIMEOUT,
        Some((name, value)) => match value.trim().parse::<u64>() {
            Ok(ms) if ms > 0 => Duration::from_millis(ms),
            _ => {
                warnings.push(format!(
                    "{name} `{value}` is not a positive number of milliseconds; using {} ms",
                    DEFAULT_TIMEOUT.as_millis()
                ));
                DEFAULT_TIMEOUT
            }
        },
    };
    let headers = match traces_or("OTEL_EXPORTER_OTLP_HEADERS") {
        None => Vec::new(),
        Some((name, value)) => key_values(&name, &value, &mut warnings)
            .into_iter()
            .filter(|(key, value)| {
                let usable = is_header_name(key) && is_header_value(value);
                if !usable {
                    warnings.push(format!(
                        "{name}: the header `{}` is left out: a header name is a token (letters, digits, `-` and the like) and its value has no control characters",
                        key.escape_debug()
                    ));
                }
                usable
            })
            .collect(),
    };
    let mut resource: Vec<(String, String)> = match set("OTEL_RESOURCE_ATTRIBUTES") {
        None => Vec::new(),
        Some(value) => key_values("OTEL_RESOURCE_ATTRIBUTES", &value, &mut warnings),
    };
    // OTEL_SERVICE_NAME wins over a `service.name` in the attributes.
    let service_name = set("OTEL_SERVICE_NAME")
        .map(|name| name.trim().to_string())
        .or_else(|| {
            resource
                .iter()
                .rev()
                .find(|(key, _)| key == "service.name")
                .map(|(_, value)| value.clone())
        })
        .unwrap_or_else(|| DEFAULT_SERVICE_NAME.to_string());
    resource.retain(|(key, _)| key != "service.name");
    // A key given twice keeps its last value, in its first place.
    let mut unique: Vec<(String, String)> = vec![("service.name".to_string(), service_name)];
    for (key, value) in resource {
        match unique.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => unique.push((key, value)),
        }
    }
    let parent = match set("TRACEPARENT") {
        None => None,
        Some(text) => match parse_traceparent(text.trim()) {
            Ok(mut parent) => {
                if let Some(state) = set("TRACESTATE") {
                    let state = state.trim();
                    if state.len() <= MAX_TRACE_STATE
                        && state.bytes().all(|b| (0x20..0x7f).contains(&b))
                    {
                        parent.trace_state = state.to_string();
                    } else {
                        warnings.push(format!(
                            "TRACESTATE is left out: it is longer than {MAX_TRACE_STATE} bytes or holds characters outside printable ASCII"
                        ));
                    }
                }
                Some(parent)
            }
            Err(reason) => {
                warnings.push(format!(
                    "TRACEPARENT `{}` is ignored ({reason}); the span starts a new trace",
                    text.escape_debug()
                ));
                None
            }
        },
    };
    let exporter = Exporter {
        url,
        protocol,
        headers,
        timeout,
        resource: unique,
        parent,
    };
    (Some(exporter), warnings)
}

/// A W3C trace-context `traceparent`: `VERSION-TRACEID-PARENTID-FLAGS` in
/// lowercase hex. Version `ff` is invalid; a later version than `00` is
/// read by its first four fields, as the recommendation asks.
pub fn parse_traceparent(text: &str) -> Result<Parent, String> {
    const SHAPE: &str = "it is not `00-<32 hex digits>-<16 hex digits>-<2 hex digits>`";
    let bytes = text.as_bytes();
    if bytes.len() < 55 || !text.is_ascii() {
        return Err(SHAPE.into());
    }
    let version = &text[0..2];
    if version == "ff" {
        return Err("version ff is invalid".into());
    }
    if (version == "00" && bytes.len() != 55) || (bytes.len() > 55 && bytes[55] != b'-') {
        return Err(SHAPE.into());
    }
    if bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
        return Err(SHAPE.into());
    }
    let hex = |part: &str| -> Result<Vec<u8>, String> {
        if !part
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(format!("{SHAPE}: hex digits are lowercase 0-9a-f"));
        }
        Ok(decode_hex(part))
    };
    hex(version)?;
    let trace_id: [u8; 16] = hex(&text[3..35])?
        .try_into()
        .map_err(|_| SHAPE.to_string())?;
    let span_id: [u8; 8] = hex(&text[36..52])?
        .try_into()
        .map_err(|_| SHAPE.to_string())?;
    let flags = hex(&text[53..55])?.first().copied().unwrap_or(0);
    if trace_id == [0; 16] {
        return Err("its trace id is all zeros".into());
    }
    if span_id == [0; 8] {
        return Err("its parent id is all zeros".into());
    }
    Ok(Parent {
        trace_id,
        span_id,
        flags,
        trace_state: String::new(),
    })
}

/// Pairs of digits, already checked to be hex.
fn decode_hex(text: &str) -> Vec<u8> {
    text.as_bytes()
        .chunks(2)
        .map(|pair| {
            let digit = |b: u8| match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => 0,
            };
            (digit(pair[0]) << 4) | pair.get(1).map_or(0, |&b| digit(b))
        })
        .collect()
}

/// A W3C Baggage-style list, `key1=value1,key2=value2` (the format of
/// `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_RESOURCE_ATTRIBUTES`): keys and
/// values trimmed, values percent-decoded, `;properties` dropped. An entry
/// that cannot be read is left out with a warning naming `variable`.
pub fn key_values(variable: &str, text: &str, warnings: &mut Vec<String>) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for entry in text.split(',') {
        if entry.trim().is_empty() {
            continue;
        }
        if pairs.len() == MAX_ENTRIES {
            warnings.push(format!(
                "{variable}: only the first {MAX_ENTRIES} entries are used"
            ));
            break;
        }
        let entry = entry.split(';').next().unwrap_or_default();
        let Some((key, value)) = entry.split_once('=') else {
            warnings.push(format!(
                "{variable}: the entry `{}` is left out: it is not `key=value`",
                entry.trim().escape_debug()
            ));
            continue;
        };
        let key = key.trim();
        match (key.is_empty(), percent_decode(value.trim())) {
            (false, Some(value)) => pairs.push((key.to_string(), value)),
            _ => warnings.push(format!(
                "{variable}: the entry `{}` is left out: its key is empty or its value is not percent-encoded UTF-8",
                entry.trim().escape_debug()
            )),
        }
    }
    pairs
}

/// `%XX` escapes decoded; `None` when an escape is broken or the result is
/// not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let pair = bytes.get(i + 1..i + 3)?;
            if !pair.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            decoded.push(decode_hex(std::str::from_utf8(pair).ok()?)[0]);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

/// RFC 9110's token: what a header name may be.
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// No control characters (a decoded `%0d%0a` would start a header of its
/// own); tabs and visible characters only.
fn is_header_value(value: &str) -> bool {
    value.chars().all(|c| c == '\t' || !c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> (Option<Exporter>, Vec<String>) {
        let table: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        from_env(|name| table.get(name).cloned())
    }

    #[test]
    fn every_variable_read_is_listed_in_variables() {
        let read = std::cell::RefCell::new(Vec::new());
        from_env(|name| {
            read.borrow_mut().push(name.to_string());
            match name {
                "OTEL_EXPORTER_OTLP_ENDPOINT" => Some("http://127.0.0.1:4318".into()),
                "TRACEPARENT" => {
                    Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into())
                }
                _ => Some("x=y".into()),
            }
        });
        let unlisted: Vec<String> = read
            .into_inner()
            .into_iter()
            .filter(|name| !VARIABLES.contains(&name.as_str()))
            .collect();
        assert!(unlisted.is_empty(), "read but not listed: {unlisted:?}");
    }

    #[test]
    fn nothing_is_configured_without_an_endpoint() {
        let (exporter, warnings) = env(&[("OTEL_SERVICE_NAME", "x"), ("TRACEPARENT", "junk")]);
        assert!(exporter.is_none());
        assert!(warnings.is_empty());
        let (exporter, _) = env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "  ")]);
        assert!(exporter.is_none(), "an empty endpoint is no endpoint");
    }

    #[test]
    fn the_sdk_disabled_switch_wins() {
        let (exporter, warnings) = env(&[
            ("OTEL_SDK_DISABLED", "TRUE"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
        ]);
        assert!(exporter.is_none());
        assert!(warnings.is_empty());
        let (exporter, _) = env(&[
            ("OTEL_SDK_DISABLED", "false"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
        ]);
        assert!(exporter.is_some());
    }

    #[test]
    fn the_base_endpoint_gets_the_signal_path_and_the_traces_endpoint_is_used_as_is() {
        for (base, path) in [
            ("http://127.0.0.1:4318", "/v1/traces"),
            ("http://127.0.0.1:4318/", "/v1/traces"),
            ("http://127.0.0.1:4318/otel", "/otel/v1/traces"),
        ] {
            let (exporter, _) = env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", base)]);
            assert_eq!(exporter.unwrap().url.path, path, "{base}");
        }
        let (exporter, _) = env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://b:2/custom"),
        ]);
        let url = exporter.unwrap().url;
        assert_eq!(
            (url.host.as_str(), url.port, url.path.as_str()),
            ("b", 2, "/custom")
        );
    }

    #[test]
    fn protocols_other_than_otlp_http_are_refused_with_a_warning() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        let (exporter, _) = env(&[endpoint]);
        assert_eq!(exporter.unwrap().protocol, Protocol::Protobuf);
        let (exporter, _) = env(&[endpoint, ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")]);
        assert_eq!(exporter.unwrap().protocol, Protocol::Json);
        let (exporter, _) = env(&[
            endpoint,
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"),
        ]);
        assert_eq!(exporter.unwrap().protocol, Protocol::Protobuf);
        let (exporter, warnings) = env(&[endpoint, ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]);
        assert!(exporter.is_none());
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("`grpc` is not supported"),
            "{warnings:?}"
        );
    }

    #[test]
    fn https_is_refused_with_a_warning() {
        let (exporter, warnings) = env(&[(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "https://collector.example:4318",
        )]);
        assert!(exporter.is_none());
        assert!(warnings[0].contains("https"), "{warnings:?}");
    }

    #[test]
    fn timeouts_are_milliseconds_with_a_traces_override() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        let (exporter, _) = env(&[endpoint]);
        assert_eq!(exporter.unwrap().timeout, Duration::from_millis(1000));
        let (exporter, _) = env(&[endpoint, ("OTEL_EXPORTER_OTLP_TIMEOUT", "250")]);
        assert_eq!(exporter.unwrap().timeout, Duration::from_millis(250));
        let (exporter, _) = env(&[
            endpoint,
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "250"),
            ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "40"),
        ]);
        assert_eq!(exporter.unwrap().timeout, Duration::from_millis(40));
        for bad in ["0", "-5", "1.5", "soon"] {
            let (exporter, warnings) = env(&[endpoint, ("OTEL_EXPORTER_OTLP_TIMEOUT", bad)]);
            assert_eq!(exporter.unwrap().timeout, DEFAULT_TIMEOUT, "{bad}");
            assert_eq!(warnings.len(), 1, "{bad}");
        }
    }

    #[test]
    fn headers_are_percent_decoded_and_injection_is_refused() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        let (exporter, warnings) = env(&[
            endpoint,
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "api-key = secret%20value , x-team=a%2Cb;prop=1,broken,evil=a%0d%0aHost: x,bad name=1",
            ),
        ]);
        assert_eq!(
            exporter.unwrap().headers,
            vec![
                ("api-key".to_string(), "secret value".to_string()),
                ("x-team".to_string(), "a,b".to_string()),
            ]
        );
        assert_eq!(warnings.len(), 3, "{warnings:#?}");
        let (exporter, _) = env(&[
            endpoint,
            ("OTEL_EXPORTER_OTLP_HEADERS", "a=1"),
            ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "b=2"),
        ]);
        assert_eq!(exporter.unwrap().headers, vec![("b".into(), "2".into())]);
    }

    #[test]
    fn the_service_name_variable_wins_over_the_resource_attributes() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        let (exporter, _) = env(&[endpoint]);
        assert_eq!(
            exporter.unwrap().resource,
            vec![("service.name".into(), "phaselint".into())]
        );
        let attributes = (
            "OTEL_RESOURCE_ATTRIBUTES",
            "service.name=from-attrs,deployment.environment=ci,team=a%3Db,deployment.environment=prod",
        );
        let (exporter, _) = env(&[endpoint, attributes]);
        assert_eq!(
            exporter.unwrap().resource,
            vec![
                ("service.name".into(), "from-attrs".into()),
                ("deployment.environment".into(), "prod".into()),
                ("team".into(), "a=b".into()),
            ]
        );
        let (exporter, _) = env(&[endpoint, attributes, ("OTEL_SERVICE_NAME", "orchestrator")]);
        assert_eq!(
            exporter.unwrap().resource[0],
            ("service.name".into(), "orchestrator".into())
        );
    }

    #[test]
    fn traceparent_gives_the_parent_and_tracestate_is_carried() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        let (exporter, warnings) = env(&[
            endpoint,
            (
                "TRACEPARENT",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            ),
            ("TRACESTATE", "congo=t61rcWkgMzE"),
        ]);
        assert!(warnings.is_empty());
        let parent = exporter.unwrap().parent.unwrap();
        assert_eq!(parent.trace_id[0], 0x0a);
        assert_eq!(parent.trace_id[15], 0x9c);
        assert_eq!(
            parent.span_id,
            [0xb7, 0xad, 0x6b, 0x71, 0x69, 0x20, 0x33, 0x31]
        );
        assert!(parent.sampled());
        assert_eq!(parent.trace_state, "congo=t61rcWkgMzE");
    }

    #[test]
    fn an_invalid_traceparent_is_ignored_with_a_warning() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        for bad in [
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "00_0af7651916cd43dd8448eb211c80319c_b7ad6b7169203331_01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333é-1",
        ] {
            let (exporter, warnings) = env(&[endpoint, ("TRACEPARENT", bad)]);
            assert!(exporter.unwrap().parent.is_none(), "{bad}");
            assert_eq!(warnings.len(), 1, "{bad}");
            assert!(warnings[0].starts_with("TRACEPARENT"), "{bad}");
        }
        // A later version is read by its first four fields.
        let later =
            parse_traceparent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-more");
        assert!(later.is_ok());
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b%2c").as_deref(), Some("a b,"));
        assert_eq!(percent_decode("%C3%A9").as_deref(), Some("é"));
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%2"), None);
        assert_eq!(percent_decode("%ff"), None);
    }
}
