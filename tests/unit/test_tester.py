"""The Tester's pieces in isolation: parsing asserts, running candidates, scoring and ranking them."""

from __future__ import annotations

import pytest

from accord.nodes import testing
from accord.nodes.development.artifacts import Dispute
from accord.nodes.development.planner import decisions, disputes_view
from accord.nodes.development.tester import disputes, parse_asserts, rank, score
from accord.nodes.views import FUNCTION_FILE, code_block
from accord.runtime import sandbox
from accord.state.artifacts import CaseResult, CodeArtifact, Example, TestReport
from accord.state.stage import OutputError


def test_asserts_become_examples_and_everything_else_is_skipped():
    source = """import math
assert add(1, 2) == 3
assert add(-1, 1) == 0  # a comment
assert add(1, 2) == 3
assert is_even(4)
assert not is_even(3)
assert add(1, 2) > 0
assert add(1,
assert other(1) == 2
for x in range(3): assert add(x, 0) == x
"""
    # A comparison other than == and a loop are not single calls with one expected value: skipped.
    assert parse_asserts(source, "add") == [
        Example(call="add(1, 2)", expected="3"),
        Example(call="add(-1, 1)", expected="0"),
    ]
    assert parse_asserts(source, "is_even") == [
        Example(call="is_even(4)", expected="True"),
        Example(call="is_even(3)", expected="False"),
    ]


def test_code_block_prefers_the_block_that_defines_the_function():
    reply = "First a helper:\n```python\nx = 1\n```\nThen:\n```python\ndef f():\n    return x\n```\nDone."
    assert code_block(reply, "f") == "def f():\n    return x\n"
    assert code_block(reply) == "x = 1\n"
    assert code_block("```python\ndef f():\n    pass").strip() == "def f():\n    pass"  # cut off mid-block
    assert code_block("```\npython\nimport os\n```") == "import os\n"  # the language on its own line


def _run(body: str, cases: tuple[Example, ...], traced: int = 0, timeout_s: float = 5) -> TestReport:
    code = CodeArtifact(files={FUNCTION_FILE: body}, entry_points=(FUNCTION_FILE,))
    report, _ = testing.run_examples(code, FUNCTION_FILE, cases, sandbox.Limits(timeout_s=timeout_s), traced)
    return report


def test_each_case_records_what_the_call_returned_or_raised():
    report = _run(
        "def f(x):\n    return 10 // x\n",
        (
            Example(call="f(2)", expected="5"),
            Example(call="f(0)", expected="0"),
            Example(call="f(5)", expected="undefined_name"),
        ),
    )
    assert [(c.passed, c.got) for c in report.cases[:2]] == [(True, "5"), (False, "raised ZeroDivisionError")]
    # An expected value that does not evaluate is the test's fault, reported as such.
    assert not report.cases[2].passed and "expected value" in report.cases[2].message


def test_a_call_that_hangs_fails_alone_and_the_others_still_report():
    report = _run(
        "def f(x):\n    while x: pass\n    return x\n",
        (
            Example(call="f(0)", expected="0"),
            Example(call="f(1)", expected="1"),
            Example(call="f(0)", expected="0"),
        ),
    )
    assert [c.passed for c in report.cases] == [True, False, True]
    assert report.cases[1].got == "raised TimeoutError" and "took longer than" in report.cases[1].message


def test_the_first_failing_calls_are_traced_with_their_locals_and_how_they_ended():
    body = (
        "def total(xs):\n    s = 0\n    for x in xs:\n        s += x * 2\n    return s\n\n"
        "def ratio(x):\n    return 10 // x\n\ndef spin(x):\n    while x:\n        x += 1\n"
    )
    cases = (
        Example(call="total([])", expected="0"),
        Example(call="total([1, 2])", expected="3"),
        Example(call="ratio(0)", expected="0"),
        Example(call="total(list(range(50)))", expected="1225"),
        Example(call="spin(1)", expected="0"),
        Example(call="ratio(0)", expected="1"),
    )
    # A limit that leaves each trace half a second of wall time, even on a busy machine.
    passing, wrong, raising, long, hanging, untraced = _run(body, cases, traced=4, timeout_s=20).cases
    assert passing.passed and not passing.trace
    assert wrong.trace.splitlines() == [
        "total line 2: s = 0   [xs=[1, 2]]",
        "total line 3: for x in xs:   [xs=[1, 2], s=0]",
        "total line 4: s += x * 2   [xs=[1, 2], s=0, x=1]",
        "total line 3: for x in xs:   [xs=[1, 2], s=2, x=1]",
        "total line 4: s += x * 2   [xs=[1, 2], s=2, x=2]",
        "total line 3: for x in xs:   [xs=[1, 2], s=6, x=2]",
        "total line 5: return s   [xs=[1, 2], s=6, x=2]",
        "total returns 6",
    ]
    # A call that raises ends with the exception, not with the None its frame returns.
    assert raising.trace.splitlines()[-2:] == [
        "ratio line 8: return 10 // x   [x=0]",
        "raised ZeroDivisionError: integer division or modulo by zero",
    ]
    # A long call keeps its first and last steps and says how many fell between (104 steps in all).
    steps = long.trace.splitlines()
    assert len(steps) == testing.TRACE_HEAD + 1 + testing.TRACE_TAIL
    assert steps[testing.TRACE_HEAD] == "... 90 more ..." and steps[-1] == "total returns 2450"
    # One that never ends is stopped by the trace's own timer.
    assert hanging.trace.splitlines()[-1].startswith("raised TimeoutError: took longer than")
    assert not untraced.passed and not untraced.trace  # only the first four failing calls


def test_the_trace_s_timer_ends_a_call_even_while_a_local_is_being_shown():
    body = (
        "import time\n\nclass Slow:\n    def __repr__(self):\n        time.sleep(0.05)\n"
        "        return 'Slow'\n\ndef f(x):\n    s = Slow()\n    while x:\n        x += 1\n"
    )
    [case] = _run(body, (Example(call="f(1)", expected="0"),), traced=1).cases
    assert case.trace.splitlines()[-1].startswith("raised TimeoutError")


def test_a_call_that_hangs_only_when_traced_loses_no_result():
    body = (
        "import sys, time\n\ndef f(x):\n    while sys.gettrace() is not None:\n        try:\n"
        "            time.sleep(1)\n        except BaseException:\n            pass\n    return x\n"
    )
    report = _run(body, (Example(call="f(1)", expected="1"), Example(call="f(2)", expected="3")), traced=1)
    # The sandbox stops the traced run; the results printed before it stand.
    assert [(c.passed, c.got) for c in report.cases] == [(True, "1"), (False, "2")]
    assert report.cases[1].message == "f(2) returned 2, expected 3" and not report.cases[1].trace


def _report(*results: tuple[bool, str]) -> TestReport:
    cases = tuple(CaseResult(name=f"case {i}", passed=p, got=g) for i, (p, g) in enumerate(results))
    return TestReport(ending="passed" if all(p for p, _ in results) else "failed", cases=cases)


def test_agreement_counts_candidates_that_behave_alike_on_the_tester_cases():
    # one example, two Tester cases; candidates 0 and 2 behave alike, candidate 1 differs
    reports = [
        _report((True, "1"), (True, "5"), (False, "7")),
        _report((True, "1"), (False, "4"), (True, "6")),
        _report((True, "1"), (True, "5"), (False, "7")),
        TestReport(ending="timeout"),
    ]  # reported no case: agrees with nothing, passes nothing
    scores = score(reports, examples=1, cases=2)
    assert [(s.examples_passed, s.tests_passed, s.agreeing) for s in scores] == [
        (1, 1, 2),
        (1, 1, 1),
        (1, 1, 2),
        (0, 0, 1),
    ]
    assert max(scores, key=rank).index == 0  # agreement x (passed + 1), then the earlier candidate


@pytest.mark.parametrize(
    ("examples", "agreeing", "tests", "wins"),
    [
        ((2, 1), (1, 4), (0, 3), 0),  # the docstring's examples come first
        ((1, 1), (1, 3), (3, 0), 0),  # alone passing three cases (1 x 4) beats three agreeing on none (3 x 1)
        ((1, 1), (1, 3), (0, 1), 1),  # three agreeing and passing one (3 x 2) beat one alone passing none
    ],
)
def test_rank_orders_examples_then_weighted_agreement(examples, agreeing, tests, wins):
    from accord.nodes.development.artifacts import CandidateScore

    scores = [
        CandidateScore(index=i, examples_passed=examples[i], tests_passed=tests[i], agreeing=agreeing[i])
        for i in range(2)
    ]
    assert max(scores, key=rank).index == wins


def test_a_dispute_is_a_case_the_candidates_returned_different_values_on():
    cases = (Example(call="f(1)", expected="2"), Example(call="f(2)", expected="3"))
    cases += (Example(call="f(3)", expected="4"), Example(call="f(4)", expected="5"))
    reports = [
        _report((True, "1"), (True, "2"), (True, "3"), (False, "raised ValueError"), (False, "'x' * 9")),
        _report((True, "1"), (True, "2"), (False, "7"), (False, "raised ValueError"), (False, "<object>")),
        _report((True, "1"), (True, "2"), (False, "7"), (False, "raised TypeError"), (False, "<object>")),
        TestReport(ending="timeout"),
    ]  # the last reported no case: it answered nothing to compare
    # f(1): all alike; f(2): 7 twice, then 3; f(3): only raising, nothing to choose; f(4): one answer
    # that can be stated as an expected value, one that cannot.
    assert disputes(reports, 1, cases) == (
        Dispute(case=cases[1], answers=("7", "3")),
        Dispute(case=cases[3], answers=("'x' * 9",)),
    )


def test_a_planner_s_decisions_are_read_line_by_line_and_none_decides_nothing():
    cases = [Example(call=f"f({n})", expected="0") for n in range(3)]
    found = tuple(Dispute(case=c, answers=("1", "2")) for c in cases)
    reply = 'Here you go:\n1: b "adds one"\n2. none\n3) A\n3: B\n7: A\nA. 1'
    assert decisions(reply, found) == (
        (Example(call="f(0)", expected="2"), '"adds one"'),
        (Example(call="f(2)", expected="1"), ""),
    )  # the second line 3 and the number out of range are skipped
    with pytest.raises(OutputError, match="no line reads"):
        decisions("The first one is right.", found)
    assert disputes_view(found[:1]) == "1. f(0)\n   A. 1\n   B. 2"
