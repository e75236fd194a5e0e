"""Studio's path: the project's own langgraph.json under ``langgraph dev``, driven through langgraph-sdk.

The development graph runs for real on the server; its model is a scripted OpenAI-compatible endpoint
on loopback (``OPENAI_BASE_URL``), so the test takes seconds, not the local model's minutes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from langgraph_sdk import get_sync_client

from accord import cli
from bench.load import FlakyModel
from tests import dev_server
from tests.conftest import STUB
from tests.endpoint import FakeEndpoint

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def endpoint() -> Iterator[FakeEndpoint]:
    with FakeEndpoint(FlakyModel(seed=0, max_delay_s=0, fault_rate=0)) as served:
        yield served


@pytest.fixture(scope="module")
def studio(endpoint: FakeEndpoint) -> Iterator[str]:
    env = {"OPENAI_BASE_URL": endpoint.url, "OPENAI_API_KEY": "sk-scripted"}
    with dev_server.serve(dev_server.ROOT / "langgraph.json", env) as url:
        yield url


def test_the_development_graph_runs_on_langgraph_dev(studio, endpoint, capsys, tmp_path, monkeypatch):
    client = get_sync_client(url=studio)
    [assistant] = client.assistants.search(graph_id="development")
    context = client.assistants.get_schemas(assistant["assistant_id"])["context_schema"]["properties"]
    assert {"max_rounds", "max_candidates", "role_models", "max_llm_calls", "model"} <= set(context)

    thread = client.threads.create()["thread_id"]
    final = client.runs.wait(
        thread,
        "development",
        input={"request": STUB},
        context={"max_candidates": 1, "max_rounds": 2, "first_attempt": False},
    )
    assert final["status"] == "completed" and "return a + b" in final["code"]["files"]["solution.py"]
    assert len(endpoint.requests) >= 3  # Planner, Coder, Tester answered by the scripted endpoint

    state = client.threads.get_state(thread)
    assert state["next"] == [] and state["values"]["stage"] == "completed"
    history = client.threads.get_history(thread, limit=100)
    stages = [h["values"].get("stage") for h in reversed(history)]
    assert stages[-1] == "completed" and "planning" in stages and "testing" in stages

    # The accountability commands read the server's thread as they read a local one.
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "none.sqlite"))
    assert cli.main(["cost", thread, "--url", studio, "--json"]) == 0
    cost = json.loads(capsys.readouterr().out)
    assert cost["total"]["llm_calls"] == len(endpoint.requests)
    assert cli.main(["blame", thread, "--url", studio, "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["origin"] is None and verdict["final_correct"] is True  # judged by the visible examples


def test_a_person_approves_the_plan_through_the_interrupt_on_langgraph_dev(studio, endpoint):
    client = get_sync_client(url=studio)
    thread = client.threads.create()["thread_id"]
    context = {"max_candidates": 1, "max_rounds": 2}
    client.runs.wait(thread, "development", input={"request": STUB, "approve_plan": True}, context=context)
    state = client.threads.get_state(thread)
    assert state["next"] == ["approving"] and "status" not in state["values"]
    [question] = [i["value"] for task in state["tasks"] for i in task["interrupts"]]
    assert question["plan"]["subtasks"] and question["plan_text"].startswith("1. ")

    client.runs.wait(
        thread, "development", command={"resume": {"decision": "edit", "plan": {}}}, context=context
    )
    [refused] = [i["value"] for t in client.threads.get_state(thread)["tasks"] for i in t["interrupts"]]
    assert "the edited plan is not valid" in refused["refused"]  # refused; the run keeps waiting

    final = client.runs.wait(
        thread, "development", command={"resume": {"decision": "approve", "by": "ada"}}, context=context
    )
    assert final["status"] == "completed" and final["approval"]["by"] == "ada"
    assert [v["stage"] for v in final["verdicts"]][:3] == ["initialized", "planning", "approving"]
