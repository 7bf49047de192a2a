//! From a caller's inputs to a resume check: the configuration beside the
//! contract, the contract loaded (and refused with every E-code), the
//! context and approvals files read within their bounds, `--now` parsed,
//! and the `ResumeRequest` built. The CLI (`resume-check`, `approve`,
//! `checkpoints`) and the Python API (`crates/python`) both call these, so
//! the two say the same things about the same inputs by construction.
//!
//! Every error is the no-verdict message as the user reads it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{
    APPROVALS_TOTAL_BYTES, ApprovalQuestion, ApprovalRecord, ApprovalSource, ApproverKind,
    ContextBinding, DocumentFormat, MAX_APPROVAL_RECORDS, MEMORY_PER_INPUT_BYTE, Mode,
    ResumeRequest, Target, Timestamp, approval_question, contract_errors, first_findings,
    parse_document_within, parse_records, parse_timestamp, required_policy,
};
use crate::config::{Config, Settings};
use crate::input::{self, Bound};
use crate::model::EnumValue;
use crate::{Analysis, DocumentKind, analyze_document, analyze_file};

/// The configuration that applies to `path`: the file given, none, or the
/// one found by walking up from the file's directory.
pub fn config_beside(
    path: &Path,
    config: Option<&Path>,
    no_config: bool,
) -> Result<Config, String> {
    if let Some(file) = config {
        Config::load(file).map_err(|e| e.to_string())
    } else if no_config {
        Ok(Config::defaults(Path::new(".")))
    } else {
        let dir = std::path::absolute(path)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| PathBuf::from("."));
        Config::discover(&dir).map_err(|e| e.to_string())
    }
}

/// Only the clock skew and whether context approvals are trusted are taken
/// from a configuration: rule levels are not applied, so no config can hide
/// an E-code from the resume check.
pub fn resume_settings(configured: &Settings) -> Settings {
    Settings {
        max_clock_skew: configured.max_clock_skew,
        trust_context_approvals: configured.trust_context_approvals,
        ..Settings::default()
    }
}

/// A contract read and analyzed for a resume check or an approval, with
/// the settings it is judged with and the configuration file they came
/// from (`None`: the defaults).
pub struct LoadedContract {
    pub analysis: Analysis,
    pub settings: Settings,
    pub config_file: Option<PathBuf>,
}

/// Reads and analyzes the contract at `path`. Any E-code finding, and any
/// config problem, is a no-verdict error listing what is wrong.
pub fn load_contract(
    path: &Path,
    config: Option<&Path>,
    no_config: bool,
) -> Result<LoadedContract, String> {
    let mut cache = ContractCache::default();
    cache.load(path, config, no_config)?;
    cache
        .loaded
        .take()
        .ok_or_else(|| "the contract was not loaded".to_string())
}

/// A contract loaded for a long-lived caller (the Python API's
/// `CheckpointGuard`): every load reads the configuration and the file
/// again, exactly as `load_contract` does, and analyzes the contract again
/// only when its bytes changed. The analysis depends on nothing else (the
/// settings a resume check takes from a configuration are not rules), so
/// a reused analysis is the one a fresh load would make.
#[derive(Default)]
pub struct ContractCache {
    /// The bytes `loaded` was analyzed from.
    bytes: Option<Vec<u8>>,
    loaded: Option<LoadedContract>,
}

impl ContractCache {
    /// The contract at `path` as `load_contract` gives it.
    pub fn load(
        &mut self,
        path: &Path,
        config: Option<&Path>,
        no_config: bool,
    ) -> Result<&LoadedContract, String> {
        let found = config_beside(path, config, no_config)?;
        let settings = resume_settings(&found.settings_for(path));
        let config_file = found.path.clone();
        let bytes = match input::read_file(path, Bound::Contract) {
            Ok(bytes) => bytes,
            // Over its bound, the file is analyzed as unloadable (E007):
            // `analyze_file` says so; nothing is kept.
            Err(input::InputError::TooLarge { .. }) => {
                self.bytes = None;
                let analysis = analyze_file(path, DocumentKind::Contract, &settings)
                    .map_err(|e| cannot_read(path, &e))?;
                return self.keep(None, analysis, settings, config_file, path);
            }
            Err(e) => return Err(cannot_read(path, &e)),
        };
        if self.bytes.as_ref() == Some(&bytes)
            && let Some(mut loaded) = self.loaded.take()
        {
            loaded.settings = settings;
            loaded.config_file = config_file;
            return Ok(self.loaded.insert(loaded));
        }
        let analysis = crate::analyze_vec(bytes.clone(), DocumentKind::Contract, &settings);
        self.keep(Some(bytes), analysis, settings, config_file, path)
    }

    fn keep(
        &mut self,
        bytes: Option<Vec<u8>>,
        analysis: Analysis,
        settings: Settings,
        config_file: Option<PathBuf>,
        path: &Path,
    ) -> Result<&LoadedContract, String> {
        self.bytes = None;
        self.loaded = None;
        refuse_errors(&analysis, &path.display().to_string())?;
        self.bytes = bytes;
        Ok(self.loaded.insert(LoadedContract {
            analysis,
            settings,
            config_file,
        }))
    }
}

fn cannot_read(path: &Path, error: &input::InputError) -> String {
    format!(
        "cannot read the contract `{}`: {}",
        path.display(),
        error.reason()
    )
}

/// Analyzes a contract given as text (`shown` names it in messages), with
/// the configuration file given or the defaults: text has no folder to
/// discover one from.
pub fn load_contract_text(
    text: String,
    shown: &str,
    config: Option<&Path>,
) -> Result<LoadedContract, String> {
    let config = match config {
        Some(file) => Config::load(file).map_err(|e| e.to_string())?,
        None => Config::defaults(Path::new(".")),
    };
    let settings = resume_settings(config.settings());
    if text.len() as u64 > Bound::Contract.bytes() {
        return Err(format!(
            "cannot read the contract {shown}: it is {} bytes, larger than the limit of {}",
            text.len(),
            input::describe(Bound::Contract.bytes())
        ));
    }
    let analysis = analyze_document(text, DocumentKind::Contract, &settings);
    refuse_errors(&analysis, shown)?;
    Ok(LoadedContract {
        analysis,
        settings,
        config_file: config.path.clone(),
    })
}

/// A contract with an E-code finding (one hidden by a suppression comment
/// included) can be neither resumed nor approved.
fn refuse_errors(analysis: &Analysis, shown: &str) -> Result<(), String> {
    let errors: Vec<String> = first_findings(
        contract_errors(analysis)
            .iter()
            .map(|e| format!("{shown}:{e}")),
    )
    .into_iter()
    .map(|line| format!("  {line}"))
    .collect();
    if errors.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the contract `{shown}` has errors (E-codes); a checkpoint of a contract with errors can be neither resumed nor approved:\n{}",
        errors.join("\n")
    ))
}

/// `--now`: the clock when absent.
pub fn parse_now(now: Option<&str>) -> Result<Timestamp, String> {
    match now {
        None => Ok(Timestamp::now()),
        Some(text) => parse_timestamp(text).map_err(|e| {
            format!("--now `{text}` is not an RFC 3339 timestamp with `Z` or an offset: {e}")
        }),
    }
}

/// The text of a JSON or YAML document read from a file or, for `-`,
/// standard input, with its format and how messages name it.
pub struct DocumentText {
    pub text: String,
    pub format: DocumentFormat,
    pub shown: String,
}

/// Reads a document's text within `bound`; `-` reads standard input.
pub fn read_text(path: &Path, what: &str, bound: Bound) -> Result<DocumentText, String> {
    let stdin = path.as_os_str() == "-";
    let shown = if stdin {
        "standard input".to_string()
    } else {
        format!("`{}`", path.display())
    };
    let bytes = if stdin {
        input::read_stream(std::io::stdin().lock(), path, bound)
    } else {
        input::read_file(path, bound)
    }
    .map_err(|e| format!("cannot read the {what} {shown}: {}", e.reason()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "cannot read the {what} {shown}: it is not UTF-8 ({})",
            e.utf8_error()
        )
    })?;
    let format = if stdin {
        DocumentFormat::Detect
    } else {
        DocumentFormat::from_file_name(&path.to_string_lossy())
    };
    Ok(DocumentText {
        text,
        format,
        shown,
    })
}

/// Parses a document's text within what it may take in memory.
pub(crate) fn parse_document_text(
    document: DocumentText,
    what: &str,
    bound: Bound,
) -> Result<Value, String> {
    let budget = MEMORY_PER_INPUT_BYTE * bound.bytes();
    parse_document_within(&document.text, document.format, budget)
        .map_err(|e| format!("cannot read the {what} {}: {e}", document.shown))
}

/// Reads a JSON or YAML document from a file or, for `-`, standard input.
pub fn read_document(path: &Path, what: &str, bound: Bound) -> Result<Value, String> {
    parse_document_text(read_text(path, what, bound)?, what, bound)
}

/// A context handed over as JSON text by a library caller (`shown` names
/// it), within the bound a context file has.
pub fn context_from_json(text: String, shown: &str) -> Result<Value, String> {
    let bound = Bound::Document;
    if text.len() as u64 > bound.bytes() {
        return Err(format!(
            "cannot read the context {shown}: it is {} bytes as JSON, larger than the limit of {}",
            text.len(),
            input::describe(bound.bytes())
        ));
    }
    parse_document_text(
        DocumentText {
            text,
            format: DocumentFormat::Json,
            shown: shown.to_string(),
        },
        "context",
        bound,
    )
}

/// Reads every approvals file, each within its bound and all of them
/// within `APPROVALS_TOTAL_BYTES` and `MAX_APPROVAL_RECORDS` together.
pub fn read_approvals(paths: &[PathBuf]) -> Result<Vec<ApprovalSource>, String> {
    let mut approvals = Vec::with_capacity(paths.len());
    let (mut bytes, mut records_read) = (0u64, 0usize);
    for path in paths {
        // Each file within its own bound first, so a file over it is named
        // for that bound; then all of them together.
        let document = read_text(path, "approvals file", Bound::Approvals)?;
        bytes += document.text.len() as u64;
        if bytes > APPROVALS_TOTAL_BYTES {
            return Err(format!(
                "cannot read the approvals file `{}`: the --approvals files hold more than {} together",
                path.display(),
                input::describe(APPROVALS_TOTAL_BYTES)
            ));
        }
        let value = parse_document_text(document, "approvals file", Bound::Approvals)?;
        let records = parse_records(&value)
            .map_err(|e| format!("cannot read the approvals file `{}`: {e}", path.display()))?;
        records_read += records.len();
        if records_read > MAX_APPROVAL_RECORDS {
            return Err(format!(
                "cannot read the approvals file `{}`: the --approvals files hold more than {} approval records together",
                path.display(),
                MAX_APPROVAL_RECORDS
            ));
        }
        approvals.push(ApprovalSource::File {
            location: path.display().to_string(),
            records,
        });
    }
    Ok(approvals)
}

/// Who trusted the context's approvals, as the report says it: the flag,
/// or which configuration file (one found above the contract may not be
/// where the operator expects it). `None`: nobody.
pub fn trust_source(flag: bool, settings: &Settings, config_file: Option<&Path>) -> Option<String> {
    if flag {
        Some("--trust-context-approvals".to_string())
    } else if settings.trust_context_approvals {
        Some(match config_file {
            Some(file) => {
                let here = std::env::current_dir().ok();
                let shown = here
                    .as_deref()
                    .and_then(|dir| file.strip_prefix(dir).ok())
                    .unwrap_or(file);
                format!("trust_context_approvals = true in `{}`", shown.display())
            }
            None => "trust_context_approvals = true in the configuration".to_string(),
        })
    } else {
        None
    }
}

/// What a caller chose besides the contract and the context.
pub struct RequestOptions {
    pub checkpoint_id: String,
    pub now: Timestamp,
    pub mode: Mode,
    pub next_phase: Option<String>,
    pub approvals: Vec<ApprovalSource>,
    pub trust_context_approvals: bool,
}

/// The request for the loaded contract's settings.
pub fn resume_request(
    loaded: &LoadedContract,
    context: Value,
    options: RequestOptions,
) -> ResumeRequest {
    ResumeRequest {
        checkpoint_id: options.checkpoint_id,
        context,
        now: options.now,
        mode: options.mode,
        next_phase: options.next_phase,
        approvals: options.approvals,
        max_clock_skew: loaded.settings.max_clock_skew,
        trust_context_approvals: options.trust_context_approvals
            || loaded.settings.trust_context_approvals,
    }
}

/// What an approval is asked for (`phaselint approve`).
pub struct ApprovalAsk<'a> {
    pub checkpoint_id: &'a str,
    pub approved_by: &'a str,
    pub kind: ApproverKind,
    /// Stale fields the approval accepts, as given (trimmed, deduplicated here).
    pub acknowledged: &'a [String],
    pub notes: Option<String>,
    pub now: Timestamp,
}

/// What an approval says before it is written: the record, the question
/// shown for it, and the irreversible phases it resumes into (a person
/// confirms those).
pub struct PreparedApproval {
    pub record: ApprovalRecord,
    pub question: ApprovalQuestion,
    /// `irreversible phase `a``: how messages name the irreversible phases.
    pub irreversible_into: String,
    pub irreversible_next: Vec<String>,
}

/// Something said while an approval is prepared that does not stop it.
pub enum ApprovalNotice {
    /// The checkpoint requires no approval; the record is made anyway.
    NotRequired,
    /// An acknowledged field is a blocking check: it still blocks when stale.
    BlockingAck(String),
}

/// Builds the ApprovalRecord `approve` writes: bound to the checkpoint's
/// target digest and, with a context, to the values of the entry fields
/// of the phases it resumes into. `context` is read only when it is
/// needed, after the checks that need no context; `notice` hears what
/// does not stop the approval, when it happens.
pub fn prepare_approval(
    analysis: &Analysis,
    ask: &ApprovalAsk<'_>,
    context: Option<&mut dyn FnMut() -> Result<Value, String>>,
    notice: &mut dyn FnMut(ApprovalNotice),
) -> Result<PreparedApproval, String> {
    let target = Target::find(analysis, ask.checkpoint_id).map_err(|e| e.to_string())?;
    super::check_entry_field_count(&target.successor_phases()).map_err(|e| e.to_string())?;
    if ask.approved_by.trim().is_empty() {
        return Err("--by must name the approver".into());
    }
    let kind = ask.kind;
    let on_resume = &target.spec.on_resume;
    let irreversible_next = target.irreversible_next();
    let into = one_line(&crate::diagnostic::code_list(irreversible_next.iter()));
    match required_policy(on_resume, &irreversible_next) {
        Some(_) if !irreversible_next.is_empty() && kind != ApproverKind::Human => {
            return Err(format!(
                "a resume from checkpoint `{}` runs irreversible phase {into}: only a person may approve it (--policy human)",
                target.checkpoint_id
            ));
        }
        Some(policy) if !kind.satisfies(policy) => {
            return Err(format!(
                "checkpoint `{}` has approval_policy `{}`: an approval with --policy {} cannot satisfy it",
                target.checkpoint_id,
                policy.as_str(),
                kind.as_str()
            ));
        }
        None => notice(ApprovalNotice::NotRequired),
        Some(_) => {}
    }
    let context = match context {
        Some(read) => Some(read()?),
        None if !irreversible_next.is_empty() => {
            return Err(format!(
                "a resume from checkpoint `{}` runs irreversible phase {into}: approve it with the context it resumes with (--context FILE), so the approval covers those values and nothing wider",
                one_line(&target.checkpoint_id)
            ));
        }
        None => None,
    };
    if context.as_ref().is_some_and(|c| !c.is_object()) {
        return Err("the context must be a mapping".into());
    }
    let binding = context
        .as_ref()
        .map(|c| ContextBinding::of(&target.successor_phases(), c));
    let watched: Vec<&str> = on_resume
        .staleness_checks
        .iter()
        .filter_map(|c| c.field.as_ref().map(|f| f.value.as_str()))
        .collect();
    let blocking = |field: &str| {
        on_resume
            .staleness_checks
            .iter()
            .any(|c| c.blocks() && c.field.as_ref().is_some_and(|f| f.value.as_str() == field))
    };
    let mut acks: Vec<String> = Vec::new();
    for ack in ask.acknowledged {
        let ack = ack.trim();
        if !watched.contains(&ack) {
            return Err(format!(
                "--ack `{ack}` is not a staleness-checked field of checkpoint `{}`; {}",
                target.checkpoint_id,
                if watched.is_empty() {
                    "it declares no staleness checks".to_string()
                } else {
                    format!(
                        "its fields: {}",
                        crate::diagnostic::code_list(watched.iter())
                    )
                }
            ));
        }
        if acks.iter().any(|a| a == ack) {
            continue;
        }
        if blocking(ack) {
            notice(ApprovalNotice::BlockingAck(ack.to_string()));
        }
        acks.push(ack.to_string());
    }
    // What is approved is shown from the same target and binding the
    // record is made of.
    let question = approval_question(
        analysis,
        &target.checkpoint_id,
        binding.as_ref(),
        &acks,
        ask.now,
    )
    .map_err(|e| e.to_string())?;
    if question.target_digest != target.digest {
        return Err(
            "the target digest shown is not the one the record would carry; nothing written".into(),
        );
    }
    let record = approval_record(
        &target,
        ask.approved_by,
        kind,
        acks,
        ask.notes.clone(),
        binding.as_ref(),
        ask.now,
    );
    Ok(PreparedApproval {
        record,
        question,
        irreversible_into: into,
        irreversible_next: irreversible_next.iter().map(|p| p.to_string()).collect(),
    })
}

/// A name inside a one-line message: its line breaks shown as `\u{a}` and
/// `\u{d}`, so the message's lines stay the message's own. Whoever prints
/// the message escapes the other controls.
fn one_line(text: &str) -> String {
    text.replace('\r', "\\u{d}").replace('\n', "\\u{a}")
}

/// The record an approval writes: bound to the target digest and, with a
/// context, to the binding the operator was shown.
pub fn approval_record(
    target: &Target<'_>,
    by: &str,
    kind: ApproverKind,
    acknowledged: Vec<String>,
    notes: Option<String>,
    binding: Option<&ContextBinding>,
    now: Timestamp,
) -> ApprovalRecord {
    ApprovalRecord {
        approved_by: by.trim().to_string(),
        approved_at: now.to_string(),
        policy: kind.as_str().to_string(),
        checkpoint_id: target.checkpoint_id.clone(),
        stale_fields_acknowledged: acknowledged,
        notes,
        target_digest: Some(target.digest.clone()),
        context_digest: binding.map(|b| b.digest.clone()),
        context_field_digests: binding.map(|b| b.field_digests.clone()),
    }
}
