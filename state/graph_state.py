"""The graph state: artifacts by kind, plus appended records of what happened.

Artifacts are stored as their JSON form under their kind (``task``, ``plan``, ``code``, ``test_report``,
``review``, and each workflow's own); ``read`` turns them back into models. Keys that parallel fan-out
roles write in one super-step carry reducers: lists append (``operator.add``), and a kind registered with a
reducer (``merge_by_role``: each role's entry under its name) merges as it says.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, Literal, TypeVar, get_origin, get_type_hints

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from accord.state.artifacts import ARTIFACT_REDUCERS, Frozen
from accord.state.contracts import Violation

M = TypeVar("M", bound=Frozen)


ENDED = ("completed", "unverified", "failed")
"""The statuses of a run that has ended: ``unverified`` is a result handed over that nothing but loading
checked."""


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

    kind: Literal[
        "llm", "contract", "gate", "sandbox", "retry", "error", "oracle", "handoff", "action", "human"
    ]
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
    agent: str = ""
    """Who played the role, where the run says: the agent a team file cast in it, or a remote A2A agent
    (its card's name and URL)."""
    isolation: str = ""
    """How a sandbox run was isolated: ``bubblewrap``, or ``rlimits`` where the user accepted no isolation."""


class Judgment(Frozen):
    """An oracle's verdict on the candidate result at one checkpoint (the blame's raw material)."""

    step: int
    """The checkpoint's step: the stage's node ran in it."""
    stage: str
    role: str
    round: int
    subject: str
    """What the candidate was: the code, the plan before any code exists, an audit's verdict."""
    digest: str
    """A hash of the candidate, so an unchanged result is not judged twice."""
    correct: bool
    oracle: str
    """Which oracle judged, e.g. ``visible tests`` or ``hidden tests``."""
    evidence: str = ""
    """Why: the first failing test, or what passed."""


def merge_by_role(current: dict[str, Any] | None, update: dict[str, Any]) -> dict[str, Any]:
    """Merge an artifact that several roles write in parallel, each under its own name (``by_role``):
    a role's new entry replaces its old one and leaves the others'."""
    if not current:
        return update
    return {**current, **update, "by_role": {**current.get("by_role", {}), **update.get("by_role", {})}}


class AccordState(TypedDict, total=False):
    """State shared by every stage of a lifecycle."""

    request: str
    """The user's task as given (free text, a Python stub, code); the intake stage turns it into the
    workflow's task artifact."""
    task: dict[str, Any]
    plan: dict[str, Any]
    code: dict[str, Any]
    test_report: dict[str, Any]
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
    workflow: str
    """The lifecycle the thread runs, written by every gate: which graph reads the thread back."""
    status: Literal["running", "completed", "unverified", "failed"]
    reason: str
    """Why the run ended: for ``failed`` the cause (e.g. ``round budget exhausted``), else how its result
    was verified (the last gate's evidence)."""


def state_for(kinds: Iterable[str], inputs: Mapping[str, Any] | None = None) -> type[Any]:
    """Return the graph state of a workflow: ``AccordState``, plus a key for each artifact kind in
    ``kinds`` it does not declare (with the kind's reducer, where it was registered with one) and the
    workflow's own input keys (``inputs``: name -> type), or ``AccordState`` itself when nothing is added."""
    hints = get_type_hints(AccordState, include_extras=True)
    added: dict[str, Any] = {
        kind: Annotated[dict[str, Any], ARTIFACT_REDUCERS[kind]]
        if kind in ARTIFACT_REDUCERS
        else dict[str, Any]
        for kind in sorted(set(kinds) - set(hints))
    }
    added |= {key: kind for key, kind in (inputs or {}).items() if key not in hints}
    if not added:
        return AccordState
    # The functional form: the keys are known only when a workflow's contracts are.
    extended: type[Any] = TypedDict(f"AccordState_{'_'.join(added)}", {**hints, **added}, total=False)  # type: ignore[misc]
    return extended


def reducers() -> dict[str, Callable[[Any, Any], Any]]:
    """Return the state keys that merge what parallel roles write, with how (their LangGraph reducers):
    ``AccordState``'s appended records and the registered artifact kinds that have one."""
    declared = {
        key: hint.__metadata__[0]
        for key, hint in get_type_hints(AccordState, include_extras=True).items()
        if get_origin(hint) is Annotated
    }
    return {**ARTIFACT_REDUCERS, **declared}


def updated(state: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``state`` after ``update`` as LangGraph will apply it: reduced keys merged, others replaced."""
    merging = reducers()
    return {
        **state,
        **{
            key: merging[key](state[key], value) if key in merging and key in state else value
            for key, value in update.items()
        },
    }


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


def ballot(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the votes of the fan-out stage that just ran: the trailing verdicts no gate has joined yet."""
    verdicts = state.get("verdicts") or []
    cast = len(verdicts)
    while cast and verdicts[cast - 1]["target"] is None:
        cast -= 1
    return list(verdicts[cast:])


def code_versions(state: Mapping[str, Any]) -> list[dict[str, str]]:
    """Return the file maps of every code version handed over so far, oldest first."""
    return [a["files"] for m in handoffs(state) for a in m["payload"] if a["kind"] == "code"]


def dump(model: Frozen) -> dict[str, Any]:
    """Return the JSON form a model is stored under in state."""
    return model.model_dump(mode="json")


def records(items: list[M]) -> list[dict[str, Any]]:
    """Return the JSON forms of a list of records, for an appended state key."""
    return [dump(item) for item in items]


__all__ = [
    "AccordState",
    "Judgment",
    "LedgerEntry",
    "Verdict",
    "Violation",
    "ballot",
    "code_versions",
    "dump",
    "merge_by_role",
    "read",
    "records",
    "reducers",
    "state_for",
    "updated",
]
