"""Plan approval by a person: the run waits at the ``human`` role's interrupt after planning, and goes on
when a person approves, plans again when they reject, takes their edit, and keeps waiting on an answer it
refuses; from Python and from the CLI."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.types import Command

from accord import cli
from accord.accountability.blame import blame
from accord.cli.approval import WAITING
from accord.graphs.development import LIFECYCLE
from accord.graphs.oracle import Oracle
from accord.state.context import Context
from accord.state.history import from_graph
from tests.conftest import APPROVE, GOOD, PLAN, STUB, script_cli

OTHER = {
    "subtasks": [
        {"title": "sum", "description": "add the two numbers", "acceptance_criteria": ["add(2, 2) == 4"]}
    ]
}


def start(scripted: Any, planner: list[Any], **oracle: Any) -> Any:
    """Run the development graph with plan approval asked for, up to where it waits for a person."""
    run = scripted(planner=planner, coder=[GOOD], reviewer=[APPROVE], **oracle)
    values = dict(
        run.graph.invoke(
            {"request": STUB, "approve_plan": True},
            run.config,
            context=Context(max_candidates=1, first_attempt=False),
        )
    )
    return run, values


def answer(run: Any, said: dict[str, Any]) -> dict[str, Any]:
    return dict(
        run.graph.invoke(
            Command(resume=said), run.config, context=Context(max_candidates=1, first_attempt=False)
        )
    )


def waiting_on(run: Any) -> list[Any]:
    return [i.value for task in run.graph.get_state(run.config).tasks for i in task.interrupts]


def test_the_run_waits_for_a_person_after_planning_and_goes_on_when_they_approve(scripted):
    run, values = start(scripted, [PLAN])
    assert "status" not in values and run.graph.get_state(run.config).next == ("approving",)
    (question,) = waiting_on(run)
    assert question["plan"]["subtasks"][0]["title"] == "add"
    assert "1. add: return a + b" in question["plan_text"]
    assert run.models["coder"].calls == 0
    values = answer(run, {"decision": "approve", "by": "ada"})
    assert values["status"] == "completed" and run.path(values)[:4] == [
        "initialized",
        "planning",
        "approving",
        "implementing",
    ]
    assert values["approval"]["decision"] == "approved" and values["approval"]["by"] == "ada"
    (entry,) = [e for e in values["ledger"] if e["kind"] == "human"]
    assert (entry["role"], entry["outcome"]) == ("human", "approved")
    assert entry["detail"].startswith("by ada at ")


def test_without_asking_no_one_is_asked(scripted):
    values = scripted(planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])()
    assert values["status"] == "completed" and "approving" not in [v["stage"] for v in values["verdicts"]]


def test_a_rejection_sends_the_planner_back_with_the_reason_bounded_by_the_rounds(scripted):
    run, _ = start(scripted, [PLAN, OTHER])
    answer(run, {"decision": "reject", "reason": "name the step after what it returns"})
    assert run.models["planner"].calls == 2
    again = run.models["planner"].prompts[1]
    assert "A person rejected this plan:\n1. add: return a + b" in again
    assert "Their reason: name the step after what it returns" in again
    (question,) = waiting_on(run)  # the new plan goes to the person again
    assert question["plan"]["subtasks"][0]["title"] == "sum"
    values = answer(run, {"decision": "approve"})
    assert values["status"] == "completed" and values["counters"]["round"] == 2

    run, _ = start(scripted, [PLAN] * 5)
    for number in range(4):
        values = answer(run, {"decision": "reject", "reason": f"no ({number})"})
    values = answer(run, {"decision": "reject", "reason": "no"})
    assert values["status"] == "failed" and "round budget exhausted" in values["reason"]

    # The same reason again: the new plan changed nothing the person checks, so the run ends there.
    run, _ = start(scripted, [PLAN] * 5)
    answer(run, {"decision": "reject", "reason": "no"})
    values = answer(run, {"decision": "reject", "reason": "no"})
    assert values["status"] == "failed" and values["counters"]["round"] == 2
    assert values["reason"].startswith("evidence repeats: planning changed nothing approving checks")


def test_an_edit_replaces_the_plan_and_a_malformed_one_is_refused_while_the_run_waits(scripted):
    run, _ = start(scripted, [PLAN])
    answer(run, {"decision": "edit", "plan": {"subtasks": []}})
    (question,) = waiting_on(run)
    assert "the edited plan is not valid: subtasks" in question["refused"]
    answer(run, {"decision": "maybe"})
    assert "not an answer" in waiting_on(run)[0]["refused"]
    answer(run, {"decision": "reject"})
    assert "a rejection needs the reason" in waiting_on(run)[0]["refused"]
    examples = run.graph.get_state(run.config).values["plan"]["examples"]  # the task's, which a plan carries
    values = answer(run, {"decision": "edit", "plan": {**OTHER, "examples": examples}})
    assert values["status"] == "completed" and values["plan"]["subtasks"][0]["title"] == "sum"
    assert values["approval"]["decision"] == "edited"
    refusals = [e for e in values["ledger"] if e["kind"] == "human" and e["outcome"] == "refused"]
    assert len(refusals) == 3 and run.models["planner"].calls == 1


def examples_hold(state: Any, call: Any) -> tuple[bool, str]:
    """An oracle's judge of a plan for ``add``: every example it states holds."""
    wrong = [
        e["call"]
        for e in state["plan"]["examples"]
        if eval(e["call"], {"add": lambda a, b: a + b}) != eval(e["expected"])
    ]
    return not wrong, f"wrong examples: {wrong}" if wrong else "its examples hold"


def test_an_edit_that_brings_an_error_is_the_person_s(scripted):
    run, _ = start(scripted, [PLAN], oracle=Oracle(name="examples", judges={"plan": examples_hold}))
    wrong = {**PLAN, "examples": [{"call": "add(1, 2)", "expected": "4"}]}
    # One model call after the edit: the run then ends on its budget, its judgments made.
    run.graph.invoke(
        Command(resume={"decision": "edit", "plan": wrong, "by": "bob"}),
        run.config,
        context=Context(max_candidates=1, max_llm_calls=2, first_attempt=False),
    )
    result = blame(from_graph(run.graph, "test"), LIFECYCLE)
    human = next(s for s in result.stages if s.role == "human")
    assert human.correct is False and human.flag == "harm"


def test_accord_run_waits_and_resume_answers(workdir, monkeypatch, capsys):
    models = script_cli(monkeypatch, planner=[PLAN, OTHER], coder=[GOOD], reviewer=[APPROVE])
    assert (
        cli.main(["run", "--file", "stub.py", "--approve-plan", "--thread", "a1", "--max-candidates", "1"])
        == WAITING
    )
    said = capsys.readouterr().err
    assert "1. add: return a + b" in said and "accord resume a1 --approve" in said
    (workdir / "bad.json").write_text("{not json")
    assert cli.main(["resume", "a1", "--edit", "bad.json"]) == 2
    assert "keeps waiting" in capsys.readouterr().err
    assert cli.main(["resume", "a1", "--reject", "too vague", "--by", "ada"]) == WAITING
    assert "Their reason: too vague" in models["planner"].prompts[1]
    assert cli.main(["resume", "a1", "--approve", "--max-candidates", "1"]) == 0
    assert cli.main(["resume", "a1", "--approve"]) == 0  # ended: nothing to answer, it says so
    assert "already ended: completed" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["run", "--graph", "audit", "--approve-plan", "x"])
    assert "the audit workflow puts nothing to a person" in capsys.readouterr().err
