"""phaselint, the linter and resume checker for context contracts, in process.

The wheel installs the native `phaselint` command and this package, whose
extension module (`phaselint._native`, built from the same Rust crates)
runs the same checks without starting a process:

    import phaselint

    result = phaselint.resume_check("pipeline.contract.yaml", "after_retrieve", context)
    if result.decision != "resume":
        raise SystemExit(result.exit_code)

`resume_check` gives what `phaselint resume-check --format json` prints
(`ResumeResult.to_dict()` is that JSON); an input it cannot judge raises
`InputError` with the message the command prints. `lint`/`lint_file` give
the findings of `phaselint lint --format json`. `find_phaselint_bin()`
returns the installed command, for tools that want to run it.
"""

from __future__ import annotations

import dataclasses
import datetime as _datetime
import json
import math
import os
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from typing import Any, Literal, Optional, Protocol, Union, runtime_checkable

from phaselint import _native

try:  # The OpenTelemetry API is optional: without it, no events are added.
    from opentelemetry import trace as _otel_trace

    _HAS_OTEL = True
except Exception:  # pragma: no cover - exercised in a subprocess test
    # Not installed (ImportError), or installed and broken (an error raised
    # while importing it): either way phaselint works without telemetry.
    _otel_trace = None  # type: ignore[assignment]
    _HAS_OTEL = False

__all__ = [
    "CheckpointGuard",
    "CheckpointStalenessError",
    "Diagnostic",
    "Edit",
    "Fix",
    "InputError",
    "NoOpRecoveryHandler",
    "PhaselintError",
    "RecoveryHandler",
    "Related",
    "ResumeRefused",
    "ResumeResult",
    "StalenessCheckResult",
    "approve",
    "find_phaselint_bin",
    "lint",
    "lint_file",
    "resume_check",
]

__version__: str = _native.VERSION

PathLike = Union[str, "os.PathLike[str]"]
Mode = Literal["strict", "permissive", "audit"]


# ---------------------------------------------------------------- errors


class PhaselintError(Exception):
    """Base of every exception phaselint raises (a bug inside is one too)."""


class InputError(PhaselintError, ValueError):
    """The inputs give no verdict; the message is the one the CLI prints."""


class CheckpointStalenessError(PhaselintError):
    """A strict `CheckpointGuard` refused the resume; `.result` says why."""

    def __init__(self, result: ResumeResult) -> None:
        self.result = result
        super().__init__(
            f"checkpoint `{result.checkpoint_id}`: {result.decision}"
            + (": " + "; ".join(result.failures) if result.failures else "")
        )


class ResumeRefused(PhaselintError):
    """A resume must not happen (raised by `phaselint.langgraph`)."""

    def __init__(self, reason: str, result: Optional[ResumeResult] = None) -> None:
        self.reason = reason
        self.result = result
        super().__init__(reason)


def _call(function: Any, **kwargs: Any) -> Any:
    """Calls into the extension module, mapping its errors onto ours."""
    try:
        return function(**kwargs)
    except _native.NoVerdict as error:
        raise InputError(str(error)) from None
    except _native.InternalError as error:
        raise PhaselintError(str(error)) from None


# ---------------------------------------------------------------- lint


@dataclasses.dataclass(frozen=True)
class Edit:
    """One replacement of a fix; positions 1-based, columns in characters."""

    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str


@dataclasses.dataclass(frozen=True)
class Fix:
    """A finding's fix, as `phaselint lint --format json` gives it."""

    message: str
    applicability: str
    edits: tuple[Edit, ...]


@dataclasses.dataclass(frozen=True)
class Related:
    """Another place a finding points at."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One finding; positions 1-based as the CLI's JSON, columns in characters."""

    code: str
    severity: Literal["error", "warning", "info"]
    message: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    help: Optional[str] = None
    fix: Optional[Fix] = None
    related: tuple[Related, ...] = ()

    @classmethod
    def _from_json(cls, item: dict[str, Any]) -> Diagnostic:
        fix = item.get("fix")
        return cls(
            code=item["code"],
            severity=item["severity"],
            message=item["message"],
            path=item["path"],
            line=item["start"]["line"],
            column=item["start"]["column"],
            end_line=item["end"]["line"],
            end_column=item["end"]["column"],
            help=item.get("help"),
            fix=None
            if fix is None
            else Fix(
                message=fix["title"],
                applicability=fix["applicability"],
                edits=tuple(
                    Edit(
                        e["start"]["line"],
                        e["start"]["column"],
                        e["end"]["line"],
                        e["end"]["column"],
                        e["replacement"],
                    )
                    for e in fix["edits"]
                ),
            ),
            related=tuple(
                Related(
                    r["path"],
                    r["start"]["line"],
                    r["start"]["column"],
                    r["end"]["line"],
                    r["end"]["column"],
                    r["message"],
                )
                for r in item.get("related", ())
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        """The finding as `phaselint lint --format json` prints it."""

        def position(line: int, column: int) -> dict[str, int]:
            return {"line": line, "column": column}

        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "start": position(self.line, self.column),
            "end": position(self.end_line, self.end_column),
            "help": self.help,
            "related": [
                {
                    "path": r.path,
                    "start": position(r.line, r.column),
                    "end": position(r.end_line, r.end_column),
                    "message": r.message,
                }
                for r in self.related
            ],
            "fix": None
            if self.fix is None
            else {
                "applicability": self.fix.applicability,
                "title": self.fix.message,
                "edits": [
                    {
                        "start": position(e.line, e.column),
                        "end": position(e.end_line, e.end_column),
                        "replacement": e.replacement,
                    }
                    for e in self.fix.edits
                ],
            },
        }


def _diagnostics(text: str) -> list[Diagnostic]:
    return [Diagnostic._from_json(d) for d in json.loads(text)["diagnostics"]]


def lint(
    source: str,
    *,
    path: Optional[PathLike] = None,
    config: Optional[PathLike] = None,
) -> list[Diagnostic]:
    """Lints `source` as `phaselint lint --stdin-filename PATH -` would.

    `path` names it in findings and picks its kind (`.harness/config.json`
    is a harness config) and the configuration found beside it; `config`
    is a phaselint.toml to use instead.
    """
    return _diagnostics(
        _call(
            _native.lint,
            source=source,
            path="-" if path is None else os.fspath(path),
            config=None if config is None else os.fspath(config),
            read=False,
        )
    )


def lint_file(path: PathLike, *, config: Optional[PathLike] = None) -> list[Diagnostic]:
    """Lints the file at `path` as `phaselint lint --format json PATH` does."""
    return _diagnostics(
        _call(
            _native.lint,
            source=None,
            path=os.fspath(path),
            config=None if config is None else os.fspath(config),
            read=True,
        )
    )


# ---------------------------------------------------------------- resume


@dataclasses.dataclass(frozen=True)
class StalenessCheckResult:
    """A stale field (REQ-10-012's StalenessCheckResult and what phaselint adds)."""

    field: str
    elapsed_seconds: Optional[int]
    max_age_seconds: int
    is_stale: bool
    severity: str
    recovery: Optional[str]
    reason: str
    recovery_attempted: bool
    recovery_succeeded: bool
    blocking: bool = False
    set_at: Optional[str] = None
    description: Optional[str] = None


_STALE_FIELD_NAMES = {f.name for f in dataclasses.fields(StalenessCheckResult)}


class ResumeResult:
    """The verdict of one resume check (`phaselint resume-check --format json`).

    It has no truth value: `if result:` raises TypeError, so a result is
    never taken for a permission by accident. Test `result.decision ==
    "resume"` (or `result.passed`).
    """

    checkpoint_id: str
    phase: str
    passed: bool
    decision: Literal["resume", "blocked", "denied"]
    exit_code: int
    stale_fields: list[StalenessCheckResult]
    fresh_fields: list[str]
    missing_provenance: list[str]
    entry_revalidation: dict[str, Any]
    approval_status: dict[str, Any]
    denial: Optional[dict[str, Any]]
    next_steps: list[dict[str, Any]]
    events: list[dict[str, Any]]
    failures: list[str]
    warnings: list[str]

    _EXIT_CODES = {"resume": 0, "blocked": 1, "denied": 2}

    def __init__(self, report: dict[str, Any]) -> None:
        self._report = report
        self.checkpoint_id = report["checkpoint_id"]
        self.phase = report["phase"]
        self.passed = report["passed"]
        self.decision = report["decision"]
        self.exit_code = self._EXIT_CODES[report["decision"]]
        self.stale_fields = [
            StalenessCheckResult(**{k: v for k, v in f.items() if k in _STALE_FIELD_NAMES})
            for f in report["stale_fields"]
        ]
        self.fresh_fields = list(report["fresh_fields"])
        self.missing_provenance = list(report["missing_provenance"])
        self.entry_revalidation = report["entry_revalidation"]
        self.approval_status = report["approval_status"]
        self.denial = report["denial"]
        self.next_steps = report["next_steps"]
        self.events = report["events"]
        self.failures = list(report["failures"])
        self.warnings = list(report["warnings"])

    def to_dict(self) -> dict[str, Any]:
        """The report exactly as `phaselint resume-check --format json` prints it."""
        copied: dict[str, Any] = json.loads(json.dumps(self._report))
        return copied

    def to_gate_result(self) -> dict[str, Any]:
        """ContextCore's GateResult for this check (its `gate_result`)."""
        copied: dict[str, Any] = json.loads(json.dumps(self._report["gate_result"]))
        return copied

    def __bool__(self) -> bool:
        raise TypeError(
            "a ResumeResult has no truth value: test result.decision == 'resume' (or result.passed)"
        )

    def __repr__(self) -> str:
        return (
            f"ResumeResult(checkpoint_id={self.checkpoint_id!r}, phase={self.phase!r}, "
            f"decision={self.decision!r}, passed={self.passed!r})"
        )


@runtime_checkable
class RecoveryHandler(Protocol):
    """Recovers a stale field in process (REQ-10-008).

    Called for each stale blocking or warning field whose recovery is
    `re_retrieve` or `re_generate`; it may update `context` in place (the
    same mapping passed to `resume_check`), which is then judged again.
    Returning True says it recovered the field; an exception it raises is a
    failed attempt, recorded with its message.
    """

    def recover(self, field: str, strategy: str, context: dict[str, Any]) -> bool: ...


class NoOpRecoveryHandler:
    """Recovers nothing: every attempt fails, and is recorded."""

    def recover(self, field: str, strategy: str, context: dict[str, Any]) -> bool:
        return False


class _ContextTooLarge(Exception):
    pass


def _plain(value: Any) -> Any:
    """A value JSON can carry: datetimes as ISO 8601, other mappings, pydantic models and dataclasses as dicts."""
    if isinstance(value, (_datetime.datetime, _datetime.date, _datetime.time)):
        return value.isoformat()
    if isinstance(value, Mapping):
        # A Mapping that is not a dict (MappingProxyType, a collections.abc
        # Mapping): read once, here, so the JSON is one reading of it.
        return dict(value.items())
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):
        return model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(type(value).__name__)


def _where(value: Any, path: str = "") -> Optional[str]:
    """The first key under `value` JSON cannot carry, and why."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"`{path or '.'}` is {value!r}, which JSON has no number for"
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                return f"`{path or '.'}` has a key of type {type(key).__name__}"
            found = _where(item, f"{path}.{key}" if path else str(key))
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _where(item, f"{path}[{index}]")
            if found:
                return found
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return None
    try:
        converted = _plain(value)
    except TypeError:
        return f"`{path or '.'}` is a {type(value).__name__}, which is not JSON (a mapping, list, string, number, bool, None, datetime, dataclass or pydantic model)"
    return _where(converted, path)


def _to_json(value: Any, what: str) -> str:
    """`value` as JSON, refused once it is larger than a context file may be."""
    encoder = json.JSONEncoder(allow_nan=False, default=_plain, ensure_ascii=False)
    chunks: list[str] = []
    size = 0
    try:
        for chunk in encoder.iterencode(value):
            size += len(chunk)
            if size > _native.CONTEXT_BOUND:
                raise _ContextTooLarge
            chunks.append(chunk)
    except _ContextTooLarge:
        raise InputError(
            f"cannot read the {what}: it is larger than the limit of {_native.CONTEXT_BOUND_TEXT} as JSON"
        ) from None
    except RecursionError:
        # Nested deeper than Python recurses: deeper than the 128 levels the
        # check reads anyway (the command says the same of such a file).
        raise InputError(
            f"cannot read the {what}: it nests deeper than JSON's recursion limit (or contains itself)"
        ) from None
    except ValueError as error:
        if "Circular reference" in str(error):
            raise InputError(f"cannot read the {what}: it contains itself (a circular reference)") from None
        found = _where(value)
        raise InputError(f"cannot read the {what}: {found or error}") from None
    except TypeError as error:
        found = _where(value)
        raise InputError(f"cannot read the {what}: {found or error}") from None
    return "".join(chunks)


def _context_json(context: Any) -> str:
    # Whether it is a mapping is the check's to say, in the CLI's words.
    return _to_json(context, "context")


def _contract_args(contract: Any) -> dict[str, Optional[str]]:
    """`os.PathLike`: a path; a str with a newline: YAML text; another str: a path."""
    if isinstance(contract, os.PathLike):
        return {"contract_path": os.fspath(contract), "contract_text": None}
    if isinstance(contract, str):
        if "\n" in contract:
            return {"contract_path": None, "contract_text": contract}
        return {"contract_path": contract, "contract_text": None}
    raise InputError(
        f"the contract must be a path or YAML text, found {type(contract).__name__}"
    )


def _now_text(now: Any) -> Optional[str]:
    if now is None:
        return None
    if isinstance(now, _datetime.datetime):
        if now.tzinfo is None or now.utcoffset() is None:
            raise InputError(
                f"now `{now.isoformat()}` has no time zone: give an aware datetime (e.g. datetime.now(timezone.utc))"
            )
        # The base methods: a subclass that overrides isoformat() does not
        # choose the time judged.
        return _datetime.datetime.isoformat(now)
    if isinstance(now, str):
        return str.__str__(now)
    raise InputError(f"now must be None, an aware datetime or an RFC 3339 string, found {type(now).__name__}")


def _approval_args(approvals: Iterable[Any]) -> tuple[list[str], Optional[str]]:
    if isinstance(approvals, (str, bytes, Mapping)) or isinstance(approvals, os.PathLike):
        raise InputError("approvals must be an iterable of ApprovalRecord mappings and/or paths")
    files: list[str] = []
    records: list[Any] = []
    for item in approvals:
        if isinstance(item, Mapping):
            records.append(item)
        elif isinstance(item, (str, os.PathLike)):
            files.append(os.fspath(item))
        else:
            raise InputError(
                f"an approval must be an ApprovalRecord mapping or the path of an approvals file, found {type(item).__name__}"
            )
    return files, (_to_json(records, "approval records") if records else None)


def _recoverer(handler: Any, context: Any) -> Optional[tuple[str, Any, Any]]:
    if handler is None:
        return None
    recover = getattr(handler, "recover", None)
    if not callable(recover):
        raise InputError(
            f"recovery_handler must have a recover(field, strategy, context) method; {type(handler).__name__} has none"
        )
    name = f"{type(handler).__module__}.{type(handler).__qualname__}.recover"

    def attempt(checkpoint_id: str, phase: str, field: str, strategy: str) -> tuple[bool, str]:
        try:
            recovered = recover(field, strategy, context)
        except Exception as error:  # a failed attempt; KeyboardInterrupt propagates
            return False, f"raised {type(error).__name__}: {error}"
        if recovered is True:
            return True, "returned True"
        if recovered is False:
            return False, "returned False"
        return False, f"returned {recovered!r}, not True or False"

    def reread() -> str:
        return _context_json(context)

    return (name, attempt, reread)


def _emit_events(result: ResumeResult) -> None:
    """Adds the report's REQ-10-009 events to the current span; telemetry
    that fails never takes the verdict with it (a warning says so)."""
    if not _HAS_OTEL or _otel_trace is None:
        return
    try:
        _add_events(result)
    except Exception as error:
        import warnings

        warnings.warn(
            f"phaselint: the resume events were not added to the current span: {type(error).__name__}: {error}",
            RuntimeWarning,
            stacklevel=3,
        )


def _add_events(result: ResumeResult) -> None:
    if _otel_trace is None:
        return
    span = _otel_trace.get_current_span()
    if not span.is_recording():
        return
    for event in result.events:
        attributes = {
            key: value
            for key, value in event.get("attributes", {}).items()
            if value is not None
        }
        attributes = {
            key: (value if isinstance(value, (str, bool, int, float)) else json.dumps(value))
            for key, value in attributes.items()
        }
        timestamp = None
        stamp = event.get("timestamp")
        if isinstance(stamp, str):
            try:
                parsed = _datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
                timestamp = int(parsed.timestamp() * 1_000_000) * 1000
            except ValueError:
                timestamp = None
        span.add_event(event["name"], attributes, timestamp)


def resume_check(
    contract: Union[str, "os.PathLike[str]"],
    checkpoint_id: str,
    context: Mapping[str, Any],
    *,
    approvals: Iterable[Union[Mapping[str, Any], str, "os.PathLike[str]"]] = (),
    now: Union[None, _datetime.datetime, str] = None,
    mode: Mode = "strict",
    next_phase: Optional[str] = None,
    harness_dir: Optional[PathLike] = None,
    config: Optional[PathLike] = None,
    no_config: bool = False,
    trust_context_approvals: bool = False,
    recovery_handler: Optional[RecoveryHandler] = None,
) -> ResumeResult:
    """May a paused run resume from `checkpoint_id` with `context`?

    The same check as `phaselint resume-check --format json` (the keywords
    are its options). `contract` is a path (`os.PathLike`, or a str without
    a newline) or YAML text; `context` a mapping (datetimes, dataclasses and
    pydantic models in it are converted); `approvals` ApprovalRecord
    mappings and/or paths of approvals files; `now` None (the clock), an
    aware datetime or an RFC 3339 string. Raises `InputError` with the
    CLI's message when no verdict can be given. With the OpenTelemetry API
    installed, the report's events are added to the current span.
    """
    return _resume_check(
        contract, checkpoint_id, context, approvals=approvals, now=now, mode=mode,
        next_phase=next_phase, harness_dir=harness_dir, config=config, no_config=no_config,
        trust_context_approvals=trust_context_approvals, recovery_handler=recovery_handler,
        cache=_path_cache(contract, config, no_config),
    )


# One contract cache per contract file (and configuration) that
# `resume_check` was given: each check reads the file and its configuration
# again, as the command does, and analyzes the contract again only when its
# bytes changed, so an orchestrator calling `resume_check` in a loop pays
# for the analysis once. Bounded: emptied when it holds this many.
_PATH_CACHES: dict[tuple[str, Optional[str], bool], Any] = {}
_PATH_CACHES_KEPT = 64


def _path_cache(contract: Any, config: Optional[PathLike], no_config: bool) -> Any:
    path = _contract_args(contract)["contract_path"]
    if path is None:
        return None
    key = (
        os.path.abspath(path),
        None if config is None else os.path.abspath(os.fspath(config)),
        bool(no_config),
    )
    cache = _PATH_CACHES.get(key)
    if cache is None:
        if len(_PATH_CACHES) >= _PATH_CACHES_KEPT:
            _PATH_CACHES.clear()
        cache = _PATH_CACHES.setdefault(key, _native.ContractCache())
    return cache


def _outline(contract: Union[str, "os.PathLike[str]"]) -> tuple[list[str], list[tuple[str, str]]]:
    """The contract's phase names and its (checkpoint_id, phase) pairs, as
    the resume check reads them (for the LangGraph guard, which maps a
    paused thread onto them). A path's analysis is the one `resume_check`
    keeps for it. Raises `InputError` as `resume_check` would."""
    outline = json.loads(
        _call(
            _native.outline,
            **_contract_args(contract),
            config=None,
            no_config=False,
            cache=_path_cache(contract, None, False),
        )
    )
    specs = [
        (spec["checkpoint_id"], spec["phase"])
        for spec in outline["checkpoints"]
        if spec["checkpoint_id"] is not None and spec["phase"] is not None
    ]
    return list(outline["phases"]), specs


def _resume_check(
    contract: Union[str, "os.PathLike[str]"],
    checkpoint_id: str,
    context: Mapping[str, Any],
    *,
    approvals: Iterable[Union[Mapping[str, Any], str, "os.PathLike[str]"]],
    now: Union[None, _datetime.datetime, str],
    mode: Mode,
    next_phase: Optional[str],
    harness_dir: Optional[PathLike],
    config: Optional[PathLike],
    no_config: bool,
    trust_context_approvals: bool,
    recovery_handler: Optional[RecoveryHandler],
    cache: Optional[_native.ContractCache],
) -> ResumeResult:
    """`resume_check`, with a guard's contract cache."""
    files, records = _approval_args(approvals)
    report = _call(
        _native.resume_check,
        **_contract_args(contract),
        checkpoint_id=checkpoint_id,
        context_json=_context_json(context),
        approval_files=files,
        approval_records_json=records,
        now=_now_text(now),
        mode=_mode(mode),
        next_phase=next_phase,
        harness_dir=None if harness_dir is None else os.fspath(harness_dir),
        config=None if config is None else os.fspath(config),
        no_config=no_config,
        trust_context_approvals=trust_context_approvals,
        recoverer=_recoverer(recovery_handler, context),
        cache=cache,
    )
    result = ResumeResult(json.loads(report))
    _emit_events(result)
    return result


def _mode(mode: Any) -> Mode:
    """`mode` as a plain str: a str subclass whose `==` lies must not make
    the guard test one mode while the check runs another."""
    plain = str.__str__(mode) if isinstance(mode, str) else None
    if plain == "strict":
        return "strict"
    if plain == "permissive":
        return "permissive"
    if plain == "audit":
        return "audit"
    raise InputError(
        f"mode `{plain if plain is not None else mode!r}` is not one of `strict`, `permissive`, `audit`"
    )


class CheckpointGuard:
    """REQ-10-005's guard: checks a checkpoint before a run resumes from it.

    strict: raises `CheckpointStalenessError` unless the decision is
    "resume"; permissive: returns the failed result (blocking failures are
    reported, a missing approval still denies); audit: never raises.

    A guard of a contract file reads the file (and its configuration) again
    for every check, as `resume_check` does, but analyzes it again only when
    its bytes changed, so checks after the first skip the analysis.
    """

    def __init__(
        self,
        contract: Union[str, "os.PathLike[str]"],
        mode: Mode = "strict",
        recovery_handler: Optional[RecoveryHandler] = None,
        *,
        config: Optional[PathLike] = None,
    ) -> None:
        self.contract = contract
        self.mode: Mode = _mode(mode)
        self.recovery_handler = recovery_handler
        self.config = config
        self._cache = _native.ContractCache()

    def resume_checkpoint(
        self,
        checkpoint_id: str,
        context: Mapping[str, Any],
        *,
        approvals: Iterable[Union[Mapping[str, Any], str, "os.PathLike[str]"]] = (),
        now: Union[None, _datetime.datetime, str] = None,
        next_phase: Optional[str] = None,
        harness_dir: Optional[PathLike] = None,
    ) -> ResumeResult:
        # One reading of the mode decides both what the check runs and
        # whether this guard raises.
        mode = _mode(self.mode)
        result = _resume_check(
            self.contract,
            checkpoint_id,
            context,
            approvals=approvals,
            now=now,
            mode=mode,
            next_phase=next_phase,
            harness_dir=harness_dir,
            config=self.config,
            no_config=False,
            trust_context_approvals=False,
            recovery_handler=self.recovery_handler,
            cache=self._cache,
        )
        if mode == "strict" and result.decision != "resume":
            raise CheckpointStalenessError(result)
        return result


def approve(
    contract: Union[str, "os.PathLike[str]"],
    checkpoint_id: str,
    *,
    approved_by: str,
    policy: Literal["human", "orchestrator"],
    ack: Iterable[str] = (),
    context: Optional[Mapping[str, Any]] = None,
    notes: Optional[str] = None,
    now: Union[None, _datetime.datetime, str] = None,
    confirm_irreversible: bool = False,
    config: Optional[PathLike] = None,
    no_config: bool = False,
) -> dict[str, Any]:
    """The ApprovalRecord `phaselint approve` writes, as a dict.

    Keywords mirror its options (`--by` is `approved_by`, `--policy`,
    `--ack`, `--context`, `--notes`, `--now`, `--confirm-irreversible`).
    What the command notes or warns on standard error is issued as a
    `UserWarning`.
    """
    record, said = _call(
        _native.approve,
        **_contract_args(contract),
        checkpoint_id=checkpoint_id,
        approved_by=approved_by,
        policy=policy,
        ack=[ack] if isinstance(ack, str) else list(ack),
        context_json=None if context is None else _context_json(context),
        notes=notes,
        now=_now_text(now),
        confirm_irreversible=confirm_irreversible,
        config=None if config is None else os.fspath(config),
        no_config=no_config,
    )
    if said:
        import warnings

        for message in said:
            warnings.warn(message, UserWarning, stacklevel=2)
    parsed: dict[str, Any] = json.loads(record)
    return parsed


# ---------------------------------------------------------------- the command


def find_phaselint_bin() -> str:
    """Return the path of the `phaselint` executable installed with this package.

    An installer puts the executable in the scripts directory of the scheme it
    installed the package with: the environment's (a virtual environment,
    pipx, uv), the user's (`pip install --user`), or DIR/bin for
    `pip install --target DIR`. The scheme whose site-packages holds this
    package is tried first: a phaselint of another scheme is taken only when
    that one has none. Raises FileNotFoundError naming every place it looked.
    """
    exe = "phaselint" + (sysconfig.get_config_var("EXE") or "")
    here = _site_dir()
    # `pip install --target DIR`: DIR/bin beside the package; no other
    # layout has a bin/ inside site-packages.
    candidates = [os.path.join(here, "bin", exe)]
    others = []
    for paths in (sysconfig.get_paths(), sysconfig.get_paths(_user_scheme())):
        script = os.path.join(paths["scripts"], exe)
        if here in (_canonical(paths["purelib"]), _canonical(paths["platlib"])):
            candidates.append(script)
        else:
            others.append(script)
    candidates.extend(others)

    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        "the phaselint executable is not where this package was installed (looked at "
        + ", ".join(dict.fromkeys(candidates))
        + "); reinstall it with `pip install --force-reinstall phaselint`"
    )


def _canonical(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _site_dir() -> str:
    """The directory this package was imported from (its site-packages)."""
    return _canonical(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _user_scheme() -> str:
    """The install scheme of `pip install --user` on this interpreter."""
    if sys.version_info >= (3, 10):
        return sysconfig.get_preferred_scheme("user")
    if os.name == "nt":
        return "nt_user"
    if sys.platform == "darwin" and getattr(sys, "_framework", None):
        return "osx_framework_user"
    return "posix_user"
