"""The Python API's figures for BENCHMARKS.md (issue 22, point 4), printed
as Markdown: run by `phaselint-bench python` (or directly) with the Python
of a virtual environment that holds the built wheel (a release build).

- `import phaselint` in a fresh interpreter: the median wall time of
  `python -c "import phaselint"` minus that of `python -c pass`, runs
  interleaved, and the cumulative figure `python -X importtime` reports;
- `resume_check` in process and a `CheckpointGuard` (each reads the
  contract file and its configuration on every call and analyzes the
  contract again only when its bytes changed) against `subprocess.run([phaselint,
  "resume-check", ...])` on the same inputs, interleaved, median and p95;
- the native command's whole-process time (`--phaselint` and, to compare,
  `--before`): median of interleaved spawns of the same resume check.

Nothing here is a test: the figures are read, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable

import phaselint

NOW = "2026-03-01T12:00:00Z"


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def import_time(runs: int) -> tuple[float, float, float]:
    """(median import-minus-pass, median pass, importtime's cumulative µs)."""
    python = sys.executable
    imports, passes = [], []
    for _ in range(runs):
        imports.append(timed(lambda: subprocess.run([python, "-c", "import phaselint"], check=True)))
        passes.append(timed(lambda: subprocess.run([python, "-c", "pass"], check=True)))
    report = subprocess.run(
        [python, "-X", "importtime", "-c", "import phaselint"], capture_output=True, text=True, check=True
    ).stderr
    cumulative = 0.0
    for line in report.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3 and parts[2] == "phaselint":
            cumulative = float(parts[1])
    return statistics.median(imports) - statistics.median(passes), statistics.median(passes), cumulative


def side_by_side(
    contract: str, checkpoint: str, context: dict[str, object], runs: int, binary: str, block: int
) -> tuple[list[float], list[float], list[float], str, int]:
    """In process and as a subprocess, interleaved, on the same inputs."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(context, f)
        context_file = f.name
    args = [binary, "resume-check", "--contract", contract, "--checkpoint", checkpoint,
            "--context", context_file, "--now", NOW, "--format", "json"]
    try:
        result = phaselint.resume_check(contract, checkpoint, context, now=NOW)
        ran = subprocess.run(args, capture_output=True)
        assert json.loads(ran.stdout) == result.to_dict(), "the two answers differ"
        guard = phaselint.CheckpointGuard(contract, mode="audit")
        assert guard.resume_checkpoint(checkpoint, context, now=NOW).to_dict()["approval_status"] == result.to_dict()["approval_status"]
        inproc, guarded, spawned = [], [], []
        variants = [
            (inproc, lambda: phaselint.resume_check(contract, checkpoint, context, now=NOW)),
            (guarded, lambda: guard.resume_checkpoint(checkpoint, context, now=NOW)),
            (spawned, lambda: subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)),
        ]
        for round_ in range((runs + block - 1) // block):
            # The two in-process calls swap places each round: the one right
            # after a spawn runs with caches the child process evicted, and
            # that cost falls on each alike. With `block` > 1 each variant
            # runs that many times in a row (an orchestrator's loop: the
            # first call of a block after a spawn, the rest in its steady
            # state), the blocks still interleaved against drift.
            order = variants if round_ % 2 == 0 else [variants[1], variants[0], variants[2]]
            for samples, run in order:
                for _ in range(block):
                    samples.append(timed(run))
        return inproc, guarded, spawned, result.decision, ran.returncode
    finally:
        os.unlink(context_file)


def whole_process(binaries: list[str], contract: str, checkpoint: str, runs: int) -> list[list[float]]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({}, f)
        context_file = f.name
    try:
        samples: list[list[float]] = [[] for _ in binaries]
        for _ in range(runs):
            for index, binary in enumerate(binaries):
                args = [binary, "resume-check", "--contract", contract, "--checkpoint", checkpoint,
                        "--context", context_file, "--now", NOW, "--format", "json"]
                samples[index].append(
                    timed(lambda: subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                )
        return samples
    finally:
        os.unlink(context_file)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", default="../shared/corpus/valid/artisan-pipeline.ed6cc63c.contract.yaml")
    parser.add_argument("--example", default="fixtures/valid/linear-rag.contract.yaml")
    parser.add_argument("--example-context", default="fixtures/resume/contexts/stale.json")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--import-runs", type=int, default=30)
    parser.add_argument(
        "--block", type=int, default=1,
        help="calls of one variant in a row before the next (default 1: every call interleaved)",
    )
    parser.add_argument("--phaselint", default=None, help="the command [default: the wheel's]")
    parser.add_argument("--before", default=None, help="another phaselint to compare (main's)")
    options = parser.parse_args()
    binary = options.phaselint or phaselint.find_phaselint_bin()

    print(f"phaselint {phaselint.__version__}, Python {sys.version.split()[0]}, command {binary}\n")
    delta, floor, cumulative = import_time(options.import_runs)
    print("### `import phaselint` (fresh interpreter)\n")
    print("| figure | time |\n|---|---|")
    print(f"| `python -c 'import phaselint'` minus `python -c pass` (median of {options.import_runs} each, interleaved) | {ms(delta)} |")
    print(f"| `python -c pass` (the interpreter's start) | {ms(floor)} |")
    print(f"| `python -X importtime`, cumulative for `phaselint` | {cumulative / 1000:.3f} ms |\n")

    interleaving = "each call interleaved" if options.block <= 1 else f"interleaved in blocks of {options.block} calls"
    print(f"### `resume_check` in process against a `phaselint resume-check` subprocess ({options.runs} of each, {interleaving})\n")
    print("| contract, checkpoint | verdict | call | median | p95 | subprocess / call (medians) |")
    print("|---|---|---|---|---|---|")
    with open(options.example_context) as f:
        example_context = json.load(f)
    rows = [
        (options.real, "anything", {}, "largest real contract (declares no checkpoint)"),
        (options.example, "post_retrieval", example_context, "REQ-10 example"),
    ]
    for contract, checkpoint, context, what in rows:
        if not os.path.isfile(contract):
            print(f"| {contract} | absent, skipped | | | | |")
            continue
        inproc, guarded, spawned, decision, code = side_by_side(contract, checkpoint, context, options.runs, binary, max(1, options.block))
        label = f"{what}: `{os.path.basename(contract)}`, `{checkpoint}` | {decision} (exit {code})"
        for call, samples in (
            ("`resume_check` (a contract file's analysis kept while its bytes are the same)", inproc),
            ("`CheckpointGuard.resume_checkpoint` (analysis kept)", guarded),
            ("`subprocess.run([phaselint, \"resume-check\", ...])`", spawned),
        ):
            print(
                f"| {label} | {call} | {ms(statistics.median(samples))} | {ms(percentile(samples, 0.95))} "
                f"| {statistics.median(spawned) / statistics.median(samples):.1f}x |"
            )

    binaries = [b for b in (options.before, binary) if b]
    names = ["before (main)", "after (the wheel's)"] if options.before else ["the wheel's"]
    samples = whole_process(binaries, options.real, "anything", options.runs)
    print(f"\n### The native command, whole process (`resume-check` on the real contract, {options.runs} spawns each, interleaved)\n")
    print("| command | median | p95 |\n|---|---|---|")
    for name, path, runs in zip(names, binaries, samples):
        print(f"| {name}: `{path}` | {ms(statistics.median(runs))} | {ms(percentile(runs, 0.95))} |")


if __name__ == "__main__":
    main()
