"""An application's tests: one pytest test per planned function, sampled until one passes against the
code in the sandbox (code and test written apart and agreeing, as in CodeT)."""

from __future__ import annotations

import ast

from accord.nodes import sessions, testing
from accord.nodes.coding.prompts import TEST_PROMPT
from accord.nodes.coding.writing import function_name, merged, write_test
from accord.nodes.llm import retry_temperature
from accord.nodes.merge import (
    definition,
    named_tests,
)
from accord.nodes.static_check import test_functions
from accord.nodes.views import (
    APP_FILE,
    TEST_FILE,
)
from accord.runtime import sandbox
from accord.runtime.executor import perform
from accord.state.artifacts import CaseResult, CodeArtifact, Design, Plan, TestReport
from accord.state.stage import OutputError, StageCall

TEST_SAMPLES = 3
"""Tests sampled per function until one agrees with the code."""


def write_tests(call: StageCall, plan: Plan, app: CodeArtifact) -> CodeArtifact:
    """Return the app with a pytest test for each function the plan names (its CLI aside).

    Tests are sampled one function at a time and each is run against the code in the sandbox: the first
    that passes is kept (code and test written apart and agreeing, as in CodeT). A function no sample
    agrees with is left untested and recorded, so the Reviewer and the ledger see the gap.
    """
    for subtask in plan.subtasks:
        name = function_name(subtask.function)
        source = definition(app.files[APP_FILE], name) if name and name != "main" else ""
        if source:
            app = _agreed_test(
                call,
                app,
                name,
                TEST_PROMPT.format(
                    name=name,
                    app=APP_FILE,
                    source=source,
                    function=subtask.function,
                    criteria="\n".join(f"- {c}" for c in subtask.acceptance_criteria),
                ),
                plan.design,
            )
    return app


def _agreed_test(
    call: StageCall, app: CodeArtifact, name: str, prompt: str, design: Design | None
) -> CodeArtifact:
    limits = sandbox.Limits(timeout_s=call.context.sandbox_timeout_s)

    def run_test(code: CodeArtifact) -> TestReport:
        report, result = testing.run_pytest(sessions.beside(code, design), limits)
        mine = _tests_of(report, name)
        call.record(
            "sandbox",
            latency_s=result.duration_s,
            outcome=report.ending,
            detail=f"test of {name}: {sum(c.passed for c in mine)}/{len(mine)} passed",
        )
        return report

    for attempt in range(TEST_SAMPLES):
        temperature = None if attempt == 0 else retry_temperature(call)
        try:
            piece = named_tests(write_test(call, prompt, temperature), name)
        except (OutputError, SyntaxError) as exc:
            call.record("retry", outcome=str(attempt + 1), detail=f"test of {name}: {exc}"[:300])
            continue
        if "assert" not in piece:
            call.record(
                "retry", outcome=str(attempt + 1), detail=f"test of {name}: no test_{name} with an assert"
            )
            continue
        if _placeholder(piece):  # `f(...) == ...` passes for a function that returns its argument
            call.record("retry", outcome=str(attempt + 1), detail=f"test of {name}: `...` left in it")
            continue
        if patches(piece, name):  # it tests the mock, so it passes whatever the function does
            call.record("retry", outcome=str(attempt + 1), detail=f"test of {name}: it mocks `{name}`")
            continue
        candidate = merged(app, TEST_FILE, piece)
        report = perform(call, "sandbox", run_test, code=candidate)
        mine = _tests_of(report, name)
        if mine and all(c.passed for c in mine):
            return candidate
        why = next((c.message for c in mine if not c.passed), report.output)
        call.record(
            "retry",
            outcome=str(attempt + 1),
            detail=f"test of {name} disagrees with the code: {why.strip()[-200:]}",
        )
    call.record("error", outcome="skipped", detail=f"no test of {name} agreed with the code")
    return app


def _placeholder(source: str) -> bool:
    """Return whether ``source`` still holds the outline's ``...`` (an Ellipsis literal)."""
    return any(
        isinstance(node, ast.Constant) and node.value is Ellipsis for node in ast.walk(ast.parse(source))
    )


def patches(source: str, name: str) -> bool:
    """Return whether ``source`` patches function ``name`` (``patch('app.name')``, ``patch.object(app,
    'name')``): such a test of the function it patches cannot fail."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and "patch" in ast.unparse(node.func):
            strings = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if any(s == name or s.endswith(f".{name}") for s in strings):
                return True
    return False


def _tests_of(report: TestReport, name: str) -> list[CaseResult]:
    """Return the results of the tests of function ``name``."""
    return [c for c in report.cases if c.name.rpartition("::")[2].startswith(f"test_{name}")]


def has_tests(code: CodeArtifact) -> bool:
    """Return whether any test file of ``code`` holds a test pytest would collect."""
    return any(test_functions(code.files[path]) for path in code.test_files)
