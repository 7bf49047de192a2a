//! The checkpoint a resume check or an approval is about, found in one
//! analysis, and its target digest: the SHA-256 of the canonical JSON of
//! what the file says about it.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::Analysis;
use crate::model::{CheckpointSpec, Contract, Phase};
use crate::resume::ResumeError;
use crate::resume::document::{canonical_json, node_to_value};
use crate::syntax::Node;

/// How an E-code that a suppression comment or the configuration hid is
/// marked when the resume check refuses the contract for it anyway.
pub const SUPPRESSED_ERROR_NOTE: &str = "suppressed, but not for the resume check";

/// One checkpoint of a contract that is clean enough to check.
pub struct Target<'a> {
    pub contract: &'a Contract,
    pub spec: &'a CheckpointSpec,
    pub checkpoint_id: String,
    pub phase: &'a Phase,
    pub phase_index: usize,
    pub pipeline_id: String,
    pub digest: String,
}

impl<'a> Target<'a> {
    /// The irreversible phases a resume from this checkpoint runs next
    /// (its phase's successors): resuming into one needs a person's
    /// approval, confirmed twice.
    pub fn irreversible_next(&self, analysis: &Analysis) -> Vec<String> {
        // Without a named phase, the successors: never an error.
        super::check::next_phases(analysis, self, None)
            .map(|(next, _)| super::check::irreversible_phases(&next))
            .unwrap_or_default()
    }

    /// Finds `checkpoint_id` in the analysis. Fails (never guesses) when
    /// the contract has E-code findings, when the id is unknown or
    /// declared twice, when its phase is unknown, or when it requires
    /// approval without a policy.
    pub fn find(analysis: &'a Analysis, checkpoint_id: &str) -> Result<Target<'a>, ResumeError> {
        // Suppression comments and configured levels may hide an E-code
        // from a linter; a resume verdict on a contract with one would be
        // a verdict on something other than what the file says.
        let errors = contract_errors(analysis);
        if !errors.is_empty() {
            return Err(ResumeError::ContractHasErrors {
                findings: errors.iter().map(ToString::to_string).collect(),
            });
        }
        // The digest covers the checkpoint as written, so it is built from
        // the YAML tree, parsed again: analyses do not keep it.
        let root = crate::syntax::parse(&analysis.source, crate::syntax::Limits::default())
            .ok()
            .flatten();
        let (Some(contract), Some(root)) = (analysis.contract.as_deref(), &root) else {
            return Err(ResumeError::ContractHasErrors {
                findings: vec!["the contract could not be loaded".into()],
            });
        };
        let known = || -> Vec<String> {
            contract
                .checkpoints
                .iter()
                .filter_map(|c| c.checkpoint_id.as_ref().map(|id| id.value.clone()))
                .collect()
        };
        let mut matching = contract.checkpoints.iter().enumerate().filter(|(_, c)| {
            c.checkpoint_id
                .as_ref()
                .is_some_and(|id| id.value == checkpoint_id)
        });
        let Some((spec_index, spec)) = matching.next() else {
            return Err(ResumeError::UnknownCheckpoint {
                id: checkpoint_id.to_string(),
                known: known(),
            });
        };
        if matching.next().is_some() {
            return Err(ResumeError::InvalidCheckpoint {
                id: checkpoint_id.to_string(),
                problem: "the checkpoint_id is declared more than once (R105)".into(),
            });
        }
        let Some(phase_name) = spec.phase.as_ref() else {
            return Err(ResumeError::InvalidCheckpoint {
                id: checkpoint_id.to_string(),
                problem: "it names no phase".into(),
            });
        };
        let Some(phase_index) = contract.phase_index(&phase_name.value) else {
            return Err(ResumeError::InvalidCheckpoint {
                id: checkpoint_id.to_string(),
                problem: format!(
                    "its phase `{}` is not a declared phase (R101)",
                    phase_name.value
                ),
            });
        };
        if spec.on_resume.approval_required() && spec.on_resume.approval_policy.is_none() {
            return Err(ResumeError::InvalidCheckpoint {
                id: checkpoint_id.to_string(),
                problem: "it requires approval but declares no approval_policy (C201)".into(),
            });
        }
        let canonical = canonical_target(root, spec_index, &phase_name.value)?;
        let pipeline_id = contract
            .pipeline_id
            .as_ref()
            .map(|p| p.value.clone())
            .unwrap_or_default();
        Ok(Target {
            contract,
            spec,
            checkpoint_id: checkpoint_id.to_string(),
            phase: &contract.phases[phase_index],
            phase_index,
            pipeline_id,
            digest: sha256_hex(canonical_json(&canonical).as_bytes()),
        })
    }
}

/// An E-code finding that refuses a contract to the resume check and to
/// `approve`, at its 1-based line and column (in characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractError {
    pub line: usize,
    pub column: usize,
    pub code: &'static str,
    pub message: String,
    /// Hidden from the linter by a suppression comment or a configured
    /// level, and counted here all the same.
    pub suppressed: bool,
}

impl std::fmt::Display for ContractError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {} {}",
            self.line, self.column, self.code, self.message
        )?;
        if self.suppressed {
            write!(f, " ({SUPPRESSED_ERROR_NOTE})")?;
        }
        Ok(())
    }
}

/// Every E-code of the analysis, suppressed ones included, in file order:
/// a resume verdict on a contract with one would be a verdict on something
/// other than what the file says.
pub fn contract_errors(analysis: &Analysis) -> Vec<ContractError> {
    let at = |d: &crate::diagnostic::Diagnostic, suppressed| {
        let p = analysis.line_index.position(
            &analysis.source,
            d.span.start,
            crate::line_index::ColumnUnit::Chars,
        );
        ContractError {
            line: p.line + 1,
            column: p.column + 1,
            code: d.code,
            message: d.message.clone(),
            suppressed,
        }
    };
    let mut errors: Vec<ContractError> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.code.starts_with('E'))
        .map(|d| at(d, false))
        .chain(analysis.hidden_errors.iter().map(|d| at(d, true)))
        .collect();
    errors.sort_by_key(|e| (e.line, e.column));
    errors
}

/// The target digest of a checkpoint (docs/resume-check.md): lower-case hex
/// SHA-256 of the canonical JSON (keys sorted, no whitespace) of
///
/// ```json
/// {"checkpoint": <the checkpoint_integrity entry as written>,
///  "phase": {"definition": <phases.<name> as written>, "name": "<name>"},
///  "pipeline_id": <pipeline_id as written>}
/// ```
///
/// Values are taken from the YAML tree, so keys the file leaves out (and
/// their defaults) are absent, and any edit of the checkpoint entry or of
/// its phase changes the digest.
pub fn target_digest(analysis: &Analysis, checkpoint_id: &str) -> Result<String, ResumeError> {
    Target::find(analysis, checkpoint_id).map(|t| t.digest)
}

/// The target digest of every checkpoint, from one parse: `(id, digest)`
/// for each checkpoint with an id and a declared phase. Empty when the
/// contract has an E-code: no approval can be bound to such a contract.
pub fn target_digests(analysis: &Analysis) -> Vec<(String, String)> {
    let has_errors = analysis
        .diagnostics
        .iter()
        .chain(&analysis.hidden_errors)
        .any(|d| d.code.starts_with('E'));
    if has_errors {
        return Vec::new();
    }
    let Some(root) = crate::syntax::parse(&analysis.source, crate::syntax::Limits::default())
        .ok()
        .flatten()
    else {
        return Vec::new();
    };
    let entries = root.as_mapping().unwrap_or_default();
    let checkpoints = entries
        .iter()
        .find(|e| e.key.text == "checkpoint_integrity")
        .and_then(|e| e.value.as_sequence())
        .unwrap_or_default();
    let text = |node: Option<&Node>| node.and_then(Node::as_scalar).map(|s| s.text.to_string());
    checkpoints
        .iter()
        .enumerate()
        .filter_map(|(index, item)| {
            let fields = item.as_mapping()?;
            let get = |key: &str| fields.iter().find(|e| e.key.text == key).map(|e| &e.value);
            let id = text(get("checkpoint_id"))?;
            let phase = text(get("phase"))?;
            let canonical = canonical_target(&root, index, &phase).ok()?;
            Some((id, sha256_hex(canonical_json(&canonical).as_bytes())))
        })
        .collect()
}

fn canonical_target(root: &Node, spec_index: usize, phase: &str) -> Result<Value, ResumeError> {
    let entries = root.as_mapping().unwrap_or_default();
    let get = |key: &str| entries.iter().find(|e| e.key.text == key).map(|e| &e.value);
    let convert = |node: &Node| {
        node_to_value(node).map_err(|(key, _)| ResumeError::ContractHasErrors {
            findings: vec![format!("E002 duplicate key `{key}`")],
        })
    };
    let checkpoint = get("checkpoint_integrity")
        .and_then(Node::as_sequence)
        .and_then(|items| items.get(spec_index));
    let phase_node = get("phases")
        .and_then(Node::as_mapping)
        .and_then(|phases| phases.iter().find(|e| e.key.text == phase))
        .map(|e| &e.value);
    let (Some(checkpoint), Some(phase_node)) = (checkpoint, phase_node) else {
        return Err(ResumeError::ContractHasErrors {
            findings: vec!["the checkpoint or its phase could not be located in the file".into()],
        });
    };
    let mut phase_value = Map::new();
    phase_value.insert("definition".into(), convert(phase_node)?);
    phase_value.insert("name".into(), Value::String(phase.to_string()));
    let mut target = Map::new();
    target.insert("checkpoint".into(), convert(checkpoint)?);
    target.insert("phase".into(), Value::Object(phase_value));
    target.insert(
        "pipeline_id".into(),
        get("pipeline_id").map_or(Ok(Value::Null), convert)?,
    );
    Ok(Value::Object(target))
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for byte in digest.iter() {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_the_empty_string() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
