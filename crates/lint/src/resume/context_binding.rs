//! What an approval binds of the context (CB-002: no hidden widening): the
//! values of the entry fields of the phases the run resumes into, hashed as
//! canonical JSON with the `_cc_*` bookkeeping keys left out, so an approval
//! given for `plan.target_paths: ["/srv/app"]` does not also approve
//! `["/", "/etc"]`.

use std::collections::BTreeMap;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::model::Phase;
use crate::resume::document::write_canonical_without;

/// The prefix of the keys ContextCore keeps its own bookkeeping under
/// (`_cc_propagation`, `_cc_checkpoint_approvals`): not part of what is
/// approved, and rewritten by the run as it goes.
pub(crate) const BOOKKEEPING_PREFIX: &str = "_cc_";

/// The entry fields of the phases resumed into, as they are in one context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextBinding {
    /// The field names, sorted, each once.
    pub(crate) fields: Vec<String>,
    /// Hex SHA-256 of the canonical JSON of `{field: value}` (a missing
    /// field is `null`).
    pub(crate) digest: String,
    /// Hex SHA-256 of each field's value alone, to name what changed.
    pub(crate) field_digests: BTreeMap<String, String>,
}

impl ContextBinding {
    /// The binding of `context` for a resume into `next`.
    pub fn of(next: &[&Phase], context: &Value) -> Self {
        let mut fields: Vec<String> = next
            .iter()
            .flat_map(|p| p.entry_fields())
            .map(|f| f.name.value.as_str().to_string())
            .filter(|name| !name.starts_with(BOOKKEEPING_PREFIX))
            .collect();
        fields.sort();
        fields.dedup();
        let mut whole = Sha256::new();
        let mut field_digests = BTreeMap::new();
        whole.update(b"{");
        for (i, name) in fields.iter().enumerate() {
            let value = value_covering(context, name);
            if i > 0 {
                whole.update(b",");
            }
            whole.update(Value::String(name.clone()).to_string().as_bytes());
            whole.update(b":");
            let mut one = Sha256::new();
            {
                let mut sink = |text: &str| {
                    whole.update(text.as_bytes());
                    one.update(text.as_bytes());
                };
                write_canonical_without(value, BOOKKEEPING_PREFIX, &mut sink);
            }
            field_digests.insert(name.clone(), crate::input::hex(&one.finalize()));
        }
        whole.update(b"}");
        ContextBinding {
            fields,
            digest: crate::input::hex(&whole.finalize()),
            field_digests,
        }
    }

    /// The fields whose values differ from the ones `recorded` were taken
    /// from (every bound field when the record names none of them: then
    /// only the whole digest says that something changed).
    pub(crate) fn changed_since(&self, recorded: Option<&BTreeMap<String, String>>) -> Vec<String> {
        let Some(recorded) = recorded else {
            return self.fields.clone();
        };
        let mut changed: Vec<String> = self
            .field_digests
            .iter()
            .filter(|(name, digest)| recorded.get(*name) != Some(*digest))
            .map(|(name, _)| name.clone())
            .collect();
        // A field the approval covered that the phases no longer read.
        changed.extend(
            recorded
                .keys()
                .filter(|name| !self.field_digests.contains_key(*name))
                .cloned(),
        );
        changed.sort();
        changed
    }
}

/// The value a field name covers: the value at its path, or for a name
/// with a `*` segment the whole value under the part before it (every
/// element the wildcard matches, and any added later). `null` when absent.
fn value_covering<'v>(context: &'v Value, name: &str) -> &'v Value {
    let mut value = context;
    for segment in name.split('.') {
        if segment == "*" {
            break;
        }
        value = match value {
            Value::Object(map) => map.get(segment).unwrap_or(&Value::Null),
            Value::Array(items) => segment
                .parse::<usize>()
                .ok()
                .and_then(|i| items.get(i))
                .unwrap_or(&Value::Null),
            _ => &Value::Null,
        };
    }
    value
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::config::Settings;

    fn binding(context: Value) -> ContextBinding {
        let analysis = crate::analyze(
            "schema_version: '1'\npipeline_id: p\nphases:\n  plan: {}\n  deploy:\n    entry:\n      required:\n        - name: plan.target_paths\n        - name: _cc_propagation\n      enrichment:\n        - name: docs.*.id\n",
            &Settings::default(),
        );
        let contract = analysis.contract().unwrap();
        ContextBinding::of(&[&contract.phases[1]], &context)
    }

    #[test]
    fn the_entry_fields_values_are_bound_and_bookkeeping_is_not() {
        let base = binding(json!({"plan": {"target_paths": ["/srv/app"]}, "other": 1}));
        assert_eq!(base.fields, ["docs.*.id", "plan.target_paths"]);
        // What the phase does not read, and the run's bookkeeping, may change.
        let same = binding(json!({
            "plan": {"target_paths": ["/srv/app"], "_cc_note": "x"},
            "other": 2,
            "_cc_propagation": {"plan.target_paths": {"set_at": "2026-01-01T00:00:00Z"}}
        }));
        assert_eq!(same.digest, base.digest);
        let widened = binding(json!({"plan": {"target_paths": ["/", "/etc"]}}));
        assert_ne!(widened.digest, base.digest);
        assert_eq!(
            widened.changed_since(Some(&base.field_digests)),
            ["plan.target_paths"]
        );
        // A wildcard binds everything under its prefix, additions included.
        let added = binding(json!({"plan": {"target_paths": ["/srv/app"]}, "docs": [{"id": 1}]}));
        assert_eq!(
            added.changed_since(Some(&base.field_digests)),
            ["docs.*.id"]
        );
    }

    #[test]
    fn a_missing_field_is_null_so_adding_it_changes_the_digest() {
        let missing = binding(json!({}));
        let null = binding(json!({"plan": {"target_paths": null}}));
        assert_eq!(missing.digest, null.digest);
        assert_ne!(
            missing.digest,
            binding(json!({"plan": {"target_paths": []}})).digest
        );
    }
}
