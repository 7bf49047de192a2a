"""What a typed orchestrator writes against phaselint; `mypy --strict`
checks it (test_typing.py), so the stubs and annotations are complete."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import phaselint


class Refresh:
    def recover(self, field: str, strategy: str, context: dict[str, Any]) -> bool:
        context.setdefault("_cc_propagation", {})
        return True


def gate(contract: Path, context: dict[str, Any]) -> int:
    handler: phaselint.RecoveryHandler = Refresh()
    guard = phaselint.CheckpointGuard(contract, mode="strict", recovery_handler=handler)
    try:
        result = guard.resume_checkpoint(
            "after_retrieve",
            context,
            now=datetime.datetime.now(datetime.timezone.utc),
        )
    except phaselint.CheckpointStalenessError as refused:
        failed: phaselint.ResumeResult = refused.result
        return failed.exit_code
    except phaselint.InputError as error:
        print(f"no verdict: {error}")
        return 3
    stale: list[phaselint.StalenessCheckResult] = result.stale_fields
    ages: list[int | None] = [s.elapsed_seconds for s in stale]
    print(ages, result.to_gate_result()["result"], result.to_dict()["decision"])
    record: dict[str, Any] = phaselint.approve(
        contract, "after_generate", approved_by="ana", policy="human", context=context
    )
    again = phaselint.resume_check(
        str(contract), "after_generate", context, approvals=[record, "approvals.json"], mode="audit"
    )
    findings: list[phaselint.Diagnostic] = phaselint.lint_file(contract)
    codes = [d.code for d in findings if d.severity == "error" and d.fix is not None]
    print(codes, phaselint.find_phaselint_bin(), phaselint.__version__)
    return again.exit_code
