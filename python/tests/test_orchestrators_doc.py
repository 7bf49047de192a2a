"""docs/orchestrators.md's LangGraph loop runs as written and prints what
the page says it prints, so the page cannot rot."""

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


_require("langgraph")
_require("langgraph.checkpoint.sqlite")


def examples() -> dict:
    """The fenced blocks marked `<!-- orchestrators-example: NAME -->`, by NAME."""
    text = DOC.read_text(encoding="utf-8")
    found = dict(re.findall(r"<!-- orchestrators-example: (\S+) -->\n```\w+\n(.*?)\n```", text, re.S))
    assert set(found) == {"review.contract.yaml", "langgraph_loop.py"}, found.keys()
    return found


def printed() -> list:
    """The block after "It prints:", a line at a time (`...` matches anything)."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"It prints:\n\n```\n(.*?)\n```", text, re.S)
    assert block, "docs/orchestrators.md has no `It prints:` block"
    return block.group(1).splitlines()


def test_the_langgraph_loop_of_the_docs_runs_as_documented(tmp_path):
    for name, body in examples().items():
        (tmp_path / name).write_text(body + "\n", encoding="utf-8")
    # The contract of the page is one phaselint passes.
    assert phaselint.lint_file(tmp_path / "review.contract.yaml") == []
    done = subprocess.run([sys.executable, "langgraph_loop.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    expected = printed()
    assert len(lines) == len(expected), done.stdout
    for line, want in zip(lines, expected):
        pattern = ".*".join(re.escape(part) for part in want.split("..."))
        assert re.fullmatch(pattern, line), f"{line!r} is not {want!r}"
