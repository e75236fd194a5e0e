"""Scale-out on Celery with Redis: ``accord eval ... --backend celery`` submits, ``accord worker`` runs.

Why Celery with Redis rather than Ray: an eval task is one long, I/O-bound graph run whose state already
lives in a checkpoint database. What scale-out needs is a durable queue that gives each task to a free
worker and, when a worker dies, gives its task to another. Celery's late acknowledgement over Redis does
exactly that with plain worker processes and two small Debian services; Ray's scheduler, object store and
actors would be machinery this work never uses.

The broker (``ACCORD_BROKER_URL``, ``redis://...``) carries one message per task. A worker runs the task's
thread against the Postgres checkpoints (``ACCORD_DATABASE_URL``), so whichever worker takes a task
continues its thread from the last checkpoint, and stores the row in ``accord_eval_results`` keyed by
(eval, configuration, task): a task that finishes twice is stored once. The submitting command waits for
every row, appends them to ``results.jsonl`` and writes the report, as a local eval does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import socket
import time
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from celery import Celery

from accord.evals import configs, runner
from accord.evals.benchmarks import BENCHMARKS, EvalTask
from accord.graphs import store
from accord.state.context import Context
from accord.state.settings import Settings

BROKER_URL = "ACCORD_BROKER_URL"
"""Seconds before a task a dead worker held goes back to the queue (default one hour)."""
TABLE = """CREATE TABLE IF NOT EXISTS accord_eval_results (
    eval TEXT NOT NULL, config TEXT NOT NULL, task_id TEXT NOT NULL, row JSONB NOT NULL,
    finished_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (eval, config, task_id))"""
ERRORS = """CREATE TABLE IF NOT EXISTS accord_eval_errors (
    eval TEXT NOT NULL, config TEXT NOT NULL, task_id TEXT NOT NULL, error TEXT NOT NULL,
    PRIMARY KEY (eval, config, task_id))"""
"""A task whose run raised (an endpoint down past its retries): it keeps its thread, and the next
submission queues it again, as a local eval resumes it."""


FOREVER = 365 * 24 * 3600.0


class ScaleOutError(RuntimeError):
    """The distributed backend is not configured (a broker and a Postgres run store are both needed)."""


def _require() -> tuple[str, str]:
    broker, database = Settings().broker_url, store.database_url()
    if not broker or not database:
        raise ScaleOutError(
            f"--backend celery needs {BROKER_URL} (redis://...) and {store.DATABASE_URL} "
            "(postgresql://...): workers share the queue and the checkpoints"
        )
    return broker, database


@cache
def app() -> Celery:
    """Return the Celery application, configured from the environment."""
    broker, _ = _require()
    visibility = Settings().visibility_timeout_s
    celery = Celery("accord", broker=broker)
    celery.conf.update(
        task_acks_late=True,  # a task is acknowledged when it is done, so a dead worker's task is redelivered
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a busy worker holds no second task another could be running
        task_serializer="json",
        accept_content=["json"],
        # Unacknowledged tasks are swept back to the queue every few seconds (one cheap Redis scan), so a
        # dead worker's task waits about its visibility timeout, not kombu's default 100 s sweep.
        broker_transport_options={
            "visibility_timeout": visibility,
            "unacked_restore_throttle": 1,
            "unacked_restore_interval": max(1, min(10, int(visibility // 3))),
        },
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    celery.task(name="accord.eval_task")(eval_task)
    return celery


def query(database: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run ``sql`` on the results database (creating Accord's two tables first); return its rows."""
    import psycopg

    with psycopg.connect(database, autocommit=True) as conn:
        for table in (TABLE, ERRORS):
            # Two processes creating the same table at once can both pass IF NOT EXISTS; one then fails.
            with contextlib.suppress(psycopg.errors.UniqueViolation, psycopg.errors.DuplicateTable):
                conn.execute(table)
        cursor = conn.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _stored(database: str, eval_key: str, config: str) -> dict[str, dict[str, Any]]:
    rows = query(
        database,
        "SELECT task_id, row FROM accord_eval_results WHERE eval = %s AND config = %s",
        (eval_key, config),
    )
    return {task_id: row for task_id, row in rows}


def _errors(database: str, eval_key: str, config: str) -> dict[str, str]:
    rows = query(
        database,
        "SELECT task_id, error FROM accord_eval_errors WHERE eval = %s AND config = %s",
        (eval_key, config),
    )
    return {task_id: error for task_id, error in rows}


def eval_task(benchmark: str, config: str, task_id: str, eval_key: str, context: dict[str, Any]) -> str:
    """Run (or continue) one eval task's thread on this worker and store its row."""
    _, database = _require()
    bench = BENCHMARKS[benchmark]
    task = next(t for t in bench.tasks() if t.id == task_id)
    run_context = Context(**context)
    configuration = configs.on_models(bench.configurations[configs.base_name(config)], run_context)
    try:
        with store.checkpointer() as saver:
            row = runner.run_task(
                bench, configuration, task, saver, run_context, thread_prefix=f"{eval_key}/"
            )
    except Exception as exc:  # the thread keeps its checkpoints; the submitter reports it, a rerun resumes it
        query(
            database,
            "INSERT INTO accord_eval_errors VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (eval_key, config, task_id, f"{type(exc).__name__}: {exc}"[:500]),
        )
        raise
    row = {
        **row,
        "version": runner.source_version(),
        "commit": runner.source_commit(),
        "dirty": bool(runner.changed_files()),
        "worker": f"{socket.gethostname()}:{os.getpid()}",
    }
    query(
        database,
        "INSERT INTO accord_eval_results VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
        (eval_key, config, task_id, json.dumps(row)),
    )
    return task_id


def submit(
    benchmark: str,
    config: str,
    tasks: Sequence[EvalTask],
    out: Path,
    context: Context,
    progress: Callable[[int, int, str], None] | None = None,
    timeout_s: float = FOREVER,
    poll_s: float = 1.0,
) -> list[dict[str, Any]]:
    """Queue every task without a row, wait until all have one, record them in ``out``; return the rows.

    Raises:
        ScaleOutError: no broker or no Postgres run store is configured.
        TimeoutError: rows were still missing after ``timeout_s``.
    """
    _, database = _require()
    eval_key = str(out)
    recorder = runner.Recorder(out)
    local = {r["id"] for r in runner.read_rows(out) if r["config"] == config}
    stored = _stored(database, eval_key, config)
    for task in tasks:
        if task.id not in local and task.id not in stored:
            query(
                database,
                "DELETE FROM accord_eval_errors WHERE eval = %s AND config = %s AND task_id = %s",
                (eval_key, config, task.id),
            )
            app().send_task(
                "accord.eval_task", args=[benchmark, config, task.id, eval_key, dataclasses.asdict(context)]
            )
    wanted = {t.id for t in tasks}
    deadline = time.monotonic() + timeout_s
    while True:
        stored = _stored(database, eval_key, config)
        for task_id in sorted(wanted & set(stored) - local):
            recorder.add(stored[task_id])
            local.add(task_id)
        if progress:
            progress(len(wanted & local), len(wanted), recorder.figures())
        errors = {k: v for k, v in _errors(database, eval_key, config).items() if k in wanted - local}
        if wanted <= local | set(errors):
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(wanted - local)} tasks have no row after {timeout_s:.0f} s")
        time.sleep(poll_s)
    if errors:
        raise RuntimeError(
            f"{len(errors)} tasks did not finish (rerun to resume them): "
            + "; ".join(f"{k}: {v}" for k, v in sorted(errors.items()))
        )
    return [r for r in runner.read_rows(out) if r["config"] == config and r["id"] in wanted]


def worker(concurrency: int = 1) -> None:
    """Run a Celery worker for Accord's eval tasks in this process (until it is stopped)."""
    app().worker_main(
        [
            "worker",
            "--loglevel=INFO",
            f"--concurrency={concurrency}",
            "--pool=prefork",
            f"--hostname=accord-{os.getpid()}@%h",
            "--without-gossip",
            "--without-mingle",
        ]
    )
