"""The local model server killed mid-run: the next call starts a new one and the run goes on."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from accord.evals.benchmarks.humaneval import problems
from accord.graphs.development import build_graph
from accord.runtime import local_model, model_server
from accord.state.context import Context
from accord.state.graph_state import ENDED

pytestmark = pytest.mark.integration


def kill_after_first_answer(server: model_server.Server, killed: list[int]) -> None:
    """SIGKILL the server's process group once its log shows one answered completion."""
    log = local_model.cache_dir() / f"server-{server.port}.log"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if b'POST /v1/chat/completions HTTP/1.1" 200' in log.read_bytes():
            os.killpg(server.pid, signal.SIGKILL)
            killed.append(server.pid)
            return
        time.sleep(0.1)


def test_a_run_survives_the_local_model_server_being_killed(server, tmp_path):
    victim = model_server.ensure_server()
    killed: list[int] = []
    killer = threading.Thread(target=kill_after_first_answer, args=(victim, killed), daemon=True)
    killer.start()
    with SqliteSaver.from_conn_string(str(tmp_path / "checkpoints.sqlite")) as saver:
        graph = build_graph(checkpointer=saver)
        values = graph.invoke(
            {"request": problems()["HumanEval/2"]["prompt"]},
            {"configurable": {"thread_id": "server-death"}},
            # The team at once: its Planner's answer, on the victim, comes first.
            context=Context(max_rounds=1, max_debug_attempts=1, max_candidates=2, first_attempt=False),
        )
    killer.join(1)

    assert killed == [victim.pid] and not victim.alive()
    assert values["status"] in ENDED
    assert "Connection" not in values.get("reason", "")  # it ended on its work, not on the outage
    successor = model_server.ensure_server()
    assert successor.pid != victim.pid and successor.alive()  # started by the call after the kill
    answered = [e for e in values["ledger"] if e["kind"] == "llm" and e["outcome"] == "ok"]
    assert len(answered) >= 2  # the first before the kill, the rest from the new server
