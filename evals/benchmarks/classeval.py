"""ClassEval (100 class-level tasks, FudanSELab): problems, and the hidden-test oracle.

The agents see a task's class skeleton alone. The oracle runs ClassEval's unittest classes against the
produced module in Accord's sandbox: one test class per method (method-level) and one that drives the class
as a whole; the class-level result is all of them passing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from accord.evals.benchmarks.humaneval import examples_hold
from accord.evals.paths import data_dir
from accord.graphs.oracle import Oracle, code_or_plan
from accord.runtime import harness, sandbox
from accord.state.artifacts import CodeArtifact, Plan

MODULE = "solution"
SEED = 0
"""Each test class runs after ``random.seed(SEED)``: a class drawing random values (ClassEval_58 places
mines at random, and its reference can place two on one cell) is judged the same way on every run."""

_RUNNER = """
def checks():
    import random, types, unittest

    equal = unittest.TestCase.assertEqual

    def own_equality(value):
        kind = BUILTINS["type"](value)
        return isinstance(kind.__eq__, types.FunctionType) or isinstance(kind.__ne__, types.FunctionType)

    def plain_equal(self, first, second, msg=None):
        # Compared with plain data, a value whose class answers == itself proves nothing.
        for value, other in ((first, second), (second, first)):
            if is_plain(other) and own_equality(value):
                raise self.failureException(
                    f"{BUILTINS['type'](value).__name__} defines its own equality; compared with plain data"
                )
        return equal(self, first, second, msg)

    unittest.TestCase.assertEqual = unittest.TestCase.assertEquals = plain_equal
    import os
    # The tests find their own files beside them, as they would in the workspace.
    scope = {"__name__": "__accord_classeval__", "__builtins__": BUILTINS,
             "__file__": os.path.join(os.getcwd(), "test_classeval.py")}
    exec(compile(TESTS, "<classeval tests>", "exec"), scope)
    results = {}
    for name in CLASSES:
        random.seed(SEED)
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(scope[name])
        outcome = unittest.TestResult()
        suite.run(outcome)
        problems = [text for _, text in outcome.failures + outcome.errors]
        results[name] = {"passed": outcome.wasSuccessful() is True and outcome.testsRun > 0,
                         "message": problems[0][-600:] if problems else ""}
    return results
"""
"""The hidden tests as a harness (``runtime.harness``): each class's result comes from its record."""


@cache
def problems() -> dict[str, dict[str, Any]]:
    """Return the 100 ClassEval tasks by task id."""
    rows = json.loads((data_dir() / "classeval" / "ClassEval_data.json").read_text(encoding="utf-8"))
    return {row["task_id"]: row for row in rows}


@cache
def runnable() -> dict[str, dict[str, Any]]:
    """Return the tasks whose reference solution passes its own tests here, by task id.

    The others cannot be solved on this machine whatever the agents write: their tests need packages
    Accord does not install (pandas, nltk, gensim, openpyxl, python-docx, PyPDF2), an older NumPy, the
    network, or a date that has passed. Checked by running each reference in the sandbox (about 25 s).
    """
    return {
        tid: p
        for tid, p in problems().items()
        if passes(p, CodeArtifact(files={f"{MODULE}.py": p["solution_code"]}))[0]
    }


def method_classes(problem: Mapping[str, Any]) -> dict[str, str]:
    """Return each method's test class by method name (ClassEval's method-level tests)."""
    return {m["method_name"]: m["test_class"].strip() for m in problem["methods_info"]}


def test_classes(problem: Mapping[str, Any]) -> list[str]:
    """Return the task's test class names (one task's list spells a name with a leading space)."""
    return [name.strip() for name in problem["test_classes"]]


def run_tests(problem: Mapping[str, Any], code: CodeArtifact, timeout_s: float = 30.0) -> dict[str, Any]:
    """Return each of the task's test classes' result (``passed``, ``message``) for ``code``; a module that
    does not import, or a run that ends early, fails every class with the output as its message."""
    tests = "\n".join([f"from {MODULE} import *", *problem["import_statement"], problem["test"]])
    body = f"TESTS = {tests!r}\nCLASSES = {test_classes(problem)!r}\nSEED = {SEED!r}\n{_RUNNER}"
    checked = harness.run_checks(body, code.files, sandbox.Limits(timeout_s=timeout_s, cpu_s=int(timeout_s)))
    if checked.completed and isinstance(checked.value, dict):
        return checked.value
    output = (checked.result.stderr[-400:] + "\n" + checked.error)[-600:]
    return {name: {"passed": False, "message": output} for name in test_classes(problem)}


def passes(problem: Mapping[str, Any], code: CodeArtifact) -> tuple[bool, str, dict[str, bool]]:
    """Return whether ``code`` passes every test class, the first failure, and each method's result."""
    results = run_tests(problem, code)
    failed = [
        f"{name}: {r['message'].strip().splitlines()[-1] if r['message'].strip() else 'failed'}"
        for name, r in results.items()
        if not r["passed"]
    ]
    methods = {
        method: bool(results.get(test_class, {}).get("passed"))
        for method, test_class in method_classes(problem).items()
    }
    return not failed, failed[0][:1000] if failed else "", methods


def plan_holds(problem: Mapping[str, Any], plan: Plan) -> tuple[bool, str] | None:
    """Return whether every example a plan commits to holds on the task's reference solution, and the
    first that does not; None for a plan that commits to none (as ``humaneval.plan_holds``)."""
    return examples_hold(problem["solution_code"], plan.examples)


def oracle(problem: Mapping[str, Any]) -> Oracle:
    """Return the oracle that judges a checkpoint's code by the task's test classes, and a plan by whether
    its examples hold on the reference solution."""

    def judge_code(state: Mapping[str, Any], call: Any) -> tuple[bool, str]:
        passed, failure, _ = passes(problem, CodeArtifact.model_validate(state["code"]))
        return passed, "every test class passed" if passed else f"hidden tests failed: {failure}"

    def judge_plan(state: Mapping[str, Any], call: Any) -> tuple[bool, str] | None:
        return plan_holds(problem, Plan.model_validate(state["plan"]))

    return Oracle(
        name=f"ClassEval tests of {problem['task_id']}",
        judges={"code": judge_code, "plan": judge_plan},
        candidate=code_or_plan,
    )
