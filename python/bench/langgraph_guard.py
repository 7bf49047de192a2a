"""The cost of phaselint.langgraph.guard_resume on a LangGraph resume.

Times `graph.invoke(Command(resume=record), config)` on a thread paused at
an interrupt() and checkpointed by SqliteSaver in a SQLite file, without
and with `guard_resume(...)` before it, side by side: each round pauses two
fresh threads (untimed), resumes one bare and one guarded (the order
alternates between rounds, so a drift of the machine's speed falls on both
alike), and times the guard alone on the guarded one. Prints a Markdown
table (median and p95 over the rounds).

    python python/bench/langgraph_guard.py [--runs 200]

Needs the phaselint package (the extension module) and langgraph +
langgraph-checkpoint-sqlite in the same environment; BENCHMARKS.md says
where its figures came from.
"""

from __future__ import annotations

import argparse
import os
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
from typing import TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

import phaselint
from phaselint.langgraph import guard_resume, pause_of

CONTRACT = """\
schema_version: "1.0"
pipeline_id: reviewed-post
phases:
  generate:
    exit:
      required: [{name: draft, type: str}]
  review:
    entry:
      required: [{name: draft, type: str}]
    exit:
      required: [{name: reviewed_by, type: str}]
  publish:
    side_effects: reversible
    entry:
      required: [{name: draft, type: str}, {name: reviewed_by, type: str}]
checkpoint_integrity:
  - checkpoint_id: draft_ready
    phase: generate
    on_resume:
      staleness_checks:
        - field: draft
          max_age_seconds: 3600
          on_stale: blocking
          recovery: re_generate
      approval_required: true
      approval_policy: human
"""


class Post(TypedDict, total=False):
    draft: str
    reviewed_by: str
    published: str


def generate(state: Post) -> dict:
    return {"draft": "Otters hold hands while they sleep."}


def review(state: Post) -> dict:
    record = interrupt({"question": "Publish this draft?", "draft": state["draft"]})
    return {"reviewed_by": record["approved_by"]}


def publish(state: Post) -> dict:
    return {"published": f"{state['draft']} (reviewed by {state['reviewed_by']})"}


def build(saver):
    builder = StateGraph(Post)
    builder.add_node("generate", generate)
    builder.add_node("review", review)
    builder.add_node("publish", publish)
    builder.add_edge(START, "generate")
    builder.add_edge("generate", "review")
    builder.add_edge("review", "publish")
    builder.add_edge("publish", END)
    return builder.compile(checkpointer=saver)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="phaselint-langgraph-bench.") as scratch:
        contract = os.path.join(scratch, "review.contract.yaml")
        with open(contract, "w", encoding="utf-8") as file:
            file.write(CONTRACT)
        saver = SqliteSaver(sqlite3.connect(os.path.join(scratch, "threads.sqlite"), check_same_thread=False))
        graph = build(saver)

        def paused(thread):
            config = {"configurable": {"thread_id": thread}}
            graph.invoke({}, config)
            pause = pause_of(graph, config, contract)
            record = phaselint.approve(contract, pause.checkpoint_id, approved_by="ana",
                                       policy="human", context=pause.context)
            return config, record

        bare, guarded, guard_alone = [], [], []
        # Warm-up: imports, the SQLite file, the contract's first read.
        for warm in range(5):
            config, record = paused(f"warm-{warm}")
            guard_resume(graph, config, contract, approval=record)
            graph.invoke(Command(resume=record), config)
        for round_ in range(args.runs):
            plain = paused(f"bare-{round_}")
            checked = paused(f"guarded-{round_}")

            def run_bare():
                config, record = plain
                start = time.perf_counter_ns()
                out = graph.invoke(Command(resume=record), config)
                bare.append(time.perf_counter_ns() - start)
                assert "published" in out

            def run_guarded():
                config, record = checked
                start = time.perf_counter_ns()
                guard_resume(graph, config, contract, approval=record)
                middle = time.perf_counter_ns()
                out = graph.invoke(Command(resume=record), config)
                end = time.perf_counter_ns()
                guarded.append(end - start)
                guard_alone.append(middle - start)
                assert "published" in out

            for run in (run_bare, run_guarded) if round_ % 2 == 0 else (run_guarded, run_bare):
                run()
        saver.conn.close()

    def ms(ns):
        return f"{ns / 1e6:.2f} ms"

    import langgraph.version

    print(f"LangGraph {langgraph.version.__version__}, SqliteSaver on a file, Python "
          f"{platform.python_version()}, {args.runs} rounds, {time.strftime('%Y-%m-%d')}")
    print()
    print("| | median | p95 |")
    print("|---|---|---|")
    for name, values in (("`graph.invoke(Command(resume=record))` alone", bare),
                         ("`guard_resume(...)` then the same invoke", guarded),
                         ("`guard_resume(...)` alone (inside the row above)", guard_alone)):
        print(f"| {name} | {ms(statistics.median(values))} | {ms(percentile(values, 0.95))} |")
    overhead = statistics.median(guarded) - statistics.median(bare)
    print()
    print(f"Guard overhead (median guarded - median bare): {ms(overhead)}, "
          f"{overhead / statistics.median(bare):.0%} of a bare resume.")


if __name__ == "__main__":
    sys.exit(main())
