"""The Reviewer acts through its executor: the integration run, static analysis on Accord's MCP server
(with a local fallback) and the model's review, each hooked, checked and in the ledger."""

from __future__ import annotations

import dataclasses

import pytest

from accord.graphs import development
from accord.nodes.development import roles
from tests.conftest import APPROVE, BAD, CHANGES, GOOD, fenced
from tests.conftest import PLAN as FUNCTION_PLAN
from tests.unit.test_application_flow import PLAN, STEP2, TASK, TEST_TOTAL, TESTS

EVAL_STEP = fenced("_items = []\n\ndef add(n):\n    _items.append(eval(str(n)))\n")
"""A first subtask that works (its tests pass) but hands its input to ``eval``: bandit's B307."""


def reviewer_actions(values: dict) -> list[str]:
    return [
        f"{e['outcome']} {e['detail']}"
        for e in values["ledger"]
        if e["kind"] == "action" and e["role"] == "reviewer"
    ]


def test_the_reviewer_weighs_static_analysis_from_accords_mcp_server(scripted):
    run = scripted(planner=[PLAN], coder=[EVAL_STEP, STEP2, TESTS, TEST_TOTAL], reviewer=[APPROVE])
    values = run(TASK)
    assert values["status"] == "completed"
    prompt = run.models["reviewer"].prompts[0]
    assert "Static analysis (ruff, bandit):" in prompt and "bandit B307 (medium)" in prompt
    line = values["code"]["files"]["app.py"].splitlines().index("    _items.append(eval(str(n)))") + 1
    assert f"- app.py:{line} bandit B307 (medium)" in prompt  # where the finding is, for the reviewer
    actions = reviewer_actions(values)
    for name, kind in [("sandbox", "LOCAL_CODE"), ("analyse", "MCP_TOOL"), ("ReviewDraft", "LLM")]:
        assert f"before {name}: " in " | ".join(actions) and f"dispatched {name}: {kind}" in actions
    assert [a.split(":")[0] for a in actions if a.startswith("dispatched")] == [
        "dispatched sandbox",
        "dispatched analyse",
        "dispatched ReviewDraft",
    ]
    assert not any(a.startswith(("failed", "fallback")) for a in actions)


def test_without_its_server_the_analysis_falls_back_to_the_local_check(scripted, monkeypatch):
    spec = roles.SPECS["reviewer"]
    missing = {"command": "/nonexistent/python", "args": ["-m", "accord.runtime.mcp_server"]}
    broken = [
        a.model_copy(update={"config": {**a.config, "server": missing}}) if a.name == "analyse" else a
        for a in spec.actions
    ]
    reviewer = dataclasses.replace(
        development.ROLES["reviewer"], spec=spec.model_copy(update={"actions": tuple(broken)})
    )
    monkeypatch.setitem(development.ROLES, "reviewer", reviewer)
    run = scripted(planner=[PLAN], coder=[EVAL_STEP, STEP2, TESTS, TEST_TOTAL], reviewer=[APPROVE])
    values = run(TASK)
    assert values["status"] == "completed"
    actions = reviewer_actions(values)
    assert any(a.startswith("failed analyse: connection") for a in actions)
    assert "fallback analyse: to undefined_names" in actions
    assert "dispatched undefined_names: LOCAL_CODE" in actions
    assert "Static analysis (ruff, bandit): no findings." in run.models["reviewer"].prompts[0]


@pytest.mark.parametrize("passing", [True, False])
def test_a_functions_review_is_analysed_only_when_its_cases_fail(scripted, passing):
    run = scripted(
        planner=[FUNCTION_PLAN], coder=[GOOD if passing else BAD], debugger=[BAD], reviewer=[CHANGES, APPROVE]
    )
    values = run(max_rounds=1)
    dispatched = [a for a in reviewer_actions(values) if a.startswith("dispatched")]
    if passing:
        assert dispatched == ["dispatched sandbox: LOCAL_CODE"] and run.models["reviewer"].calls == 0
    else:
        assert "dispatched analyse: MCP_TOOL" in dispatched and run.models["reviewer"].calls == 1
