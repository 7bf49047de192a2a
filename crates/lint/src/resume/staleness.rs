//! Staleness: how old each checked field is, read from
//! ContextCore's `_cc_propagation` provenance layout.

use std::collections::HashMap;

use jiff::Timestamp;
use serde_json::Value;

use crate::duration::{format_age_beside, format_seconds};
use crate::model::{FieldSeverity, Recovery, StalenessCheck};
use crate::resume::ResumeError;
use crate::resume::document::type_name;

/// The context key ContextCore's `PropagationTracker` stamps fields under.
pub(crate) const PROVENANCE_KEY: &str = "_cc_propagation";

/// Provenance as read from one context.
pub(crate) enum Provenance {
    /// No `_cc_propagation` key: the tracker was not used (REQ-10-013).
    Absent,
    /// Field path -> the `set_at` text of its stamp.
    Present(HashMap<String, String>),
}

/// Reads `_cc_propagation`, refusing anything that is not the layout
/// ContextCore writes: a mapping of field -> {origin_phase, set_at,
/// value_hash, ...} with string values for those three keys.
pub(crate) fn read_provenance(context: &Value) -> Result<Provenance, ResumeError> {
    let Some(raw) = context.get(PROVENANCE_KEY) else {
        return Ok(Provenance::Absent);
    };
    let malformed = |message: String| ResumeError::MalformedContext { message };
    let Value::Object(stamps) = raw else {
        return Err(malformed(format!(
            "`{PROVENANCE_KEY}` must be a mapping of field name to provenance record, found {}",
            type_name(raw)
        )));
    };
    let mut set_at = HashMap::with_capacity(stamps.len());
    for (field, stamp) in stamps {
        let Value::Object(record) = stamp else {
            return Err(malformed(format!(
                "`{PROVENANCE_KEY}.{field}` must be a mapping with origin_phase, set_at and value_hash, found {}",
                type_name(stamp)
            )));
        };
        for key in ["origin_phase", "value_hash"] {
            if let Some(v) = record.get(key)
                && !v.is_string()
            {
                return Err(malformed(format!(
                    "`{PROVENANCE_KEY}.{field}.{key}` must be a string, found {}",
                    type_name(v)
                )));
            }
        }
        match record.get("set_at") {
            Some(Value::String(text)) => {
                set_at.insert(field.clone(), text.clone());
            }
            Some(other) => {
                return Err(malformed(format!(
                    "`{PROVENANCE_KEY}.{field}.set_at` must be an ISO 8601 timestamp string, found {}",
                    type_name(other)
                )));
            }
            None => {
                return Err(malformed(format!(
                    "`{PROVENANCE_KEY}.{field}` has no `set_at` timestamp"
                )));
            }
        }
    }
    Ok(Provenance::Present(set_at))
}

/// Parses an RFC 3339 / ISO 8601 instant with `Z` or a numeric offset.
pub fn parse_timestamp(text: &str) -> Result<Timestamp, String> {
    text.trim().parse::<Timestamp>().map_err(|e| e.to_string())
}

/// One staleness check evaluated against one context.
#[derive(Clone, Debug)]
pub(crate) struct Evaluation {
    pub(crate) field: String,
    pub(crate) max_age_seconds: i64,
    pub(crate) severity: FieldSeverity,
    /// `None` when the check names no strategy.
    pub(crate) recovery: Option<Recovery>,
    pub(crate) description: Option<String>,
    pub(crate) set_at: Option<String>,
    /// Whole seconds from `set_at` to now, truncated toward zero; negative
    /// when `set_at` is in the future; `None` when unknown.
    pub(crate) elapsed_seconds: Option<i64>,
    pub(crate) state: State,
    pub(crate) reason: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Fresh,
    Stale,
    /// No `_cc_propagation` at all: neither stale nor fresh.
    Unknown,
}

impl Evaluation {
    pub(crate) fn is_stale(&self) -> bool {
        self.state == State::Stale
    }

    /// `recovery: fail` blocks whatever `on_stale` says.
    pub(crate) fn blocks(&self) -> bool {
        crate::model::stale_field_blocks(self.severity, self.recovery)
    }

    pub(crate) fn missing_provenance(&self) -> bool {
        self.set_at.is_none()
    }
}

const NANOS: i128 = 1_000_000_000;

pub(crate) fn evaluate(
    checks: &[StalenessCheck],
    provenance: &Provenance,
    now: Timestamp,
    max_clock_skew: u64,
) -> Vec<Evaluation> {
    checks
        .iter()
        .filter_map(|check| {
            let field = check.field.as_ref()?.value.as_str().to_string();
            let max_age_seconds = check.max_age_seconds.as_ref().map_or(0, |m| m.value);
            let mut evaluation = Evaluation {
                field,
                max_age_seconds,
                severity: check.on_stale(),
                recovery: check.recovery.as_ref().map(|r| r.value),
                description: check.description.as_ref().map(|d| d.value.clone()),
                set_at: None,
                elapsed_seconds: None,
                state: State::Unknown,
                reason: String::new(),
            };
            judge(&mut evaluation, provenance, now, max_clock_skew);
            Some(evaluation)
        })
        .collect()
}

fn judge(e: &mut Evaluation, provenance: &Provenance, now: Timestamp, max_clock_skew: u64) {
    let stamps = match provenance {
        Provenance::Absent => {
            e.state = State::Unknown;
            e.reason = format!(
                "the context has no `{PROVENANCE_KEY}` key: age unknown, neither stale nor fresh (REQ-10-013)"
            );
            return;
        }
        Provenance::Present(stamps) => stamps,
    };
    let Some(text) = stamps.get(&e.field) else {
        e.state = State::Stale;
        e.reason = format!(
            "no provenance stamp under `{PROVENANCE_KEY}.{}`: age unknown, treated as stale (fail closed)",
            e.field
        );
        return;
    };
    e.set_at = Some(text.clone());
    let set_at = match parse_timestamp(text) {
        Ok(t) => t,
        Err(error) => {
            e.state = State::Stale;
            e.reason = format!(
                "set_at `{text}` is not an RFC 3339 timestamp with `Z` or an offset ({error}): treated as stale"
            );
            return;
        }
    };
    let elapsed_ns = now.as_nanosecond() - set_at.as_nanosecond();
    // Whole seconds rounded away from zero: the limits are whole seconds,
    // so the rounded figure is over a limit exactly when the exact one is,
    // and a report never says "10m 0s old, older than max_age_seconds 600".
    let whole = elapsed_ns.unsigned_abs().div_ceil(NANOS.unsigned_abs());
    e.elapsed_seconds = i64::try_from(whole)
        .ok()
        .map(|s| if elapsed_ns < 0 { -s } else { s });
    let elapsed = e.elapsed_seconds.unwrap_or(i64::MAX);
    let skew_ns = i128::from(max_clock_skew) * NANOS;
    if elapsed_ns < 0 && -elapsed_ns > skew_ns {
        e.state = State::Stale;
        e.reason = format!(
            "set_at {text} is {}, beyond max_clock_skew {}: clock skew, treated as stale",
            format_age_beside(elapsed, max_clock_skew),
            format_seconds(max_clock_skew)
        );
        return;
    }
    if e.max_age_seconds <= 0 {
        e.state = State::Stale;
        e.reason = format!(
            "max_age_seconds is {}: always stale on resume",
            e.max_age_seconds
        );
        return;
    }
    if elapsed_ns < 0 {
        e.state = State::Fresh;
        e.reason = format!(
            "set_at {text} is {}, within max_clock_skew {}: fresh",
            format_age_beside(elapsed, max_clock_skew),
            format_seconds(max_clock_skew)
        );
    } else if elapsed_ns > i128::from(e.max_age_seconds) * NANOS {
        e.state = State::Stale;
        e.reason = format!(
            "{}, older than max_age_seconds {}",
            format_age_beside(elapsed, e.max_age_seconds.unsigned_abs()),
            e.max_age_seconds
        );
    } else {
        e.state = State::Fresh;
        e.reason = format!(
            "{}, within max_age_seconds {}",
            format_age_beside(elapsed, e.max_age_seconds.unsigned_abs()),
            e.max_age_seconds
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_with_z_offsets_and_fractions() {
        let z = parse_timestamp("2026-03-01T12:00:00Z").unwrap();
        let offset = parse_timestamp("2026-03-01T14:00:00+02:00").unwrap();
        let python = parse_timestamp("2026-03-01T12:00:00.123456+00:00").unwrap();
        assert_eq!(z, offset);
        assert!(python > z);
        assert!(parse_timestamp("2026-03-01T12:00:00").is_err(), "no offset");
        assert!(parse_timestamp("yesterday").is_err());
    }

    /// The checks of a contract with one staleness check per field named.
    fn checks(fields: &[&str]) -> Vec<StalenessCheck> {
        let entries: String = fields
            .iter()
            .map(|f| format!("        - {{ field: {f}, max_age_seconds: 600 }}\n"))
            .collect();
        let text = format!(
            "schema_version: '1'\npipeline_id: p\nphases:\n  a: {{}}\ncheckpoint_integrity:\n  - checkpoint_id: k\n    phase: a\n    on_resume:\n      staleness_checks:\n{entries}"
        );
        let analysis = crate::analyze(&text, &crate::config::Settings::default());
        analysis.contract().unwrap().checkpoints[0]
            .on_resume
            .staleness_checks
            .clone()
    }

    fn states(context: serde_json::Value, fields: &[&str]) -> Vec<(State, Option<i64>)> {
        let provenance = read_provenance(&context).unwrap();
        let now = parse_timestamp("2026-03-01T12:00:00Z").unwrap();
        evaluate(&checks(fields), &provenance, now, 300)
            .into_iter()
            .map(|e| (e.state, e.elapsed_seconds))
            .collect()
    }

    #[test]
    fn age_against_max_age_with_the_clock_skew_and_fail_closed_unknowns() {
        let stamp =
            |at: &str| serde_json::json!({"origin_phase": "a", "set_at": at, "value_hash": "h"});
        let context = serde_json::json!({"_cc_propagation": {
            "fresh": stamp("2026-03-01T11:55:00Z"),
            "old": stamp("2026-03-01T11:00:00Z"),
            "soon": stamp("2026-03-01T12:04:00Z"),
            "future": stamp("2026-03-01T13:00:00Z"),
            "garbled": stamp("noon"),
        }});
        let found = states(
            context,
            &["fresh", "old", "soon", "future", "garbled", "unstamped"],
        );
        assert_eq!(
            found,
            [
                (State::Fresh, Some(300)),
                (State::Stale, Some(3600)),
                // Within the 300 s skew: fresh.
                (State::Fresh, Some(-240)),
                // Beyond it: stale, with an explicit reason.
                (State::Stale, Some(-3600)),
                // Unparseable and unstamped: stale with an unknown age.
                (State::Stale, None),
                (State::Stale, None),
            ]
        );
        // No `_cc_propagation` at all: neither stale nor fresh (REQ-10-013).
        assert_eq!(
            states(serde_json::json!({"x": 1}), &["x"]),
            [(State::Unknown, None)]
        );
    }
}
