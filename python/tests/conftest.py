"""The harness every test under python/tests runs in: the venv that holds
the built wheel (scripts/check-python-package), so `import phaselint` is
the installed package and `phaselint.find_phaselint_bin()` the command
from the same wheel.

A test that needs a package that is absent skips with a reason; in CI
(`CI=true`) a skipped test is a failure instead, so what CI runs is what it
says it runs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if _in_ci() and report.skipped:
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped in CI (CI=true), which counts as a failure: {reason}"


@pytest.fixture(scope="session")
def repository() -> Path:
    """The checkout the tests come from (fixtures/, tests/resume-cases/)."""
    return REPOSITORY


@pytest.fixture(scope="session")
def phaselint_bin() -> str:
    """The native command installed from the same wheel as the module."""
    import phaselint

    return phaselint.find_phaselint_bin()
