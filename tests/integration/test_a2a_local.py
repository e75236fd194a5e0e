"""Roles served by ``accord serve --a2a`` in a process of their own, on the real local model.

The agent's process shares the session's model server (``shared_model_env``): two servers on two cores
would each run at half speed or worse.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from accord import cli
from accord.runtime import model_server
from accord.runtime.local_model import cache_dir
from accord.runtime.model_server import free_port
from tests.conftest import STUB

pytestmark = pytest.mark.integration
FIXTURE = Path(__file__).parent.parent / "fixtures" / "overflow.c"


@pytest.fixture
def shared_model_env(server: model_server.Server, tmp_path: Path) -> dict[str, str]:
    """The environment of a process that uses this session's model server: a cache holding the assembled
    models and a server record naming this session's server, which it then finds as ``accord model serve``'s
    (and so never stops)."""
    cache = tmp_path / "agent-cache"
    cache.mkdir()
    for entry in cache_dir().iterdir():
        if entry.name != "server.json":
            (cache / entry.name).symlink_to(entry)
    (cache / "server.json").write_text(
        json.dumps({"pid": server.pid, "port": server.port, "model": server.model})
    )
    return {**os.environ, "ACCORD_CACHE": str(cache)}


@contextmanager
def agent(
    role: str, env: dict[str, str], port: int, workflow: str = "development"
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``accord serve --a2a --role ROLE`` until the block ends (or the test kills it)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "accord.cli",
            "serve",
            "--a2a",
            "--role",
            role,
            "--workflow",
            workflow,
            "--port",
            str(port),
        ],
        env=env,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}.well-known/agent-card.json", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, "the agent did not start"
        time.sleep(0.2)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(20)


def _stage(thread: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    if cli.main(["show", thread, "--json"]) != 0:
        return ""
    return str(json.loads(capsys.readouterr().out)["stage"])


def test_a_remote_reviewer_survives_its_agent_being_killed_mid_run(
    server, shared_model_env, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "runs.sqlite"))
    (tmp_path / "stub.py").write_text(STUB)
    env = {**shared_model_env, "ACCORD_DB": str(tmp_path / "runs.sqlite")}
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    run = [
        sys.executable,
        "-m",
        "accord.cli",
        "run",
        "--file",
        "stub.py",
        "--thread",
        "far",
        "--remote",
        f"reviewer={url}",
        "--max-candidates",
        "1",
        "--max-rounds",
        "1",
    ]
    with agent("reviewer", env, port) as served:
        started = subprocess.Popen(run, env=env, cwd=tmp_path)
        while _stage("far", capsys) in ("", "initialized", "planning"):
            assert started.poll() is None, "the run ended before its Coder's stage"
            time.sleep(1)
        served.send_signal(signal.SIGKILL)  # mid-run: the Reviewer's stage is still to come
        served.wait(10)
        assert started.wait(900) == 4, "an unreachable agent stops the run at its last checkpoint"
    assert _stage("far", capsys) == "reviewing"

    with agent("reviewer", env, port):
        capsys.readouterr()
        assert cli.main(["resume", "far", "--remote", f"reviewer={url}"]) in (0, 1)
    capsys.readouterr()
    assert cli.main(["show", "far"]) == 0
    shown = capsys.readouterr().out
    assert f"reviewer played by accord-reviewer at {url}" in shown
    assert " completed" in shown.splitlines()[0] or " failed" in shown.splitlines()[0]
    assert cli.main(["blame", "far"]) == 0
    blamed = [line for line in capsys.readouterr().out.splitlines() if " reviewing " in line]
    assert blamed and all(f"[played by accord-reviewer at {url}]" in line for line in blamed)


def test_an_audit_with_one_analyst_remote_reaches_a_verdict(
    server, shared_model_env, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "runs.sqlite"))
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with agent("critic", shared_model_env, port, workflow="audit"):
        code = cli.main(["audit", str(FIXTURE), "--thread", "split", "--json", "--remote", f"critic={url}"])
    result = json.loads(capsys.readouterr().out)
    assert code == {"vulnerable": 3, "safe": 0}[result["verdict"]]
    assert sorted(result["findings"]) == ["auditor", "critic", "tester"]
    assert cli.main(["roles", "--thread", "split", "--workflow", "audit", "--json"]) == 0
    states = json.loads(capsys.readouterr().out)
    assert states["critic"]["agents"] == [f"accord-critic at {url}"] and states["critic"]["llm_calls"] >= 1
    assert states["auditor"]["agents"] == [] and states["auditor"]["llm_calls"] >= 1
