"""Runs as threads in a checkpoint database: open it, list threads, summarise one thread's state."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver

DEFAULT_DB = Path(".accord") / "checkpoints.sqlite"


def db_path() -> Path:
    """Return the checkpoint database path (``$ACCORD_DB``, else ``.accord/checkpoints.sqlite``)."""
    return Path(os.environ.get("ACCORD_DB") or DEFAULT_DB)


@contextmanager
def checkpointer(path: Path | None = None) -> Iterator[SqliteSaver]:
    """Open the SQLite checkpointer, creating its directory and tables."""
    path = path or db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()


def thread_ids(saver: SqliteSaver) -> list[str]:
    """Return every thread id, most recently updated first."""
    rows = saver.conn.execute(
        "SELECT thread_id, MAX(rowid) FROM checkpoints GROUP BY thread_id ORDER BY MAX(rowid) DESC"
    ).fetchall()
    return [str(r[0]) for r in rows]


def config(thread_id: str) -> RunnableConfig:
    """Return the run config addressing a thread."""
    return {"configurable": {"thread_id": thread_id}}


def fork(graph: Any, thread_id: str, checkpoint_id: str,
         values: dict[str, Any] | None = None) -> RunnableConfig:
    """Start a new branch at a checkpoint, with ``values`` written over its state; return its config.

    The update is applied as the node that produced the checkpoint, so the lifecycle goes on to the same
    next stage; running the graph on the returned config (input None) continues the new branch.
    """
    from evals.history import from_graph

    chain = from_graph(graph, thread_id, head=checkpoint_id)
    if not chain:
        raise KeyError(f"no checkpoint {checkpoint_id!r} in thread {thread_id!r}")
    cfg: RunnableConfig = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "",
                                            "checkpoint_id": checkpoint_id}}
    new: RunnableConfig = graph.update_state(cfg, values or {}, as_node=chain[-1].node)
    return new


def totals(ledger: list[dict[str, Any]]) -> dict[str, Any]:
    """Return tokens, cost and LLM calls summed over a ledger."""
    llm = [e for e in ledger if e["kind"] == "llm"]
    return {
        "llm_calls": len(llm),
        "tokens_in": sum(e["tokens_in"] for e in llm),
        "tokens_out": sum(e["tokens_out"] for e in llm),
        "cost": round(sum(e["cost"] for e in llm), 6),
        "llm_seconds": round(sum(e["latency_s"] for e in llm), 2),
    }


def summary(values: dict[str, Any]) -> dict[str, Any]:
    """Return a thread's outcome: status, stage, reason, round, path taken and totals."""
    verdicts = values.get("verdicts", [])
    return {
        "status": values.get("status", "running"),
        "stage": values.get("stage", "initialized"),
        "reason": values.get("reason", ""),
        "round": values.get("counters", {}).get("round", 1),
        "path": ["initialized", *[v["target"] for v in verdicts if v.get("target")]],
        **totals(values.get("ledger", [])),
    }
