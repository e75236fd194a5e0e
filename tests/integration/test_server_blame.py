"""Blame, history and exports read a thread on a LangGraph server (``langgraph dev``) like a local one."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from accord import cli
from tests.conftest import STUB

pytestmark = pytest.mark.integration
CONFIG = Path(__file__).with_name("langgraph.scripted.json")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server_url(tmp_path_factory) -> Iterator[str]:
    langgraph = shutil.which("langgraph", path=str(Path(sys.executable).parent))
    assert langgraph, "langgraph-cli[inmem] is a dev dependency"
    port = _free_port()
    log = (tmp_path_factory.mktemp("server") / "server.log").open("w")
    proc = subprocess.Popen([langgraph, "dev", "--config", str(CONFIG), "--port", str(port), "--no-browser",
                             "--no-reload"], stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "LANGSMITH_TRACING": "false"}, start_new_session=True,
                            cwd=CONFIG.parents[2])
    url = f"http://127.0.0.1:{port}"
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=url)
    deadline = time.monotonic() + 120
    while True:
        try:
            client.assistants.search(limit=1)
            break
        except Exception:
            assert proc.poll() is None and time.monotonic() < deadline, "langgraph dev did not start"
            time.sleep(1)
    yield url
    os.killpg(proc.pid, 15)
    proc.wait(timeout=30)


def test_blame_and_exports_read_a_server_thread(server_url, capsys, tmp_path, monkeypatch):
    from langgraph_sdk import get_sync_client

    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "none.sqlite"))
    client = get_sync_client(url=server_url)
    thread = client.threads.create()["thread_id"]
    final = client.runs.wait(thread, "scripted", input={"request": STUB})
    assert final["status"] == "completed"

    assert cli.main(["blame", thread, "--url", server_url, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    flags = [(s["stage"], s["correct"], s["flag"]) for s in result["stages"]]
    assert flags == [("implementing", False, None), ("designing_tests", False, "no-op"),
                     ("selecting", False, "no-op"), ("testing", False, "no-op"),
                     ("debugging", True, "repair"), ("testing", True, "no-op"), ("reviewing", True, "no-op")]
    assert result["origin"] is None and result["final_correct"] is True

    assert cli.main(["history", thread, "--url", server_url]) == 0
    assert "debugging" in capsys.readouterr().out
    assert cli.main(["export", thread, "--url", server_url, "--format", "whowhen"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["is_correct"] is True and record["mistake_agent"] == ""
