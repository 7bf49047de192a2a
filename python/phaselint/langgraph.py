"""Guard a LangGraph resume with phaselint's resume check.

A LangGraph thread paused by ``interrupt()`` (or ``interrupt_before`` /
``interrupt_after``) resumes with ``graph.invoke(Command(resume=value),
config)``, and LangGraph trusts what it persisted: a thread whose paused
node was renamed resumes into nothing and returns the old state, and a
finished thread accepts another resume without a word. Call
:func:`guard_resume` first::

    from langgraph.types import Command
    import phaselint
    from phaselint.langgraph import guard_resume, pause_of

    pause = pause_of(graph, config, "review.contract.yaml")
    record = phaselint.approve("review.contract.yaml", pause.checkpoint_id,
                               approved_by="ana", policy="human",
                               context=pause.context)
    guard_resume(graph, config, "review.contract.yaml", approval=record)
    graph.invoke(Command(resume=record), config)   # interrupt() returns record

How a paused thread maps to the contract (docs/orchestrators.md says the
same at more length). A contract checkpoint is taken *after* its ``phase``
and the run resumes into that phase's successors. LangGraph saves a
checkpoint after each step (super-step) and pauses before running the nodes
of the next one, so:

* the **node the thread resumes into** is the node whose ``interrupt()`` is
  pending (LangGraph runs it again from its start, and ``interrupt()``
  returns the resume value), or, for ``interrupt_before=[N]`` /
  ``interrupt_after=[M]``, the one node in ``state.next``; its phase is
  passed as the check's ``next_phase``;
* the **checkpoint** is the contract's ``checkpoint_integrity`` entry whose
  ``phase`` is the phase of the node that ran in the step that wrote the
  checkpoint the thread is paused at (LangGraph's own record: the nodes
  whose ``versions_seen`` changed between that checkpoint and its parent).
  An ``interrupt()`` in ``review`` after ``generate`` is the checkpoint
  ``phase: generate``, resuming into ``review``.

Node names are the contract's phase names unless ``phases={"node":
"phase"}`` says otherwise (nodes it does not name keep their own name).

The context checked is the thread's state values, without any ``_cc_*`` key
the state holds, plus a ``_cc_propagation`` built from LangGraph's
checkpoint records: each channel's ``set_at`` is the timestamp of the
checkpoint at which the channel took its current version (walking the
parent checkpoints, by channel versions), and ``origin_phase`` the phase of
the node that wrote it when the records name one node. The paused run
writes its state, so it never vouches for its own freshness or approval:
an approval counts only when it is the ``approval`` passed here.

This module imports LangGraph; ``import phaselint`` does not import it.
"""

from __future__ import annotations

try:
    from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
except ImportError as error:  # pragma: no cover - exercised without langgraph
    raise ImportError(
        "phaselint.langgraph needs LangGraph, which is not installed: "
        "pip install langgraph (and a checkpointer, e.g. langgraph-checkpoint-sqlite)"
    ) from error

import datetime
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Optional, Union

import phaselint

__all__ = ["Pause", "guard_resume", "pause_of"]

# LangGraph's names for what it writes beside the channels (its own records;
# langgraph/_internal/_constants.py). They are stored in every checkpointer's
# tables, so they do not move between versions.
_INTERRUPT = "__interrupt__"
_RESUME = "__resume__"
_ERROR = "__error__"
_START = "__start__"
_INPUT = "__input__"
_NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"
_TRIGGER_PREFIX = "branch:to:"


@dataclass(frozen=True)
class Pause:
    """Where a paused LangGraph thread stands, in the contract's terms."""

    checkpoint_id: str
    """The contract checkpoint the thread is paused at (see the module doc)."""
    phase: str
    """That checkpoint's phase: the phase of the node that ran before the pause."""
    ran: tuple[str, ...]
    """The nodes that ran in the step that wrote the paused checkpoint."""
    node: str
    """The node the thread resumes into."""
    next_phase: str
    """Its phase: the phase the run resumes into."""
    kind: str
    """``"interrupt"``, ``"interrupt_before"`` or ``"interrupt_after"``."""
    interrupt_id: Optional[str]
    """The pending interrupt's id (``None`` for a static interrupt)."""
    interrupt_value: Any
    """What the node passed to ``interrupt()`` (``None`` for a static interrupt)."""
    context: dict[str, Any]
    """The context the check reads: the state's values and ``_cc_propagation``."""
    langgraph_checkpoint_id: str
    """LangGraph's id of the checkpoint the thread is paused at."""
    created_at: str
    """When LangGraph wrote that checkpoint."""
    answered: tuple[Any, ...] = ()
    """The resume values already given at that checkpoint (a node that calls
    interrupt() twice stays at one checkpoint)."""


def guard_resume(
    graph: Any,
    config: Mapping[str, Any],
    contract: Union[str, "os.PathLike[str]"],
    *,
    approval: Optional[Mapping[str, Any]] = None,
    phases: Optional[Mapping[str, str]] = None,
    now: Union[None, datetime.datetime, str] = None,
) -> phaselint.ResumeResult:
    """Run phaselint's resume check for the thread ``config`` names, before
    ``graph.invoke(Command(resume=approval), config)``.

    ``contract`` is a path or YAML text (as for :func:`phaselint.resume_check`),
    ``approval`` the ApprovalRecord (a dict, from :func:`phaselint.approve`)
    that will also be the resume value, ``phases`` maps node names to phase
    names, ``now`` is the resume time (default: the clock).

    Returns the :class:`phaselint.ResumeResult` (``decision == "resume"``).
    Raises :class:`phaselint.ResumeRefused` when the resume must not happen:
    the thread has nothing to resume, its paused node (or the node it
    resumes into) is not in this graph or has no phase in the contract,
    several interrupts are pending, a checked field is stale, the approval
    is missing or does not bind, or the check could not decide. ``.reason``
    says why; ``.result`` is the check's result when one ran.
    """
    # One reading of a path-like: the pause is mapped and checked against
    # the same file.
    if isinstance(contract, os.PathLike):
        contract = os.fspath(contract)
    pause = pause_of(graph, config, contract, phases=phases)
    if approval is not None and _answered_already(pause, approval):
        raise _refused(
            f"this approval already answered an interrupt of {_where(pause)}: "
            "an approval is used for one resume; approve again for this one"
        )
    if approval is not None and _answered_earlier(graph.checkpointer, config, approval):
        # A run that loops back pauses again at the same contract checkpoint,
        # often with the same values: the record a person gave for the first
        # pause binds them, but they approved that one resume, not this one.
        raise _refused(
            f"this approval already answered an earlier interrupt of thread "
            f"{_thread_id(config)!r} (its checkpoint history holds it as a resume value): "
            f"an approval is used for one resume; approve again for {_where(pause)}"
        )
    approvals = () if approval is None else (approval,)
    try:
        result = phaselint.resume_check(
            contract,
            pause.checkpoint_id,
            pause.context,
            approvals=approvals,
            now=now,
            next_phase=pause.next_phase,
        )
    except phaselint.PhaselintError as error:
        raise _refused(f"the resume check of {_where(pause)} gave no verdict: {error}") from error
    if result.phase and result.phase != pause.phase:
        raise _refused(
            f"the contract's checkpoint `{pause.checkpoint_id}` is on phase `{result.phase}`, "
            f"but the thread paused after `{pause.phase}`",
            result,
        )
    if result.decision != "resume":
        raise _refused(f"phaselint refused the resume of {_where(pause)}: {_why(result)}", result)
    return result


def pause_of(
    graph: Any,
    config: Mapping[str, Any],
    contract: Union[str, "os.PathLike[str]"],
    *,
    phases: Optional[Mapping[str, str]] = None,
) -> Pause:
    """Where the thread ``config`` names is paused, as a :class:`Pause`.

    This is what :func:`guard_resume` checks, and what an approver needs:
    ``phaselint.approve(contract, pause.checkpoint_id, ..., context=pause.context)``
    binds the approval to the values the guard will check. Raises
    :class:`phaselint.ResumeRefused` (``.result`` is ``None``) when the
    thread cannot be resumed from here.
    """
    phase_of = _phase_mapper(phases)
    saver = getattr(graph, "checkpointer", None)
    if not isinstance(saver, BaseCheckpointSaver):
        raise _refused(
            "the graph has no checkpointer (compile it with checkpointer=...): "
            "the guard reads the thread's checkpoints through it"
        )
    thread = _thread_id(config)
    state = graph.get_state(config)
    if state.metadata is None or not state.config:
        raise _refused(f"thread {thread!r} has nothing to resume: it has no checkpoint (never started)")
    saved = saver.get_tuple(state.config)
    if saved is None:
        raise _refused(f"thread {thread!r} has nothing to resume: its checkpoint cannot be read")
    checkpoint = saved.checkpoint
    where = f"thread {thread!r} (LangGraph checkpoint {checkpoint.get('id')}, step {saved.metadata.get('step')})"

    # What LangGraph recorded, read without the graph: the nodes this
    # checkpoint triggers and the interrupts written at it. Seen through a
    # graph whose paused node was renamed, `state.next` is simply empty.
    recorded_next = _triggered_nodes(checkpoint)
    pending_writes = list(saved.pending_writes or ())
    interrupted_tasks = {task_id for task_id, channel, _ in pending_writes if channel == _INTERRUPT}
    tasks_by_id = {task.id: task for task in state.tasks}
    missing = sorted(node for node in recorded_next if node not in graph.nodes)
    if missing or any(task_id not in tasks_by_id for task_id in interrupted_tasks):
        named = ", ".join(f"`{node}`" for node in missing) or "an interrupted node"
        raise _refused(
            f"{where} is paused at {named}, which this graph does not have "
            f"(its nodes: {', '.join(_user_nodes(graph))}): resuming would run nothing. "
            "Resume it with the graph that paused it, or migrate the thread"
        )
    failed = [task for task in state.tasks if task.error is not None]
    if failed:
        raise _refused(
            f"{where} stopped on an error in `{failed[0].name}` ({failed[0].error!r}), "
            "not at an interrupt: it has no question to answer; retry it with graph.invoke(None, config)"
        )

    parent = saver.get_tuple(saved.parent_config) if saved.parent_config else None
    ran_at_saved = _nodes_that_ran(saved, parent)
    pending = list(state.interrupts)
    paused_step = saved
    if len(pending) > 1:
        listed = ", ".join(
            f"{task.name} ({interrupt.id})" for task in state.tasks for interrupt in task.interrupts
        )
        raise _refused(
            f"{where} has {len(pending)} interrupts pending ({listed}): one guarded resume answers "
            "one interrupt with one approval, and LangGraph would need Command(resume={id: value}) "
            "for several; this guard does not decide which"
        )
    if pending:
        owners = [task for task in state.tasks if any(i.id == pending[0].id for i in task.interrupts)]
        if len(owners) != 1:
            raise _refused(f"{where}: the pending interrupt {pending[0].id} belongs to no single node")
        node, kind = owners[0].name, "interrupt"
        interrupt_id, interrupt_value = pending[0].id, pending[0].value
    elif state.next:
        if len(state.next) > 1:
            raise _refused(
                f"{where} is paused before several nodes ({', '.join(state.next)}): "
                "the guard checks a resume into one node"
            )
        node, interrupt_id, interrupt_value = state.next[0], None, None
        static = _static_interrupt(graph, node, ran_at_saved)
        if static is not None:
            kind = static
        else:
            # graph.update_state() on a thread paused at an interrupt() writes
            # a checkpoint without the interrupt, and Command(resume=...) still
            # answers it when the node runs again: the pause is the one under
            # the updates.
            edited = _paused_under_updates(saver, saved, node)
            if edited is None:
                raise _refused(
                    f"{where} has `{node}` to run next but no interrupt pending and no interrupt_before/"
                    "interrupt_after that stops there: it was not paused for a person, it stopped "
                    "(a crash, a cancelled run); continue it with graph.invoke(None, config), not a resume"
                )
            paused_step, interrupts = edited
            if len(interrupts) != 1:
                raise _refused(
                    f"{where} was paused with {len(interrupts)} interrupts pending before its state was "
                    "updated: the guard checks one resume into one node"
                )
            kind, interrupt_id, interrupt_value = "interrupt", interrupts[0].id, interrupts[0].value
    else:
        raise _refused(
            f"{where} has nothing to resume: no node is left to run and no interrupt is pending "
            "(the run finished; a resume now would be accepted by LangGraph and do nothing)"
        )

    if paused_step is saved:
        ran = ran_at_saved
    else:
        step_parent = saver.get_tuple(paused_step.parent_config) if paused_step.parent_config else None
        ran = _nodes_that_ran(paused_step, step_parent)
    if not ran:
        raise _refused(f"{where}: LangGraph's records do not say which node ran before the pause")

    contract_phases, specs = _read_contract(contract)
    next_phase = phase_of(node)
    if next_phase not in contract_phases:
        raise _refused(
            f"{where} resumes into node `{node}`, and the contract has no phase `{next_phase}` "
            f"(phases: {', '.join(contract_phases)}); name it in phases={{...}} or in the contract"
        )
    ran_phases = []
    for ran_node in ran:
        phase = phase_of(ran_node)
        if phase not in contract_phases:
            what = "its input" if ran_node == _START else f"node `{ran_node}`"
            raise _refused(
                f"{where} paused after {what}, which has no phase `{phase}` in the contract: a "
                "contract checkpoint is taken after a phase (map the node with phases={...})"
            )
        ran_phases.append(phase)

    if specs:
        matching = [checkpoint_id for checkpoint_id, phase in specs if phase in ran_phases]
        if not matching:
            raise _refused(
                f"{where} paused after phase {' and '.join(f'`{p}`' for p in ran_phases)}, and the contract "
                f"declares no checkpoint there (its checkpoints: "
                f"{', '.join(f'{c} after {p}' for c, p in specs)})"
            )
        if len(matching) > 1:
            raise _refused(
                f"{where} paused after {' and '.join(ran_phases)}, where the contract declares "
                f"{len(matching)} checkpoints ({', '.join(matching)}): the guard cannot tell which one this is"
            )
        checkpoint_id = matching[0]
        phase = next(p for c, p in specs if c == checkpoint_id)
    else:
        # No checkpoint specs: the check resumes whatever the id
        # (REQ-10-011); it still refuses a next phase the contract lacks.
        checkpoint_id = phase = ran_phases[0]

    context = _context(graph, saver, state, saved, parent, phase_of)
    return Pause(
        checkpoint_id=checkpoint_id,
        phase=phase,
        ran=tuple(ran),
        node=node,
        next_phase=next_phase,
        kind=kind,
        interrupt_id=interrupt_id,
        interrupt_value=interrupt_value,
        context=context,
        langgraph_checkpoint_id=str(checkpoint.get("id")),
        created_at=str(checkpoint.get("ts")),
        # A task's own resume write lists the answers its interrupt() calls
        # returned; the thread-wide one (null task id) is only what a
        # Command(resume=...) brought, used or not.
        answered=tuple(
            answer
            for task_id, channel, value in pending_writes
            if channel == _RESUME and task_id != _NULL_TASK_ID
            for answer in (value if isinstance(value, list) else [value])
        ),
    )


def _refused(reason: str, result: Optional[phaselint.ResumeResult] = None) -> phaselint.ResumeRefused:
    return phaselint.ResumeRefused(reason, result)


def _where(pause: Pause) -> str:
    return f"checkpoint `{pause.checkpoint_id}` (after `{pause.phase}`, resuming into `{pause.next_phase}`)"


def _why(result: phaselint.ResumeResult) -> str:
    """The check's reasons, in a sentence: what blocked and what denied."""
    reasons = []
    stale = [s for s in result.stale_fields if s.is_stale and s.severity == "blocking"]
    for field in stale:
        reasons.append(f"`{field.field}` is stale ({field.reason})")
    entry = result.entry_revalidation or {}
    if entry.get("passed") is False:
        reasons.append("the entry revalidation of the next phase failed")
    if result.denial:
        reasons.append(f"the approval gate: {result.denial.get('reason')}")
    if not reasons:
        reasons.append(str((result.to_gate_result() or {}).get("reason", "")))
    return f"{result.decision}: {'; '.join(reasons)}"


def _thread_id(config: Mapping[str, Any]) -> Any:
    configurable = (config or {}).get("configurable") or {}
    return configurable.get("thread_id")


def _phase_mapper(phases: Optional[Mapping[str, str]]) -> Callable[[str], str]:
    if phases is None:
        return lambda node: node
    if not isinstance(phases, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in phases.items()
    ):
        raise TypeError("phases must map node names (str) to phase names (str)")
    mapping = dict(phases)
    return lambda node: mapping.get(node, node)


def _user_nodes(graph: Any) -> list[str]:
    return [node for node in graph.nodes if node != _START]


def _newer(version: Any, seen: Any) -> bool:
    if seen is None:
        return True
    try:
        return bool(version > seen)
    except TypeError:
        # Versions of different kinds are not LangGraph's; count the node
        # as triggered, so a node this graph lacks is refused, not missed.
        return True


def _triggered_nodes(checkpoint: Mapping[str, Any]) -> set[str]:
    """The nodes a checkpoint triggers, as LangGraph decides it: a
    `branch:to:N` channel that holds a value (LangGraph empties it once N
    has run) and is newer than the version node N has seen."""
    versions = checkpoint.get("channel_versions") or {}
    seen = checkpoint.get("versions_seen") or {}
    holding = checkpoint.get("channel_values") or {}
    nodes = set()
    for channel, version in versions.items():
        if isinstance(channel, str) and channel.startswith(_TRIGGER_PREFIX) and channel in holding:
            node = channel[len(_TRIGGER_PREFIX) :]
            if _newer(version, (seen.get(node) or {}).get(channel)):
                nodes.add(node)
    return nodes


def _nodes_that_ran(saved: CheckpointTuple, parent: Optional[CheckpointTuple]) -> list[str]:
    """The nodes that ran in the step that wrote `saved`: those whose seen
    versions changed from the parent checkpoint (LangGraph records a node's
    `versions_seen` when it runs)."""
    now_seen = saved.checkpoint.get("versions_seen") or {}
    before = (parent.checkpoint.get("versions_seen") or {}) if parent is not None else {}
    return sorted(node for node, seen in now_seen.items() if node != _INPUT and before.get(node) != seen)


def _paused_under_updates(
    saver: BaseCheckpointSaver[Any], saved: CheckpointTuple, node: str
) -> Optional[tuple[CheckpointTuple, list[Any]]]:
    """`(checkpoint, interrupts)` when `saved` is a chain of state updates
    (metadata source "update") on a checkpoint where `node`'s interrupt()
    was pending; otherwise None."""
    current, visited = saved, set()
    while (current.metadata or {}).get("source") == "update" and current.parent_config:
        identifier = str(current.checkpoint.get("id"))
        if identifier in visited:
            return None
        visited.add(identifier)
        older = saver.get_tuple(current.parent_config)
        if older is None:
            return None
        current = older
    if current is saved or node not in _triggered_nodes(current.checkpoint):
        return None
    interrupts = [
        interrupt
        for _, channel, value in current.pending_writes or ()
        if channel == _INTERRUPT
        for interrupt in (value if isinstance(value, (list, tuple)) else [value])
    ]
    return (current, interrupts) if interrupts else None


def _static_interrupt(graph: Any, node: str, ran: list[str]) -> Optional[str]:
    before = getattr(graph, "interrupt_before_nodes", None) or ()
    after = getattr(graph, "interrupt_after_nodes", None) or ()
    if before == "*" or node in before:
        return "interrupt_before"
    if after == "*" or set(ran) & set(after):
        return "interrupt_after"
    return None


def _read_contract(contract: Union[str, "os.PathLike[str]"]) -> tuple[list[str], list[tuple[str, str]]]:
    """The contract's phase names and its (checkpoint_id, phase) pairs,
    read by phaselint itself (never a second YAML reading here); a contract
    phaselint gives no verdict on is refused."""
    try:
        return phaselint._outline(contract)
    except phaselint.PhaselintError as error:
        raise _refused(f"the contract gives no verdict: {error}") from error


def _context(
    graph: Any,
    saver: BaseCheckpointSaver[Any],
    state: Any,
    saved: CheckpointTuple,
    parent: Optional[CheckpointTuple],
    phase_of: Callable[[str], str],
) -> dict[str, Any]:
    """The state's values (no `_cc_*` key of the state's own) and the
    `_cc_propagation` LangGraph's records give them."""
    values = state.values
    if not isinstance(values, Mapping):
        raise _refused(
            f"the thread's state is a {type(values).__name__}, not a mapping of channels: "
            "the guard checks a StateGraph's channels"
        )
    context = {key: value for key, value in values.items() if not str(key).startswith("_cc_")}
    context["_cc_propagation"] = _provenance(graph, saver, saved, parent, list(context), phase_of)
    return context


def _provenance(
    graph: Any,
    saver: BaseCheckpointSaver[Any],
    saved: CheckpointTuple,
    parent: Optional[CheckpointTuple],
    channels: list[str],
    phase_of: Callable[[str], str],
) -> dict[str, dict[str, str]]:
    """`{channel: {set_at, origin_phase?, langgraph_checkpoint_id, langgraph_step}}`.

    A channel's stamp is the checkpoint at which it took its current
    version: walking back from the paused checkpoint along its parents, the
    last one whose version of the channel is still the current one. A
    channel written in the paused step by a node that already finished
    (pending writes, not yet in a checkpoint) is stamped with the paused
    checkpoint's time: it was written after that, so the stamp can only
    make it look older, never fresher. A channel without a version (never
    written) gets no stamp: the check lists it as missing provenance and,
    since `_cc_propagation` is present, stale."""
    stamps = {}
    pending: dict[str, set[str]] = {}
    for task_id, channel, _ in saved.pending_writes or ():
        pending.setdefault(channel, set()).add(task_id)
    for channel in channels:
        if channel in pending:
            stamps[channel] = _stamp(graph, saved, saved, pending[channel], phase_of, ran=None)

    current = saved.checkpoint.get("channel_versions") or {}
    unresolved = {c: current[c] for c in channels if c not in stamps and c in current}
    child, ancestor = saved, parent
    visited = {str(saved.checkpoint.get("id"))}
    while unresolved:
        if ancestor is None:
            # The oldest checkpoint holds them: set when the thread began.
            for channel in unresolved:
                stamps[channel] = _stamp(graph, child, None, set(), phase_of, ran=[])
            break
        older = ancestor.checkpoint.get("channel_versions") or {}
        changed = [c for c, v in unresolved.items() if older.get(c) != v]
        if changed:
            ran = _nodes_that_ran(child, ancestor)
            for channel in changed:
                writers = {t for t, c, _ in ancestor.pending_writes or () if c == channel}
                stamps[channel] = _stamp(graph, child, ancestor, writers, phase_of, ran=ran)
                del unresolved[channel]
        if not unresolved:
            break
        identifier = str(ancestor.checkpoint.get("id"))
        if identifier in visited:  # a cycle of parents is no history
            break
        visited.add(identifier)
        child = ancestor
        ancestor = saver.get_tuple(ancestor.parent_config) if ancestor.parent_config else None
    return stamps


def _stamp(
    graph: Any,
    setter: CheckpointTuple,
    step_start: Optional[CheckpointTuple],
    writer_tasks: set[str],
    phase_of: Callable[[str], str],
    ran: Optional[list[str]],
) -> dict[str, str]:
    """The stamp of a channel set by the step from `step_start` to `setter`."""
    stamp = {
        "set_at": str(setter.checkpoint.get("ts")),
        "langgraph_checkpoint_id": str(setter.checkpoint.get("id")),
        "langgraph_step": str((setter.metadata or {}).get("step")),
    }
    writer = None
    if ran is not None and len(ran) == 1:
        writer = ran[0]
    elif writer_tasks and step_start is not None:
        # Several nodes ran: the task that wrote the channel, named by
        # LangGraph's record of the step (the tasks of its first checkpoint).
        try:
            snapshot = next(iter(graph.get_state_history(step_start.config, limit=1)), None)
        except Exception:  # a record the current graph cannot read: no writer
            snapshot = None
        names = {task.name for task in (snapshot.tasks if snapshot else ()) if task.id in writer_tasks}
        if len(names) == 1:
            writer = names.pop()
    if writer is not None and writer != _START:
        stamp["origin_phase"] = phase_of(writer)
    return stamp


def _answered_earlier(
    saver: BaseCheckpointSaver[Any], config: Mapping[str, Any], approval: Mapping[str, Any]
) -> bool:
    """Whether `approval` is a resume value an interrupt of this thread took
    at any of its checkpoints (a task's own resume write, as in
    `Pause.answered`: what a node's interrupt() returned)."""
    configurable = dict((config or {}).get("configurable") or {})
    configurable.pop("checkpoint_id", None)
    history = saver.list({"configurable": configurable})
    for saved in history:
        for task_id, channel, value in saved.pending_writes or ():
            if channel != _RESUME or task_id == _NULL_TASK_ID:
                continue
            if any(_same_approval(answer, approval) for answer in (value if isinstance(value, list) else [value])):
                return True
    return False


# What makes one person's approval that one: a record that differs only in
# its notes or acknowledgements is the same approval given again.
_APPROVAL_IDENTITY = ("approved_by", "approved_at", "checkpoint_id", "context_digest", "target_digest")


def _same_approval(answer: Any, approval: Mapping[str, Any]) -> bool:
    if answer == approval:
        return True
    if not isinstance(answer, Mapping) or not isinstance(approval, Mapping):
        return False
    return all(answer.get(key) == approval.get(key) for key in _APPROVAL_IDENTITY)


def _answered_already(pause: Pause, approval: Mapping[str, Any]) -> bool:
    """Whether `approval` is already a resume value written at the paused
    checkpoint: a node with two interrupt() calls stays at one checkpoint,
    and one approval must not answer both."""
    return any(_same_approval(answer, approval) for answer in pause.answered)
