"""The Tester: designs test cases from the specification alone (LLM) and selects a candidate (LOCAL_CODE).

Two duties. ``design_tests`` sees only the task (never the code, by contract) and writes edge-case and
example asserts for a function, which code parses into a TestSuite. ``select`` runs every candidate in
the sandbox against the task's examples and the Tester's cases, and keeps the one with the most executed
evidence: examples passed first, then agreement, CodeT's dual execution agreement: how many candidates
behave the same on the Tester's cases, times how many of those cases the behaviour passes. A case the
chosen code disagrees with is flagged: the small model's expected values are often wrong, so a disputed
case is evidence to weigh, never a test to chase. The cases the candidates returned different values on are
the selection's disputes, which the Planner decides from the task's words.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping
from typing import Any

from accord.nodes import testing
from accord.nodes.development.artifacts import Candidates, CandidateScore, Dispute, Selection, TestSuite
from accord.nodes.llm import text
from accord.nodes.views import FUNCTION_FILE, artifacts, code_block, task_view
from accord.runtime import sandbox
from accord.runtime.executor import perform
from accord.state.artifacts import CodeArtifact, Example, TaskSpec, TestReport
from accord.state.graph_state import dump, read
from accord.state.stage import OutputError, StageCall

SYSTEM = """You write tests from the specification alone, before any code exists. Every expected value
must follow from the description: work it out step by step."""

DESIGN_PROMPT = """{task}

Write {count} test cases for `{name}`: the docstring's examples, then edge cases (empty input, a single
element, negative numbers, zero, duplicates, large values) and any rule the description states. One assert
per line, in this form:
{form}

Answer with the asserts in one ```python code block."""

MAX_DISPUTES = 4
"""Disputed cases put to the Planner at most: a short list a small model reads whole."""

FORMS = {
    "function": "assert {name}(...) == expected_value",
    "class": "assert {name}(...).method(...) == expected_value   (make the object in the same line)",
}
"""The one-line assert the Tester writes, by the kind of stub."""


def parse_asserts(source: str, name: str) -> list[Example]:
    """Return the ``assert name(...) == value`` lines of ``source`` as examples (others are skipped); for a
    class, ``assert Name(...).method(...) == value``.

    ``assert name(...)`` and ``assert not name(...)`` read as ``== True`` and ``== False``. Each line is
    parsed on its own, so one broken line costs only itself.
    """
    cases: dict[str, Example] = {}
    for line in source.splitlines():
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            continue
        if len(tree.body) != 1 or not isinstance(node := tree.body[0], ast.Assert):
            continue
        call, expected = _sides(node.test)
        if call is not None and _calls(call, name) and call not in cases:
            cases[call] = Example(call=call, expected=expected)
    return list(cases.values())


def _sides(test: ast.expr) -> tuple[str | None, str]:
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        return ast.unparse(test.left), ast.unparse(test.comparators[0])
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ast.unparse(test.operand), "False"
    return ast.unparse(test), "True"


def _calls(expression: str, name: str) -> bool:
    """Return whether ``expression`` is a call of ``name``, or of a method on what a call of it returns."""
    node = ast.parse(expression, mode="eval").body
    return isinstance(node, ast.Call) and any(
        isinstance(n, ast.Name) and n.id == name and (n is node.func or _called(n, node.func))
        for n in ast.walk(node.func)
    )


def _called(name: ast.Name, callee: ast.expr) -> bool:
    return any(isinstance(c, ast.Call) and c.func is name for c in ast.walk(callee))


def design_tests(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write test cases for a function task from its specification."""
    task = read(state, "task", TaskSpec)
    assert task is not None
    if not task.completes_stub or not task.entry_point:
        raise OutputError(
            "the Tester designs cases for a function; an application's tests are pytest "
            "files the Coder writes with its code"
        )
    budget = max(1, call.context.max_tests)

    def write(task: TaskSpec) -> TestSuite:
        name = task.entry_point or ""
        form = FORMS[task.level].format(name=name)
        reply = text(
            call,
            SYSTEM,
            DESIGN_PROMPT.format(task=task_view(task), name=name, count=budget, form=form),
            what="tests",
        )
        known = {e.call for e in task.examples}
        cases = [c for c in parse_asserts(code_block(reply), name) if c.call not in known]
        if not cases:
            raise OutputError(f"no `assert {name}(...) == value` line beyond the docstring's examples")
        return TestSuite(cases=tuple(cases[:budget]))

    return {"tests": dump(perform(call, "tests", write, task=task))}


def select(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Run every candidate on the examples and the Tester's cases; keep the best by executed evidence.

    The examples are the plan's, or the task's own where no plan was written (plain attempts
    cross-checked before any team is called in)."""
    task, plan, _ = artifacts(state)
    candidates = read(state, "candidates", Candidates)
    suite = read(state, "tests", TestSuite)
    assert candidates is not None
    examples, cases = (plan or task).examples, suite.cases if suite else ()
    limits = sandbox.Limits(timeout_s=call.context.sandbox_timeout_s)

    def run(code: CodeArtifact) -> TestReport:
        report, result = testing.run_examples(code, FUNCTION_FILE, (*examples, *cases), limits)
        call.record(
            "sandbox",
            latency_s=result.duration_s,
            outcome=report.ending,
            detail=f"candidate {len(reports) + 1}: {_passed(report, 0, len(examples))}/"
            f"{len(examples)} examples, {_passed(report, len(examples), len(cases))}/"
            f"{len(cases)} tests",
        )
        return report

    reports: list[TestReport] = []
    for code in candidates.items:
        reports.append(perform(call, "sandbox", run, code=code))
    scores = score(reports, len(examples), len(cases))
    best = max(scores, key=rank)
    chosen = reports[best.index].cases[len(examples) :]
    flagged = tuple(
        case
        for case, result in zip(cases, _padded(chosen, len(cases)), strict=True)
        if result is None or not result.passed
    )
    selection = Selection(
        chosen=best.index,
        scores=tuple(scores),
        flagged=flagged,
        disputes=disputes(reports, len(examples), cases),
    )
    return {"code": dump(candidates.items[best.index]), "selection": dump(selection)}


def score(reports: list[TestReport], examples: int, cases: int) -> list[CandidateScore]:
    """Return each candidate's examples passed, Tester cases passed and agreement with the others."""
    behaviours = [
        _behaviour(r, examples, cases) if len(r.cases) == examples + cases else (f"no run {i}",)
        for i, r in enumerate(reports)
    ]  # a run that reported no cases agrees with nothing
    return [
        CandidateScore(
            index=i,
            examples_passed=_passed(r, 0, examples),
            tests_passed=_passed(r, examples, cases),
            agreeing=behaviours.count(behaviours[i]),
            answered=sum(1 for c in r.cases[examples : examples + cases] if not c.got.startswith("raised ")),
        )
        for i, r in enumerate(reports)
    ]


def disputes(reports: list[TestReport], examples: int, cases: tuple[Example, ...]) -> tuple[Dispute, ...]:
    """Return the Tester cases on which the candidates that ran them all returned different values, at
    most ``MAX_DISPUTES``, each with the values returned, the most candidates' first.

    A value is offered only as it can be stated again as an expected value: a whole repr that parses."""
    ran = [r.cases[examples:] for r in reports if len(r.cases) == examples + len(cases)]
    found = []
    for j, case in enumerate(cases):
        got = [results[j].got for results in ran]
        answers = [a for a, _ in Counter(got).most_common() if _restatable(a)]
        if len(set(got)) > 1 and answers:
            found.append(Dispute(case=case, answers=tuple(answers)))
    return tuple(found[:MAX_DISPUTES])


def _restatable(got: str) -> bool:
    if got.startswith("raised ") or len(got) >= testing.SHOWN_LIMIT:
        return False
    try:
        ast.parse(got, mode="eval")
    except SyntaxError:
        return False
    return True


def rank(entry: CandidateScore) -> tuple[int, int, int]:
    """Sort key for a candidate: examples passed, then agreement x (cases passed + 1), then the earlier."""
    return entry.examples_passed, entry.agreeing * (entry.tests_passed + 1), -entry.index


def _behaviour(report: TestReport, start: int, count: int) -> tuple[str, ...]:
    """Return what a candidate returned (or raised) on each Tester case."""
    return tuple(r.got for r in report.cases[start : start + count])


def _padded(results: tuple[Any, ...], count: int) -> list[Any]:
    return [*results[:count], *[None] * (count - len(results[:count]))]


def _passed(report: TestReport, start: int, count: int) -> int:
    return sum(1 for r in _padded(report.cases[start:], count) if r is not None and r.passed)
