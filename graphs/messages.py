"""What a run says: the typed handoff between roles, its free-text form for the ablation without typed
messages, and the closing chat reply."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.state.artifacts import ARTIFACT_MODELS, artifact_text
from accord.state.contracts import Contract
from accord.state.graph_state import LedgerEntry
from accord.state.lifecycle import Lifecycle, Stage
from accord.state.messages import Message


def handoffs(
    lifecycle: Lifecycle, sender: str, target: str, update: Mapping[str, Any], round_: int
) -> list[Message]:
    """Return the typed messages carrying a role's outputs to each role of the next stage."""
    stage = lifecycle.by_name[target]
    payload = tuple(ARTIFACT_MODELS[k].model_validate(v) for k, v in update.items())
    if stage.terminal or not payload:
        return []
    return [Message(sender=sender, receiver=role, payload=payload, round=round_) for role in stage.roles]


def voter_handoffs(
    lifecycle: Lifecycle,
    stage: Stage,
    target: str,
    state: Mapping[str, Any],
    contracts: Mapping[str, Contract],
    round_: int,
) -> list[Message]:
    """Return the messages of a fan-out stage once its vote has decided where they go: each voter's
    outputs (its own entry of an artifact the voters share) to each role of the next stage."""
    messages = []
    for voter in stage.roles:
        outputs = {
            kind: own_entry(state[kind], voter)
            for kind in contracts[voter].outputs
            if kind != "vote" and state.get(kind)
        }
        sent = handoffs(lifecycle, voter, target, {k: v for k, v in outputs.items() if v}, round_)
        messages += [m for m in sent if m.receiver != voter]  # a voter keeps its own finding in state
    return messages


def own_entry(artifact: Mapping[str, Any], role: str) -> dict[str, Any] | None:
    """Return ``role``'s part of an artifact: its entry of a role-keyed one (None when it has none),
    else the whole."""
    if "by_role" not in artifact:
        return dict(artifact)
    mine = artifact["by_role"].get(role)
    return None if mine is None else {**artifact, "by_role": {role: mine}}


def reply(status: str, reason: str, code: Mapping[str, Any] | None) -> str:
    """Return the run's outcome as the closing chat message: the status, why, and the files."""
    head = f"Run {status}" + (f": {reason}" if reason else ".")
    files = sorted((code or {}).get("files", {}).items())
    blocks = [f"`{path}`:\n```python\n{body.rstrip()}\n```" for path, body in files]
    return "\n\n".join([head, *blocks])


def free_text(message: Message, stage: str, step: int) -> LedgerEntry:
    """Return a handoff as the free text an untyped pipeline passes on (the ``no-messages`` ablation)."""
    text = "\n\n".join(
        artifact_text(kind, a.model_dump(mode="json"))
        for kind, a in zip(message.kinds(), message.payload, strict=True)
    )
    return LedgerEntry(
        kind="handoff",
        role=message.sender,
        stage=stage,
        round=message.round,
        step=step,
        outcome=message.receiver,
        detail=text[:4000],
    )
