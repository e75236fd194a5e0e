"""LangSmith tracing, offline: a loopback server records what the langsmith client posts.

With ``LANGSMITH_TRACING=true`` every stage is a run and every model call a child run named by role and
action, with Accord's metadata and tags; the API key goes only into the request header. Without tracing,
nothing is sent.
"""

from __future__ import annotations

import email
import email.policy
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEY = "lsv2-accord-FAKE-0123456789"
OTHER_SECRETS = {
    "OPENAI_API_KEY": "sk-accord-FAKE-openai-9876543210",
    "ACCORD_DATABASE_URL": "postgresql://accord:pw-accord-FAKE-42@127.0.0.1:1/runs",
}
"""Present in the traced run's environment; neither may reach LangSmith."""
RUN = """
from langchain_core.tracers.langchain import wait_for_all_tracers
from langgraph.checkpoint.memory import InMemorySaver
from accord.graphs.development import build_graph
from tests.scripted import ScriptedChatModel
from accord.state.context import Context
from tests.conftest import GOOD, PLAN, STUB, TESTS

models = {"planner": ScriptedChatModel(script=[PLAN]), "coder": ScriptedChatModel(script=[GOOD]),
          "tester": ScriptedChatModel(script=[TESTS])}
graph = build_graph(models, checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "traced"}, "tags": ["accord", "configuration:accountable"]}
values = graph.invoke({"request": STUB}, config,
                      context=Context(max_candidates=1, first_attempt=False, price_in_per_1k=0.15,
                                      price_out_per_1k=0.6))
wait_for_all_tracers()
print(values["status"])
"""


class Recorder:
    """A LangSmith endpoint on loopback that keeps every request."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                recorder.requests.append((self.command, self.path, dict(self.headers), body))
                data = b"{}"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = _record

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def runs(self) -> dict[str, dict[str, Any]]:
        """Return the posted runs by id, their multipart fields (inputs, outputs, extra) merged in."""
        runs: dict[str, dict[str, Any]] = {}
        for _, path, headers, body in self.requests:
            if not path.endswith("/runs/multipart"):
                continue
            message = email.message_from_bytes(
                f"Content-Type: {headers['Content-Type']}\r\n\r\n".encode() + body, policy=email.policy.HTTP
            )
            for part in message.iter_parts():
                _verb, run_id, *field = str(part.get_param("name", header="content-disposition")).split(".")
                value = json.loads(part.get_payload(decode=True))
                run = runs.setdefault(run_id, {})
                if field:
                    run[field[0]] = value
                else:
                    run.update(value)
        return runs


def traced_run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LANGSMITH_", "LANGCHAIN_"))}
    return subprocess.run(
        [sys.executable, "-c", RUN],
        cwd=ROOT,
        env={**base, **env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def recorder() -> Any:
    server = Recorder()
    yield server
    server.server.shutdown()


def test_every_stage_and_model_call_is_a_run_with_accords_metadata(recorder):
    done = traced_run(
        {
            "LANGSMITH_TRACING": "true",
            "LANGSMITH_ENDPOINT": recorder.url,
            "LANGSMITH_API_KEY": KEY,
            **OTHER_SECRETS,
        }
    )
    assert done.returncode == 0 and done.stdout.split()[-1] == "completed", done.stderr
    runs = recorder.runs()
    by_name = {r["name"]: r for r in runs.values()}
    root = by_name["development"]
    assert root.get("parent_run_id") is None and {"accord", "configuration:accountable"} <= set(root["tags"])
    for stage, role in [
        ("planning", "planner"),
        ("implementing", "coder"),
        ("designing_tests", "tester"),
        ("testing", "debugger"),
        ("reviewing", "reviewer"),
    ]:
        meta = by_name[stage]["extra"]["metadata"]
        assert (meta["accord_stage"], meta["accord_role"], meta["thread_id"]) == (stage, role, "traced")
        assert by_name[stage]["parent_run_id"] == root["id"]
    verdicts = by_name["planning"]["outputs"]["verdicts"]
    assert verdicts[-1]["outcome"] == "pass"  # the gate's outcome is in the stage run's outputs
    calls = {name: r for name, r in by_name.items() if name.startswith(("planner:", "coder:", "tester:"))}
    assert set(calls) == {"planner: PlanDraft", "coder: code", "tester: tests"}
    for name, run in calls.items():
        meta = run["extra"]["metadata"]
        assert meta["accord_role"] == name.split(":")[0] and meta["accord_round"] == 1
        assert meta["accord_model"] == "scripted" and "role:" + meta["accord_role"] in run["tags"]
        assert meta["accord_tokens_in"] > 0 and meta["accord_tokens_out"] > 0  # spend, once known
        assert meta["accord_cost"] == pytest.approx(
            (meta["accord_tokens_in"] * 0.15 + meta["accord_tokens_out"] * 0.6) / 1000
        )
        ancestor = run  # the call nests under its stage's run
        while ancestor.get("parent_run_id") and ancestor["name"] != meta["accord_stage"]:
            ancestor = runs[ancestor["parent_run_id"]]
        assert ancestor["name"] == meta["accord_stage"]
    sent = b"".join(body for *_, body in recorder.requests)
    assert b"accord-FAKE" not in sent  # no payload holds any of the three secrets
    headers = json.dumps([h for _, _, h, _ in recorder.requests])
    assert not [name for name, secret in OTHER_SECRETS.items() if secret in headers]
    keys = [
        {k.lower(): v for k, v in headers.items()}.get("x-api-key")
        for _, path, headers, _ in recorder.requests
        if path.endswith("/runs/multipart")
    ]
    assert keys and set(keys) == {KEY}  # the key travels in the header only


def test_without_tracing_nothing_is_sent(recorder):
    done = traced_run({"LANGSMITH_ENDPOINT": recorder.url, "LANGSMITH_API_KEY": KEY})
    assert done.returncode == 0, done.stderr
    assert recorder.requests == []
