"""Every folder of tests/resume-cases/ run both ways: the native command
(`phaselint resume-check --format json`, as tests/support/resume_cases.rs
runs it) and `phaselint.resume_check` with the same inputs, in process.
The reports must be equal dicts (same keys, order and values); where the
command gives no verdict, `InputError`'s message must be its JSON `error`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

import phaselint

CASES = Path(__file__).resolve().parents[2] / "tests" / "resume-cases"
NOW = "2026-03-01T12:00:00Z"
PIPELINE_FROM_A_CASE = "../../../fixtures/resume/contracts/pipeline.contract.yaml"

# Folders whose point is something the API cannot be given, by name, with
# why. Everything else runs both ways.
NOT_FOR_THE_API = {
    "context-from-stdin-as-json": "the context comes from standard input; the API takes a mapping",
    "context-from-stdin-as-yaml": "the context comes from standard input; the API takes a mapping",
    "recovery-needs-a-context-file-to-reread": "--recover-with with a context from standard input",
    "missing-context-file-gives-no-verdict": "an unreadable context file; the API takes a mapping",
    "empty-context-gives-no-verdict": "an empty context file (no document); the API takes a mapping",
    "invalid-yaml-context-gives-no-verdict": "a malformed context file; the API takes a mapping",
    "truncated-json-context-gives-no-verdict": "a malformed context file; the API takes a mapping",
    "truncated-context-without-an-extension-gives-no-verdict": "a malformed context file; the API takes a mapping",
    "duplicate-key-in-a-yaml-context-gives-no-verdict": "a context file with a duplicate key: a mapping cannot hold one",
    "a-manifest-root-without-a-manifest-gives-no-verdict": "--root, an option of a manifest check, which the API does not run",
    "an-option-of-another-kind-of-check-gives-no-verdict": "--max-handoff-age, an option of a handoff check, which the API does not run",
}


def _yaml_loader() -> Any:
    """PyYAML's safe loader, leaving timestamps as the strings they are
    (phaselint reads them as strings; PyYAML would make datetimes)."""
    yaml = pytest.importorskip("yaml", reason="PyYAML reads the YAML contexts")

    class Loader(yaml.SafeLoader):  # type: ignore[name-defined,misc]
        pass

    Loader.yaml_implicit_resolvers = {
        key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return yaml, Loader


def _folders() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if p.is_dir())


def _arguments(folder: Path) -> list[str]:
    """As tests/support/resume_cases.rs: the folder's args, with the
    contract, context and --now added unless named, and `--format json`
    in place of any format."""
    listed = (folder / "args").read_text().splitlines() if (folder / "args").exists() else []
    given: list[str] = []
    lines = iter(line for line in listed if line)
    for line in lines:
        if line == "--format":
            next(lines, None)
        else:
            given.append(line)
    args: list[str] = []
    if "--contract" not in given:
        contract = "contract.yaml" if (folder / "contract.yaml").is_file() else PIPELINE_FROM_A_CASE
        args += ["--contract", contract]
    contexts = [p.name for p in folder.iterdir() if p.is_file() and p.stem == "context"]
    assert len(contexts) <= 1, contexts
    if contexts:
        args += ["--context", contexts[0]]
    if "--now" not in given:
        args += ["--now", NOW]
    return args + ["--format", "json"] + given


def _date_harness_requests(folder: Path) -> None:
    """A grant counts only when not older than its request: every request
    with a grant beside it is dated a minute before the grant (as the Rust
    runner does)."""
    requested = 1_767_225_600
    for path in folder.rglob("*.granted"):
        request = path.with_name(path.name[: -len(".granted")])
        if path.is_file() and not path.is_symlink() and request.is_file() and not request.is_symlink():
            os.utime(request, (requested, requested))
            os.utime(path, (requested + 60, requested + 60))


class ShellRecovery:
    """`--recover-with CMD` as a RecoveryHandler: runs the same shell
    command with the same environment and, when it exits 0, reloads the
    context file it may have rewritten into the mapping."""

    def __init__(self, command: str, context_file: str, checkpoint: str, timeout: int) -> None:
        self.command = command
        self.context_file = context_file
        self.checkpoint = checkpoint
        self.timeout = timeout

    def recover(self, field: str, strategy: str, context: dict[str, Any]) -> bool:
        env = dict(
            os.environ,
            PHASELINT_CHECKPOINT=self.checkpoint,
            PHASELINT_FIELD=field,
            PHASELINT_STRATEGY=strategy,
            PHASELINT_CONTEXT=self.context_file,
        )
        try:
            done = subprocess.run(
                ["sh", "-c", self.command],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=self.timeout,
            )
        except subprocess.TimeoutExpired:
            return False
        if done.returncode != 0:
            return False
        reloaded = _load_context(Path(self.context_file))
        context.clear()
        context.update(reloaded)
        return True


def _load_context(path: Path) -> Any:
    text = path.read_text()
    if path.suffix == ".json":
        return json.loads(text)
    yaml, loader = _yaml_loader()
    return yaml.load(text, Loader=loader)


def _api_call(folder: Path, args: list[str]) -> tuple[dict[str, Any], Optional[ShellRecovery]]:
    """The keywords of `phaselint.resume_check` for the command's arguments."""
    options: dict[str, Any] = {"approvals": [], "mode": "strict"}
    context_file = None
    recover_with = None
    recover_timeout = 120
    flags = iter(args)
    for flag in flags:
        if flag == "--contract":
            options["contract"] = next(flags)
        elif flag == "--checkpoint":
            options["checkpoint_id"] = next(flags)
        elif flag == "--context":
            context_file = next(flags)
        elif flag == "--now":
            options["now"] = next(flags)
        elif flag == "--format":
            next(flags)
        elif flag == "--approvals":
            options["approvals"].append(next(flags))
        elif flag == "--mode":
            options["mode"] = next(flags)
        elif flag == "--next-phase":
            options["next_phase"] = next(flags)
        elif flag == "--harness-dir":
            options["harness_dir"] = next(flags)
        elif flag == "--config":
            options["config"] = next(flags)
        elif flag == "--no-config":
            options["no_config"] = True
        elif flag == "--trust-context-approvals":
            options["trust_context_approvals"] = True
        elif flag == "--recover-with":
            recover_with = next(flags)
        elif flag == "--recover-timeout":
            recover_timeout = int(next(flags))
        else:
            raise AssertionError(f"{folder.name}: no keyword of resume_check for {flag}")
    assert context_file is not None, f"{folder.name}: no context"
    options["context"] = _load_context(folder / context_file)
    handler = None
    if recover_with is not None:
        handler = ShellRecovery(recover_with, context_file, options["checkpoint_id"], recover_timeout)
        options["recovery_handler"] = handler
    return options, handler


def _without_hook_words(report: dict[str, Any]) -> dict[str, Any]:
    """A report with what a shell hook and a Python handler necessarily
    say differently left out: each attempt's command, outcome and exit
    code, and its detail wherever the report quotes it."""
    # The lint crate words a recovery that changed nothing as a hook's
    # (`exited 0`), whoever recovered.
    text = json.dumps(report).replace("the recovery hook exited 0 but", "the recovery hook <what the recovery said> but")
    details = {a["detail"] for a in report.get("recovery_attempts", []) if a.get("detail")}
    for detail in sorted(details, key=len, reverse=True):
        text = text.replace(json.dumps(detail)[1:-1], "<what the recovery said>")
    for outcome in ("recovery failed", "recovery timed out", "recovery not started"):
        text = text.replace(outcome + ":", "recovery did not recover:")
    cleaned: dict[str, Any] = json.loads(text)
    for attempt in cleaned.get("recovery_attempts", []):
        for key in ("command", "outcome", "exit_code"):
            attempt.pop(key, None)
    return cleaned


@pytest.mark.parametrize("name", [n for n in _folders() if n not in NOT_FOR_THE_API])
def test_the_api_gives_the_commands_report(name: str, phaselint_bin: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = CASES / name
    _date_harness_requests(folder)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    args = _arguments(folder)
    ran = subprocess.run(
        [phaselint_bin, "resume-check", *args],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    command = json.loads(ran.stdout)
    monkeypatch.chdir(folder)
    options, handler = _api_call(folder, args)
    if command["decision"] is None:
        with pytest.raises(phaselint.InputError) as raised:
            phaselint.resume_check(**options)
        assert str(raised.value) == command["error"]
        assert ran.returncode == 3
        return
    result = phaselint.resume_check(**options)
    if handler is None:
        assert result.to_dict() == command
        assert list(result.to_dict()) == list(command)
    else:
        assert _without_hook_words(result.to_dict()) == _without_hook_words(command)
    assert result.exit_code == ran.returncode
    assert result.decision == command["decision"]
    if handler is None:
        assert result.to_gate_result() == command["gate_result"]
    after = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before, "the run changed the folder's files"


def test_every_folder_left_out_exists_and_says_why() -> None:
    folders = set(_folders())
    for name, why in NOT_FOR_THE_API.items():
        assert name in folders, f"{name} is listed but is no folder of tests/resume-cases"
        assert why
    # Left out is the exception: most folders run both ways.
    assert len(NOT_FOR_THE_API) * 5 < len(folders)
    print(f"{len(folders) - len(NOT_FOR_THE_API)} of {len(folders)} folders run both ways", file=sys.stderr)
