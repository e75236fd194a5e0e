"""A2A: the development graph answers ``message/send`` at ``langgraph dev``'s ``/a2a/{assistant_id}``.

The task travels as a text part; it reaches the graph as the last human message of the chat channel
(``messages``), which the typed protocol does not use (roles hand over under ``handoffs``). The reply is
the run's closing AI message: its status and its files.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest
from langgraph_sdk import get_sync_client

from bench.load import FlakyModel
from tests import dev_server
from tests.conftest import STUB
from tests.endpoint import FakeEndpoint

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, FakeEndpoint]]:
    with FakeEndpoint(FlakyModel(seed=1, max_delay_s=0, fault_rate=0)) as endpoint:
        env = {"OPENAI_BASE_URL": endpoint.url, "OPENAI_API_KEY": "sk-scripted"}
        with dev_server.serve(dev_server.ROOT / "langgraph.json", env) as url:
            yield url, endpoint


def test_message_send_runs_the_task_and_returns_the_code(served):
    url, endpoint = served
    [assistant] = get_sync_client(url=url).assistants.search(graph_id="development")
    request = {
        "jsonrpc": "2.0",
        "id": "1",
        "method": "message/send",
        "params": {
            "message": {
                "role": "user",
                "messageId": uuid.uuid4().hex,
                "parts": [{"kind": "text", "text": STUB}],
            }
        },
    }
    reply = httpx.post(f"{url}/a2a/{assistant['assistant_id']}", json=request, timeout=120).json()
    task = reply["result"]["task"] if "task" in reply["result"] else reply["result"]
    assert task["status"]["state"] in ("TASK_STATE_COMPLETED", "completed"), reply
    text = "".join(p.get("text", "") for a in task["artifacts"] for p in a["parts"])
    # The reply's first line says how the result was verified: here, by the task's stated examples.
    assert (
        text.startswith("Run completed: verified by the task's 2 stated examples") and "return a + b" in text
    )
    # The task states examples: the Coder's plain attempt passed them in the sandbox, one model call.
    assert len(endpoint.requests) == 1

    # The thread behind the task holds the typed protocol as usual.
    state = get_sync_client(url=url).threads.get_state(task["contextId"])["values"]
    assert state["task"]["entry_point"] == "add" and state["handoffs"]
    pairs = [(h["sender"], h["receiver"]) for h in state["handoffs"]]
    assert pairs == [("intake", "coder"), ("coder", "debugger"), ("debugger", "reviewer")]
    assert [m["type"] for m in state["messages"]] == ["human", "ai"]
