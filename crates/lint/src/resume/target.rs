//! The checkpoint a resume check or an approval is about, found in one
//! analysis, and its target digest: the SHA-256 of the canonical JSON of
//! what the file says about the checkpoint, its phase, and every phase the
//! run may resume into (CB-003: an approval binds the action it authorizes).

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use crate::Analysis;
use crate::model::{CheckpointSpec, Contract, Phase, SideEffects};
use crate::resume::error::{ResumeError, first_findings};
use crate::resume::facts::{CanonicalTarget, ResumeFacts, TreeIndex, hex};

/// How an E-code that a suppression comment or the configuration hid is
/// marked when the resume check refuses the contract for it anyway.
pub(crate) const SUPPRESSED_ERROR_NOTE: &str = "suppressed, but not for the resume check";

/// One checkpoint of a contract that is clean enough to check.
pub struct Target<'a> {
    /// The contract's text.
    pub(crate) source: &'a str,
    pub(crate) contract: &'a Contract,
    pub(crate) spec: &'a CheckpointSpec,
    pub(crate) checkpoint_id: String,
    pub(crate) phase: &'a Phase,
    pub(crate) phase_index: usize,
    /// Where the checkpoint is in `checkpoint_integrity`.
    pub(crate) spec_index: usize,
    pub(crate) pipeline_id: String,
    /// The phases the run may resume into: the graph successors of the
    /// checkpoint's phase, by index, in declaration order.
    pub(crate) successors: Vec<usize>,
    pub digest: String,
    /// The digest an earlier phaselint bound approvals to (version 1: the
    /// checkpoint and its phase only), so such a record is recognised and
    /// refused with "approve again" rather than as a stranger's.
    pub(crate) legacy_digest: String,
    /// The digest of the same canonical form without the checkpoint's
    /// `checkpoint_id` and the `pipeline_id`: equal for the same target
    /// under another id (`phaselint diff` recognises a renamed checkpoint
    /// by it). Binds nothing.
    pub(crate) shape_digest: String,
    /// What else the check reads from the YAML tree (entry defaults).
    pub(crate) facts: &'a ResumeFacts,
}

impl<'a> Target<'a> {
    /// The phases the run may resume into.
    pub fn successor_phases(&self) -> Vec<&'a Phase> {
        self.successors
            .iter()
            .filter_map(|&i| self.contract.phases.get(i))
            .collect()
    }

    /// The irreversible phases a resume from this checkpoint runs next
    /// (its phase's successors): resuming into one needs a person's
    /// approval, confirmed twice.
    pub fn irreversible_next(&self) -> Vec<String> {
        irreversible_phases(&self.successor_phases())
    }

    /// The canonical JSON the target digest is the SHA-256 of, as text, so
    /// an operator can read exactly what an approval binds. Built by the
    /// same writer as the digest, and checked against it: what is shown is
    /// what is bound, or nothing is shown.
    pub(crate) fn canonical_form(&self, analysis: &Analysis) -> Result<String, ResumeError> {
        let unreadable = || ResumeError::ContractHasErrors {
            findings: vec!["the contract could not be loaded".into()],
        };
        let tree = crate::syntax::parse(self.source, crate::syntax::Limits::default())
            .ok()
            .flatten()
            .ok_or_else(unreadable)?;
        let mut text = String::new();
        let canonical = CanonicalTarget::build(
            &TreeIndex::of(tree.root()),
            self.contract,
            analysis.graph(),
            self.spec_index,
            self.phase_index,
            Some(&mut text),
        )?;
        if canonical.digest != self.digest || hex(&Sha256::digest(text.as_bytes())) != self.digest {
            return Err(ResumeError::InvalidCheckpoint {
                id: self.checkpoint_id.clone(),
                problem: "its canonical form does not hash to its target digest".into(),
            });
        }
        Ok(text)
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
                findings: first_findings(errors.iter().map(ToString::to_string)),
            });
        }
        let Some(contract) = analysis.contract() else {
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
            return Err(declared_twice(checkpoint_id));
        }
        Target::at(analysis, contract, spec_index, spec, checkpoint_id)
    }

    /// Every checkpoint of the analysis, by id, as `find` finds each: one
    /// pass over the checkpoints instead of one per id (`phaselint diff`
    /// looks at all of them). Fails as `find` does on a contract with
    /// E-codes; an id declared twice maps to `find`'s refusal.
    pub(crate) fn find_all(
        analysis: &'a Analysis,
    ) -> Result<HashMap<String, Result<Target<'a>, ResumeError>>, ResumeError> {
        let errors = contract_errors(analysis);
        if !errors.is_empty() {
            return Err(ResumeError::ContractHasErrors {
                findings: first_findings(errors.iter().map(ToString::to_string)),
            });
        }
        let Some(contract) = analysis.contract() else {
            return Err(ResumeError::ContractHasErrors {
                findings: vec!["the contract could not be loaded".into()],
            });
        };
        let mut first: HashMap<&str, (usize, usize)> = HashMap::new();
        for (index, spec) in contract.checkpoints.iter().enumerate() {
            if let Some(id) = spec.checkpoint_id.as_ref() {
                first.entry(id.value.as_str()).or_insert((index, 0)).1 += 1;
            }
        }
        Ok(first
            .into_iter()
            .map(|(id, (index, count))| {
                let target = if count > 1 {
                    Err(declared_twice(id))
                } else {
                    Target::at(analysis, contract, index, &contract.checkpoints[index], id)
                };
                (id.to_string(), target)
            })
            .collect())
    }

    /// The checkpoint `spec` (at `spec_index`, the only one with its id) of
    /// a contract without E-codes.
    fn at(
        analysis: &'a Analysis,
        contract: &'a Contract,
        spec_index: usize,
        spec: &'a CheckpointSpec,
        checkpoint_id: &str,
    ) -> Result<Target<'a>, ResumeError> {
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
        // The digest covers the checkpoint as written, so it is built from
        // the YAML tree (parsed again once per analysis: analyses do not
        // keep the tree).
        let canonical = analysis.resume_facts().target(spec_index)?;
        let pipeline_id = contract
            .pipeline_id
            .as_ref()
            .map(|p| p.value.clone())
            .unwrap_or_default();
        Ok(Target {
            source: &analysis.source,
            contract,
            spec,
            checkpoint_id: checkpoint_id.to_string(),
            phase: &contract.phases[phase_index],
            phase_index,
            spec_index,
            pipeline_id,
            successors: canonical.successors.clone(),
            digest: canonical.digest.clone(),
            legacy_digest: canonical.legacy_digest.clone(),
            shape_digest: canonical.shape_digest.clone(),
            facts: analysis.resume_facts(),
        })
    }
}

fn declared_twice(checkpoint_id: &str) -> ResumeError {
    ResumeError::InvalidCheckpoint {
        id: checkpoint_id.to_string(),
        problem: "the checkpoint_id is declared more than once (R105)".into(),
    }
}

/// An E-code finding that refuses a contract to the resume check and to
/// `approve`, at its 1-based line and column (in characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractError {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) code: crate::rule_id::RuleId,
    pub(crate) message: String,
    /// Hidden from the linter by a suppression comment or a configured
    /// level, and counted here all the same.
    pub(crate) suppressed: bool,
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
        .filter(|d| d.code.is_schema_error())
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
///  "digest_version": 2,
///  "phase": {"definition": <phases.<name> as written>, "name": "<name>"},
///  "pipeline_id": <pipeline_id as written>,
///  "resumes_into": [{"definition": <phases.<next> as written>,
///                    "edges": [<each graph_topology edge to it, as written>],
///                    "name": "<next>",
///                    "node": <graph_topology.nodes.<next> as written, or null>}, ...]}
/// ```
///
/// `resumes_into` lists the graph successors of the checkpoint's phase in
/// declaration order; in declaration order (no topology) the edge is
/// `{"from": "<phase>", "to": "<next>"}`. Values are taken from the YAML
/// tree, so keys the file leaves out (and their defaults) are absent, and
/// any edit of the checkpoint entry, of its phase, or of a phase the run
/// resumes into (renamed, inserted, its entry, side effects or risk class
/// changed, the edge's condition edited) changes the digest.
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
        .any(|d| d.code.is_schema_error());
    let Some(contract) = analysis.contract().filter(|_| !has_errors) else {
        return Vec::new();
    };
    let facts = analysis.resume_facts();
    contract
        .checkpoints
        .iter()
        .enumerate()
        .filter_map(|(index, spec)| {
            let id = spec.checkpoint_id.as_ref()?;
            let canonical = facts.target(index).ok()?;
            Some((id.value.clone(), canonical.digest.clone()))
        })
        .collect()
}

/// The phases among `next` whose side effects are irreversible.
pub(crate) fn irreversible_phases(next: &[&Phase]) -> Vec<String> {
    next.iter()
        .filter(|p| p.side_effect_class() == SideEffects::Irreversible)
        .map(|p| p.name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_the_empty_string() {
        assert_eq!(
            hex(&Sha256::digest(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
