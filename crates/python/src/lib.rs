//! `phaselint._native`: the lint crate for Python, in process. It only
//! translates: Python values in, the calls the CLI makes
//! (`phaselint_lint::resume::request`, `phaselint_lint::resume::check`,
//! the analyzer), and the CLI's own JSON out (`phaselint_render`), which
//! `python/phaselint/__init__.py` turns into Python objects. So a result
//! here is the CLI's `--format json` by construction.
//!
//! Errors: what gives the CLI no verdict raises `NoVerdict` with the CLI's
//! message; a Rust panic is caught here and raises `InternalError` (PyO3
//! would raise its PanicException, a BaseException that `except Exception`
//! does not catch). `python/phaselint` maps both onto its own exceptions.

// PyO3's macros expand to the unsafe FFI glue of a CPython extension module;
// the code written here has no unsafe block.
#![allow(unsafe_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use phaselint_lint::config::Config;
use phaselint_lint::model::EnumValue;
use phaselint_lint::resume::request::{self, LoadedContract, RequestOptions};
use phaselint_lint::resume::{
    self, ApprovalSource, ApproverKind, Mode, Recoverer, RecoveryOutcome, RecoveryRequest,
};
use phaselint_lint::{DocumentKind, analyze_file};
use phaselint_render::{Format, Linted, Report, Style};
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

pyo3::create_exception!(
    _native,
    NoVerdict,
    PyException,
    "The inputs give no verdict; the message is the CLI's."
);
pyo3::create_exception!(
    _native,
    InternalError,
    PyException,
    "A bug in phaselint (a Rust panic), caught at the boundary."
);

/// How a contract given as text is named in messages.
const CONTRACT_TEXT: &str = "<contract text>";
/// Where the approval records passed as mappings are said to come from.
const PASSED_APPROVALS: &str = "the approvals passed to resume_check";

/// Runs `f` with the interpreter released; a panic becomes `InternalError`.
fn guarded<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, Failure> + Send) -> PyResult<T> {
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(Failure::NoVerdict(message))) => Err(NoVerdict::new_err(message)),
        Ok(Err(Failure::Python(error))) => Err(error),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".into());
            Err(InternalError::new_err(format!(
                "phaselint failed inside (a bug, please report it): {what}"
            )))
        }
    }
}

/// Why a call has no answer.
enum Failure {
    /// The CLI's no-verdict message.
    NoVerdict(String),
    /// An exception a Python callback raised that must reach the caller
    /// (KeyboardInterrupt, SystemExit).
    Python(PyErr),
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::NoVerdict(message)
    }
}

fn mode_of(mode: &str) -> Result<Mode, String> {
    match mode {
        "strict" => Ok(Mode::Strict),
        "permissive" => Ok(Mode::Permissive),
        "audit" => Ok(Mode::Audit),
        other => Err(format!(
            "mode `{other}` is not one of `strict`, `permissive`, `audit`"
        )),
    }
}

/// The contract at a path (configuration as the CLI finds it) or given as
/// YAML text (the configuration given, or the defaults).
fn load(
    path: Option<&str>,
    text: Option<String>,
    config: Option<&str>,
    no_config: bool,
) -> Result<LoadedContract, String> {
    match (path, text) {
        (Some(path), _) => {
            request::load_contract(Path::new(path), config.map(Path::new), no_config)
        }
        (None, Some(text)) => {
            request::load_contract_text(text, CONTRACT_TEXT, config.map(Path::new))
        }
        (None, None) => Err("no contract: give a path or YAML text".into()),
    }
}

/// Where a call's contract comes from.
struct ContractSource<'a> {
    path: Option<&'a str>,
    text: Option<String>,
    config: Option<&'a str>,
    no_config: bool,
}

/// The contract through `cache` when there is one and the contract is a
/// path, else loaded afresh; `kept` and `fresh` hold what the reference
/// borrows (the cache's lock, or the new load).
fn load_cached<'g: 'r, 'r>(
    cache: &'g Option<Py<ContractCache>>,
    source: ContractSource<'_>,
    kept: &'r mut Option<std::sync::MutexGuard<'g, request::ContractCache>>,
    fresh: &'r mut Option<LoadedContract>,
) -> Result<&'r LoadedContract, String> {
    // The cache is only taken when it is free: a recovery handler that
    // checks again with the same guard (the lock is held across the check,
    // handlers included) or another thread's check loads the contract
    // afresh instead of waiting on a lock that never frees.
    let free = match (cache, source.path) {
        (Some(cache), Some(path)) => match cache.get().cache.try_lock() {
            Ok(guard) => Some((guard, path)),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => {
                // A panic in an earlier check: what it kept is not trusted.
                let mut guard = poisoned.into_inner();
                *guard = request::ContractCache::default();
                cache.get().cache.clear_poison();
                Some((guard, path))
            }
            Err(std::sync::TryLockError::WouldBlock) => None,
        },
        _ => None,
    };
    match free {
        Some((guard, path)) => kept.insert(guard).load(
            Path::new(path),
            source.config.map(Path::new),
            source.no_config,
        ),
        None => Ok(fresh.insert(load(
            source.path,
            source.text,
            source.config,
            source.no_config,
        )?)),
    }
}

/// The contract's phases and checkpoint specs, for a caller that maps its
/// own run onto them (the LangGraph guard) without reading the YAML a
/// second way: `{"phases": [name...], "checkpoints": [{"checkpoint_id",
/// "phase"}...]}` (a spec without an id or phase has `null` there). A
/// contract with E-codes gives no outline, as it gives no verdict.
#[pyfunction]
#[pyo3(signature = (*, contract_path, contract_text, config, no_config, cache=None))]
fn outline(
    py: Python<'_>,
    contract_path: Option<String>,
    contract_text: Option<String>,
    config: Option<String>,
    no_config: bool,
    cache: Option<Py<ContractCache>>,
) -> PyResult<String> {
    guarded(py, move || {
        let (mut kept, mut fresh) = (None, None);
        let loaded = load_cached(
            &cache,
            ContractSource {
                path: contract_path.as_deref(),
                text: contract_text,
                config: config.as_deref(),
                no_config,
            },
            &mut kept,
            &mut fresh,
        )?;
        let contract = loaded
            .analysis
            .contract()
            .ok_or_else(|| "the contract could not be loaded".to_string())?;
        let text = |s: &Option<phaselint_lint::model::Spanned<String>>| {
            s.as_ref().map(|s| s.value.clone())
        };
        let outline = serde_json::json!({
            "phases": contract.phases.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
            "checkpoints": contract.checkpoints.iter().map(|c| serde_json::json!({
                "checkpoint_id": text(&c.checkpoint_id),
                "phase": text(&c.phase),
            })).collect::<Vec<_>>(),
        });
        Ok(outline.to_string())
    })
}

/// A contract kept by a long-lived caller (`phaselint.CheckpointGuard`):
/// each check reads the file and its configuration again, and analyzes it
/// again only when its bytes changed (`resume::request::ContractCache`).
#[pyclass(frozen, module = "phaselint._native")]
#[derive(Default)]
struct ContractCache {
    cache: std::sync::Mutex<request::ContractCache>,
}

#[pymethods]
impl ContractCache {
    #[new]
    fn new() -> Self {
        ContractCache::default()
    }
}

/// A recovery handler in Python, called through the lint crate's
/// `Recoverer` like the CLI's `--recover-with` hook.
///
/// `attempt(checkpoint_id, phase, field, strategy)` returns
/// `(recovered: bool, detail: str)`: python/phaselint calls the user's
/// handler there and turns its exceptions into a failed attempt; only a
/// BaseException that is not an Exception (KeyboardInterrupt) comes back
/// here, and it stops the check and reaches the caller. `reread()` returns
/// the context, changed in place by the handler, as JSON.
struct PythonRecoverer {
    describe: String,
    attempt: Py<PyAny>,
    reread: Py<PyAny>,
    interrupted: Option<PyErr>,
}

impl Recoverer for PythonRecoverer {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn recover(&mut self, request: &RecoveryRequest<'_>) -> RecoveryOutcome {
        if self.interrupted.is_some() {
            return RecoveryOutcome::NotStarted {
                detail: "interrupted".into(),
            };
        }
        let called = Python::attach(|py| -> PyResult<(bool, String)> {
            self.attempt
                .bind(py)
                .call1((
                    request.checkpoint_id,
                    request.phase,
                    request.field,
                    request.strategy.as_str(),
                ))?
                .extract()
        });
        match called {
            Ok((true, detail)) => RecoveryOutcome::Recovered { detail },
            Ok((false, detail)) => RecoveryOutcome::Failed {
                exit_code: None,
                detail,
            },
            Err(error) => {
                self.interrupted = Some(error);
                RecoveryOutcome::NotStarted {
                    detail: "interrupted".into(),
                }
            }
        }
    }

    fn reread_context(&mut self) -> Result<serde_json::Value, String> {
        if self.interrupted.is_some() {
            return Err("interrupted".into());
        }
        let text =
            Python::attach(|py| -> PyResult<String> { self.reread.bind(py).call0()?.extract() });
        match text {
            Ok(text) => request::context_from_json(text, "(the context mapping, after recovery)"),
            Err(error) => {
                let message = Python::attach(|py| error.value(py).to_string());
                Err(message)
            }
        }
    }
}

/// The resume check of a contract checkpoint; returns the CLI's
/// `--format json` report.
#[pyfunction]
#[pyo3(signature = (
    *, contract_path, contract_text, checkpoint_id, context_json, approval_files,
    approval_records_json, now, mode, next_phase, harness_dir, config, no_config,
    trust_context_approvals, recoverer, cache=None
))]
#[allow(clippy::too_many_arguments)]
fn resume_check(
    py: Python<'_>,
    contract_path: Option<String>,
    contract_text: Option<String>,
    checkpoint_id: String,
    context_json: String,
    approval_files: Vec<String>,
    approval_records_json: Option<String>,
    now: Option<String>,
    mode: String,
    next_phase: Option<String>,
    harness_dir: Option<String>,
    config: Option<String>,
    no_config: bool,
    trust_context_approvals: bool,
    recoverer: Option<Bound<'_, PyTuple>>,
    cache: Option<Py<ContractCache>>,
) -> PyResult<String> {
    let mut recoverer = match recoverer {
        Some(tuple) => {
            let (describe, attempt, reread): (String, Py<PyAny>, Py<PyAny>) = tuple.extract()?;
            Some(PythonRecoverer {
                describe,
                attempt,
                reread,
                interrupted: None,
            })
        }
        None => None,
    };
    let recoverer_slot = &mut recoverer;
    guarded(py, move || {
        // In the order the CLI reads its inputs, so the first problem
        // reported is the one the CLI reports.
        let now = request::parse_now(now.as_deref())?;
        let (mut kept, mut fresh) = (None, None);
        let loaded = load_cached(
            &cache,
            ContractSource {
                path: contract_path.as_deref(),
                text: contract_text,
                config: config.as_deref(),
                no_config,
            },
            &mut kept,
            &mut fresh,
        )?;
        let trust_source = request::trust_source(
            trust_context_approvals,
            &loaded.settings,
            loaded.config_file.as_deref(),
        );
        let context = request::context_from_json(context_json, "(the context mapping)")?;
        let files: Vec<PathBuf> = approval_files.iter().map(PathBuf::from).collect();
        let mut approvals = request::read_approvals(&files)?;
        if let Some(records) = approval_records_json {
            let value = request::context_from_json(records, "(the approval records)")?;
            let records = resume::parse_records(&value)
                .map_err(|e| format!("cannot read {PASSED_APPROVALS}: {e}"))?;
            approvals.push(ApprovalSource::File {
                location: PASSED_APPROVALS.to_string(),
                records,
            });
        }
        if let Some(dir) = &harness_dir {
            approvals.extend(resume::harness_sources(
                &resume::DiskSentinels,
                Path::new(dir),
                &checkpoint_id,
                now,
                loaded.settings.max_clock_skew,
            )?);
        }
        let request = request::resume_request(
            loaded,
            context,
            RequestOptions {
                checkpoint_id,
                now,
                mode: mode_of(&mode)?,
                next_phase,
                approvals,
                trust_context_approvals,
            },
        );
        let checked = resume::check(
            &loaded.analysis,
            &request,
            recoverer_slot.as_mut().map(|r| r as &mut dyn Recoverer),
            None,
        );
        if let Some(error) = recoverer_slot.as_mut().and_then(|r| r.interrupted.take()) {
            return Err(Failure::Python(error));
        }
        let mut report = checked.map_err(|e| e.to_string())?;
        report.approval_status.trust_context_source = trust_source;
        json(&report).map_err(Failure::NoVerdict)
    })
}

/// Pretty JSON as the CLI prints it (without its final newline).
fn json(value: &impl serde::Serialize) -> Result<String, String> {
    let mut out = Vec::new();
    phaselint_render::write_json_pretty(&mut out, value)
        .map_err(|e| format!("cannot write the report: {e}"))?;
    String::from_utf8(out).map_err(|e| format!("cannot write the report: {e}"))
}

/// The findings of one document, as `phaselint lint --format json` prints
/// them for that file: configuration discovered beside `path` (or the one
/// given), its kind from its name.
#[pyfunction]
#[pyo3(signature = (*, source, path, config, read))]
fn lint(
    py: Python<'_>,
    source: Option<String>,
    path: String,
    config: Option<String>,
    read: bool,
) -> PyResult<String> {
    guarded(py, move || {
        let shown = PathBuf::from(&path);
        let absolute = std::path::absolute(&shown).unwrap_or_else(|_| shown.clone());
        let config = match &config {
            Some(file) => Config::load(Path::new(file)),
            None => Config::discover(absolute.parent().unwrap_or(Path::new("."))),
        }
        .map_err(|e| e.to_string())?;
        let settings = config.settings_for(&absolute);
        let kind = DocumentKind::of_path(&shown);
        let mut analysis = if read {
            analyze_file(&shown, kind, &settings)
                .map_err(|e| format!("cannot read {}: {}", shown.display(), e.reason()))?
        } else {
            let source = source.unwrap_or_default();
            phaselint_lint::analyze_vec(source.into_bytes(), kind, &settings)
        };
        analysis.keep_only_findings();
        let files = [Linted {
            path: shown,
            analysis,
        }];
        let report = Report::new(&files, &[]);
        let mut out = Vec::new();
        let style = Style {
            color: false,
            summary: false,
        };
        phaselint_render::write(&report, Format::Json, false, style, &mut out)
            .map_err(|e| format!("cannot write the findings: {e}"))?;
        String::from_utf8(out)
            .map_err(|e| Failure::NoVerdict(format!("cannot write the findings: {e}")))
    })
}

/// The ApprovalRecord `phaselint approve` writes, as JSON, and what it
/// would say on standard error besides (notes and warnings).
#[pyfunction]
#[pyo3(signature = (
    *, contract_path, contract_text, checkpoint_id, approved_by, policy, ack, context_json,
    notes, now, confirm_irreversible, config, no_config
))]
#[allow(clippy::too_many_arguments)]
fn approve(
    py: Python<'_>,
    contract_path: Option<String>,
    contract_text: Option<String>,
    checkpoint_id: String,
    approved_by: String,
    policy: String,
    ack: Vec<String>,
    context_json: Option<String>,
    notes: Option<String>,
    now: Option<String>,
    confirm_irreversible: bool,
    config: Option<String>,
    no_config: bool,
) -> PyResult<(String, Vec<String>)> {
    guarded(py, move || {
        let kind = match policy.as_str() {
            "human" => ApproverKind::Human,
            "orchestrator" => ApproverKind::Orchestrator,
            other => {
                return Err(Failure::NoVerdict(format!(
                    "policy `{other}` is not one of `human`, `orchestrator`"
                )));
            }
        };
        let now = request::parse_now(now.as_deref())?;
        let loaded = load(
            contract_path.as_deref(),
            contract_text,
            config.as_deref(),
            no_config,
        )?;
        let ask = request::ApprovalAsk {
            checkpoint_id: &checkpoint_id,
            approved_by: &approved_by,
            kind,
            acknowledged: &ack,
            notes,
            now,
        };
        let mut said = Vec::new();
        let mut read_context = || match &context_json {
            Some(text) => request::context_from_json(text.clone(), "(the context mapping)"),
            None => Err("no context".into()),
        };
        let prepared = request::prepare_approval(
            &loaded.analysis,
            &ask,
            context_json.as_ref().map(|_| {
                &mut read_context as &mut dyn FnMut() -> Result<serde_json::Value, String>
            }),
            &mut |notice| {
                said.push(match notice {
                    request::ApprovalNotice::NotRequired => format!(
                        "checkpoint `{checkpoint_id}` does not require approval; the record is made anyway"
                    ),
                    request::ApprovalNotice::BlockingAck(field) => format!(
                        "`{field}` is a blocking staleness check of checkpoint `{checkpoint_id}`: the approval records the acknowledgement, but if the field is stale it still blocks the resume"
                    ),
                })
            },
        )?;
        if !prepared.irreversible_next.is_empty() && !confirm_irreversible {
            return Err(Failure::NoVerdict(format!(
                "a resume from checkpoint `{}` runs irreversible phase {}; pass confirm_irreversible=True to approve it",
                prepared.record.checkpoint_id, prepared.irreversible_into
            )));
        }
        Ok((json(&prepared.record)?, said))
    })
}

/// Panics inside the boundary, so a test can see a Rust panic arrive as
/// `phaselint.PhaselintError` (an `Exception`), not PyO3's PanicException.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    guarded(py, || -> Result<(), Failure> {
        panic!("a panic raised on purpose by _panic_for_tests")
    })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(resume_check, m)?)?;
    m.add_function(wrap_pyfunction!(lint, m)?)?;
    m.add_function(wrap_pyfunction!(approve, m)?)?;
    m.add_function(wrap_pyfunction!(outline, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_class::<ContractCache>()?;
    m.add("NoVerdict", m.py().get_type::<NoVerdict>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    // A context is bounded as a context file is (`--context`).
    let bound = phaselint_lint::input::Bound::Document.bytes();
    m.add("CONTEXT_BOUND", bound)?;
    m.add("CONTEXT_BOUND_TEXT", phaselint_lint::input::describe(bound))?;
    Ok(())
}
