"""A role served as an A2A agent and called from a graph in this process, over real HTTP on loopback."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from google.protobuf.json_format import ParseDict

from accord.graphs import remote
from accord.graphs.development import ROLES
from accord.graphs.duties import Role
from accord.runtime import a2a
from accord.runtime.model_server import free_port
from accord.state.context import Context
from accord.state.stage import RoleUnavailable
from tests.conftest import APPROVE, BAD, GOOD, PLAN, STUB
from tests.scripted import ScriptedChatModel


@contextmanager
def served(
    role: str, models: Mapping[str, Any], token: str | None = None, roles: Mapping[str, Role] = ROLES
) -> Iterator[str]:
    """Serve ``role`` (of the development workflow unless ``roles`` says) with scripted ``models``; yield
    its URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    app = remote.app(roles[role], url, Context(), token, models)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the agent did not start"
        time.sleep(0.05)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(10)


def reviewer_model() -> ScriptedChatModel:
    return ScriptedChatModel(script=[APPROVE], repeat_last=True)


def test_a_remote_coder_writes_the_code_and_the_ledger_names_the_agent(scripted):
    far = ScriptedChatModel(script=[GOOD])
    with served("coder", {"coder": far}) as url:
        run = scripted(planner=[PLAN], coder=[BAD], reviewer=[APPROVE])  # the local Coder would be wrong
        values = run(remote_roles={"coder": url})
    assert values["status"] == "completed" and "a + b" in values["code"]["files"]["solution.py"]
    assert far.calls == 1 and run.models["coder"].calls == 0
    written = [e for e in values["ledger"] if e["stage"] == "implementing" and e["role"] == "coder"]
    calls = [e for e in written if e["kind"] == "llm"]
    assert len(calls) == 1 and calls[0]["agent"] == f"accord-coder at {url}" and calls[0]["tokens_out"] > 0
    assert any(e["kind"] == "action" and e["outcome"] == "answered" for e in written)
    # The remote side's entries are this run's: its step, stage and round.
    step = next(e["step"] for e in written if e["kind"] == "contract")
    assert {(e["step"], e["round"]) for e in written} == {(step, 1)}
    assert all(e["agent"] == "" for e in values["ledger"] if e["role"] != "coder")
    # The handoff to the Tester is the typed message a local Coder sends.
    assert any(m["sender"] == "coder" and m["receiver"] == "tester" for m in values["handoffs"])


def test_the_card_validates_and_names_its_url():
    from a2a.types import AgentCard

    with served("reviewer", {"reviewer": reviewer_model()}, token="s3cret") as url:
        card = httpx.get(f"{url}.well-known/agent-card.json", timeout=10).json()
    parsed = ParseDict(card, AgentCard())
    assert parsed.name == "accord-reviewer"
    assert [i.url for i in parsed.supported_interfaces] == [url]
    assert parsed.supported_interfaces[0].protocol_binding == "JSONRPC"
    assert "bearer" in parsed.security_schemes


def test_a_request_missing_a_contract_input_is_refused_before_any_model_call():
    far = reviewer_model()
    task = {"kind": "task", "request": STUB, "level": "function", "entry_point": "add", "stub": STUB}
    with served("reviewer", {"reviewer": far}) as url:
        with pytest.raises(a2a.Refused, match="code: missing"):
            a2a.send(url, {"task": task}, {"duty": "review"}, {}, 30)
        with pytest.raises(a2a.Refused, match="no duty 'plan'"):
            a2a.send(url, {"task": task}, {"duty": "plan"}, {}, 30)
    assert far.calls == 0


def test_a_wrong_token_is_refused_and_no_token_reaches_the_ledger(scripted, monkeypatch):
    far = reviewer_model()
    with served("reviewer", {"reviewer": far}, token="s3cret") as url:
        with pytest.raises(a2a.Unauthorized):
            a2a.send(url, {}, {}, {"Authorization": "Bearer wrong"}, 30)
        monkeypatch.setenv(a2a.TOKEN_VARIABLE, "wrong")
        run = scripted(planner=[PLAN], coder=[GOOD])
        with pytest.raises(RoleUnavailable, match="HTTP 401"):
            run(remote_roles={"reviewer": url})
        monkeypatch.setenv(a2a.TOKEN_VARIABLE, "s3cret")
        values = dict(
            run.graph.invoke(
                None, run.config, context=Context(max_candidates=1, remote_roles={"reviewer": url})
            )
        )
    assert values["status"] == "completed", "the stopped run resumed once the token was right"
    assert "s3cret" not in repr(values)


def test_an_agent_that_is_down_stops_the_run_resumably_or_falls_back(scripted):
    url = f"http://127.0.0.1:{free_port()}/"  # nothing listens there
    run = scripted(planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    with pytest.raises(RoleUnavailable, match="did not answer"):
        run(remote_roles={"reviewer": url})
    assert run.graph.get_state(run.config).next == ("reviewing",), "the run waits at the remote stage"
    values = dict(
        run.graph.invoke(
            None,
            run.config,
            context=Context(max_candidates=1, remote_roles={"reviewer": url}, remote_fallback=True),
        )
    )
    assert values["status"] == "completed"
    failed = [e for e in values["ledger"] if e["kind"] == "action" and e["outcome"] == "fallback"]
    assert failed and failed[0]["role"] == "reviewer"


def test_a_remote_duty_that_fails_is_the_roles_malformed_output(scripted):
    far = ScriptedChatModel(script=["I would rather not write code."], repeat_last=True)
    with served("coder", {"coder": far}) as url:
        run = scripted(planner=[PLAN], coder=[GOOD])
        values = run(remote_roles={"coder": url}, max_output_retries=1)
    assert values["status"] == "failed"
    assert values["violations"][-1]["role"] == "coder"
    assert "the remote coder failed" in values["violations"][-1]["detail"]
    assert far.calls >= 2, "retried with the violation fed back"
    assert run.models["coder"].calls == 0


def test_show_blame_and_roles_name_the_agent_that_played_the_role(workdir, monkeypatch, capsys):
    from accord import cli
    from tests.conftest import script_cli

    far = ScriptedChatModel(script=[BAD])  # the remote Coder errs: blame's origin is its stage
    with served("coder", {"coder": far}) as url:
        script_cli(monkeypatch, planner=[PLAN], coder=[GOOD], debugger=[BAD], reviewer=[APPROVE])
        assert (
            cli.main(
                [
                    "run",
                    "--file",
                    "stub.py",
                    "--thread",
                    "r",
                    "--remote",
                    f"coder={url}",
                    "--max-rounds",
                    "1",
                    "--max-candidates",
                    "1",
                    "--max-debug-attempts",
                    "1",
                ]
            )
            == 1
        )
    capsys.readouterr()
    agent = f"accord-coder at {url}"
    assert cli.main(["show", "r"]) == 0
    assert f"coder played by {agent}" in capsys.readouterr().out
    assert cli.main(["blame", "r"]) == 0
    said = capsys.readouterr().out
    assert "error origin: step" in said and f"implementing (coder, played by {agent}, round 1)" in said
    assert cli.main(["roles", "--thread", "r", "--json"]) == 0

    states = json.loads(capsys.readouterr().out)
    assert states["coder"]["agents"] == [agent] and states["debugger"]["agents"] == []


def test_remote_wants_role_equals_url(workdir, capsys):
    from accord import cli

    with pytest.raises(SystemExit) as stop:
        cli.main(["run", "--file", "stub.py", "--remote", "coder"])
    assert stop.value.code == 2 and "--remote wants ROLE=URL" in capsys.readouterr().err


def test_one_audit_analyst_remote_votes_in_the_parallel_stage():
    from accord.graphs import audit
    from tests.unit.test_audit_graph import SAFE, VULNERABLE, Audit, critique

    far = ScriptedChatModel(script=[critique(VULNERABLE)], repeat_last=True)
    with served("critic", {"critic": far}, roles=audit.ROLES) as url:
        run = Audit([VULNERABLE], [critique(SAFE)], [VULNERABLE])  # the local Critic would disagree
        values = run(context={"remote_roles": {"critic": url}})
    assert values["status"] == "completed" and values["verdicts"][-1]["outcome"] == "consensus"
    assert far.calls >= 1 and run.models["critic"].calls == 0
    critic = [e for e in values["ledger"] if e["role"] == "critic" and e["kind"] == "llm"]
    assert critic and {e["agent"] for e in critic} == {f"accord-critic at {url}"}
    assert values["findings"]["by_role"]["critic"]["vulnerable"] is True


def rpc(settings: Any) -> dict[str, Any]:
    """A JSON-RPC message/send body carrying ``settings`` in its metadata, as a caller's would."""
    message = {
        "messageId": "m",
        "role": "ROLE_USER",
        "parts": [{"data": {}}],
        "metadata": {"settings": settings},
    }
    return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}


def test_a_caller_may_set_only_the_allowed_settings():
    with served("reviewer", {"reviewer": reviewer_model()}) as url:
        refused = httpx.post(url, json=rpc({"sandbox_timeout_s": 999, "max_tests": 2}), timeout=30)
        assert refused.status_code == 400
        assert "a caller may not set sandbox_timeout_s" in refused.text
        taken = httpx.post(url, json=rpc({"max_tests": 2}), timeout=30)
        assert taken.status_code == 200  # past the guard: the JSON-RPC handler answers it
    assert set(remote.run_settings(Context())) == set(remote.CALLER_SETTINGS)
    held = remote.held(Context(max_candidates=2), {"max_candidates": 50, "max_tests": 3})
    assert held == {"max_candidates": 2, "max_tests": 3}


def test_a_body_over_the_cap_gets_413_and_reaches_no_model():
    far = reviewer_model()
    with served("reviewer", {"reviewer": far}) as url:
        big = httpx.post(
            url, content=b"x" * (2 << 20), headers={"content-type": "application/json"}, timeout=30
        )
        assert big.status_code == 413 and "larger than 1,048,576 bytes" in big.text
    assert far.calls == 0


def test_serving_beyond_loopback_without_a_token_does_not_start(monkeypatch, capsys):
    from accord.cli import main

    monkeypatch.delenv(a2a.TOKEN_VARIABLE, raising=False)
    with pytest.raises(SystemExit) as ended:
        main(["serve", "--a2a", "--role", "reviewer", "--host", "0.0.0.0"])
    assert ended.value.code == 2 and "without a bearer token" in capsys.readouterr().err


def test_an_endpoint_error_reaches_the_caller_without_its_text(scripted, monkeypatch):
    import openai

    key = "sk-accord-SERVED-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", key)

    def refuse(messages: Any) -> Any:
        response = httpx.Response(403, request=httpx.Request("POST", "http://endpoint/v1/chat/completions"))
        raise openai.PermissionDeniedError(
            f"key {key} is not allowed; internal host 10.0.0.7", response=response, body=None
        )

    with served("coder", {"coder": ScriptedChatModel(script=[refuse], repeat_last=True)}) as url:
        run = scripted(planner=[PLAN], coder=[GOOD])
        values = run(remote_roles={"coder": url}, max_output_retries=0)
    said = json.dumps(values["violations"])
    assert "the role's model endpoint failed: PermissionDeniedError (HTTP 403)" in said
    assert key not in said and "10.0.0.7" not in said
