"""Faults at the model boundary, injected by a real loopback endpoint behind Accord's real client.

Transient faults (5xx, a hang past the timeout, a dropped connection) are retried and the run completes;
a fault that persists stops the run at its last checkpoint, from which it resumes with nothing redone;
malformed or contract-violating output is retried with feedback, then takes the stage's ``fail``.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from langgraph.checkpoint.memory import InMemorySaver

from accord.graphs import compiler
from accord.graphs.development import build_graph
from accord.state.context import Context
from tests.conftest import GOOD, PLAN, STUB, TESTS
from tests.endpoint import Drop, FakeEndpoint, Hang, Reply, Status, Text, Tool

WORKING = [Tool(json.dumps(PLAN)), Text(GOOD), Text(TESTS)]
"""A healthy endpoint's answers to the Planner, the Coder's one candidate and the Tester."""


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compiler, "RETRY", compiler.RETRY._replace(initial_interval=0.01, jitter=False))


class Runner:
    """The development graph against a fake endpoint, with a checkpointer to resume from."""

    def __init__(self, endpoint: FakeEndpoint) -> None:
        self.graph = build_graph(checkpointer=InMemorySaver())
        self.config = {"configurable": {"thread_id": "faults"}}
        self.context = Context(
            base_url=endpoint.url, model="fake", max_candidates=1, first_attempt=False, request_timeout_s=0.5
        )

    def __call__(self, request: str | None = STUB) -> dict[str, Any]:
        inputs = None if request is None else {"request": request}
        return dict(self.graph.invoke(inputs, self.config, context=self.context))


@pytest.mark.parametrize("fault", [Status(500), Status(503), Hang(3), Drop()], ids=str)
def test_a_transient_fault_is_retried_and_the_run_completes(fault: Reply):
    with FakeEndpoint([fault, *WORKING]) as endpoint:
        values = Runner(endpoint)()
    assert values["status"] == "completed"
    assert len(endpoint.requests) == 1 + len(WORKING)


def test_a_fault_that_persists_stops_the_run_resumably_and_nothing_is_redone():
    # Each planning attempt is two requests (the client retries once); LangGraph tries three times.
    with FakeEndpoint([Status(500)] * 6 + WORKING) as endpoint:
        run = Runner(endpoint)
        with pytest.raises(openai.InternalServerError):
            run()
        assert len(endpoint.requests) == 6
        stopped = run.graph.get_state(run.config)
        assert stopped.next == ("planning",) and "plan" not in stopped.values
        values = run(None)  # the endpoint is back: resume
    assert values["status"] == "completed"
    assert [v["stage"] for v in values["verdicts"]].count("initialized") == 1
    assert len(endpoint.requests) == 6 + len(WORKING)


@pytest.mark.parametrize(
    ("arguments", "evidence"),
    [
        ('{"subtasks": [{"title": "add", "descr', "malformed PlanDraft"),  # truncated mid-string
        ('{"subtasks": []}', "subtasks"),  # valid JSON that breaks the contract
    ],
    ids=["truncated", "contract-violating"],
)
def test_bad_output_is_retried_with_feedback_then_fails(arguments: str, evidence: str):
    with FakeEndpoint([Tool(arguments)]) as endpoint:
        values = Runner(endpoint)()
    assert values["status"] == "failed" and evidence in values["reason"]
    assert values["verdicts"][-1]["stage"] == "planning"
    retries = 1 + Context().max_output_retries
    assert len(endpoint.requests) == retries
    assert all("Your previous answer was rejected" in p for p in endpoint.prompts()[1:])
    calls = [e for e in values["ledger"] if e["kind"] == "llm"]
    assert len(calls) == retries and calls[0]["tokens_in"] == 10


@pytest.mark.parametrize("status", [400, 422])
def test_a_refused_request_fails_its_stage_at_once(status: int):
    # A prompt over the model's context is refused (HTTP 400; the embedded server answers 422 to a message
    # it cannot read) the same way each time: retrying it with feedback appended would only lengthen it.
    with FakeEndpoint([Status(status), *WORKING]) as endpoint:
        values = Runner(endpoint)()
    assert values["status"] == "failed" and "the endpoint refused the request" in values["reason"]
    assert values["verdicts"][-1]["stage"] == "planning" and len(endpoint.requests) == 1
    assert [e["outcome"] for e in values["ledger"] if e["kind"] == "llm"] == ["refused"]
