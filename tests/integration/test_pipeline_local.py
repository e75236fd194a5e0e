"""One LogiQA question through the pipeline on two real local models (the paper's mix BAB): the Planner
and the Critic on Qwen2.5-Coder-0.5B, the Executor on Gemma 3 270M, each served by its own server."""

from __future__ import annotations

import json

import pytest

from accord import cli
from accord.evals.benchmarks import multiple_choice
from accord.runtime import local_model

pytestmark = pytest.mark.integration


def test_a_logiqa_question_through_a_two_model_mix(server, tmp_path, monkeypatch, capsys):
    local_model.assemble("gemma3-270m", log=lambda *_: None)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "runs.sqlite"))
    question = next(iter(multiple_choice.items("logiqa").values()))
    code = cli.main(["run", "--graph", "pipeline", question.prompt(), "--mix", "BAB", "--thread", "mix"])
    capsys.readouterr()
    assert cli.main(["show", "mix", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    values = shown["state"]
    models = {e["role"]: e["model"] for e in values["ledger"] if e["kind"] == "llm"}
    assert models["planner"] == "qwen2.5-coder-0.5b" and models["executor"] == "gemma3-270m"
    if code == 0:  # an answer, right or wrong, reached through every stage
        assert shown["path"][-2:] == ["critiquing", "completed"] and values["answer"]["choice"] in "ABCD"
    else:  # a role could not meet its contract: the reason says which
        assert shown["status"] == "failed"
        assert any(role in shown["reason"] for role in ("planner", "executor", "critic"))
