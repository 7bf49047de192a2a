"""The Python API beyond the resume-cases folders: the guard's modes,
recovery handlers, approvals, the exceptions at the boundary, the bounds
and conversions of a context, lint against the command, and OpenTelemetry."""

from __future__ import annotations

import copy
import dataclasses
import datetime
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import phaselint

ROOT = Path(__file__).resolve().parents[2]
PIPELINE = ROOT / "fixtures" / "resume" / "contracts" / "pipeline.contract.yaml"
NOW = "2026-03-01T12:00:00Z"


def context(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((ROOT / "fixtures" / "resume" / "contexts" / name).read_text())
    return loaded


def fresh_at_now() -> dict[str, Any]:
    """The stale fixture with every field just set: fresh at NOW."""
    ctx = context("stale.json")
    for record in ctx["_cc_propagation"].values():
        record["set_at"] = "2026-03-01T11:59:00Z"
    return ctx


# ------------------------------------------------------------ results


def test_a_result_has_the_req_10_fields_and_no_truthiness() -> None:
    result = phaselint.resume_check(PIPELINE, "after_retrieve", context("stale.json"), now=NOW)
    assert result.checkpoint_id == "after_retrieve"
    assert result.phase == "retrieve"
    assert result.passed is False
    assert result.decision == "blocked" and result.exit_code == 1
    stale = {f.field: f for f in result.stale_fields}
    assert stale["index.snapshot"].is_stale and stale["index.snapshot"].severity == "blocking"
    assert stale["index.snapshot"].elapsed_seconds == 14400
    assert stale["index.snapshot"].max_age_seconds == 3600
    assert stale["index.snapshot"].recovery == "re_retrieve"
    assert isinstance(result.entry_revalidation, dict)
    assert isinstance(result.approval_status, dict)
    assert [e["name"] for e in result.events][0].startswith("context.checkpoint.")
    with pytest.raises(TypeError, match="no truth value"):
        bool(result)
    gate = result.to_gate_result()
    assert gate["gate_id"] == "checkpoint.after_retrieve.resume"
    assert gate["result"] == "fail" and gate["blocking"] is True


def test_a_contract_as_yaml_text() -> None:
    text = PIPELINE.read_text()
    by_text = phaselint.resume_check(text, "after_retrieve", fresh_at_now(), now=NOW)
    by_path = phaselint.resume_check(str(PIPELINE), "after_retrieve", fresh_at_now(), now=NOW)
    assert by_text.to_dict() == by_path.to_dict()
    assert by_text.decision == "resume"


def test_a_contract_with_errors_is_an_input_error_naming_them() -> None:
    broken = ROOT / "fixtures" / "resume" / "contracts" / "broken.contract.yaml"
    with pytest.raises(phaselint.InputError, match="has errors \\(E-codes\\)"):
        phaselint.resume_check(broken, "x", {}, now=NOW)
    with pytest.raises(ValueError):  # InputError is a ValueError too
        phaselint.resume_check(broken, "x", {}, now=NOW)


# ------------------------------------------------------------ the guard


def test_the_guard_in_strict_mode_raises_with_the_result() -> None:
    guard = phaselint.CheckpointGuard(PIPELINE)
    with pytest.raises(phaselint.CheckpointStalenessError) as raised:
        guard.resume_checkpoint("after_retrieve", context("stale.json"), now=NOW)
    assert raised.value.result.decision == "blocked"
    assert isinstance(raised.value, phaselint.PhaselintError)
    assert guard.resume_checkpoint("after_retrieve", fresh_at_now(), now=NOW).decision == "resume"


def test_the_guard_reads_a_changed_contract_again(tmp_path: Path) -> None:
    contract = tmp_path / "pipeline.contract.yaml"
    contract.write_text(PIPELINE.read_text())
    guard = phaselint.CheckpointGuard(contract, mode="audit")
    first = guard.resume_checkpoint("after_retrieve", fresh_at_now(), now=NOW)
    assert first.to_dict() == phaselint.resume_check(contract, "after_retrieve", fresh_at_now(), now=NOW, mode="audit").to_dict()
    # The same size and a new digest: the checkpoint's max age changes.
    contract.write_text(PIPELINE.read_text().replace("max_age_seconds: 3600", "max_age_seconds: 3601"))
    second = guard.resume_checkpoint("after_retrieve", fresh_at_now(), now=NOW)
    assert second.to_dict()["target_digest"] != first.to_dict()["target_digest"]
    assert second.to_dict() == phaselint.resume_check(contract, "after_retrieve", fresh_at_now(), now=NOW, mode="audit").to_dict()
    # A contract that gained an error is refused, not judged by the old analysis.
    contract.write_text("schema_version: [\n")
    with pytest.raises(phaselint.InputError, match="has errors"):
        guard.resume_checkpoint("after_retrieve", fresh_at_now(), now=NOW)


def test_the_guard_in_permissive_mode_returns_the_failed_result() -> None:
    guard = phaselint.CheckpointGuard(PIPELINE, mode="permissive")
    result = guard.resume_checkpoint("after_retrieve", context("stale.json"), now=NOW)
    assert result.passed is False and result.decision == "resume"
    # A missing approval still denies, and permissive returns that too.
    denied = guard.resume_checkpoint("after_generate", fresh_at_now(), now=NOW)
    assert denied.decision == "denied" and denied.exit_code == 2


def test_the_guard_in_audit_mode_never_raises() -> None:
    guard = phaselint.CheckpointGuard(PIPELINE, mode="audit")
    for checkpoint in ("after_retrieve", "after_generate", "review_by_human"):
        result = guard.resume_checkpoint(checkpoint, context("stale.json"), now=NOW)
        assert result.decision == "resume"


def test_an_approval_from_approve_lets_the_guard_resume() -> None:
    ctx = fresh_at_now()
    ctx["draft"] = "the first draft"
    ctx["_cc_propagation"]["draft"] = {"origin_phase": "generate", "set_at": "2026-03-01T11:59:00Z"}
    record = phaselint.approve(
        PIPELINE, "after_generate", approved_by="ana", policy="human", now=NOW, context=ctx
    )
    assert record["checkpoint_id"] == "after_generate"
    assert record["approved_by"] == "ana" and record["policy"] == "human"
    assert record["target_digest"] and record["context_digest"]
    guard = phaselint.CheckpointGuard(PIPELINE)
    assert guard.resume_checkpoint("after_generate", ctx, approvals=[record], now=NOW).decision == "resume"
    # The same record for another checkpoint does not bind.
    other = dict(record, checkpoint_id="review_by_human")
    result = phaselint.CheckpointGuard(PIPELINE, mode="audit").resume_checkpoint(
        "review_by_human", ctx, approvals=[other], now=NOW
    )
    assert result.passed is False


def test_approve_gives_the_record_the_command_writes(tmp_path: Path, phaselint_bin: str) -> None:
    ctx = fresh_at_now()
    (tmp_path / "context.json").write_text(json.dumps(ctx))
    written = subprocess.run(
        [phaselint_bin, "approve", "--contract", str(PIPELINE), "--checkpoint", "after_generate",
         "--by", "ana", "--policy", "human", "--now", NOW, "--context", str(tmp_path / "context.json"),
         "--notes", "checked"],
        capture_output=True, text=True, check=True,
    )
    record = phaselint.approve(
        PIPELINE, "after_generate", approved_by="ana", policy="human", now=NOW, context=ctx, notes="checked"
    )
    assert record == json.loads(written.stdout)
    assert list(record) == list(json.loads(written.stdout))


def test_approve_refuses_as_the_command_does() -> None:
    with pytest.raises(phaselint.InputError, match="only a person may approve it"):
        phaselint.approve(PIPELINE, "review_by_orchestrator", approved_by="bot", policy="orchestrator", now=NOW)
    with pytest.raises(phaselint.InputError, match="--ack `nope` is not a staleness-checked field"):
        phaselint.approve(PIPELINE, "after_generate", approved_by="ana", policy="human", ack=["nope"], now=NOW)
    with pytest.raises(phaselint.InputError, match="confirm_irreversible=True"):
        phaselint.approve(PIPELINE, "review_by_human", approved_by="ana", policy="human", now=NOW, context=fresh_at_now())
    record = phaselint.approve(
        PIPELINE, "review_by_human", approved_by="ana", policy="human", now=NOW,
        context=fresh_at_now(), confirm_irreversible=True,
    )
    assert record["context_field_digests"]
    with pytest.warns(UserWarning, match="does not require approval"):
        phaselint.approve(PIPELINE, "after_retrieve", approved_by="ana", policy="human", now=NOW)


# ------------------------------------------------------------ recovery


class Refresh:
    """Recovers by stamping the field fresh in the context, in place."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def recover(self, field: str, strategy: str, context: dict[str, Any]) -> bool:
        self.calls.append((field, strategy))
        context["_cc_propagation"][field]["set_at"] = "2026-03-01T11:59:00Z"
        return True


def test_a_recovery_handler_is_called_and_its_update_is_judged() -> None:
    handler = Refresh()
    assert isinstance(handler, phaselint.RecoveryHandler)
    ctx = context("stale.json")
    result = phaselint.resume_check(PIPELINE, "after_retrieve", ctx, now=NOW, recovery_handler=handler)
    assert handler.calls == [("index.snapshot", "re_retrieve"), ("model.version", "re_generate")]
    assert result.decision == "resume"
    attempts = result.to_dict()["recovery_attempts"]
    assert [a["recovered"] for a in attempts] == [True, True]
    assert all(a["command"].endswith("Refresh.recover") for a in attempts)
    assert {f.field: f.recovery_succeeded for f in result.stale_fields}["index.snapshot"] is True


def test_the_no_op_handler_records_failed_attempts() -> None:
    result = phaselint.resume_check(
        PIPELINE, "after_retrieve", context("stale.json"), now=NOW,
        recovery_handler=phaselint.NoOpRecoveryHandler(),
    )
    assert result.decision == "blocked"
    attempts = result.to_dict()["recovery_attempts"]
    assert attempts and all(a["recovered"] is False and a["detail"] == "returned False" for a in attempts)


def test_a_handler_that_raises_is_a_failed_attempt_with_its_message() -> None:
    class Broken:
        def recover(self, field: str, strategy: str, context: dict[str, Any]) -> bool:
            raise ConnectionError(f"index service down for {field}")

    result = phaselint.resume_check(PIPELINE, "after_retrieve", context("stale.json"), now=NOW, recovery_handler=Broken())
    assert result.decision == "blocked"
    details = [a["detail"] for a in result.to_dict()["recovery_attempts"]]
    assert details[0] == "raised ConnectionError: index service down for index.snapshot"


def test_keyboard_interrupt_in_a_handler_reaches_the_caller() -> None:
    class Interrupted:
        calls = 0

        def recover(self, field: str, strategy: str, context: dict[str, Any]) -> bool:
            Interrupted.calls += 1
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        phaselint.resume_check(PIPELINE, "after_retrieve", context("stale.json"), now=NOW, recovery_handler=Interrupted())
    assert Interrupted.calls == 1


def test_a_handler_that_breaks_the_context_gives_no_verdict() -> None:
    class Poison:
        def recover(self, field: str, strategy: str, context: dict[str, Any]) -> bool:
            context["bad"] = math.nan
            return True

    with pytest.raises(phaselint.InputError, match="cannot re-read the context after recovery"):
        phaselint.resume_check(PIPELINE, "after_retrieve", context("stale.json"), now=NOW, recovery_handler=Poison())


# ------------------------------------------------------------ the boundary


def test_a_rust_panic_is_a_phaselint_error_an_exception() -> None:
    from phaselint import _native

    # Every call into the module goes through phaselint._call, which maps
    # the module's InternalError (a panic caught in Rust) onto PhaselintError.
    with pytest.raises(Exception) as raised:
        phaselint._call(_native._panic_for_tests)
    assert type(raised.value) is phaselint.PhaselintError
    assert "a panic raised on purpose" in str(raised.value)
    # Not PyO3's PanicException, a BaseException `except Exception` misses.
    assert isinstance(raised.value, Exception)


def test_context_values_are_converted_or_refused_naming_the_key() -> None:
    @dataclasses.dataclass
    class Doc:
        id: str

    ctx = fresh_at_now()
    ctx["documents"] = [Doc("doc-1"), Doc("doc-2")]
    ctx["seen_at"] = datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc)
    assert phaselint.resume_check(PIPELINE, "after_retrieve", ctx, now=NOW).decision == "resume"
    for bad, named in ((math.inf, "`index.snapshot`"), (object(), "`index.snapshot` is a object")):
        ctx = fresh_at_now()
        ctx["index"]["snapshot"] = bad
        with pytest.raises(phaselint.InputError, match=named.replace(".", "\\.")):
            phaselint.resume_check(PIPELINE, "after_retrieve", ctx, now=NOW)


def test_a_huge_context_is_refused_within_the_bound() -> None:
    ctx = fresh_at_now()
    ctx["blob"] = ["x" * 1_000_000] * 40  # 40 MB of JSON, over the 32 MiB bound
    with pytest.raises(phaselint.InputError, match="larger than the limit of 33554432 bytes \\(32 MiB\\)"):
        phaselint.resume_check(PIPELINE, "after_retrieve", ctx, now=NOW)


def test_a_context_that_contains_itself_or_nests_too_deep_is_an_input_error() -> None:
    circular = fresh_at_now()
    circular["loop"] = circular
    with pytest.raises(phaselint.InputError, match="contains itself"):
        phaselint.resume_check(PIPELINE, "after_retrieve", circular, now=NOW)
    deep = fresh_at_now()
    inner = deep
    for _ in range(sys.getrecursionlimit() * 2):
        inner["n"] = {}
        inner = inner["n"]
    with pytest.raises(phaselint.InputError, match="nests deeper"):
        phaselint.resume_check(PIPELINE, "after_retrieve", deep, now=NOW)


def test_a_mapping_that_is_not_a_dict_is_a_context() -> None:
    import types

    proxy = types.MappingProxyType(fresh_at_now())
    result = phaselint.resume_check(PIPELINE, "after_retrieve", proxy, now=NOW)
    assert result.to_dict() == phaselint.resume_check(PIPELINE, "after_retrieve", fresh_at_now(), now=NOW).to_dict()


def test_a_str_subclass_mode_is_judged_by_its_characters() -> None:
    class Agreeable(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    guard = phaselint.CheckpointGuard(PIPELINE, mode=Agreeable("audit"))  # type: ignore[arg-type]
    assert guard.mode == "audit" and type(guard.mode) is str
    with pytest.raises(phaselint.InputError, match="is not one of"):
        phaselint.CheckpointGuard(PIPELINE, mode=Agreeable("lenient"))  # type: ignore[arg-type]


def test_a_handler_that_checks_again_with_its_guard_does_not_deadlock() -> None:
    # The guard's contract cache is held through a check, handlers included;
    # a check from inside a handler loads the contract afresh.
    inner: list[str] = []

    class CheckAgain:
        def recover(self, field: str, strategy: str, context: dict[str, Any]) -> bool:
            inner.append(guard.resume_checkpoint("after_retrieve", fresh_at_now(), now=NOW).decision)
            context["_cc_propagation"][field]["set_at"] = "2026-03-01T11:59:00Z"
            return True

    guard = phaselint.CheckpointGuard(PIPELINE, recovery_handler=CheckAgain())
    result = guard.resume_checkpoint("after_retrieve", context("stale.json"), now=NOW)
    assert inner == ["resume", "resume"]
    assert result.decision == "resume"


def test_now_must_be_aware() -> None:
    with pytest.raises(phaselint.InputError, match="no time zone"):
        phaselint.resume_check(PIPELINE, "after_retrieve", {}, now=datetime.datetime(2026, 3, 1))
    aware = datetime.datetime(2026, 3, 1, 12, tzinfo=datetime.timezone.utc)
    assert phaselint.resume_check(PIPELINE, "after_retrieve", fresh_at_now(), now=aware).to_dict()["now"] == NOW
    with pytest.raises(phaselint.InputError, match="--now `tomorrow` is not an RFC 3339 timestamp"):
        phaselint.resume_check(PIPELINE, "after_retrieve", {}, now="tomorrow")


def test_the_call_leaves_the_callers_context_alone() -> None:
    ctx = context("stale.json")
    kept = copy.deepcopy(ctx)
    phaselint.resume_check(PIPELINE, "after_retrieve", ctx, now=NOW)
    assert ctx == kept


# ------------------------------------------------------------ lint


def _lint_files() -> list[Path]:
    files = sorted((ROOT / "fixtures").rglob("*.contract.yaml"))
    files += sorted((ROOT / "fixtures").rglob("*.harness.json"))
    corpus = ROOT.parent / "shared" / "corpus"
    if corpus.is_dir():
        files += sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml", ".json"))
    return files


def test_lint_file_gives_the_commands_findings(phaselint_bin: str) -> None:
    files = _lint_files()
    assert len(files) > 50
    compared = 0
    for path in files:
        ran = subprocess.run(
            [phaselint_bin, "lint", "--format", "json", str(path)], capture_output=True, text=True
        )
        if ran.returncode not in (0, 1):
            continue
        expected = json.loads(ran.stdout)["diagnostics"]
        assert [d.to_dict() for d in phaselint.lint_file(path)] == expected, path
        compared += 1
    assert compared > 50


def test_lint_of_text_is_lint_of_standard_input(phaselint_bin: str) -> None:
    path = ROOT / "fixtures" / "G303" / "fail.contract.yaml"
    text = path.read_text()
    ran = subprocess.run(
        [phaselint_bin, "lint", "--format", "json", "--stdin-filename", "review.contract.yaml", "-"],
        input=text, capture_output=True, text=True,
    )
    findings = phaselint.lint(text, path="review.contract.yaml")
    assert [d.to_dict() for d in findings] == json.loads(ran.stdout)["diagnostics"]
    first = findings[0]
    assert first.code == "G303" and first.severity == "error" and first.line >= 1 and first.help


# ------------------------------------------------------------ OpenTelemetry


def test_events_go_to_the_current_span() -> None:
    pytest.importorskip("opentelemetry.sdk", reason="opentelemetry-sdk records the spans")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    assert phaselint._HAS_OTEL is True
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("orchestrator")
    with tracer.start_as_current_span("resume"):
        result = phaselint.resume_check(PIPELINE, "after_retrieve", context("stale.json"), now=NOW)
    (span,) = exporter.get_finished_spans()
    events = [(e.name, dict(e.attributes or {})) for e in span.events]
    expected = [
        (e["name"], {k: v for k, v in e["attributes"].items() if v is not None}) for e in result.events
    ]
    assert events == expected
    names = [name for name, _ in events]
    assert "context.checkpoint.resume" in names and "context.checkpoint.stale_field" in names
    resume = dict(events)["context.checkpoint.resume"]
    assert resume["checkpoint.id"] == "after_retrieve"
    assert resume["checkpoint.phase"] == "retrieve"
    assert resume["checkpoint.passed"] is False
    assert resume["checkpoint.stale_field_count"] == 3
    stale = [attrs for name, attrs in events if name == "context.checkpoint.stale_field"]
    assert stale[0]["checkpoint.stale.field"] == "index.snapshot"
    assert stale[0]["checkpoint.stale.elapsed_seconds"] == 14400
    assert stale[0]["checkpoint.stale.severity"] == "blocking"
    assert all(v is not None for _, attrs in events for v in attrs.values())
    stamp = datetime.datetime.fromisoformat(result.events[0]["timestamp"].replace("Z", "+00:00"))
    assert span.events[0].timestamp == int(stamp.timestamp()) * 1_000_000_000


def test_without_opentelemetry_nothing_breaks() -> None:
    code = (
        "import sys, json; sys.modules['opentelemetry'] = None\n"
        "import phaselint\n"
        "assert phaselint._HAS_OTEL is False\n"
        f"ctx = json.load(open({str(ROOT / 'fixtures/resume/contexts/stale.json')!r}))\n"
        f"r = phaselint.resume_check({str(PIPELINE)!r}, 'after_retrieve', ctx, now={NOW!r})\n"
        "print(r.decision)\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "blocked"


def test_a_broken_opentelemetry_install_is_no_telemetry(tmp_path: Path) -> None:
    broken = tmp_path / "opentelemetry"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise RuntimeError('a broken install')\n")
    code = (
        f"import sys, json; sys.path.insert(0, {str(tmp_path)!r})\n"
        "import phaselint\n"
        "assert phaselint._HAS_OTEL is False\n"
        f"ctx = json.load(open({str(ROOT / 'fixtures/resume/contexts/stale.json')!r}))\n"
        f"r = phaselint.resume_check({str(PIPELINE)!r}, 'after_retrieve', ctx, now={NOW!r})\n"
        "print(r.decision)\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "blocked"


def test_a_span_that_fails_does_not_take_the_verdict_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("opentelemetry", reason="the OpenTelemetry API gives the current span")

    class FailingSpan:
        def is_recording(self) -> bool:
            return True

        def add_event(self, *args: Any, **kwargs: Any) -> None:
            raise RuntimeError("the exporter broke")

    monkeypatch.setattr(phaselint._otel_trace, "get_current_span", lambda: FailingSpan())
    with pytest.warns(RuntimeWarning, match="the exporter broke"):
        result = phaselint.resume_check(PIPELINE, "after_retrieve", context("stale.json"), now=NOW)
    assert result.decision == "blocked"
    with pytest.warns(RuntimeWarning), pytest.raises(phaselint.CheckpointStalenessError):
        phaselint.CheckpointGuard(PIPELINE).resume_checkpoint("after_retrieve", context("stale.json"), now=NOW)


def test_import_phaselint_does_not_import_langgraph_or_opentelemetry_sdk() -> None:
    code = "import sys, phaselint; print(sorted(m for m in sys.modules if m.split('.')[0] in ('langgraph', 'pydantic')))"
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "[]"
