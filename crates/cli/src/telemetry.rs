//! `resume-check`'s OpenTelemetry span (REQ-10-009): when an OTLP endpoint
//! is configured, one span `phaselint.resume_check` whose events are the
//! report's `events`, sent by `phaselint_otlp` once the answer is printed.
//! Only `resume::run` calls this module, so no other command (`lsp`,
//! `lint`, `approve`, ...) can export. Nothing here changes the verdict,
//! the exit code or stdout: a failed export is one warning on stderr.

use std::cell::RefCell;
use std::time::SystemTime;

use phaselint_otlp::{Event, Exporter, Span, Status, Value};

use crate::resume::ResumeCheckArgs;

/// The span's name.
pub const SPAN_NAME: &str = "phaselint.resume_check";

/// What the check answered, as `resume::answer` and `resume::no_verdict`
/// leave it while a span is being recorded.
enum Answer {
    /// The report, serialized as `--format json` prints it.
    Report(serde_json::Value),
    NoVerdict(String),
}

thread_local! {
    /// `Some` only between `Recording::start` and `Recording::finish`, on
    /// the thread that runs the check: with no endpoint it stays `None`
    /// and `record_*` do nothing.
    static RECORDING: RefCell<Option<Option<Answer>>> = const { RefCell::new(None) };
}

/// A resume check being recorded for export.
pub struct Recording {
    exporter: Exporter,
    start: SystemTime,
}

impl Recording {
    /// A recording when the environment configures an endpoint, after
    /// printing what in the configuration cannot be used; `None` (and no
    /// further telemetry code) otherwise.
    pub fn start() -> Option<Recording> {
        let (exporter, warnings) = phaselint_otlp::from_env(|name| std::env::var(name).ok());
        for warning in warnings {
            eprintln!(
                "phaselint: warning: {}",
                phaselint_render::terminal::inline(&bounded(&warning))
            );
        }
        let exporter = exporter?;
        RECORDING.with(|r| *r.borrow_mut() = Some(None));
        Some(Recording {
            exporter,
            start: SystemTime::now(),
        })
    }

    /// Exports the span of the check that just answered `exit_code`.
    pub fn finish(self, args: &ResumeCheckArgs, exit_code: u8) {
        let answer = RECORDING.with(|r| r.borrow_mut().take()).flatten();
        let span = span(args, answer, exit_code, self.start, SystemTime::now());
        if let Err(reason) = self.exporter.export(&span) {
            // The reason may quote the collector's answer: shown, never
            // written to the terminal as control sequences.
            eprintln!(
                "phaselint: warning: could not export the resume check's span to {}: {}",
                phaselint_render::terminal::inline(&bounded(&self.exporter.url.text)),
                phaselint_render::terminal::inline(&bounded(&reason))
            );
        }
    }
}

/// The most of a warning shown: a warning quotes the variable it is about,
/// and a variable (a TRACEPARENT, a header list) can be any length.
const WARNING_SHOWN: usize = 1024;

/// `text` whole when short; otherwise its start and its end (where the
/// reason is) around the number of characters left out.
fn bounded(text: &str) -> std::borrow::Cow<'_, str> {
    let count = text.chars().count();
    if count <= WARNING_SHOWN {
        return std::borrow::Cow::Borrowed(text);
    }
    let head: String = text.chars().take(WARNING_SHOWN / 2).collect();
    let tail: String = text.chars().skip(count - WARNING_SHOWN / 4).collect();
    let left_out = count - WARNING_SHOWN / 2 - WARNING_SHOWN / 4;
    std::borrow::Cow::Owned(format!("{head}[... {left_out} characters ...]{tail}"))
}

/// Keeps the report for the span, when one is being recorded.
pub fn record_report(report: impl FnOnce() -> Option<serde_json::Value>) {
    RECORDING.with(|r| {
        if let Some(answer) = r.borrow_mut().as_mut() {
            *answer = report().map(Answer::Report);
        }
    });
}

/// Keeps the reason there is no verdict, when a span is being recorded.
pub fn record_no_verdict(message: &str) {
    RECORDING.with(|r| {
        if let Some(answer) = r.borrow_mut().as_mut() {
            *answer = Some(Answer::NoVerdict(message.to_string()));
        }
    });
}

/// Which kind of check `args` ask for, as `resume::run` dispatches them.
fn kind(args: &ResumeCheckArgs) -> &'static str {
    if args.manifest.is_some() {
        "manifest"
    } else if args.handoff.is_some() {
        "handoff"
    } else if args.harness_dir.is_some() && args.contract.is_none() {
        "harness"
    } else {
        "contract"
    }
}

/// The span of one check. Its attributes: `phaselint.resume_check.kind`,
/// `.decision` (`resume`, `blocked`, `denied` or `no_verdict`),
/// `.exit_code`, `.mode`, `.passed` and `checkpoint.id`/`checkpoint.phase`
/// when the check has them, `.error` with no verdict (and status error).
/// Its events: the report's `events`, each attribute as the JSON report
/// carries it; a report without events gives a span without events.
fn span(
    args: &ResumeCheckArgs,
    answer: Option<Answer>,
    exit_code: u8,
    start: SystemTime,
    end: SystemTime,
) -> Span {
    let text = |s: &str| Value::String(s.to_string());
    let mut attributes = vec![
        ("phaselint.resume_check.kind".to_string(), text(kind(args))),
        (
            "phaselint.resume_check.exit_code".to_string(),
            Value::Int(i64::from(exit_code)),
        ),
        (
            "phaselint.resume_check.mode".to_string(),
            text(crate::resume::mode(args.mode).as_str()),
        ),
    ];
    let mut events = Vec::new();
    let status = match answer {
        Some(Answer::Report(report)) => {
            let field = |key: &str| report.get(key).and_then(serde_json::Value::as_str);
            if let Some(decision) = field("decision") {
                attributes.push(("phaselint.resume_check.decision".into(), text(decision)));
            }
            if let Some(passed) = report.get("passed").and_then(serde_json::Value::as_bool) {
                attributes.push(("phaselint.resume_check.passed".into(), Value::Bool(passed)));
            }
            if let Some(id) = field("checkpoint_id").or(args.checkpoint.as_deref()) {
                attributes.push(("checkpoint.id".into(), text(id)));
            }
            if let Some(phase) = field("phase") {
                attributes.push(("checkpoint.phase".into(), text(phase)));
            }
            if let Some(list) = report.get("events").and_then(serde_json::Value::as_array) {
                events = list.iter().filter_map(event).collect();
            }
            Status::Unset
        }
        Some(Answer::NoVerdict(message)) => {
            attributes.push(("phaselint.resume_check.decision".into(), text("no_verdict")));
            if let Some(id) = &args.checkpoint {
                attributes.push(("checkpoint.id".into(), text(id)));
            }
            attributes.push(("phaselint.resume_check.error".into(), text(&message)));
            Status::Error(message)
        }
        None => {
            attributes.push(("phaselint.resume_check.decision".into(), text("no_verdict")));
            Status::Error("the resume check gave no answer".into())
        }
    };
    Span {
        name: SPAN_NAME.into(),
        start,
        end,
        attributes,
        events,
        status,
    }
}

/// One of the report's events: its name, its `timestamp` (the check's
/// `now`) and its attributes, each a JSON string, boolean or number. A
/// null (which the report never writes: an unknown value is left out) is
/// left out here too.
fn event(value: &serde_json::Value) -> Option<Event> {
    let name = value.get("name")?.as_str()?;
    let time = value
        .get("timestamp")
        .and_then(serde_json::Value::as_str)
        .and_then(|t| phaselint_lint::resume::parse_timestamp(t).ok())
        .map_or(0, |t| u64::try_from(t.as_nanosecond()).unwrap_or(0));
    let attributes = value
        .get("attributes")
        .and_then(serde_json::Value::as_object)
        .map(|map| {
            map.iter()
                .filter_map(|(key, value)| Some((key.clone(), attribute(value)?)))
                .collect()
        })
        .unwrap_or_default();
    Some(Event {
        name: name.to_string(),
        time_unix_nano: time,
        attributes,
    })
}

fn attribute(value: &serde_json::Value) -> Option<Value> {
    Some(match value {
        serde_json::Value::Null => return None,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Double(n.as_f64()?),
        },
        other => Value::String(other.to_string()),
    })
}
