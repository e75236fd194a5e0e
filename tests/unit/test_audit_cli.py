"""``accord audit`` and the accountability commands on audit threads."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from accord import cli
from accord.accountability.blame import blame
from accord.graphs import audit as audit_graph
from accord.graphs import store
from accord.graphs.audit import build_graph
from accord.state.history import from_graph, from_server_history
from tests.scripted import ScriptedChatModel
from tests.unit.test_audit_graph import FIXTURES, SAFE, VULNERABLE, critique


def script_audit(
    monkeypatch: pytest.MonkeyPatch, auditor: list[Any], critic: list[Any], tester: list[Any]
) -> dict[str, ScriptedChatModel]:
    models = {
        role: ScriptedChatModel(script=script, repeat_last=True)
        for role, script in (("auditor", auditor), ("critic", critic), ("tester", tester))
    }
    monkeypatch.setattr(audit_graph, "build_graph", partial(build_graph, models))
    return models


@pytest.fixture
def overflow(workdir: Path) -> Path:
    target = workdir / "overflow.c"
    target.write_text((FIXTURES / "overflow.c").read_text())
    return target


def test_a_vulnerable_verdict_exits_three_with_each_finding(overflow, monkeypatch, capsys):
    script_audit(monkeypatch, [VULNERABLE], [critique(VULNERABLE)], [VULNERABLE])
    assert cli.main(["audit", str(overflow), "--thread", "a1", "--json"]) == 3
    result = json.loads(capsys.readouterr().out)
    assert result["verdict"] == "vulnerable" and result["status"] == "completed"
    assert sorted(result["findings"]) == ["auditor", "critic", "tester"]
    assert result["findings"]["tester"]["tools"][0]["tool"] == "cppcheck"
    assert [v["outcome"] for v in result["votes"] if v["role"] == "vote"] == ["consensus"]
    assert result["cost"]["llm_calls"] == 3


def test_a_safe_verdict_exits_zero_and_prints_the_vote(overflow, monkeypatch, capsys):
    script_audit(monkeypatch, [SAFE], [critique(SAFE)], [VULNERABLE, SAFE])
    assert cli.main(["audit", str(overflow), "--function", "greet", "--thread", "a2"]) == 0
    said = capsys.readouterr().err
    assert "SAFE" in said and "vote (analysing): split" in said and "vote (deliberating): consensus" in said
    assert "flawfinder: line 7: strcpy" in said


def test_no_verdict_exits_one_and_bad_files_exit_two(workdir, overflow, monkeypatch, capsys):
    models = script_audit(monkeypatch, ["no tool call"], ["no tool call"], [VULNERABLE])
    assert cli.main(["audit", str(overflow), "--thread", "a3"]) == 1
    (workdir / "blob.c").write_bytes(b"\x7fELF\x00\x01\xff\xfe")
    assert cli.main(["audit", "blob.c"]) == 2
    assert cli.main(["audit", "missing.c"]) == 2
    assert "not text" in capsys.readouterr().err
    calls = sum(model.calls for model in models.values())
    assert cli.main(["audit", "blob.c"]) == 2 and sum(m.calls for m in models.values()) == calls


def test_show_cost_and_blame_read_an_audit_thread(overflow, monkeypatch, capsys):
    script_audit(monkeypatch, [VULNERABLE], [critique(SAFE)], [SAFE, VULNERABLE])
    assert cli.main(["audit", str(overflow), "--thread", "a4"]) == 3
    capsys.readouterr()
    assert cli.main(["show", "a4", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["path"] == ["initialized", "analysing", "deliberating", "completed"]
    assert cli.main(["cost", "a4", "--json"]) == 0
    assert {"auditor", "critic", "tester"} <= set(json.loads(capsys.readouterr().out)["by_role"])
    # No label here: blame goes by the vote's word, vulnerable, so the first round's majority reads as the
    # mistake and the Tester, whose second vote turned it, as the repair.
    assert cli.main(["blame", "a4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["final_correct"] is True and out["failures"] is not None
    flagged = {(s["stage"], s["role"]): (s["correct"], s["flag"]) for s in out["stages"]}
    assert flagged[("analysing", "vote")] == (False, None)
    assert flagged[("deliberating", "tester")] == (True, "repair")
    assert {s["oracle"] for s in out["stages"]} == {"the vote's word"}


def test_blame_flags_the_deliberating_vote_that_flips_a_wrong_majority(overflow, monkeypatch):
    # Round 1: auditor right, critic and tester wrong: the majority says safe, which is wrong. In the
    # deliberation the tester changes its vote, and with it the majority: a repair by the tester.
    models = {
        "auditor": ScriptedChatModel(script=[VULNERABLE], repeat_last=True),
        "critic": ScriptedChatModel(script=[critique(SAFE)], repeat_last=True),
        "tester": ScriptedChatModel(script=[SAFE, VULNERABLE], repeat_last=True),
    }
    with store.checkpointer(overflow.parent / "blame.sqlite") as saver:
        graph = build_graph(models, saver, oracle=audit_graph.label_oracle(True))
        graph.invoke({"request": overflow.read_text(), "source": "overflow.c"}, store.config("b"))
        result = blame(from_graph(graph, "b"), audit_graph.LIFECYCLE)
        # Judged again after the run, from the checkpoints and each role's writes, by another oracle
        # with the same verdicts: each parallel role is judged as it was while the graph ran.
        after_run = audit_graph.label_oracle(True, name="the label, after the run")
        again = blame(from_graph(graph, "b"), audit_graph.LIFECYCLE, after_run)
        # The same history as a LangGraph server returns it (``accord blame --url``).
        served = [
            {
                "values": s.values,
                "next": list(s.next),
                "metadata": s.metadata,
                "created_at": s.created_at,
                "checkpoint": s.config["configurable"],
                "parent_checkpoint": (s.parent_config or {}).get("configurable"),
                "tasks": [{"id": t.id, "name": t.name, "result": t.result} for t in s.tasks],
            }
            for s in graph.get_state_history(store.config("b"))
        ]
        from_url = blame(from_server_history(served), audit_graph.LIFECYCLE, after_run)
    assert from_url.stages == again.stages
    flagged = {(s.stage, s.role): (s.correct, s.flag) for s in result.stages}
    assert [(s.stage, s.role, s.correct, s.flag, s.evidence) for s in again.stages] == [
        (s.stage, s.role, s.correct, s.flag, s.evidence) for s in result.stages
    ]
    assert len(result.stages) == 8 and again.final_correct is result.final_correct is True
    assert flagged[("analysing", "auditor")] == (True, None)
    assert flagged[("analysing", "tester")] == (False, None)
    assert flagged[("analysing", "vote")] == (False, None)  # a vote receives several results: not flagged
    assert flagged[("deliberating", "tester")] == (True, "repair")
    assert flagged[("deliberating", "critic")] == (False, "no-op")
    assert result.final_correct is True and result.origin is None
    rates = result.rates()
    assert rates["tester"] == {"repairs": 1, "wrong_inputs": 1, "harms": 0, "right_inputs": 0}
    assert "vote" not in rates


def test_show_lists_a_finding_set_aside_and_the_one_kept(overflow, monkeypatch, capsys):
    script_audit(monkeypatch, [VULNERABLE], [critique(SAFE)], [SAFE, {**SAFE, "vulnerable": True}])
    assert cli.main(["audit", str(overflow), "--thread", "a5"]) == 0  # the tester's safe finding stands
    capsys.readouterr()
    assert cli.main(["show", "a5"]) == 0
    kept = "deliberating tester    kept: said vulnerable on its earlier evidence: its safe finding stands"
    assert kept in capsys.readouterr().out
