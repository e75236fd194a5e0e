"""Verifying code in the sandbox for a stage (LOCAL_CODE): the examples, the code's own pytest files and
the static checks, each sandbox run recorded in the stage's ledger; and which of the Tester's cases later
code must keep passing. The Debugger, the Reviewer and the live oracle verify code the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.nodes import sessions, static_check, testing
from accord.nodes.development.artifacts import Selection, TestSuite
from accord.nodes.views import FUNCTION_FILE
from accord.runtime import sandbox
from accord.state.artifacts import CodeArtifact, Design, Example, TaskSpec, TestReport
from accord.state.graph_state import read
from accord.state.stage import StageCall


def limits(call: StageCall) -> sandbox.Limits:
    """Return the sandbox limits for this run."""
    return sandbox.Limits(timeout_s=call.context.sandbox_timeout_s)


def test_code(
    task: TaskSpec,
    examples: tuple[Example, ...],
    code: CodeArtifact,
    call: StageCall,
    design: Design | None = None,
) -> TestReport:
    """Run the examples (function tasks) and the code's pytest files, and check an application's code
    statically; record each sandbox run."""
    report = executed(task, examples, code, call, design=design)
    return testing.merge(report, static_report(code)) if task.level == "application" else report


def executed(
    task: TaskSpec,
    examples: tuple[Example, ...],
    code: CodeArtifact,
    call: StageCall,
    traced: int = 0,
    design: Design | None = None,
) -> TestReport:
    """Run the examples (function tasks), the first ``traced`` failing ones again under the tracer, and
    the code's pytest files, with ``design``'s input files beside them as the program's session has them;
    record each sandbox run."""
    reports = []
    if task.completes_stub:
        defined = Example(call=f"callable({task.entry_point})", expected="True")
        reports.append(
            _recorded(
                call,
                "examples",
                *testing.run_examples(code, FUNCTION_FILE, (defined, *examples), limits(call), traced),
            )
        )
    if code.test_files or task.level == "application":
        reports.append(
            _recorded(call, "pytest", *testing.run_pytest(sessions.beside(code, design), limits(call)))
        )
    return testing.merge(*reports)


def static_report(code: CodeArtifact) -> TestReport:
    """Return the static checks of every Python file as a report (nothing runs)."""
    cases = tuple(static_check.check(code.files))
    return TestReport(ending="passed" if all(c.passed for c in cases) else "failed", cases=cases)


def _recorded(call: StageCall, what: str, report: TestReport, result: sandbox.SandboxResult) -> TestReport:
    call.record(
        "sandbox",
        latency_s=result.duration_s,
        outcome=report.ending,
        isolation=result.isolation,
        detail=f"{what} [{result.isolation}] {sum(c.passed for c in report.cases)}"
        f"/{len(report.cases)} passed, {result.ending}",
    )
    return report


def chosen_tests(state: Mapping[str, Any]) -> tuple[Example, ...]:
    """Return the Tester's cases the selection did not dispute (the tests later code must keep passing)."""
    suite, selection = read(state, "tests", TestSuite), read(state, "selection", Selection)
    if suite is None:
        return ()
    disputed = set(selection.flagged) if selection else set()
    return tuple(c for c in suite.cases if c not in disputed)
