"""Scale-out on Celery + Redis with Postgres checkpoints: two real worker processes, one killed mid-task.

The tasks spread over both workers; the task the killed worker held goes back to the queue, the other
worker continues its thread from the last checkpoint, and every task ends with exactly one row.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from accord import cli
from accord.evals import distributed
from accord.graphs import store
from accord.state.graph_state import ENDED
from tests import dev_server, pg, services
from tests.conftest import PLAN
from tests.endpoint import FakeEndpoint, Reply, Text, Tool

pytestmark = pytest.mark.integration
IDS = [f"HumanEval/{i}" for i in range(6)]


def slow_planner(body: dict[str, Any]) -> Reply:
    """Answer each role; the Planner slowly, so that a worker can be killed while it waits."""
    if body.get("tools"):
        time.sleep(2.5)
        return Tool(json.dumps(PLAN))
    return Text("```python\ndef add(a, b):\n    return a + b\n```")


@pytest.fixture
def cluster(tmp_path) -> Iterator[dict[str, Any]]:
    if pg.binaries() is None or services.redis_binary() is None:
        pytest.skip("needs postgresql and redis-server (apt-get install postgresql redis-server)")
    with pg.server() as postgres, services.redis_server() as broker, FakeEndpoint(slow_planner) as endpoint:
        env = {
            **os.environ,
            "ACCORD_BROKER_URL": broker,
            "ACCORD_DATABASE_URL": postgres,
            "OPENAI_BASE_URL": endpoint.url,
            "OPENAI_API_KEY": "sk-scripted",
            "ACCORD_VISIBILITY_TIMEOUT_S": "3",
            "LANGSMITH_TRACING": "false",
        }
        command = [sys.executable, "-m", "accord.cli", "worker"]
        workers = [
            subprocess.Popen(
                command,
                cwd=dev_server.ROOT,
                env=env,
                start_new_session=True,
                stdout=(tmp_path / f"worker{i}.log").open("w"),
                stderr=subprocess.STDOUT,
            )
            for i in range(2)
        ]
        try:
            yield {"env": env, "workers": workers, "postgres": postgres, "endpoint": endpoint}
        finally:
            for proc in workers:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def stored(postgres: str) -> list[dict[str, Any]]:
    return [r for (r,) in distributed.query(postgres, "SELECT row FROM accord_eval_results")]


def test_tasks_spread_over_workers_and_a_killed_workers_task_is_resumed_by_another(
    cluster, tmp_path, monkeypatch
):
    for key in ("ACCORD_BROKER_URL", "ACCORD_DATABASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.setenv(key, cluster["env"][key])
    distributed.app.cache_clear()
    victim = cluster["workers"][0]

    def kill_after_first_row() -> None:
        deadline = time.monotonic() + 120
        while not stored(cluster["postgres"]) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)  # both workers are now inside their second task, waiting on the Planner
        os.killpg(victim.pid, signal.SIGKILL)  # the worker and its pool child, mid-task

    killer = threading.Thread(target=kill_after_first_row, daemon=True)
    killer.start()
    out = tmp_path / "eval"
    code = cli.main(
        [
            "eval",
            "humaneval",
            "--ids",
            *IDS,
            "--backend",
            "celery",
            "--out",
            str(out),
            "--max-candidates",
            "1",
            "--max-rounds",
            "1",
            "--wait-s",
            "180",
        ]
    )
    killer.join(5)
    assert code == 0 and victim.poll() is not None

    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == IDS  # every task once: none lost, none duplicated
    assert len(stored(cluster["postgres"])) == len(IDS)
    assert all(r["status"] in ENDED for r in rows)
    workers = {r["worker"] for r in rows}
    assert len(workers) == 2  # both workers finished tasks
    [resumed] = [r for r in rows if r["resumed"]]
    assert resumed["worker"] == rows[-1]["worker"]  # continued by the surviving worker
    # The steps the killed worker finished were not redone: its thread holds one intake.
    with store.checkpointer() as saver:  # Postgres, as the workers used
        values = saver.get_tuple(store.config(resumed["thread"])).checkpoint["channel_values"]
    assert [v["stage"] for v in values["verdicts"]].count("initialized") == 1
