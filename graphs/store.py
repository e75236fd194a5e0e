"""Runs as threads in a checkpoint database: open it, list threads, summarise one thread's state.

The run store is SQLite (``.accord/checkpoints.sqlite``, or ``$ACCORD_DB``) unless
``$ACCORD_DATABASE_URL`` names a PostgreSQL database, which every command then uses instead.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from pydantic import ValidationError

from accord.state.artifacts import ARTIFACT_MODELS
from accord.state.history import from_graph
from accord.state.settings import Settings

DATABASE_URL = "ACCORD_DATABASE_URL"
_SETUP_LOCK = 0x4163636F7264  # "Accord": the advisory lock key that serialises table creation


class RunStoreError(RuntimeError):
    """The run store cannot be opened (the message never holds a password)."""


def db_path() -> Path:
    """Return the checkpoint database path (``$ACCORD_DB``, else ``.accord/checkpoints.sqlite``)."""
    return Settings().db


def database_url() -> str | None:
    """Return the PostgreSQL URL of the run store, if one is configured."""
    url = Settings().database_url
    return url.get_secret_value() if url else None


def redacted(url: str) -> str:
    """Return ``url`` without its password, fit for a message or a log."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


@contextmanager
def checkpointer(path: Path | None = None) -> Iterator[BaseCheckpointSaver[Any]]:
    """Open the run store, creating its tables: SQLite at ``path``; without one, Postgres when
    ``$ACCORD_DATABASE_URL`` is set, else SQLite at ``db_path()``.

    Raises:
        RunStoreError: the Postgres server cannot be reached or refuses the connection.
    """
    url = None if path else database_url()
    if url:
        with _postgres(url) as saver:
            yield saver
        return
    path = path or db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()


@contextmanager
def _postgres(url: str) -> Iterator[BaseCheckpointSaver[Any]]:
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    try:
        # One autocommit connection, as PostgresSaver.from_conn_string opens it, with a bounded wait.
        conn = psycopg.connect(
            url, autocommit=True, prepare_threshold=0, row_factory=dict_row, connect_timeout=10
        )
    except psycopg.Error as exc:
        raise RunStoreError(
            f"cannot open the run store {redacted(url)}: {str(exc).replace(url, redacted(url)).strip()}"
        ) from None
    with conn:
        saver = PostgresSaver(conn)
        # Concurrent first openers (eval workers) would race on the migrations table; a session
        # advisory lock makes creating the tables one opener's job at a time. It is polled, not
        # awaited: the migrations build an index CONCURRENTLY, which waits for every open
        # transaction, a blocked lock request included (a deadlock).
        while not conn.execute("SELECT pg_try_advisory_lock(%s) AS held", (_SETUP_LOCK,)).fetchone()["held"]:  # type: ignore[index]
            time.sleep(0.05)
        try:
            saver.setup()
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK,))
        yield saver


def thread_ids(saver: BaseCheckpointSaver[Any]) -> list[str]:
    """Return every thread id, most recently updated first."""
    if isinstance(saver, SqliteSaver):
        rows = saver.conn.execute(
            "SELECT thread_id, MAX(rowid) FROM checkpoints GROUP BY thread_id ORDER BY MAX(rowid) DESC"
        ).fetchall()
        return [str(r[0]) for r in rows]
    # Postgres: checkpoint ids are time-ordered UUIDs (v6), so the largest is the latest.
    rows = saver.conn.execute(  # type: ignore[attr-defined]
        "SELECT thread_id FROM checkpoints GROUP BY thread_id ORDER BY MAX(checkpoint_id) DESC"
    ).fetchall()
    return [str(r["thread_id"]) for r in rows]


def config(thread_id: str) -> RunnableConfig:
    """Return the run config addressing a thread."""
    return {"configurable": {"thread_id": thread_id}}


def fork(
    graph: Any, thread_id: str, checkpoint_id: str, values: dict[str, Any] | None = None
) -> RunnableConfig:
    """Start a new branch at a checkpoint, with ``values`` written over its state; return its config.

    The update is applied as the node that produced the checkpoint, so the lifecycle goes on to the same
    next stage; running the graph on the returned config (input None) continues the new branch.
    """
    chain = from_graph(graph, thread_id, head=checkpoint_id)
    if not chain:
        raise KeyError(f"no checkpoint {checkpoint_id!r} in thread {thread_id!r}")
    for key, value in (values or {}).items():  # checked before the branch exists
        if key not in graph.channels or key.startswith("__"):
            raise ValueError(f"--set {key}: the thread's state has no key {key!r}")
        if (model := ARTIFACT_MODELS.get(key)) is not None:
            try:
                model.model_validate(value)
            except ValidationError as exc:
                error = exc.errors()[0]
                where = ".".join(str(part) for part in error["loc"]) or key
                raise ValueError(f"--set {key}: not a {key} ({where}: {error['msg']})") from None
    cfg: RunnableConfig = {
        "configurable": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}
    }
    new: RunnableConfig = graph.update_state(cfg, values or {}, as_node=chain[-1].node)
    return new
