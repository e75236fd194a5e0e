"""What a run says: the typed handoff between roles, its free-text form for the ablation without typed
messages, and the closing chat reply."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from state.artifacts import ARTIFACT_MODELS, artifact_text
from state.graph_state import LedgerEntry
from state.lifecycle import Lifecycle
from state.messages import Message


def handoff(lifecycle: Lifecycle, sender: str, target: str, update: Mapping[str, Any],
            round_: int) -> Message | None:
    """Return the typed message carrying a role's outputs to the next stage's role, if any."""
    stage = lifecycle.by_name[target]
    payload = [ARTIFACT_MODELS[k].model_validate(v) for k, v in update.items()]
    if stage.terminal or not stage.roles or not payload:
        return None
    return Message(sender=sender, receiver=stage.roles[0], payload=tuple(payload), round=round_)


def reply(status: str, reason: str, code: Mapping[str, Any] | None) -> str:
    """Return the run's outcome as the closing chat message: the status, why, and the files."""
    head = f"Run {status}" + (f": {reason}" if reason else ".")
    files = sorted((code or {}).get("files", {}).items())
    blocks = [f"`{path}`:\n```python\n{body.rstrip()}\n```" for path, body in files]
    return "\n\n".join([head, *blocks])


def free_text(message: Message, stage: str, step: int) -> LedgerEntry:
    """Return a handoff as the free text an untyped pipeline passes on (the ``no-messages`` ablation)."""
    text = "\n\n".join(artifact_text(a.kind, a.model_dump(mode="json")) for a in message.payload)
    return LedgerEntry(kind="handoff", role=message.sender, stage=stage, round=message.round, step=step,
                       outcome=message.receiver, detail=text[:4000])
