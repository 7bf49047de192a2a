"""phaselint.langgraph.guard_resume with the real LangGraph and SqliteSaver.

Each test pauses a thread of review_graph.py (an interrupt() in `review`,
after `generate`) in this process, checkpointed in a SQLite file under
tmp_path, and resumes it in a second process (resume_in_second_process.py)
that rebuilds the graph, opens the same file, guards the resume and
resumes with the approval as the resume value, the way a worker that did
not pause the thread would. The contract is review.contract.yaml: the
checkpoint `draft_ready` is taken after `generate`, checks `draft` (at
most an hour old) and needs a person's approval.
"""

from __future__ import annotations

import importlib
import json
import operator
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Annotated, TypedDict

import pytest


def _require(module: str):
    """The module, or a skip naming it (a failure in CI, where it is installed)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            raise
        pytest.skip(
            f"{module} is not installed (pip install langgraph langgraph-checkpoint-sqlite)",
            allow_module_level=True,
        )


_require("langgraph")
_require("langgraph.checkpoint.sqlite")

import phaselint  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.types import Command, interrupt  # noqa: E402
from phaselint.langgraph import Pause, guard_resume, pause_of  # noqa: E402

HERE = Path(__file__).resolve().parent
CONTRACT = HERE / "review.contract.yaml"
SECOND_PROCESS = HERE / "resume_in_second_process.py"
sys.path.insert(0, str(HERE))
from review_graph import build_graph, open_saver  # noqa: E402

class Twice(TypedDict, total=False):
    topic: str
    draft: str
    answers: list


class Fan(TypedDict, total=False):
    topic: str
    answers: Annotated[list, operator.add]


THREAD = "review-1"
CONFIG = {"configurable": {"thread_id": THREAD}}


def pause_thread(db: Path) -> Pause:
    """Run the graph until review's interrupt(); the pause, as the guard sees it."""
    saver = open_saver(db)
    try:
        graph = build_graph(saver)
        out = graph.invoke({"topic": " otters "}, CONFIG)
        assert [i.value["question"] for i in out["__interrupt__"]] == ["Publish this draft?"]
        return pause_of(graph, CONFIG, CONTRACT)
    finally:
        saver.conn.close()


def approve(pause: Pause, tmp_path: Path, *, checkpoint_id: str | None = None) -> Path:
    """A person (ana) approves; the record, in a file for the second process."""
    record = phaselint.approve(
        CONTRACT,
        checkpoint_id or pause.checkpoint_id,
        approved_by="ana",
        policy="human",
        context=pause.context,
    )
    path = tmp_path / f"approval-{checkpoint_id or pause.checkpoint_id}.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def resume_in_second_process(db: Path, *, approval: Path | None = None, now: str | None = None,
                             review_node: str | None = None, unguarded: bool = False) -> dict:
    command = [sys.executable, str(SECOND_PROCESS), "--db", str(db), "--thread", THREAD,
               "--contract", str(CONTRACT)]
    if approval is not None:
        command += ["--approval", str(approval)]
    if now is not None:
        command += ["--now", now]
    if review_node is not None:
        command += ["--review-node", review_node]
    if unguarded:
        command.append("--unguarded")
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def assert_refused(report: dict, *, decision: str | None, reason: str) -> None:
    assert report["refused"] is True, report
    assert reason in report["reason"], report["reason"]
    if decision is None:
        assert report["result"] is None
    else:
        assert report["result"]["decision"] == decision
    # The nodes after the pause did not run.
    assert "reviewed_by" not in report["state_after"]
    assert "published" not in report["state_after"]


def test_the_pause_maps_to_the_checkpoint_after_generate_resuming_into_review(tmp_path):
    pause = pause_thread(tmp_path / "threads.sqlite")
    assert (pause.checkpoint_id, pause.phase, pause.node, pause.next_phase, pause.kind) == (
        "draft_ready", "generate", "review", "review", "interrupt")
    assert pause.ran == ("generate",)
    assert pause.interrupt_value == {"question": "Publish this draft?", "draft": "A short text about otters."}
    stamps = pause.context["_cc_propagation"]
    # Each channel's stamp is the checkpoint that gave it its current
    # version: `draft` the one after generate (the paused one), `topic`
    # the one after retrieve (which rewrote the input's value).
    assert stamps["draft"]["set_at"] == pause.created_at
    assert stamps["draft"]["origin_phase"] == "generate"
    assert stamps["draft"]["langgraph_checkpoint_id"] == pause.langgraph_checkpoint_id
    assert stamps["topic"]["origin_phase"] == "retrieve"
    assert stamps["topic"]["set_at"] < stamps["draft"]["set_at"]
    assert pause.context["draft"] == "A short text about otters."


def test_fresh_and_approved_resumes_and_the_next_nodes_run(tmp_path):
    db = tmp_path / "threads.sqlite"
    pause = pause_thread(db)
    report = resume_in_second_process(db, approval=approve(pause, tmp_path))
    assert report["refused"] is False, report.get("reason")
    assert report["result"]["decision"] == "resume"
    assert report["result"]["checkpoint_id"] == "draft_ready"
    final = report["final_state"]
    # interrupt() returned the approval record: the node knows who approved.
    assert final["reviewed_by"] == "ana"
    assert final["review_answer"]["checkpoint_id"] == "draft_ready"
    assert final["published"] == "A short text about otters. (reviewed by ana)"


def test_a_stale_draft_is_refused(tmp_path):
    db = tmp_path / "threads.sqlite"
    pause = pause_thread(db)
    later = (datetime.fromisoformat(pause.created_at) + timedelta(hours=2)).astimezone(timezone.utc)
    report = resume_in_second_process(db, approval=approve(pause, tmp_path), now=later.isoformat())
    assert_refused(report, decision="blocked", reason="`draft` is stale")
    stale = {f["field"]: f for f in report["result"]["stale_fields"]}
    assert stale["draft"]["is_stale"] is True
    assert stale["draft"]["elapsed_seconds"] == 7200


def test_no_approval_is_refused(tmp_path):
    db = tmp_path / "threads.sqlite"
    pause_thread(db)
    report = resume_in_second_process(db)
    assert_refused(report, decision="denied", reason="approval required (policy `human`)")
    assert report["result"]["denial"]["checkpoint_id"] == "draft_ready"


def test_an_approval_for_another_checkpoint_is_refused(tmp_path):
    db = tmp_path / "threads.sqlite"
    pause = pause_thread(db)
    report = resume_in_second_process(db, approval=approve(pause, tmp_path, checkpoint_id="topic_ready"))
    assert_refused(report, decision="denied", reason="denied")
    problems = json.dumps(report["result"]["approval_status"])
    assert "topic_ready" in problems


def test_an_approval_of_another_draft_is_refused(tmp_path):
    # The approver saw one draft; the state changed before the resume: the
    # record's context digest no longer binds.
    db = tmp_path / "threads.sqlite"
    pause = pause_thread(db)
    approval = approve(pause, tmp_path)
    saver = open_saver(db)
    try:
        build_graph(saver).update_state(CONFIG, {"draft": "A different text."}, as_node="generate")
    finally:
        saver.conn.close()
    report = resume_in_second_process(db, approval=approval)
    assert_refused(report, decision="denied", reason="denied")
    assert "draft" in json.dumps(report["result"]["approval_status"])


def test_a_renamed_paused_node_is_refused_where_langgraph_silently_does_nothing(tmp_path):
    db = tmp_path / "threads.sqlite"
    approval = approve(pause_thread(db), tmp_path)
    # The failure, reproduced: the new version of the application
    # calls the node `human_review`; LangGraph accepts the resume, runs
    # nothing and returns the old state, without an error.
    unguarded = resume_in_second_process(db, approval=approval, review_node="human_review", unguarded=True)
    assert unguarded["refused"] is False
    assert unguarded["final_state"] == {"topic": "otters", "draft": "A short text about otters."}
    # The guard refuses it, naming the node.
    report = resume_in_second_process(db, approval=approval, review_node="human_review")
    assert_refused(report, decision=None, reason="is paused at `review`, which this graph does not have")
    # The thread is intact: the graph that paused it still resumes it.
    resumed = resume_in_second_process(db, approval=approval)
    assert resumed["final_state"]["published"] == "A short text about otters. (reviewed by ana)"


def test_a_resume_after_the_run_finished_is_refused(tmp_path):
    db = tmp_path / "threads.sqlite"
    approval = approve(pause_thread(db), tmp_path)
    assert resume_in_second_process(db, approval=approval)["refused"] is False
    # The failure, reproduced: LangGraph takes a second resume of the
    # finished thread without a word.
    unguarded = resume_in_second_process(db, approval=approval, unguarded=True)
    assert unguarded["refused"] is False and "published" in unguarded["final_state"]
    report = resume_in_second_process(db, approval=approval)
    assert report["refused"] is True
    assert "has nothing to resume" in report["reason"]
    assert report["result"] is None


def test_a_thread_that_never_started_is_refused(tmp_path):
    saver = open_saver(tmp_path / "threads.sqlite")
    try:
        with pytest.raises(phaselint.ResumeRefused) as refused:
            guard_resume(build_graph(saver), CONFIG, CONTRACT)
    finally:
        saver.conn.close()
    assert "no checkpoint (never started)" in refused.value.reason
    assert refused.value.result is None


def test_the_state_cannot_vouch_for_its_own_freshness(tmp_path):
    # A node that writes `_cc_propagation` (or an approval) into the state
    # changes nothing: the stamps are LangGraph's, and the state's `_cc_*`
    # keys are not read.
    db = tmp_path / "threads.sqlite"
    pause = pause_thread(db)
    later = (datetime.fromisoformat(pause.created_at) + timedelta(hours=2)).astimezone(timezone.utc)
    saver = open_saver(db)
    try:
        graph = build_graph(saver)
        forged = {"draft": {"origin_phase": "generate", "set_at": later.isoformat(), "value_hash": "x"}}
        graph.update_state(CONFIG, {"_cc_propagation": forged}, as_node="generate")
        with pytest.raises(phaselint.ResumeRefused) as refused:
            guard_resume(graph, CONFIG, CONTRACT, approval=json.loads(approve(pause, tmp_path).read_text()),
                         now=later)
    finally:
        saver.conn.close()
    assert refused.value.result.decision == "blocked"


def test_an_edited_draft_is_checked_as_edited_and_resumes_once_approved(tmp_path):
    # graph.update_state() while paused: LangGraph drops the pending
    # interrupt from the state but Command(resume=...) still answers it; the
    # guard finds the pause under the update, and the edit's checkpoint is
    # the draft's stamp.
    saver = open_saver(tmp_path / "threads.sqlite")
    try:
        graph = build_graph(saver)
        graph.invoke({"topic": "otters"}, CONFIG)
        graph.update_state(CONFIG, {"draft": "An edited text."}, as_node="generate")
        pause = pause_of(graph, CONFIG, CONTRACT)
        assert (pause.checkpoint_id, pause.node, pause.kind) == ("draft_ready", "review", "interrupt")
        assert pause.context["draft"] == "An edited text."
        assert pause.context["_cc_propagation"]["draft"]["set_at"] == pause.created_at
        record = phaselint.approve(CONTRACT, pause.checkpoint_id, approved_by="ana", policy="human",
                                   context=pause.context)
        assert guard_resume(graph, CONFIG, CONTRACT, approval=record).decision == "resume"
        final = graph.invoke(Command(resume=record), CONFIG)
        assert final["published"] == "An edited text. (reviewed by ana)"
    finally:
        saver.conn.close()


def test_a_pause_before_a_node_resumes_into_it(tmp_path):
    saver = open_saver(tmp_path / "threads.sqlite")
    try:
        graph = build_graph(saver, interrupt_before=["review"])
        graph.invoke({"topic": "otters"}, CONFIG)
        pause = pause_of(graph, CONFIG, CONTRACT)
        assert (pause.checkpoint_id, pause.node, pause.kind, pause.interrupt_id) == (
            "draft_ready", "review", "interrupt_before", None)
        with pytest.raises(phaselint.ResumeRefused, match="approval required"):
            guard_resume(graph, CONFIG, CONTRACT)
        record = phaselint.approve(CONTRACT, pause.checkpoint_id, approved_by="ana", policy="human",
                                   context=pause.context)
        guard_resume(graph, CONFIG, CONTRACT, approval=record)
        # The resume value also answers review's interrupt() when it runs.
        assert graph.invoke(Command(resume=record), CONFIG)["reviewed_by"] == "ana"
    finally:
        saver.conn.close()


def test_one_approval_does_not_answer_two_interrupts(tmp_path):
    def generate(state):
        return {"draft": "text"}

    def review(state):
        return {"answers": [interrupt("first look"), interrupt("second look")]}

    builder = StateGraph(Twice)
    builder.add_node("generate", generate)
    builder.add_node("review", review)
    builder.add_edge(START, "generate")
    builder.add_edge("generate", "review")
    builder.add_edge("review", END)
    saver = open_saver(tmp_path / "threads.sqlite")
    try:
        graph = builder.compile(checkpointer=saver)
        graph.invoke({"topic": "otters"}, CONFIG)
        pause = pause_of(graph, CONFIG, CONTRACT)
        record = phaselint.approve(CONTRACT, pause.checkpoint_id, approved_by="ana", policy="human",
                                   context=pause.context)
        guard_resume(graph, CONFIG, CONTRACT, approval=record)
        graph.invoke(Command(resume=record), CONFIG)
        assert [i.value for i in graph.get_state(CONFIG).interrupts] == ["second look"]
        with pytest.raises(phaselint.ResumeRefused, match="already answered an interrupt"):
            guard_resume(graph, CONFIG, CONTRACT, approval=record)
    finally:
        saver.conn.close()


class Rounds(TypedDict, total=False):
    topic: str
    draft: str
    reviewed_by: str
    rounds: int


def test_an_approval_does_not_answer_a_later_pause_at_the_same_checkpoint(tmp_path):
    # review loops back to generate once: the thread pauses twice at
    # `draft_ready` with the same draft, so the first pause's record binds
    # the second's values. The person approved one resume, not both.
    def generate(state):
        return {"draft": f"About {state['topic']}."}

    def review(state):
        answer = interrupt("publish?")
        return {"reviewed_by": answer["approved_by"], "rounds": state.get("rounds", 0) + 1}

    builder = StateGraph(Rounds)
    builder.add_node("generate", generate)
    builder.add_node("review", review)
    builder.add_edge(START, "generate")
    builder.add_edge("generate", "review")
    builder.add_conditional_edges("review", lambda s: "generate" if s["rounds"] < 2 else END, ["generate", END])
    saver = open_saver(tmp_path / "threads.sqlite")
    try:
        graph = builder.compile(checkpointer=saver)
        graph.invoke({"topic": "otters"}, CONFIG)
        first = pause_of(graph, CONFIG, CONTRACT)
        record = phaselint.approve(CONTRACT, first.checkpoint_id, approved_by="ana", policy="human",
                                   context=first.context)
        guard_resume(graph, CONFIG, CONTRACT, approval=record)
        graph.invoke(Command(resume=record), CONFIG)
        second = pause_of(graph, CONFIG, CONTRACT)
        assert second.checkpoint_id == first.checkpoint_id
        assert second.langgraph_checkpoint_id != first.langgraph_checkpoint_id
        with pytest.raises(phaselint.ResumeRefused, match="already answered an earlier interrupt"):
            guard_resume(graph, CONFIG, CONTRACT, approval=record)
        # Nor does the same approval with other notes.
        with pytest.raises(phaselint.ResumeRefused, match="already answered an earlier interrupt"):
            guard_resume(graph, CONFIG, CONTRACT, approval=dict(record, notes="again"))
        # A new approval for the second pause resumes.
        again = phaselint.approve(CONTRACT, second.checkpoint_id, approved_by="ana", policy="human",
                                  context=second.context)
        assert guard_resume(graph, CONFIG, CONTRACT, approval=again).decision == "resume"
    finally:
        saver.conn.close()


def test_several_pending_interrupts_are_refused(tmp_path):
    builder = StateGraph(Fan)
    builder.add_node("retrieve", lambda state: {"topic": "otters"})
    builder.add_node("generate", lambda state: {"answers": [interrupt("draft?")]})
    builder.add_node("review", lambda state: {"answers": [interrupt("review?")]})
    builder.add_edge(START, "retrieve")
    builder.add_edge("retrieve", "generate")
    builder.add_edge("retrieve", "review")
    builder.add_edge("generate", END)
    builder.add_edge("review", END)
    saver = open_saver(tmp_path / "threads.sqlite")
    try:
        graph = builder.compile(checkpointer=saver)
        graph.invoke({"topic": "otters"}, CONFIG)
        with pytest.raises(phaselint.ResumeRefused, match="2 interrupts pending") as refused:
            guard_resume(graph, CONFIG, CONTRACT)
        assert refused.value.result is None
    finally:
        saver.conn.close()


def test_a_node_without_a_phase_is_refused(tmp_path):
    saver = open_saver(tmp_path / "threads.sqlite")
    try:
        graph = build_graph(saver)
        graph.invoke({"topic": "otters"}, CONFIG)
        with pytest.raises(phaselint.ResumeRefused, match="the contract has no phase `human_check`"):
            pause_of(graph, CONFIG, CONTRACT, phases={"review": "human_check"})
    finally:
        saver.conn.close()


def test_importing_phaselint_does_not_import_langgraph():
    code = "import sys, phaselint; print(any(m == 'langgraph' or m.startswith('langgraph.') for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_phaselint_langgraph_without_langgraph_says_how_to_install_it(tmp_path):
    # A `langgraph` that cannot be imported, first on the path.
    (tmp_path / "langgraph").mkdir()
    (tmp_path / "langgraph" / "__init__.py").write_text("raise ImportError('no langgraph here')\n")
    code = "import phaselint.langgraph"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 1
    assert "ImportError: phaselint.langgraph needs LangGraph" in done.stderr
    assert "pip install langgraph" in done.stderr


def test_an_edited_contract_is_read_again(tmp_path):
    contract = tmp_path / "review.contract.yaml"
    contract.write_text(CONTRACT.read_text(encoding="utf-8"), encoding="utf-8")
    saver = open_saver(tmp_path / "threads.sqlite")
    try:
        graph = build_graph(saver)
        graph.invoke({"topic": "otters"}, CONFIG)
        assert pause_of(graph, CONFIG, contract).checkpoint_id == "draft_ready"
        contract.write_text(contract.read_text(encoding="utf-8").replace("draft_ready", "draft_done"),
                            encoding="utf-8")
        assert pause_of(graph, CONFIG, contract).checkpoint_id == "draft_done"
        # The contract as YAML text works the same.
        assert pause_of(graph, CONFIG, contract.read_text(encoding="utf-8")).checkpoint_id == "draft_done"
    finally:
        saver.conn.close()
