//! The state keys of a `state_snapshot` or `database_savepoint` checkpoint
//! and their hash: `sha256:` and the hex SHA-256 of, for each key in
//! listed order, the key as listed, a NUL byte, the hex SHA-256 of the
//! canonical JSON of its value (keys sorted, no whitespace) and a newline,
//! the same shape as the hash of scope files. The state is a JSON or YAML
//! mapping (`--state FILE`); a key is looked up as written at its top
//! level, or else as a dotted path (`app.mode` is `mode` in `app`).

use serde::Serialize;
use serde_json::Value;
use sha2::Digest;

use super::document::canonical_json;
use super::manifest::combined_hash;
use crate::input;

/// One state key of a report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StateKey {
    pub key: String,
    pub present: bool,
    /// The hex SHA-256 of its value's canonical JSON.
    pub sha256: Option<String>,
}

/// The value `key` names in `state`: the top-level key spelled so, or
/// the dotted path. `Err` when both name a value (which one the snapshot
/// meant cannot be told).
pub fn state_value<'a>(state: &'a Value, key: &str) -> Result<Option<&'a Value>, String> {
    let literal = state.as_object().and_then(|map| map.get(key));
    let dotted = if key.contains('.') {
        key.split('.')
            .try_fold(state, |value, name| value.as_object()?.get(name))
    } else {
        None
    };
    match (literal, dotted) {
        (Some(_), Some(_)) => Err(format!(
            "state key `{key}` names both the top-level key `{key}` and the dotted path through `{}`; rename one so the key names one value",
            key.split('.').next().unwrap_or(key)
        )),
        (Some(value), None) | (None, Some(value)) => Ok(Some(value)),
        (None, None) => Ok(None),
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
                .contains("names both")
        );
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
