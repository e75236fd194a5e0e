"""The Debugger: runs the code and its tests in the sandbox (LOCAL_CODE) and fixes failures (LLM).

Two duties: ``run_tests`` executes the plan's examples (the task's, for a plain attempt before any plan)
and the code's pytest files and writes a TestReport; ``fix`` reads the failures and returns corrected
code. The lifecycle loops between them,
bounded by the debug counter, and the ``debugging`` gate stops the loop when a fix repeats earlier code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.nodes import testing
from accord.nodes.coding.app_tests import has_tests, write_tests
from accord.nodes.coding.application import repair_step
from accord.nodes.coding.function import fixed_class, new_function
from accord.nodes.coding.prompts import CHANGED_DEFINITIONS
from accord.nodes.coding.prompts import SYSTEM as CODER_SYSTEM
from accord.nodes.coding.writing import fix_one_file, tried_versions, unrepeated
from accord.nodes.verification import chosen_tests, executed, static_report
from accord.nodes.views import artifacts, code_view, failures_view, task_view
from accord.runtime.executor import perform
from accord.state.artifacts import TestReport
from accord.state.graph_state import dump, read
from accord.state.stage import StageCall

SYSTEM = (
    CODER_SYSTEM
    + """
Read the failing tests and the error output, find the cause in the code, and fix it. Change only what is
needed; keep what works."""
)

FIX_PROMPT = """{task}

Code:
{code}

Failing tests:
{failures}

Fix the code so these tests pass. Return {what}."""


def run_tests(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Run the tests against the current code."""
    task, plan, code = artifacts(state)
    assert code is not None
    examples = (*(plan.examples if plan else task.examples), *chosen_tests(state))
    traced = call.context.traced_failures  # the lines a failing call ran, when the run asks for them
    design = plan.design if plan else None
    report = perform(
        call, "sandbox", lambda code: executed(task, examples, code, call, traced, design), code=code
    )
    if task.level == "application":
        report = testing.merge(report, perform(call, "static_check", static_report, code=code))
    return {"test_report": dump(report)}


def fix(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Return code fixed against the failing tests."""
    task, plan, code = artifacts(state)
    report = read(state, "test_report", TestReport)
    assert code is not None and report is not None
    if task.level == "class" and (fixed := fixed_class(call, task, code, failures_view(report), state)):
        return {"code": dump(fixed)}
    if task.completes_stub:
        prompt = FIX_PROMPT.format(
            task=task_view(task),
            code=code_view(code, task),
            failures=failures_view(report),
            what=f"the complete corrected implementation of `{task.entry_point}` in one ```python code block",
        )
        return {"code": dump(new_function(call, SYSTEM, task, prompt, state))}
    if not has_tests(code) and not report.failures() and plan is not None:
        # Nothing failed because nothing was tested: the first fix is the tests themselves.
        return {"code": dump(write_tests(call, plan, code))}
    if plan is not None and (repaired := repair_step(call, task, plan, code)) is not None:
        # A step that fails its own check (a name it never defines, its examples, the session) is written
        # again from its prompt and that failure; asked to fix the whole file, the local model repeats it.
        return {"code": dump(repaired)}
    prompt = FIX_PROMPT.format(
        task=task_view(task),
        code=code_view(code),
        failures=failures_view(report),
        what=CHANGED_DEFINITIONS + "; the wrong one may be the code or the test",
    )
    fixed = unrepeated(
        call,
        lambda temperature: fix_one_file(call, SYSTEM, prompt, code, plan, temperature),
        tried_versions(state, code),
    )
    return {"code": dump(fixed)}
