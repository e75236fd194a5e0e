"""The repair workflow from ``examples/repair``, registered through the public API, on the local model: it
repairs the small project that ships with it, ``accord blame`` reads its thread, and ``langgraph dev``
serves its graph from the example's own ``langgraph.json``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from langgraph_sdk import get_sync_client

from accord import cli
from accord.runtime import model_server
from tests import dev_server

pytestmark = pytest.mark.integration

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "repair"


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Register the workflow as an unpackaged one; return a copy of the project to repair."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.setenv("ACCORD_WORKFLOWS", "accord_repair.workflow:WORKFLOW")
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "runs.sqlite"))
    monkeypatch.chdir(tmp_path)
    shutil.copytree(EXAMPLE / "projects" / "stats", tmp_path / "stats")
    return tmp_path / "stats"


def test_the_local_model_repairs_the_example_project(
    registered: Path, server: model_server.Server, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["run", "--graph", "repair", str(registered), "--thread", "fix", "--out", "out"])
    said = capsys.readouterr().err
    assert code == 0, said
    assert "fixing       fixer" in said and "the project's tests pass" in said
    assert cli.main(["blame", "fix", "--json"]) == 0
    blamed = json.loads(capsys.readouterr().out)
    assert blamed["final_correct"] is True and blamed["origin"] is None
    assert blamed["rates"]["fixer"]["repairs"] == 1  # the fixer turned the failing project into a passing one
    assert "len(values) - 1" not in (registered.parent / "out" / "stats.py").read_text()


def test_langgraph_dev_serves_the_example_graph(registered: Path) -> None:
    source = registered / "stats.py"  # tests that pass: the run ends before any model call
    source.write_text(source.read_text().replace("len(values) - 1", "len(values)"))
    # PYTHONPATH stands for `pip install -e examples/repair`, which a user runs once.
    with dev_server.serve(EXAMPLE / "langgraph.json", {"PYTHONPATH": str(EXAMPLE)}) as url:
        client = get_sync_client(url=url)
        assert [a["graph_id"] for a in client.assistants.search(graph_id="repair")] == ["repair"]
        thread = client.threads.create()["thread_id"]
        final = client.runs.wait(thread, "repair", input={"request": str(registered)})
    assert final["status"] == "completed" and final["repair_task"]["project"] == str(registered)
    assert [v["outcome"] for v in final["verdicts"] if v["target"]][:2] == ["pass", "passing"]
