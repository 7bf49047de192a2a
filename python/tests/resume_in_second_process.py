"""Resume a paused review thread in a process of its own, as a worker that
did not pause it would: rebuild the graph, open the same SQLite file,
guard the resume, resume with the approval as the resume value. Prints one
JSON object saying what happened (test_langgraph.py reads it).

    python resume_in_second_process.py --db FILE --thread ID --contract FILE
        [--approval FILE] [--now RFC3339] [--review-node NAME] [--unguarded]
"""

from __future__ import annotations

import argparse
import json

from langgraph.types import Command

import phaselint
from phaselint.langgraph import guard_resume
from review_graph import build_graph, open_saver


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("--thread", required=True)
    parser.add_argument("--contract", required=True)
    parser.add_argument("--approval")
    parser.add_argument("--now")
    parser.add_argument("--review-node", default="review")
    parser.add_argument("--unguarded", action="store_true")
    args = parser.parse_args()

    approval = None
    if args.approval:
        with open(args.approval, encoding="utf-8") as file:
            approval = json.load(file)
    saver = open_saver(args.db)
    graph = build_graph(saver, review_node=args.review_node)
    config = {"configurable": {"thread_id": args.thread}}
    report = {"guarded": not args.unguarded, "refused": False}
    try:
        if not args.unguarded:
            result = guard_resume(graph, config, args.contract, approval=approval, now=args.now)
            report["result"] = result.to_dict()
        final = graph.invoke(Command(resume=approval), config)
        report["final_state"] = final
    except phaselint.ResumeRefused as refused:
        report["refused"] = True
        report["reason"] = refused.reason
        report["result"] = refused.result.to_dict() if refused.result is not None else None
    report["state_after"] = graph.get_state(config).values
    saver.conn.close()
    print(json.dumps(report, default=str))


if __name__ == "__main__":
    main()
