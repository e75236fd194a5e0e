"""A thread's checkpoint history as one branch of steps, from a local graph or a LangGraph server.

Checkpoints form a tree: a fork (``update_state`` on an old checkpoint) starts a new branch in the same
thread. Blame and exports read one branch, from the first checkpoint to a head (by default the newest),
following parent links, so a fork's branch never mixes with the run it was forked from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint on a branch: the state after the node that ran in ``step``."""

    step: int
    checkpoint_id: str
    parent_id: str | None
    node: str | None
    """The node whose update produced this checkpoint (None for the input checkpoint)."""
    values: Mapping[str, Any]
    next: tuple[str, ...]
    created_at: str | None = None
    source: str = "loop"
    """How it was made: ``input``, ``loop`` (a node ran), ``update`` (a fork's write) or ``fork``."""
    ran: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """The update each node that ran from this checkpoint wrote, by node name, where the history keeps
    them: the writes the next checkpoint is made of, one per node of a parallel step."""


def branch(items: Iterable[Checkpoint], head: str | None = None) -> list[Checkpoint]:
    """Return the checkpoints from the root to ``head`` (default: the newest), oldest first."""
    by_id = {c.checkpoint_id: c for c in items}
    if not by_id:
        return []
    newest = max(by_id.values(), key=lambda c: (c.created_at or "", c.checkpoint_id))
    current: Checkpoint | None = by_id[head] if head else newest
    chain: list[Checkpoint] = []
    while current is not None:
        chain.append(current)
        current = by_id.get(current.parent_id) if current.parent_id else None
    chain.reverse()
    # The node that produced a checkpoint is the one its parent said would run next; a checkpoint a
    # fork wrote (``update``) was produced by no node.
    return [
        _with_node(c, chain[i - 1]) if i and not c.node and c.source == "loop" else c
        for i, c in enumerate(chain)
    ]


def _with_node(checkpoint: Checkpoint, parent: Checkpoint) -> Checkpoint:
    node = parent.next[0] if len(parent.next) == 1 else None
    return Checkpoint(**{**checkpoint.__dict__, "node": node})


def from_graph(graph: Any, thread_id: str, head: str | None = None) -> list[Checkpoint]:
    """Return a branch of a thread from a compiled graph with a checkpointer (SQLite, memory, Postgres)."""
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    items = []
    for snap in graph.get_state_history(config):
        parent = (snap.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        items.append(
            Checkpoint(
                step=int(snap.metadata.get("step", -1)),
                checkpoint_id=snap.config["configurable"]["checkpoint_id"],
                parent_id=parent,
                node=None,
                values=dict(snap.values),
                next=tuple(snap.next),
                created_at=snap.created_at,
                source=str(snap.metadata.get("source", "loop")),
                ran={t.name: t.result for t in snap.tasks if isinstance(t.result, Mapping)},
            )
        )
    return branch(items, head)


def from_server_history(states: Iterable[Mapping[str, Any]], head: str | None = None) -> list[Checkpoint]:
    """Return a branch from a LangGraph server's thread history (``client.threads.get_history``)."""
    items = []
    for state in states:
        parent = (state.get("parent_checkpoint") or {}).get("checkpoint_id")
        metadata = state.get("metadata") or {}
        items.append(
            Checkpoint(
                step=int(metadata.get("step", -1)),
                checkpoint_id=state["checkpoint"]["checkpoint_id"],
                parent_id=parent,
                node=None,
                values=state.get("values") or {},
                next=tuple(state.get("next") or ()),
                created_at=state.get("created_at"),
                source=str(metadata.get("source", "loop")),
                ran={
                    t["name"]: t["result"]
                    for t in state.get("tasks") or ()
                    if isinstance(t.get("result"), Mapping)
                },
            )
        )
    return branch(items, head)


def from_server(url: str, thread_id: str, head: str | None = None, limit: int = 1000) -> list[Checkpoint]:
    """Return a branch of a thread on a LangGraph server (``langgraph dev`` or a deployment)."""
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=url)
    return from_server_history(client.threads.get_history(thread_id, limit=limit), head)
