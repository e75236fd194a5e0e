"""Typed messages M = (sender, receiver, payload, round, id, reply_to) between roles."""

from __future__ import annotations

import uuid

from pydantic import Field

from accord.state.artifacts import Artifact, Frozen


class Message(Frozen):
    """A handoff from one role to another, carrying typed artifacts (never free text)."""

    sender: str
    receiver: str
    payload: tuple[Artifact, ...] = Field(min_length=1)
    round: int = 1
    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    reply_to: str | None = None
    """Id of the message this one answers (e.g. a fix answering a test report)."""

    def kinds(self) -> list[str]:
        """Return the artifact kinds in the payload, in order."""
        return [str(getattr(artifact, "kind", "")) for artifact in self.payload]
