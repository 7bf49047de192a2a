"""docs/orchestrators.md's examples run as written and print what the page
says they print, so the page cannot rot: the LangGraph loop (pause,
approve, guard, resume) and the plain loop with CheckpointGuard and a
RecoveryHandler."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import phaselint

DOC = Path(__file__).resolve().parents[2] / "docs" / "orchestrators.md"


def _require(module: str) -> None:
    try:
        importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            raise
        pytest.skip(f"{module} is not installed (pip install langgraph langgraph-checkpoint-sqlite)",
                    allow_module_level=True)


def blocks(marker: str) -> dict:
    """The fenced blocks after `<!-- orchestrators-MARKER: NAME -->`, by NAME."""
    text = DOC.read_text(encoding="utf-8")
    return dict(re.findall(rf"<!-- orchestrators-{marker}: (\S+) -->\n```\w*\n(.*?)\n```", text, re.S))


def run_example(name: str, tmp_path: Path) -> None:
    """Writes the page's files into tmp_path, runs example NAME there, and
    compares what it prints with the page's output block (`...` matches
    anything)."""
    for file, body in blocks("example").items():
        (tmp_path / file).write_text(body + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, name], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    expected = blocks("output")[name].splitlines()
    assert len(lines) == len(expected), done.stdout
    for line, want in zip(lines, expected):
        pattern = ".*".join(re.escape(part) for part in want.split("..."))
        assert re.fullmatch(pattern, line), f"{line!r} is not {want!r}"


def test_the_page_marks_its_examples_and_their_output():
    assert set(blocks("example")) == {"review.contract.yaml", "langgraph_loop.py", "plain_loop.py"}
    assert set(blocks("output")) == {"langgraph_loop.py", "plain_loop.py"}


def test_the_langgraph_loop_runs_as_documented(tmp_path):
    _require("langgraph")
    _require("langgraph.checkpoint.sqlite")
    (tmp_path / "review.contract.yaml").write_text(blocks("example")["review.contract.yaml"] + "\n",
                                                    encoding="utf-8")
    # The contract of the page is one phaselint passes.
    assert phaselint.lint_file(tmp_path / "review.contract.yaml") == []
    run_example("langgraph_loop.py", tmp_path)


def test_the_plain_loop_with_a_recovery_handler_runs_as_documented(tmp_path):
    run_example("plain_loop.py", tmp_path)
