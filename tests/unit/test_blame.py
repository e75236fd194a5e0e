"""Blame from checkpoint history: scripted runs whose right answers are known.

The oracle plays the hidden tests: it runs examples the roles never see in the sandbox, and calls a plan
right when it says to add. Each test checks every blame output: per-stage verdicts, flags, the origin.
"""

from __future__ import annotations

from typing import Any

from accord.accountability.blame import blame
from accord.accountability.mast import detect
from accord.accountability.trace import steps
from accord.graphs import store
from accord.graphs.development import LIFECYCLE
from accord.graphs.oracle import Oracle
from accord.nodes import testing
from accord.nodes.views import FUNCTION_FILE, artifacts
from accord.runtime import sandbox
from accord.state.artifacts import Example
from accord.state.context import Context
from accord.state.history import from_graph
from tests.conftest import APPROVE, BAD, CHANGES, GOOD, PLAN, fenced

HIDDEN = (Example(call="add(2, 3)", expected="5"), Example(call="add(-2, -3)", expected="-5"))
WRONG_PLAN = {
    "subtasks": [
        {
            "title": "add",
            "description": "return a - b",
            "function": "add(a, b)",
            "acceptance_criteria": ["add(3, 1) == 2"],
        }
    ]
}
# Passes the docstring's examples (1+2, -1+1) but not the hidden ones.
HARMFUL = fenced("def add(a, b):\n    return a + b if a >= -1 else 0\n")


def _hidden_code(state: Any, call: Any) -> tuple[bool, str]:
    _, _, code = artifacts(state)
    report, _ = testing.run_examples(code, FUNCTION_FILE, HIDDEN, sandbox.Limits(timeout_s=10))
    failures = report.failures()
    return report.passed, failures[0].message if failures else "hidden tests passed"


def _hidden_plan(state: Any, call: Any) -> tuple[bool, str]:
    _, plan, _ = artifacts(state)
    assert plan is not None
    right = "a + b" in plan.subtasks[0].description
    return right, "the plan says to add" if right else f"the plan says {plan.subtasks[0].description!r}"


HIDDEN_TESTS = Oracle(name="hidden tests", judges={"code": _hidden_code, "plan": _hidden_plan})


def _table(run: Any, head: str | None = None) -> tuple[list[tuple[str, str, bool, str | None]], Any]:
    result = blame(from_graph(run.graph, "test", head), LIFECYCLE)
    return [(s.stage, s.role, s.correct, s.flag) for s in result.stages], result


def test_a_planner_error_repaired_by_the_debugger(scripted):
    run = scripted(
        oracle=HIDDEN_TESTS, planner=[WRONG_PLAN], coder=[BAD], debugger=[GOOD], reviewer=[APPROVE]
    )
    assert run()["status"] == "completed"
    table, result = _table(run)
    assert table == [
        ("planning", "planner", False, None),
        ("implementing", "coder", False, "no-op"),
        ("designing_tests", "tester", False, "no-op"),
        ("selecting", "tester", False, "no-op"),
        ("testing", "debugger", False, "no-op"),
        ("debugging", "debugger", True, "repair"),
        ("testing", "debugger", True, "no-op"),
        ("reviewing", "reviewer", True, "no-op"),
    ]
    assert result.final_correct is True and result.origin is None
    assert "the plan says 'return a - b'" in result.stages[0].evidence
    assert "add(2, 3) returned -1, expected 5" in result.stages[1].evidence
    assert result.rates()["debugger"] == {"repairs": 1, "wrong_inputs": 2, "harms": 0, "right_inputs": 1}


def test_a_correct_coder_result_harmed_by_the_selection(scripted):
    # The Tester expects add(-5, 1) == 0: wrong, and HARMFUL agrees with it, so the selection swaps the
    # Coder's right first candidate for the wrong second one, and nothing after notices.
    misleading = "```python\nassert add(-5, 1) == 0\n```"
    run = scripted(
        oracle=HIDDEN_TESTS, planner=[PLAN], coder=[GOOD, HARMFUL], tester=[misleading], reviewer=[APPROVE]
    )
    assert run(max_candidates=2)["status"] == "completed"
    table, result = _table(run)
    assert table == [
        ("planning", "planner", True, None),
        ("implementing", "coder", True, "no-op"),
        ("designing_tests", "tester", True, "no-op"),
        ("selecting", "tester", False, "harm"),
        ("testing", "debugger", False, "no-op"),
        ("reviewing", "reviewer", False, "no-op"),
    ]
    origin = result.origin
    assert origin is not None and (origin.stage, origin.role) == ("selecting", "tester")
    assert "add(-2, -3) returned 0" in origin.evidence
    assert result.rates()["tester"]["harms"] == 1 and result.final_correct is False


def test_a_later_round_repairs_and_offline_judging_keeps_each_stage_round(scripted):
    run = scripted(
        oracle=HIDDEN_TESTS, planner=[PLAN], coder=[BAD, GOOD], debugger=[BAD], reviewer=[CHANGES, APPROVE]
    )
    assert run()["status"] == "completed"
    table, result = _table(run)
    assert [(stage, flag) for stage, _, _, flag in table if stage == "implementing"] == [
        ("implementing", "harm"),
        ("implementing", "repair"),
    ]
    assert result.final_correct is True and result.origin is None
    assert [s.round for s in result.stages if s.stage == "implementing"] == [1, 2]
    # judged again offline, each stage keeps the round it ran in (not the one its gate started)
    again = Oracle(name="hidden tests, offline", judges={"code": _hidden_code, "plan": _hidden_plan})
    offline = blame(from_graph(run.graph, "test"), LIFECYCLE, oracle=again)
    assert [(s.stage, s.round, s.correct) for s in offline.stages] == [
        (s.stage, s.round, s.correct) for s in result.stages
    ]


def test_a_harm_in_a_later_round_is_marked_as_acting_on_the_feedback_that_started_it(scripted):
    # Right by the hidden tests, wrong on a stated example: the review asks for changes, and the next round
    # breaks what was right.
    hidden_only = fenced("def add(a, b):\n    return 0 if a == 1 else a + b\n")
    run = scripted(
        oracle=HIDDEN_TESTS,
        planner=[PLAN],
        coder=[hidden_only, BAD],
        debugger=[BAD],
        reviewer=[CHANGES, APPROVE],
    )
    run(max_debug_attempts=0)
    table, result = _table(run)
    first, second = [s for s in result.stages if s.stage == "implementing"]
    assert (first.round, first.correct, first.evidence.startswith("acting on")) == (1, True, False)
    assert (second.round, second.flag) == (2, "harm"), table
    assert second.evidence.startswith("acting on the feedback that started round 2; ")


def test_an_error_never_repaired_is_blamed_on_its_stage(scripted):
    run = scripted(oracle=HIDDEN_TESTS, planner=[PLAN], coder=[BAD], debugger=[BAD], reviewer=[APPROVE])
    values = run(max_rounds=1)
    assert values["status"] == "failed"
    table, result = _table(run)
    assert table == [
        ("planning", "planner", True, None),
        ("implementing", "coder", False, "harm"),
        ("designing_tests", "tester", False, "no-op"),
        ("selecting", "tester", False, "no-op"),
        ("testing", "debugger", False, "no-op"),
        ("debugging", "debugger", False, "no-op"),
        ("reviewing", "reviewer", False, "no-op"),
    ]
    assert result.origin == result.stages[1] and result.final_correct is False
    # the evidence carries the gate's decision at that step
    assert "gate repeat" in result.stages[5].evidence


def test_a_correct_run_has_no_origin(scripted):
    run = scripted(oracle=HIDDEN_TESTS, planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    run()
    table, result = _table(run)
    assert all(correct for _, _, correct, _ in table) and result.origin is None
    assert [f for *_, f in table] == [None, "no-op", "no-op", "no-op", "no-op", "no-op"]


def test_a_forked_branch_has_its_own_blame(scripted):
    run = scripted(
        oracle=HIDDEN_TESTS, planner=[PLAN], coder=[BAD, GOOD], debugger=[BAD], reviewer=[APPROVE, APPROVE]
    )
    run(max_rounds=1)
    original = from_graph(run.graph, "test")
    planned = next(c for c in original if c.node == "planning")
    branch_config = store.fork(run.graph, "test", planned.checkpoint_id)
    values = run.graph.invoke(None, branch_config, context=Context(max_candidates=1))
    assert values["status"] == "completed"
    table, forked = _table(run)
    assert forked.origin is None and table[1] == ("implementing", "coder", True, "no-op")
    # the fork's own write is no stage: the branch's trace runs planning once, implementing once
    trace = [s.stage for s in steps(from_graph(run.graph, "test"), LIFECYCLE)]
    assert trace[:3] == ["initialized", "planning", "implementing"] and trace.count("implementing") == 1
    # the original branch, addressed by its head, keeps its own blame
    _, before = _table(run, head=original[-1].checkpoint_id)
    assert before.origin is not None and before.origin.stage == "implementing"


def test_offline_blame_judges_a_run_that_stored_no_judgments(scripted):
    run = scripted(oracle=None, planner=[PLAN], coder=[BAD], debugger=[BAD], reviewer=[APPROVE])
    values = run(max_rounds=1)
    assert not values.get("judgments")
    assert blame(from_graph(run.graph, "test"), LIFECYCLE).stages == ()
    offline = blame(from_graph(run.graph, "test"), LIFECYCLE, oracle=HIDDEN_TESTS)
    assert [(s.stage, s.correct) for s in offline.stages][:2] == [("planning", True), ("implementing", False)]
    assert offline.origin is not None and offline.origin.stage == "implementing"


def test_judgments_and_ledger_entries_carry_their_checkpoint_step(scripted):
    run = scripted(planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    values = run()
    steps = {c.node: c.step for c in from_graph(run.graph, "test")}
    judged = ("implementing", "designing_tests", "selecting", "testing", "reviewing")
    assert {j["stage"]: j["step"] for j in values["judgments"]} == {stage: steps[stage] for stage in judged}
    assert all(e["step"] == steps[e["stage"]] for e in values["ledger"])
    assert values["judgments"][0]["oracle"] == "visible tests" and values["judgments"][0]["correct"]


def test_mast_counts_contract_violations_repaired_on_retry_and_unrepaired(scripted):
    run = scripted(planner=["no tool call", PLAN], coder=[GOOD], reviewer=[APPROVE])
    assert run()["status"] == "completed"
    findings = detect(steps(from_graph(run.graph, "test"), LIFECYCLE), run.graph.get_state(run.config).values)
    assert [(f.mode, f.role, f.retried) for f in findings] == [("FM-1.2", "planner", True)]
    assert "planner output model_output: malformed PlanDraft" in findings[0].evidence

    failing = scripted(planner=["no tool call"] * 3)
    values = failing()
    findings = detect(steps(from_graph(failing.graph, "test"), LIFECYCLE), values)
    assert [f.mode for f in findings] == ["FM-1.2"] * 3 and values["status"] == "failed"
    # Two attempts were caught and retried; the last violation is the one the run ended on.
    assert [f.retried for f in findings] == [True, True, False]
