"""The action executor: hooks, parameters, typed dispatch, failure classes and their policies, safety checks,
credentials — WEB_SERVICE against a real HTTP server on loopback."""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import openai
import pytest

from accord.runtime.executor import ActionFailed, Executor, Request, credential_from_env
from accord.runtime.model_server import free_port
from accord.state.artifacts import TaskSpec
from accord.state.contracts import Contract
from accord.state.role_specs import ActionSpec, ActionType, DutySpec, Param, RoleSpec, SafetyProperty

LOCAL, LLM, WEB = ActionType.LOCAL_CODE, ActionType.LLM, ActionType.WEB_SERVICE


def role(*actions: ActionSpec, properties: tuple[SafetyProperty, ...] = ()) -> RoleSpec:
    return RoleSpec(
        name="helper",
        goal="help",
        domain="tests",
        actions=actions,
        properties=properties,
        duties=(
            DutySpec(
                name="help",
                description="",
                actions=tuple(a.name for a in actions),
                contract=Contract(role="helper", duty="help"),
            ),
        ),
    )


class Service:
    """An HTTP service on loopback that answers from a script and keeps every request."""

    def __init__(self, script: list[Any]) -> None:
        self.script, self.seen = script, []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                service.seen.append((dict(self.headers), body))
                reply = service.script.pop(0) if len(service.script) > 1 else service.script[0]
                if reply == "hang":
                    time.sleep(2)
                    reply = {"late": True}
                status, data = (
                    (reply, b"{}")
                    if isinstance(reply, int)
                    else (200, reply if isinstance(reply, bytes) else json.dumps(reply).encode())
                )
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/lookup"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def service() -> Iterator[Any]:
    made: list[Service] = []

    def make(*script: Any) -> Service:
        made.append(Service(list(script)))
        return made[-1]

    yield make
    for s in made:
        s.server.shutdown()


def web(url: str, **config: Any) -> ActionSpec:
    return ActionSpec(
        name="lookup",
        description="ask the service",
        type=WEB,
        returns="dict",
        params=(Param(name="q", type="str"),),
        config={"endpoint": url, "timeout_s": 0.5, **config},
    )


def test_hooks_run_in_order_around_a_converted_call_and_each_phase_is_recorded():
    order: list[str] = []
    ledger: list[tuple[str, dict[str, Any]]] = []

    def first(request: Request) -> Request:
        order.append("before 1")
        request.params["times"] = request.params["times"] + "0"  # "2" → "20"
        return request

    def second(request: Request) -> Request:
        order.append("before 2")
        return request

    def repeat(text: str, times: int) -> str:
        order.append(f"dispatch {times!r}")  # converted from the string the hooks left
        return text * (times // 10)

    action = ActionSpec(
        name="repeat",
        description="",
        type=LOCAL,
        returns="str",
        params=(Param(name="text", type="str"), Param(name="times", type="int")),
    )
    executor = Executor(
        role(action),
        handlers={"repeat": repeat},
        before={"repeat": [first, second]},
        after={"repeat": [lambda request, result: order.append("after") or result.upper()]},
        record=lambda kind, **fields: ledger.append((kind, fields)),
    )
    assert executor.run("repeat", text="ab", times="2") == "ABAB"
    assert order == ["before 1", "before 2", "dispatch 20", "after"]
    assert [f["outcome"] for _, f in ledger] == ["before", "dispatched", "after"]
    assert all(kind == "action" and f["detail"].startswith("repeat:") for kind, f in ledger)


def test_parameters_are_checked_and_converted_to_their_declared_types():
    action = ActionSpec(
        name="size",
        description="",
        type=LOCAL,
        returns="int",
        params=(
            Param(name="task", type="TaskSpec"),
            Param(name="extra", type="int", optional=True, default=1),
        ),
    )
    executor = Executor(role(action), handlers={"size": lambda task, extra: len(task.request) + extra})
    task = {"request": "abc", "level": "application"}
    assert executor.run("size", task=task) == 4  # a dict became a TaskSpec
    assert executor.run("size", task=TaskSpec(request="ab", level="function"), extra="5") == 7
    for bad, why in [
        ({}, "missing parameter 'task'"),
        ({"task": task, "typo": 1}, "unknown"),
        ({"task": task, "extra": "many"}, "extra:"),
        ({"task": {"request": "x"}}, "task:"),
    ]:
        with pytest.raises(ActionFailed, match=why) as failed:
            executor.run("size", **bad)
        assert failed.value.kind == "parameters"


def test_hooks_and_actions_are_validated_when_the_executor_is_built():
    action = ActionSpec(name="act", description="", type=LOCAL, returns="str")
    with pytest.raises(ValueError, match=r"before-hooks for unknown actions \['atc'\]"):
        Executor(role(action), handlers={"act": str}, before={"atc": [lambda r: r]})
    with pytest.raises(ValueError, match="no code to run it"):
        Executor(role(action))
    mcp = ActionSpec(name="lint", description="", type=ActionType.MCP_TOOL, returns="dict")
    with pytest.raises(ValueError, match="an MCP tool needs a server and a tool name"):
        Executor(role(mcp))
    with pytest.raises(ValueError, match="falls back to unknown action 'gone'"):
        Executor(role(action.model_copy(update={"config": {"fallback": "gone"}})), handlers={"act": str})


def test_an_exception_in_local_code_escalates_at_once():
    calls: list[int] = []

    def broken() -> str:
        calls.append(1)
        raise KeyError("missing")

    executor = Executor(
        role(ActionSpec(name="act", description="", type=LOCAL, returns="str")), handlers={"act": broken}
    )
    with pytest.raises(ActionFailed, match="exception: KeyError") as failed:
        executor.run("act")
    assert failed.value.kind == "exception" and calls == [1]


def test_web_service_failures_are_classified_and_retried_by_policy(service):
    ok = service(500, 503, {"answer": 42})
    executor = Executor(role(web(ok.url)))
    assert executor.run("lookup", q="x") == {"answer": 42} and len(ok.seen) == 3  # two HTTP errors retried
    assert ok.seen[0][1] == {"q": "x"}

    cases = [(service(500), "http", 3), (service("hang"), "timeout", 3), (service(b"<html>"), "protocol", 1)]
    for server, kind, requests in cases:
        with pytest.raises(ActionFailed) as failed:
            Executor(role(web(server.url))).run("lookup", q="x")
        assert failed.value.kind == kind and len(server.seen) == requests
    with pytest.raises(ActionFailed) as failed:
        Executor(role(web(f"http://127.0.0.1:{free_port()}/"))).run("lookup", q="x")
    assert failed.value.kind == "connection"
    with pytest.raises(ActionFailed) as failed:  # an action may override a policy: no retry on HTTP errors
        Executor(role(web(service(500).url, policies={"http": "escalate"}))).run("lookup", q="x")
    assert failed.value.kind == "http"


def test_a_failing_model_falls_back_to_local_code():
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    attempts: list[str] = []

    def model(text: str) -> str:
        attempts.append(text)
        raise openai.APIConnectionError(request=request)

    summarise = ActionSpec(
        name="summarise",
        description="",
        type=LLM,
        returns="str",
        params=(Param(name="text", type="str"),),
        config={"fallback": "first_line"},
    )
    first_line = ActionSpec(
        name="first_line", description="", type=LOCAL, returns="str", params=(Param(name="text", type="str"),)
    )
    ledger: list[dict[str, Any]] = []
    executor = Executor(
        role(summarise, first_line),
        handlers={"summarise": model, "first_line": lambda text: text.splitlines()[0]},
        record=lambda kind, **fields: ledger.append(fields),
    )
    assert executor.run("summarise", text="one\ntwo") == "one"
    assert len(attempts) == 3  # a connection error is retried, then the fallback keeps the run alive
    assert [e["outcome"] for e in ledger if e["outcome"] in ("failed", "fallback")] == ["failed"] * 3 + [
        "fallback"
    ]

    malformed = Executor(
        role(summarise, first_line),
        handlers={"summarise": lambda text: {"not": "a string"}, "first_line": lambda text: text.upper()},
    )
    assert malformed.run("summarise", text="x") == "X"  # output of the wrong type: malformed, then fallback


def test_retries_back_off_exponentially():
    calls: list[float] = []

    def flaky() -> str:
        calls.append(time.monotonic())
        raise ConnectionError("refused")

    action = ActionSpec(name="act", description="", type=LOCAL, returns="str", config={"backoff_s": 0.1})
    with pytest.raises(ActionFailed, match="connection"):
        Executor(role(action), handlers={"act": flaky}).run("act")
    gaps = [later - earlier for earlier, later in itertools.pairwise(calls)]
    assert len(calls) == 3 and gaps[0] >= 0.1 and gaps[1] >= 0.2  # 0.1 s, then double


def test_a_must_never_property_blocks_the_action_before_it_runs(service):
    written: list[str] = []
    save = ActionSpec(
        name="save",
        description="",
        type=LOCAL,
        returns="str",
        params=(Param(name="path", type="str"), Param(name="text", type="str")),
    )
    inside = SafetyProperty(
        kind="must_never",
        name="write_outside_workspace",
        check="workspace_paths",
        statement="write outside the workspace",
        enforced_by="runtime/executor.py",
    )
    executor = Executor(
        role(save, properties=(inside,)), handlers={"save": lambda path, text: written.append(path) or path}
    )
    assert executor.run("save", path="notes/a.txt", text="x") == "notes/a.txt"
    for path in ("../escape.txt", "/etc/passwd"):
        with pytest.raises(ActionFailed, match="outside the workspace") as failed:
            executor.run("save", path=path, text="x")
        assert failed.value.kind == "forbidden"
    assert written == ["notes/a.txt"]

    server = service({"answer": 1})
    offline = SafetyProperty(
        kind="must_never",
        name="use_network",
        check="offline",
        statement="use the network",
        enforced_by="runtime/executor.py",
    )
    with pytest.raises(ActionFailed, match="reach the network"):
        Executor(role(web(server.url), properties=(offline,))).run("lookup", q="x")
    assert server.seen == []


def test_a_credential_reaches_the_service_through_a_hook_and_nothing_else(service, monkeypatch):
    key = "sk-accord-FAKE-executor-31337"
    monkeypatch.setenv("LOOKUP_API_KEY", key)
    server = service({"answer": 42})
    ledger: list[dict[str, Any]] = []
    executor = Executor(
        role(web(server.url)),
        before={"lookup": [credential_from_env("LOOKUP_API_KEY")]},
        record=lambda kind, **fields: ledger.append(fields),
    )
    assert executor.run("lookup", q="weather") == {"answer": 42}
    [(headers, body)] = server.seen
    assert headers["Authorization"] == f"Bearer {key}" and body == {"q": "weather"}
    assert key not in json.dumps(ledger) and ledger

    monkeypatch.delenv("LOOKUP_API_KEY")
    with pytest.raises(ActionFailed, match="LOOKUP_API_KEY is not set"):
        executor.run("lookup", q="weather")


def mcp(tool: str = "analyse", command: str = sys.executable) -> ActionSpec:
    return ActionSpec(
        name="analyse",
        description="static analysis",
        type=ActionType.MCP_TOOL,
        returns="dict",
        params=(Param(name="files", type="dict"),),
        config={
            "server": {"command": command, "args": ["-m", "accord.runtime.mcp_server"]},
            "tool": tool,
            "timeout_s": 60,
        },
    )


def test_an_mcp_tool_runs_on_accords_own_mcp_server():
    ledger: list[dict[str, Any]] = []
    code = "import subprocess\ndef run(cmd):\n    subprocess.call(cmd, shell=True)\n    return result\n"
    executor = Executor(role(mcp()), record=lambda kind, **fields: ledger.append(fields))
    findings = executor.run("analyse", files={"app.py": code})["findings"]
    found = {(f["tool"], f["rule"], f["line"]) for f in findings}
    assert {("ruff", "F821", 4), ("bandit", "B602", 3)} <= found  # undefined name; shell=True
    assert [e["outcome"] for e in ledger] == ["before", "dispatched", "after"]

    with pytest.raises(ActionFailed, match="no tool 'lint'") as failed:
        Executor(role(mcp(tool="lint"))).run("analyse", files={})
    assert failed.value.kind == "tool_resolution"
    with pytest.raises(ActionFailed) as failed:
        Executor(role(mcp(command="/nonexistent/python"))).run("analyse", files={})
    assert failed.value.kind == "connection"


def test_an_mcp_tool_is_reached_by_url_on_a_streamable_http_server(tmp_path):
    import socket
    import subprocess
    import time

    from accord.runtime.model_server import free_port

    def listening(port: int) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2):
                return True
        except OSError:
            return False

    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    by_url = mcp().model_copy(
        update={"config": {"server": {"url": url}, "tool": "analyse", "timeout_s": 30, "retries": 0}}
    )
    with pytest.raises(ActionFailed) as failed:  # nothing listens yet
        Executor(role(by_url)).run("analyse", files={})
    assert failed.value.kind == "connection"
    served = subprocess.Popen(
        [sys.executable, "-m", "accord.runtime.mcp_server", "--http", str(port)], stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while not listening(port):
            assert served.poll() is None and time.monotonic() < deadline, "the MCP server did not start"
            time.sleep(0.1)
        code = "def f():\n    return undefined_name\n"
        findings = Executor(role(by_url)).run("analyse", files={"app.py": code})["findings"]
        assert ("ruff", "F821", 2) in {(f["tool"], f["rule"], f["line"]) for f in findings}
    finally:
        served.terminate()
        served.wait(10)


def test_an_mcp_server_needs_a_url_or_a_command():
    nowhere = mcp().model_copy(update={"config": {"server": {"args": []}, "tool": "analyse"}})
    with pytest.raises(ValueError, match="needs a url or a command"):
        Executor(role(nowhere))
