"""Agents apart from roles: a team file casts agents onto roles; a bad cast is refused before any call."""

from __future__ import annotations

import json

import pytest

from accord import cli
from accord.nodes.development.roles import SPECS
from accord.state.team import Team, load_team
from tests.conftest import APPROVE, BAD, GOOD, PLAN, script_cli

TEAM = """
agents:
  - name: small
    roles: [coder, debugger, tester]
  - name: big
    roles: [planner, reviewer]
cast: {planner: big, coder: small, tester: small, debugger: small, reviewer: big}
"""


def test_one_agent_plays_two_roles_and_the_ledger_and_roles_say_so(workdir, monkeypatch, capsys):
    (workdir / "team.yaml").write_text(TEAM)
    # The Coder errs, so the Debugger works too: the agent "small" plays both in one run.
    script_cli(monkeypatch, planner=[PLAN], coder=[BAD], debugger=[GOOD], reviewer=[APPROVE])
    assert (
        cli.main(
            ["run", "--file", "stub.py", "--thread", "t", "--team", "team.yaml", "--max-candidates", "1"]
        )
        == 0
    )
    capsys.readouterr()
    assert cli.main(["show", "t", "--json"]) == 0
    ledger = json.loads(capsys.readouterr().out)["state"]["ledger"]
    llm = {(e["role"], e["agent"]) for e in ledger if e["kind"] == "llm"}
    assert {("coder", "small"), ("debugger", "small"), ("planner", "big")} <= llm
    assert all(e["agent"] == "" for e in ledger if e["kind"] == "gate")  # the compiler's, no agent's
    assert cli.main(["roles", "--thread", "t", "--json"]) == 0
    states = json.loads(capsys.readouterr().out)
    assert states["coder"]["agents"] == states["debugger"]["agents"] == ["small"]
    assert states["planner"]["agents"] == ["big"]


def test_a_team_sets_each_agents_model_on_the_roles_it_plays(workdir, monkeypatch):
    from accord.cli import parser
    from accord.cli.running import run_context

    (workdir / "team.yaml").write_text(
        TEAM.replace(
            "  - name: big\n", "  - name: big\n    model: gpt-4o\n    base_url: http://127.0.0.1:9/v1\n"
        )
    )
    context = run_context(parser().parse_args(["run", "x", "--team", "team.yaml"]))
    assert context.model_for("planner").model == "gpt-4o" == context.model_for("reviewer").model
    assert context.model_for("planner").base_url == "http://127.0.0.1:9/v1"
    assert context.model_for("coder").model is None
    assert context.role_agents == {
        "planner": "big",
        "coder": "small",
        "tester": "small",
        "debugger": "small",
        "reviewer": "big",
    }


@pytest.mark.parametrize(
    ("cast", "said"),
    [
        ("cast: {planner: big, coder: small, tester: small, debugger: small}", "no agent plays reviewer"),
        (
            "cast: {planner: big, coder: big, tester: small, debugger: small, reviewer: big}",
            "big may not play coder",
        ),
        (
            "cast: {planner: ghost, coder: small, tester: small, debugger: small, reviewer: big}",
            "cast to 'ghost', which is no agent",
        ),
        (
            "cast: {planner: big, coder: small, tester: small, debugger: small, reviewer: big, auditor: big}",
            "big may not play auditor",
        ),
    ],
)
def test_a_bad_cast_is_refused_before_any_model_call(workdir, monkeypatch, capsys, cast, said):
    (workdir / "team.yaml").write_text(TEAM.split("cast:")[0] + cast + "\n")
    models = script_cli(monkeypatch, planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    with pytest.raises(SystemExit) as stop:
        cli.main(["run", "--file", "stub.py", "--team", "team.yaml"])
    assert stop.value.code == 2 and said in capsys.readouterr().err
    assert all(model.calls == 0 for model in models.values())


def test_a_cast_of_a_role_the_workflow_lacks_is_a_problem():
    team = Team.model_validate(
        {"agents": [{"name": "a", "roles": ["auditor", "planner"]}], "cast": {"auditor": "a", "planner": "a"}}
    )
    assert "the workflow has no role auditor" in team.problems(SPECS)
    assert "no agent plays coder" in team.problems(SPECS)


def test_a_team_file_that_is_not_yaml_or_not_a_team_says_where(tmp_path):
    bad = tmp_path / "team.yaml"
    bad.write_text("agents: [unclosed")
    with pytest.raises(ValueError, match=r"team file .*team\.yaml"):
        load_team(bad)
    bad.write_text("agents: []\ncast: {}\n")
    with pytest.raises(ValueError, match="agents: Tuple should have at least 1 item"):
        load_team(bad)
    with pytest.raises(ValueError, match="No such file"):
        load_team(tmp_path / "missing.yaml")
