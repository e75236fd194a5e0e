"""The plain attempt first: one call checked on the task's examples, sampled again while it fails them, the
team only when its samples are spent or fail alike."""

from __future__ import annotations

from accord.accountability.blame import blame
from accord.accountability.mast import detect
from accord.accountability.trace import steps
from accord.graphs.development import LIFECYCLE
from accord.graphs.oracle import Oracle
from accord.state.context import Context
from accord.state.history import from_graph
from tests.conftest import APPROVE, BAD, GOOD, PLAN, STUB, fenced

ATTEMPT = ["initialized", "attempting", "checking", "reviewing", "completed"]
ALIKE = fenced("def add(a, b):\n    return -(b - a)\n")
"""Other code than BAD that fails the examples exactly as BAD does."""
TIMES = fenced("def add(a, b):\n    return a * b\n")
"""Fails the examples otherwise than BAD."""
SAMPLED_THEN_ESCALATED = [("retry", "attempting"), ("escalate", "planning")]


def test_an_attempt_that_passes_the_examples_completes_without_the_team(scripted):
    run = scripted(planner=[PLAN], coder=[GOOD], debugger=[BAD], reviewer=[APPROVE])
    values = run(first_attempt=True)
    assert values["status"] == "completed" and run.path(values) == ATTEMPT
    assert values["reason"].startswith("verified by the task's 2 stated examples; approved")
    assert "return a + b" in values["code"]["files"]["solution.py"]
    assert run.models["coder"].calls == 1
    assert [run.models[r].calls for r in ("planner", "tester", "debugger", "reviewer")] == [0, 0, 0, 0]
    checked = next(v for v in values["verdicts"] if v["stage"] == "checking")
    assert (checked["outcome"], checked["evidence"]) == (
        "pass",
        "3/3 checks passed (the entry point's definition and 2 stated examples)",
    )
    # The attempt is asked for as the single baseline asks: the stub alone, no plan, no role identity.
    assert "add(a: int, b: int)" in run.models["coder"].prompts[0]
    assert "subtasks" not in run.models["coder"].prompts[0]


def test_a_failed_attempt_is_sampled_again_and_a_passing_sample_completes_without_the_team(scripted):
    run = scripted(planner=[PLAN], coder=[BAD, GOOD], reviewer=[APPROVE])
    values = run(first_attempt=True)
    assert run.path(values) == [
        "initialized",
        "attempting",
        "checking",
        "attempting",
        "checking",
        "reviewing",
        "completed",
    ]
    assert values["status"] == "completed" and "return a + b" in values["code"]["files"]["solution.py"]
    retry, passed = [v for v in values["verdicts"] if v["stage"] == "checking"]
    assert retry["outcome"] == "retry" and "add(1, 2)" in retry["evidence"] and "got -1" in retry["evidence"]
    assert passed["outcome"] == "pass"
    assert run.models["coder"].calls == 2 and run.models["planner"].calls == 0
    # The sample is asked for as the first attempt was: the stub alone.
    assert run.models["coder"].prompts[1] == run.models["coder"].prompts[0]


def test_samples_end_when_spent_or_when_one_fails_as_the_one_before(scripted):
    run = scripted(planner=[PLAN], coder=[BAD, TIMES, GOOD], reviewer=[APPROVE])
    values = run(first_attempt=True, max_samples=1, max_candidates=2)
    checks = [v for v in values["verdicts"] if v["stage"] == "checking"]
    assert [(v["outcome"], v["target"]) for v in checks] == SAMPLED_THEN_ESCALATED
    assert checks[1]["evidence"].startswith("no sampled attempt left")

    run = scripted(planner=[PLAN], coder=[BAD, ALIKE, GOOD], reviewer=[APPROVE])
    values = run(first_attempt=True, max_candidates=2)
    checks = [v for v in values["verdicts"] if v["stage"] == "checking"]
    assert [(v["outcome"], v["target"]) for v in checks] == SAMPLED_THEN_ESCALATED
    assert checks[1]["evidence"].startswith("evidence repeats: attempting changed nothing checking checks")
    assert values["status"] == "completed" and run.models["coder"].calls == 3


def test_an_attempt_that_fails_an_example_escalates_and_is_the_pools_plain_candidate(scripted):
    run = scripted(planner=[PLAN], coder=[BAD, GOOD], reviewer=[APPROVE])
    values = run(first_attempt=True, max_samples=0, max_candidates=2)
    path = run.path(values)
    assert path[:5] == ["initialized", "attempting", "checking", "planning", "implementing"]
    assert values["status"] == "completed" and "return a + b" in values["code"]["files"]["solution.py"]
    checked = next(v for v in values["verdicts"] if v["stage"] == "checking")
    assert checked["outcome"] == "escalate" and checked["target"] == "planning"
    assert "add(1, 2)" in checked["evidence"]
    # Two candidates, two Coder calls in all: the attempt was not asked for again.
    assert run.models["coder"].calls == 2 and run.models["planner"].calls == 1
    assert len(values["selection"]["scores"]) == 2
    assert "a - b" in values["candidates"]["items"][0]["files"]["solution.py"]


def test_blame_judges_the_attempt_like_any_stage(scripted):
    run = scripted(planner=[PLAN], coder=[BAD, GOOD], reviewer=[APPROVE])
    run(first_attempt=True, max_samples=0, max_candidates=2)
    report = blame(from_graph(run.graph, "test"), LIFECYCLE)
    attempt = next(s for s in report.stages if s.stage == "attempting")
    assert attempt.correct is False and attempt.role == "coder"
    assert report.final_correct is True and report.origin is None
    assert report.rates()["tester"]["repairs"] == 1


def test_the_team_at_once_when_asked_or_when_a_person_approves_the_plan(scripted):
    run = scripted(planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    values = run(first_attempt=False)
    assert run.path(values)[:2] == ["initialized", "planning"]
    assert values["verdicts"][0]["evidence"].startswith("no plain attempt first")

    run = scripted(planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    run.graph.invoke({"request": STUB, "approve_plan": True}, run.config, context=Context(first_attempt=True))
    assert run.graph.get_state(run.config).next == ("approving",)


def test_blame_credits_a_passing_sample_with_the_repair(scripted):
    run = scripted(planner=[PLAN], coder=[BAD, GOOD], reviewer=[APPROVE])
    run(first_attempt=True)
    report = blame(from_graph(run.graph, "test"), LIFECYCLE)
    attempts = [s for s in report.stages if s.stage == "attempting"]
    assert [s.correct for s in attempts] == [False, True]
    assert report.final_correct is True and report.rates()["coder"]["repairs"] == 1


BARE = STUB.replace("    >>> add(1, 2)\n    3\n    >>> add(-1, 1)\n    0\n", "")
"""The stub stating no example."""


ADDS = "return a + b"


def solution(state: dict) -> str:
    return state["code"]["files"]["solution.py"]


CROSS_CHECKED = ["initialized", "attempting", "checking", "sampling", "probing", "cross_checking"]
CROSS_CHECKED += ["reviewing"]


def test_a_task_stating_no_example_is_attempted_and_checked_on_its_entry_point(scripted):
    run = scripted(planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    values = run(BARE, first_attempt=True)  # no cross-check by default: the check alone decides
    # Loading its entry point is all that was checked: the code is handed over, and said to be unverified.
    assert values["status"] == "unverified" and run.path(values) == [*ATTEMPT[:-1], "unverified"]
    assert values["reason"].startswith("unverified: the task states no example, and only loading")
    checked = next(v for v in values["verdicts"] if v["stage"] == "checking")
    assert (checked["outcome"], checked["evidence"]) == (
        "pass",
        "no cross-check; 1/1 checks passed (the entry point's definition and 0 stated examples)",
    )
    assert [run.models[r].calls for r in ("coder", "planner", "tester")] == [1, 0, 0]


def test_an_attempt_checked_on_nothing_it_states_is_cross_checked_and_the_majority_kept(scripted):
    # The attempt is wrong yet loads; three samples of the same prompt agree with each other on the
    # Tester's cases, and the selection keeps one of them.
    run = scripted(planner=[PLAN], coder=[BAD, GOOD, GOOD, GOOD], reviewer=[APPROVE])
    values = run(BARE, first_attempt=True, cross_samples=3)
    assert values["status"] == "completed" and run.path(values) == [*CROSS_CHECKED, "completed"]
    assert "return a + b" in values["code"]["files"]["solution.py"]
    assert [run.models[r].calls for r in ("coder", "tester", "planner")] == [4, 1, 0]
    assert values["reason"].startswith(
        "verified by agreement: 3 of 4 candidates behave alike on 3 generated cases "
        "(3 answered, 0 disputed); approved"
    )
    crossed = next(v for v in values["verdicts"] if v["stage"] == "cross_checking")
    assert crossed["outcome"] == "agreed"
    assert crossed["evidence"].startswith("candidate 2 of 4: 3 of 4 candidates behave alike")
    # The Tester wrote its cases from the task alone: no candidate's code is in its prompt.
    assert "return a - b" not in run.models["tester"].prompts[0]
    # The task states nothing a live check could judge by: blame reads a judge that knows the answer.
    hidden = Oracle(name="hidden", judges={"code": lambda state, _: (ADDS in solution(state), "")})
    report = blame(from_graph(run.graph, "test"), LIFECYCLE, hidden)
    assert next(s.correct for s in report.stages if s.stage == "attempting") is False
    assert report.rates()["tester"]["repairs"] == 1 and report.final_correct is True


DISPUTED = ["initialized", "attempting", "checking", "sampling", "probing", "cross_checking", "adjudicating"]
SUM = '1: C "the sum of a and b"\n2: C "the sum"'
"""The Planner's decisions for BAD, TIMES, GOOD and ALIKE on the Tester's cases: on add(2, 3) they return
-1 (twice, so A), 6 (B) and 5 (C); on add(-2, -3), 1 (A), 6 (B) and -5 (C); on add(0, 0) they agree."""


def test_candidates_that_return_different_values_have_the_planner_decide_the_disputed_calls(scripted):
    run = scripted(planner=[SUM], coder=[BAD, TIMES, GOOD, ALIKE], reviewer=[APPROVE])
    values = run(BARE, first_attempt=True, cross_samples=3)
    crossed = next(v for v in values["verdicts"] if v["stage"] == "cross_checking")
    # BAD and ALIKE behave alike (2 of 4, no majority); they disagree with the others on two calls.
    assert crossed["outcome"] == "disputed" and crossed["target"] == "adjudicating"
    assert crossed["evidence"].startswith("candidate 1 of 4: 2 of 4 candidates behave alike")
    assert crossed["evidence"].endswith("2 calls answered differently")
    # The Planner reads the task and the values returned, never the candidates' code.
    [asked] = run.models["planner"].prompts
    assert "1. add(2, 3)\n   A. -1\n   B. 6\n   C. 5\n2. add(-2, -3)\n   A. 1\n   B. 6\n   C. -5" in asked
    assert "return a * b" not in asked and "return a - b" not in asked
    assert values["plan"]["examples"] == [
        {"call": "add(2, 3)", "expected": "5", "setup": []},
        {"call": "add(-2, -3)", "expected": "-5", "setup": []},
    ]
    # Run again with the decisions as examples, the candidate that returns them is kept.
    assert run.path(values) == [*DISPUTED, "rechecking", "reviewing", "completed"]
    assert values["status"] == "completed" and ADDS in solution(values)
    assert values["reason"].startswith("verified by the Planner's 2 decisions, from the task's words")
    rechecked = next(v for v in values["verdicts"] if v["stage"] == "rechecking")
    assert rechecked["evidence"].startswith("candidate 3 of 4: 2 of 2 decided calls")
    # The hidden tests say the attempt was wrong and the final code right.
    hidden = Oracle(name="hidden", judges={"code": lambda state, _: (ADDS in solution(state), "")})
    report = blame(from_graph(run.graph, "test"), LIFECYCLE, hidden)
    assert report.final_correct is True and report.rates()["tester"]["repairs"] == 1


def test_disputed_calls_the_task_does_not_decide_leave_the_run_unverified(scripted):
    run = scripted(planner=["1: none\n2: none"], coder=[BAD, TIMES, GOOD, ALIKE], reviewer=[APPROVE])
    values = run(BARE, first_attempt=True, cross_samples=3)
    assert run.path(values) == [*DISPUTED, "reviewing", "unverified"]
    decided = next(v for v in values["verdicts"] if v["stage"] == "adjudicating")
    assert decided["outcome"] == "undecided"
    assert values["reason"].startswith("unverified: the candidates disagree, 2 of 4 candidates behave alike")


def test_decisions_no_candidate_returns_together_go_back_to_the_coder_as_failing_examples(scripted):
    # B on the first call is TIMES's value, A on the second BAD's: no candidate returns both, the review's
    # integration run of the decided calls fails, and the round budget (1 here) is spent.
    run = scripted(planner=['1: B "a product"\n2: A'], coder=[BAD, TIMES, GOOD, ALIKE], reviewer=[APPROVE])
    values = run(BARE, first_attempt=True, cross_samples=3, max_rounds=1)
    assert run.path(values) == [*DISPUTED, "rechecking", "reviewing", "failed"]
    rechecked = next(v for v in values["verdicts"] if v["stage"] == "rechecking")
    assert rechecked["evidence"].startswith("candidate 1 of 4: 1 of 2 decided calls")
    assert (
        values["status"] == "failed" and "integration tests failed: example 2: add(2, 3)" in values["reason"]
    )


def test_an_attempt_whose_entry_point_does_not_load_is_sampled_again_or_escalated(scripted):
    unloadable = fenced("import no_such_module\n\ndef add(a, b):\n    return a + b\n")
    run = scripted(planner=[PLAN], coder=[unloadable, GOOD], reviewer=[APPROVE])
    values = run(BARE, first_attempt=True)
    checks = [v for v in values["verdicts"] if v["stage"] == "checking"]
    assert [(v["outcome"], v["target"]) for v in checks] == [("retry", "attempting"), ("pass", "reviewing")]
    assert checks[0]["evidence"].startswith("0/1 checks passed (the entry point's definition and 0 stated")
    assert "no_such_module" in checks[0]["evidence"]

    run = scripted(planner=[PLAN], coder=[unloadable, GOOD], reviewer=[APPROVE])
    values = run(BARE, first_attempt=True, max_samples=0, max_candidates=2)
    assert run.path(values)[:4] == ["initialized", "attempting", "checking", "planning"]
    assert values["status"] == "completed" and "no_such_module" not in values["code"]["files"]["solution.py"]


def test_the_failure_detectors_count_the_checked_attempt_as_tested(scripted):
    # The checking stage runs the stated examples: a run that completes after it is not "completed without
    # testing its final code" (FM-3.3), whatever the stage is called.
    run = scripted(planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    values = run(first_attempt=True)
    assert run.path(values) == ATTEMPT
    trace = steps(from_graph(run.graph, "test"), LIFECYCLE)
    assert [s.stage for s in trace if "test_report" in s.wrote] == ["checking"]
    assert detect(trace, values) == []


def test_candidates_alike_only_in_raising_on_every_case_verify_nothing(scripted):
    # The Tester's calls give the function arguments its signature does not take: every candidate raises
    # alike, which says nothing of behaviour.
    wrong_calls = "```python\nassert add(1, 2, 3) == 6\nassert add(0, 0, 0) == 0\n```"
    run = scripted(planner=[PLAN], coder=[GOOD, GOOD, GOOD, GOOD], tester=[wrong_calls], reviewer=[APPROVE])
    values = run(BARE, first_attempt=True, cross_samples=3)
    crossed = next(v for v in values["verdicts"] if v["stage"] == "cross_checking")
    assert crossed["outcome"] == "unanswered" and "0 answered without raising" in crossed["evidence"]
    assert crossed["target"] == "reviewing" and run.models["planner"].calls == 0
    assert values["status"] == "unverified"
    assert values["reason"].startswith("unverified: the chosen candidate raised on every generated case")
