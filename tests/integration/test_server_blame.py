"""Blame, history and exports read a thread on a LangGraph server (``langgraph dev``) like a local one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from accord import cli
from tests import dev_server
from tests.conftest import STUB

pytestmark = pytest.mark.integration
CONFIG = Path(__file__).with_name("langgraph.scripted.json")


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with dev_server.serve(CONFIG) as url:
        yield url


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
    # The plain attempt is the first wrong stage; its sample and the team's round repeat it and the
    # Debugger repairs it.
    assert flags == [
        ("attempting", False, None),
        ("checking", False, "no-op"),
        ("attempting", False, "no-op"),
        ("checking", False, "no-op"),
        ("planning", False, "no-op"),
        ("implementing", False, "no-op"),
        ("designing_tests", False, "no-op"),
        ("selecting", False, "no-op"),
        ("testing", False, "no-op"),
        ("debugging", True, "repair"),
        ("testing", True, "no-op"),
        ("reviewing", True, "no-op"),
    ]
    assert result["origin"] is None and result["final_correct"] is True

    assert cli.main(["history", thread, "--url", server_url]) == 0
    assert "debugging" in capsys.readouterr().out
    assert cli.main(["export", thread, "--url", server_url, "--format", "whowhen"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["is_correct"] is True and record["mistake_agent"] == ""
