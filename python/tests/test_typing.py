"""The package's annotations and stubs under `mypy --strict`: the installed
package itself, and a typed orchestrator's code against it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def mypy_strict(*target: str) -> None:
    pytest.importorskip("mypy", reason="mypy checks the annotations")
    ran = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *target],
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_the_package_passes_mypy_strict() -> None:
    mypy_strict("-m", "phaselint", "-m", "phaselint._native")


def test_a_typed_orchestrator_passes_mypy_strict() -> None:
    mypy_strict(str(Path(__file__).with_name("typing_usage.py")))
