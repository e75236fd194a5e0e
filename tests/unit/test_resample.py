"""Resampling: when no candidate passes every example, the Coder adds fresh sampled candidates to the pool,
as often as ``max_resamples`` allows; then the run fails on the selection's evidence, with no Debugger call.
A single candidate has no pool to draw from and goes to repair (``test_development_graph``)."""

from __future__ import annotations

from tests.conftest import APPROVE, BAD, GOOD, PLAN, fenced

TIMES = fenced("def add(a, b):\n    return a * b\n")


def selections(values: dict) -> list[tuple[str, str, str]]:
    return [
        (v["outcome"], v["target"], v["evidence"]) for v in values["verdicts"] if v["stage"] == "selecting"
    ]


def test_a_pool_without_a_passing_candidate_is_resampled_and_the_new_one_chosen(scripted):
    run = scripted(planner=[PLAN], coder=[BAD, TIMES, GOOD, BAD], reviewer=[APPROVE])
    values = run(max_candidates=2, max_resamples=1)
    assert values["status"] == "completed" and "a + b" in values["code"]["files"]["solution.py"]
    (first, _, why), (second, target, _) = selections(values)
    assert (first, second, target) == ("resample", "pass", "testing")
    assert why.startswith("no candidate passes every example; candidate 1 of 2: 0 examples")
    # two fresh draws: the plan's prompt, then the task-alone one; the repeat of BAD is not added
    prompts = run.models["coder"].prompts
    assert prompts[2] == prompts[1] and prompts[3] == prompts[0]
    assert values["selection"]["chosen"] == 2 and len(values["selection"]["scores"]) == 3
    assert any(e["detail"] == "fresh candidate repeats one in the pool" for e in values["ledger"])
    assert values["counters"]["resample"] == 1 and values["counters"]["round"] == 1


def test_by_default_a_pool_without_a_passing_candidate_fails_the_run_and_the_gate_says_why(scripted):
    run = scripted(planner=[PLAN], coder=[BAD, TIMES], debugger=[GOOD], reviewer=[APPROVE])
    values = run(max_candidates=2)
    assert values["status"] == "failed" and run.models["coder"].calls == 2
    [(outcome, target, why)] = selections(values)
    assert (outcome, target) == ("unsolved", "failed")
    assert why.startswith("no resample left; no candidate passes every example")
    # the Debugger would be judged on the examples every candidate already failed: it is not asked
    assert run.models["debugger"].calls == 0 and "testing" not in run.path(values)
    assert "a - b" in values["code"]["files"]["solution.py"]  # the best of the pool is what the run keeps


def test_resampling_stops_when_its_budget_is_spent(scripted):
    fresh = [fenced(f"def add(a, b):\n    return a - b - {i}\n") for i in range(1, 5)]
    run = scripted(planner=[PLAN], coder=[BAD, TIMES, *fresh], debugger=[GOOD], reviewer=[APPROVE])
    values = run(max_candidates=2, max_resamples=2)
    assert [s[:2] for s in selections(values)] == [
        ("resample", "implementing"),
        ("resample", "implementing"),
        ("unsolved", "failed"),
    ]
    assert run.models["coder"].calls == 6 and len(values["selection"]["scores"]) == 6
    assert values["status"] == "failed" and run.models["debugger"].calls == 0


def test_fresh_candidates_that_add_nothing_end_the_resampling_at_once(scripted):
    # Every fresh candidate repeats one in the pool: the selection meets the same evidence again.
    run = scripted(planner=[PLAN], coder=[BAD, TIMES, *[BAD, TIMES] * 4], debugger=[GOOD], reviewer=[APPROVE])
    values = run(max_candidates=2, max_resamples=5)
    outcomes = [s[:2] for s in selections(values)]
    assert outcomes == [("resample", "implementing"), ("unsolved", "failed")]
    assert selections(values)[-1][2].startswith("evidence repeats: implementing changed nothing selecting")
    assert run.models["coder"].calls == 4 and values["status"] == "failed"
