"""The graph state: artifacts by kind, plus appended records of what happened.

Artifacts are stored as their JSON form under their kind (``task``, ``plan``, ``code``, ``test_report``,
``review``); ``read`` turns them back into models. Lists that many steps append to carry ``operator.add``
reducers, so parallel fan-out roles can all write to them in one super-step.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from state.artifacts import Frozen
from state.contracts import Violation

M = TypeVar("M", bound=Frozen)


class Verdict(Frozen):
    """A verification outcome recorded by a gate (or one vote of a fan-out stage)."""

    stage: str
    role: str
    round: int
    outcome: str
    evidence: str = ""
    """Why: failing cases, violated contract, review issues."""
    target: str | None = None
    """The stage the lifecycle moved to; None for a single vote that a voting gate will join."""


class LedgerEntry(Frozen):
    """One accounted event: an LLM call, a contract check, a gate decision, a sandbox run, a retry."""

    kind: Literal["llm", "contract", "gate", "sandbox", "retry", "error", "oracle", "handoff", "action"]
    role: str
    stage: str
    round: int
    step: int = -1
    """The LangGraph step (checkpoint ``metadata.step``) the entry was written in."""
    model: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    latency_s: float = 0.0
    outcome: str = ""
    detail: str = ""


class Judgment(Frozen):
    """An oracle's verdict on the candidate result at one checkpoint (the blame's raw material)."""

    step: int
    """The checkpoint's step: the stage's node ran in it."""
    stage: str
    role: str
    round: int
    subject: Literal["plan", "code"]
    """Which artifact was the candidate: the code, or the plan before any code exists."""
    digest: str
    """A hash of the candidate, so an unchanged result is not judged twice."""
    correct: bool
    oracle: str
    """Which oracle judged, e.g. ``visible tests`` or ``hidden tests``."""
    evidence: str = ""
    """Why: the first failing test, or what passed."""


class AccordState(TypedDict, total=False):
    """State shared by every stage of a lifecycle."""

    request: str
    """The user's task as given (free text or a Python stub); the intake stage turns it into ``task``."""
    task: dict[str, Any]
    plan: dict[str, Any]
    code: dict[str, Any]
    test_report: dict[str, Any]
    tests: dict[str, Any]
    candidates: dict[str, Any]
    selection: dict[str, Any]
    review: dict[str, Any]
    handoffs: Annotated[list[dict[str, Any]], operator.add]
    """Typed messages between roles (``state.messages.Message`` JSON)."""
    messages: Annotated[list[AnyMessage], add_messages]
    """The conversation with the user (A2A, Studio's chat): a request may arrive as the last human
    message, and the run's outcome is the closing AI message. Roles never talk through it."""
    verdicts: Annotated[list[dict[str, Any]], operator.add]
    """Gate outcomes in order (``Verdict`` JSON)."""
    ledger: Annotated[list[dict[str, Any]], operator.add]
    """Accounting entries in order (``LedgerEntry`` JSON)."""
    violations: Annotated[list[dict[str, Any]], operator.add]
    """Contract violations in order (``Violation`` JSON)."""
    judgments: Annotated[list[dict[str, Any]], operator.add]
    """The oracle's verdict on the candidate result at each checkpoint (``Judgment`` JSON)."""
    counters: dict[str, int]
    """Loop counters (``round``, ``debug``); written whole by the gate that changes them."""
    stage: str
    """The stage the lifecycle is in (the target of the last gate)."""
    status: Literal["running", "completed", "failed"]
    reason: str
    """Why the run ended (for ``failed``: the cause, e.g. ``round budget exhausted``)."""


def read(state: Mapping[str, Any], kind: str, model: type[M]) -> M | None:
    """Return the artifact stored under ``kind`` as ``model``, or None when absent."""
    value = state.get(kind)
    return None if value is None else model.model_validate(value)


def handoffs(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the typed messages between roles, oldest first.

    A thread may also keep them under ``messages`` (a state without a chat channel); those are read too.
    """
    legacy = [m for m in state.get("messages", []) if isinstance(m, dict) and "sender" in m]
    return [*legacy, *state.get("handoffs", [])]


def code_versions(state: Mapping[str, Any]) -> list[dict[str, str]]:
    """Return the file maps of every code version handed over so far, oldest first."""
    return [a["files"] for m in handoffs(state) for a in m["payload"] if a["kind"] == "code"]


def dump(model: Frozen) -> dict[str, Any]:
    """Return the JSON form a model is stored under in state."""
    return model.model_dump(mode="json")


def records(items: list[M]) -> list[dict[str, Any]]:
    """Return the JSON forms of a list of records, for an appended state key."""
    return [dump(item) for item in items]


__all__ = ["AccordState", "Judgment", "LedgerEntry", "Verdict", "Violation", "code_versions", "dump", "read",
           "records"]
