"""The LangGraph graph of test_langgraph.py and resume_in_second_process.py:
retrieve -> generate -> review (a person answers an interrupt()) -> publish,
its nodes named as the phases of review.contract.yaml."""

from __future__ import annotations

import sqlite3
from typing import Any, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class ReviewState(TypedDict, total=False):
    topic: str
    draft: str
    reviewed_by: str
    review_answer: Any
    published: str
    # ContextCore's stamps, as a state ported from ContextCore may carry
    # them: written by the run itself, so the guard never reads them.
    _cc_propagation: dict


def retrieve(state: ReviewState) -> dict:
    return {"topic": state["topic"].strip()}


def generate(state: ReviewState) -> dict:
    return {"draft": f"A short text about {state['topic']}."}


def review(state: ReviewState) -> dict:
    # The resume value is what interrupt() returns: with the guard, the
    # ApprovalRecord the person's approval produced.
    answer = interrupt({"question": "Publish this draft?", "draft": state["draft"]})
    approved_by = answer.get("approved_by") if isinstance(answer, dict) else None
    return {"reviewed_by": approved_by or "nobody", "review_answer": answer}


def publish(state: ReviewState) -> dict:
    return {"published": f"{state['draft']} (reviewed by {state['reviewed_by']})"}


def build_graph(checkpointer, *, review_node: str = "review", interrupt_before=None):
    """The graph; `review_node` renames the review node (a new version of
    the application that renamed it)."""
    graph = StateGraph(ReviewState)
    graph.add_node("retrieve", retrieve)
    graph.add_node("generate", generate)
    graph.add_node(review_node, review)
    graph.add_node("publish", publish)
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", "generate")
    graph.add_edge("generate", review_node)
    graph.add_edge(review_node, "publish")
    graph.add_edge("publish", END)
    return graph.compile(checkpointer=checkpointer, interrupt_before=interrupt_before)


def open_saver(path) -> SqliteSaver:
    """A SqliteSaver on the SQLite file `path` (the caller closes `.conn`)."""
    return SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))
