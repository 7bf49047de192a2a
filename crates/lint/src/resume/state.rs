//! The state keys of a `state_snapshot` or `database_savepoint` checkpoint
//! and their hash: `sha256:` and the hex SHA-256 of, for each key in
//! listed order, the key as listed, a NUL byte, the hex SHA-256 of the
//! canonical JSON of its value (keys sorted, no whitespace) and a newline,
//! the same shape as the hash of scope files. The state is a JSON or YAML
//! mapping (`--state FILE`); a key is looked up through nested mappings,
//! each step taking one or more of its dot-separated parts (`app.mode` is
//! the top-level key `app.mode`, or `mode` in `app`); when more than one
//! reading names a value the key is ambiguous and nothing is hashed.
//!
//! A state is read with exact numbers only (`parse_state_within`): a
//! number the readers cannot hold exactly (an integer beyond 64 bits, a
//! float with more digits than a 64-bit float keeps, `.inf`, `.nan`,
//! `1e400`) would hash like a different number, or like a string, so the
//! state is refused instead.

use serde::Serialize;
use serde_json::Value;
use sha2::Digest;

use super::document::{DocumentError, DocumentFormat, canonical_json, parse_document_within};
use super::manifest_files::combined_hash;
use crate::input;

/// One state key of a report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StateKey {
    pub key: String,
    pub present: bool,
    /// The hex SHA-256 of its value's canonical JSON.
    pub sha256: Option<String>,
}

/// How many mapping look-ups one key may take while every reading of its
/// dotted parts is tried (a key of many parts over a state built to match
/// many of them would otherwise take exponential time).
const MAX_KEY_LOOKUPS: usize = 10_000;

/// The value `key` names in `state`: the one reading of its dot-separated
/// parts as nested keys (each step one part or several joined by dots)
/// that exists. `Err` when several readings name a value (which one the
/// snapshot meant cannot be told) or trying them all takes too long.
pub(crate) fn state_value<'a>(state: &'a Value, key: &str) -> Result<Option<&'a Value>, String> {
    let parts: Vec<&str> = key.split('.').collect();
    let mut found: Vec<(Vec<String>, &Value)> = Vec::new();
    let mut lookups = 0usize;
    let mut path = Vec::new();
    readings(state, &parts, &mut path, &mut found, &mut lookups)?;
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop().map(|(_, value)| value)),
        _ => {
            let shown: Vec<String> = found
                .iter()
                .map(|(path, _)| {
                    path.iter()
                        .map(|step| format!("`{step}`"))
                        .collect::<Vec<_>>()
                        .join(" > ")
                })
                .collect();
            Err(format!(
                "state key `{key}` names more than one value ({}); rename keys so it names one",
                shown.join(" and ")
            ))
        }
    }
}

/// Collects into `found` (at most two) the values reached by reading
/// `parts` from `value`, each step one or more parts joined by dots.
fn readings<'a>(
    value: &'a Value,
    parts: &[&str],
    path: &mut Vec<String>,
    found: &mut Vec<(Vec<String>, &'a Value)>,
    lookups: &mut usize,
) -> Result<(), String> {
    if parts.is_empty() {
        found.push((path.clone(), value));
        return Ok(());
    }
    let Some(map) = value.as_object() else {
        return Ok(());
    };
    for take in 1..=parts.len() {
        if found.len() > 1 {
            return Ok(());
        }
        *lookups += 1;
        if *lookups > MAX_KEY_LOOKUPS {
            return Err(format!(
                "state key `{}` has too many ways to be read through the state's nested keys (more than {MAX_KEY_LOOKUPS} look-ups); use a key with fewer dots",
                parts.join(".")
            ));
        }
        let name = parts[..take].join(".");
        if let Some(next) = map.get(&name) {
            path.push(name);
            readings(next, &parts[take..], path, found, lookups)?;
            path.pop();
        }
    }
    Ok(())
}

/// Reads a state (`--state FILE`) like any runtime document, but refuses
/// one holding a number that cannot be hashed exactly (see the module).
pub fn parse_state_within(
    text: &str,
    format: DocumentFormat,
    budget: u64,
) -> Result<Value, DocumentError> {
    let value = parse_document_within(text, format, budget)?;
    let trimmed = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    // The same choice `parse_document_within` made.
    let json = match format {
        DocumentFormat::Json => true,
        DocumentFormat::Yaml => false,
        DocumentFormat::Detect => trimmed.starts_with(['{', '[']),
    };
    let inexact = if json {
        exact::first_inexact_json(text)
    } else {
        exact::first_inexact_yaml(text)
    };
    match inexact {
        None => Ok(value),
        Some(number) => Err(DocumentError::InexactNumber {
            path: number.path,
            number: number.text,
            line: number.line,
            why: number.why,
        }),
    }
}

/// Each key of `keys` in `state`, hashed, and their combined hash, or
/// why it cannot be computed (a key missing or ambiguous: every one).
pub fn state_hash(state: &Value, keys: &[&str]) -> (Vec<StateKey>, Result<String, Vec<String>>) {
    let mut listed = Vec::with_capacity(keys.len());
    let mut problems = Vec::new();
    for key in keys {
        let (present, sha256) = match state_value(state, key) {
            Ok(Some(value)) => (
                true,
                Some(input::hex(&sha2::Sha256::digest(
                    canonical_json(value).as_bytes(),
                ))),
            ),
            Ok(None) => {
                problems.push(format!("state key `{key}` is not in the state"));
                (false, None)
            }
            Err(message) => {
                problems.push(message);
                (true, None)
            }
        };
        listed.push(StateKey {
            key: key.to_string(),
            present,
            sha256,
        });
    }
    if !problems.is_empty() {
        return (listed, Err(problems));
    }
    let hash = combined_hash(
        listed
            .iter()
            .map(|k| (k.key.as_str(), k.sha256.as_deref().unwrap_or_default())),
    );
    (listed, Ok(hash))
}

/// Finding numbers whose value the readers would not keep exactly.
mod exact {
    use crate::syntax::{Resolved, Scalar};

    /// A number that cannot be hashed exactly, where it is and why.
    pub(crate) struct Inexact {
        pub(crate) path: String,
        pub(crate) text: String,
        pub(crate) line: usize,
        pub(crate) why: String,
    }

    /// A step of the path to a value, as shown: `.key` or `[index]`.
    enum Frame {
        Mapping { key: Option<String> },
        Sequence { index: usize },
    }

    fn shown(frames: &[Frame]) -> String {
        let mut path = String::new();
        for frame in frames {
            match frame {
                Frame::Mapping { key: Some(key) } => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                }
                Frame::Mapping { key: None } => {}
                Frame::Sequence { index } => path.push_str(&format!("[{index}]")),
            }
        }
        if path.is_empty() {
            "the top level".into()
        } else {
            path
        }
    }

    /// The first number of a JSON text (already read successfully) that a
    /// reader turns into another number: serde_json reads an integer
    /// beyond 64 bits, and any float, as the nearest 64-bit float.
    pub(crate) fn first_inexact_json(text: &str) -> Option<Inexact> {
        let fits = |t: &str| t.parse::<i64>().is_ok() || t.parse::<u64>().is_ok();
        let bytes = text.as_bytes();
        let mut frames: Vec<Frame> = Vec::new();
        // In a mapping: whether the next string is a key.
        let mut awaiting_key = false;
        let mut line = 1;
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => line += 1,
                b'{' => {
                    frames.push(Frame::Mapping { key: None });
                    awaiting_key = true;
                }
                b'[' => frames.push(Frame::Sequence { index: 0 }),
                b'}' | b']' => {
                    frames.pop();
                }
                b',' => match frames.last_mut() {
                    Some(Frame::Mapping { .. }) => awaiting_key = true,
                    Some(Frame::Sequence { index }) => *index += 1,
                    None => {}
                },
                b'"' => {
                    let start = i;
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                    if awaiting_key && let Some(Frame::Mapping { key }) = frames.last_mut() {
                        let raw = text.get(start..=i.min(bytes.len() - 1)).unwrap_or("");
                        *key = Some(serde_json::from_str::<String>(raw).unwrap_or_default());
                        awaiting_key = false;
                    }
                }
                b'-' | b'0'..=b'9' => {
                    let start = i;
                    while i + 1 < bytes.len()
                        && matches!(bytes[i + 1], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                    {
                        i += 1;
                    }
                    let number = text.get(start..=i).unwrap_or("");
                    if let Some(why) = inexact_number(number, fits) {
                        return Some(Inexact {
                            path: shown(&frames),
                            text: number.to_string(),
                            line,
                            why,
                        });
                    }
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// The first plain scalar of a YAML text (already read successfully)
    /// that the core schema resolves to a number the reader does not keep
    /// exactly: a float beyond 64 bits' precision or range, `.inf`, `.nan`,
    /// an integer beyond 64 bits (read as a float, or as text when written
    /// in hex or octal).
    pub(crate) fn first_inexact_yaml(text: &str) -> Option<Inexact> {
        use saphyr_parser::{Event, Parser, ScalarStyle};
        let fits = |t: &str| t.parse::<i64>().is_ok();
        let mut frames: Vec<Frame> = Vec::new();
        // Whether the top mapping waits for a key (else for its value).
        let mut awaiting_key: Vec<bool> = Vec::new();
        for event in Parser::new_from_str(text) {
            let (event, span) = event.ok()?;
            let is_key = awaiting_key.last().copied().unwrap_or(false);
            match event {
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    if is_key {
                        // A collection as a key was refused by the reader.
                        return None;
                    }
                    let mapping = matches!(event, Event::MappingStart(..));
                    frames.push(if mapping {
                        Frame::Mapping { key: None }
                    } else {
                        Frame::Sequence { index: 0 }
                    });
                    awaiting_key.push(mapping);
                    continue;
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    frames.pop();
                    awaiting_key.pop();
                }
                Event::Scalar(..) | Event::Alias(..) if is_key => {
                    if let Some(Frame::Mapping { key }) = frames.last_mut() {
                        *key = match event {
                            Event::Scalar(value, ..) => Some(value.into_owned()),
                            _ => None,
                        };
                    }
                    if let Some(waiting) = awaiting_key.last_mut() {
                        *waiting = false;
                    }
                    continue;
                }
                Event::Scalar(value, ScalarStyle::Plain, ..) => {
                    let scalar = Scalar {
                        text: value.as_ref(),
                        plain: true,
                    };
                    let why = match scalar.resolve() {
                        Resolved::Float(f) if !f.is_finite() => {
                            Some("is not a finite number".to_string())
                        }
                        Resolved::Float(_) => inexact_number(value.trim_start_matches('+'), fits),
                        Resolved::Str(t) if overflowing_integer(t) => {
                            Some("is an integer beyond 64 bits".to_string())
                        }
                        _ => None,
                    };
                    if let Some(why) = why {
                        return Some(Inexact {
                            path: shown(&frames),
                            text: value.into_owned(),
                            line: span.start.line(),
                            why,
                        });
                    }
                }
                Event::Scalar(..) | Event::Alias(..) => {}
                _ => continue,
            }
            // A value ended: the next scalar of its mapping is a key, the
            // next item of its list has the next index.
            match frames.last_mut() {
                Some(Frame::Sequence { index }) => *index += 1,
                Some(Frame::Mapping { .. }) => {
                    if let Some(waiting) = awaiting_key.last_mut() {
                        *waiting = true;
                    }
                }
                None => {}
            }
        }
        None
    }

    /// An integer of the core schema (decimal, `0x…` or `0o…`) that does
    /// not fit an i64, which the reader therefore keeps as text.
    fn overflowing_integer(t: &str) -> bool {
        let (digits, radix) = if let Some(hex) = t.strip_prefix("0x") {
            (hex, 16)
        } else if let Some(oct) = t.strip_prefix("0o") {
            (oct, 8)
        } else {
            (t.strip_prefix(['-', '+']).unwrap_or(t), 10)
        };
        !digits.is_empty()
            && digits.chars().all(|c| c.is_digit(radix))
            && i64::from_str_radix(digits, radix).is_err()
    }

    /// Why the number written `text` is not read exactly, if it is not:
    /// an integer (no `.` or exponent) must fit the reader's integers
    /// (`fits`); a float must be finite and have the value of the
    /// shortest text of the 64-bit float nearest to it.
    fn inexact_number(text: &str, fits: impl Fn(&str) -> bool) -> Option<String> {
        let integer = !text.contains(['.', 'e', 'E']);
        if integer && fits(text) {
            return None;
        }
        let Ok(float) = text.parse::<f64>() else {
            return Some("is not a number phaselint can read exactly".into());
        };
        if !float.is_finite() {
            return Some("is beyond the range of a 64-bit float".into());
        }
        if integer {
            return Some(format!(
                "is an integer beyond 64 bits, which would be read as the float {float:e}"
            ));
        }
        if decimal(text) != decimal(&format!("{float:e}")) {
            return Some(format!(
                "has more digits than a 64-bit float keeps, so it would be read as {float:e}"
            ));
        }
        None
    }

    /// A decimal number as its sign, significant digits and the power of
    /// ten of the last one (`-1.50e3` is `(true, "15", 2)`); zero has no
    /// digits. `None` for an exponent beyond i64.
    fn decimal(text: &str) -> Option<(bool, String, i64)> {
        let negative = text.starts_with('-');
        let unsigned = text.trim_start_matches(['-', '+']);
        let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
            Some(at) => (&unsigned[..at], unsigned[at + 1..].parse::<i64>().ok()?),
            None => (unsigned, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = format!("{whole}{fraction}");
        let digits = digits.trim_start_matches('0');
        let significant = digits.trim_end_matches('0');
        let power = exponent
            .checked_sub(i64::try_from(fraction.len()).ok()?)?
            .checked_add(i64::try_from(digits.len() - significant.len()).ok()?)?;
        if significant.is_empty() {
            return Some((negative, String::new(), 0));
        }
        Some((negative, significant.to_string(), power))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_top_level_or_dotted() {
        let state = json!({"mode": "a", "app": {"mode": "b"}, "x.y": 1});
        assert_eq!(state_value(&state, "mode"), Ok(Some(&json!("a"))));
        assert_eq!(state_value(&state, "app.mode"), Ok(Some(&json!("b"))));
        assert_eq!(state_value(&state, "x.y"), Ok(Some(&json!(1))));
        assert_eq!(state_value(&state, "app.none"), Ok(None));
        let both = json!({"a.b": 1, "a": {"b": 2}});
        assert!(
            state_value(&both, "a.b")
                .unwrap_err()
                .contains("names more than one value")
        );
        let split = json!({"a": {"b.c": {"d": 1}}, "a.b": {"c": {"e": 1}}});
        assert_eq!(state_value(&split, "a.b.c.d"), Ok(Some(&json!(1))));
        let deep = json!({"a.b": {"c": 1}, "a": {"b": {"c": 2}}});
        assert!(state_value(&deep, "a.b.c").is_err());
    }

    #[test]
    fn many_ways_to_read_a_key_are_bounded() {
        // Every prefix of dots present at every level (3^10 readings that
        // never reach the end of the key): the look-ups stop at the bound.
        let mut level = json!(1);
        for _ in 0..10 {
            let mut map = serde_json::Map::new();
            for n in 1..=3 {
                map.insert(vec!["a"; n].join("."), level.clone());
            }
            level = Value::Object(map);
        }
        let key = vec!["a"; 40].join(".");
        assert!(state_value(&level, &key).is_err());
    }

    #[test]
    fn states_with_numbers_read_inexactly_are_refused() {
        let read = |text: &str, format| parse_state_within(text, format, 1 << 20);
        for (text, format) in [
            ("{\"n\": 100000000000000000001}", DocumentFormat::Json),
            ("{\"n\": 100000000000000000000}", DocumentFormat::Json),
            ("{\"n\": 0.10000000000000000001}", DocumentFormat::Json),
            ("{\"n\": 1e-400}", DocumentFormat::Json),
            ("n: 100000000000000000001", DocumentFormat::Yaml),
            ("n: 9223372036854775808", DocumentFormat::Yaml),
            ("n: 1e400", DocumentFormat::Yaml),
            ("n: -.inf", DocumentFormat::Yaml),
            ("n: .NaN", DocumentFormat::Yaml),
            ("n: 0.10000000000000000001", DocumentFormat::Yaml),
            ("n: 0o7777777777777777777777777", DocumentFormat::Yaml),
            ("- {k: [1, {n: 1e999}]}", DocumentFormat::Yaml),
        ] {
            assert!(
                matches!(read(text, format), Err(DocumentError::InexactNumber { .. })),
                "{text}"
            );
        }
        for (text, format) in [
            (
                "{\"n\": [18446744073709551615, -9223372036854775808, 1.5e300, 0.1, -0.0, 5e-324]}",
                DocumentFormat::Json,
            ),
            (
                "{\"k\\\"x\": \"1e400\", \"1e400\": 1}",
                DocumentFormat::Json,
            ),
            (
                "n: [9223372036854775807, 0x7fffffffffffffff, 1.50, '1e400', \"nan\", .5]\n1e400: x",
                DocumentFormat::Yaml,
            ),
        ] {
            assert!(read(text, format).is_ok(), "{text}");
        }
    }

    #[test]
    fn the_hash_is_over_canonical_values_in_listed_order() {
        let one = json!({"b": {"y": 1, "x": [true, null]}, "a": "v"});
        let same = json!({"a": "v", "b": {"x": [true, null], "y": 1}});
        let keys = ["b", "a"];
        assert_eq!(state_hash(&one, &keys).1, state_hash(&same, &keys).1);
        let expected = combined_hash([
            (
                "b",
                input::hex(&sha2::Sha256::digest(br#"{"x":[true,null],"y":1}"#)).as_str(),
            ),
            ("a", input::hex(&sha2::Sha256::digest(br#""v""#)).as_str()),
        ]);
        assert_eq!(state_hash(&one, &keys).1, Ok(expected));
        assert_ne!(state_hash(&one, &["a", "b"]).1, state_hash(&one, &keys).1);
        let (listed, missing) = state_hash(&one, &["a", "c"]);
        assert!(!listed[1].present);
        assert_eq!(
            missing,
            Err(vec!["state key `c` is not in the state".into()])
        );
    }
}
