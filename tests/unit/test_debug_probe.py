"""The Debugger probe: the same wrong first candidate fixed with and without the trace, judged by hidden
tests, summarised per variant."""

from __future__ import annotations

from accord.evals.benchmarks.humaneval import problems
from accord.evals.probes import debugger as debug_probe
from accord.state.artifacts import CodeArtifact
from accord.state.context import Context
from tests.scripted import ScriptedChatModel
from tests.unit.test_evals import SOLVED, WRONG

ZERO = problems()["HumanEval/0"]


def test_a_wrong_first_candidate_is_fixed_by_each_debugger_and_judged_by_the_hidden_tests():
    coder = {"coder": ScriptedChatModel(script=[WRONG])}
    given = debug_probe.first_candidate(Context(), ZERO, coder)
    assert given["code"] and not given["examples_pass"] and not given["hidden_pass"]
    code = CodeArtifact.model_validate(given["code"])
    rows = [given]
    for variant, answer in (("traced", SOLVED), ("untraced", WRONG)):
        debugger = ScriptedChatModel(script=[answer], repeat_last=True)
        rows.append(debug_probe.fixed(Context(), ZERO, code, variant, {"debugger": debugger}))
        # Only the traced Debugger reads the failing call's steps.
        assert ("Trace of this call" in debugger.prompts[0]) == (variant == "traced")
    assert [(r["repaired"], r["examples_pass"], r["changed"]) for r in rows[1:]] == [
        (True, True, True),
        (False, False, False),
    ]
    # A fix that hands the candidate back is drawn again, as in the graph, where it is in the pool.
    assert debugger.calls > 1
    report = debug_probe.summary(rows)
    assert "| traced | 1 / 1 | 1 / 1 | 1 / 1 |" in report and "| untraced | 0 / 1 | 0 / 1 | 0 / 1 |" in report
    assert "traced: HumanEval/0; untraced: none" in report


def test_only_candidates_that_fail_both_their_examples_and_the_hidden_tests_are_counted():
    rows = [
        {"id": "a", "variant": "input", "code": {}, "examples_pass": True, "hidden_pass": False},
        {"id": "b", "variant": "input", "code": {}, "examples_pass": False, "hidden_pass": True},
        {"id": "c", "variant": "input", "code": None},
    ]
    assert debug_probe.summary(rows).startswith("3 problems; 0 first candidates fail")
