"""The Coder: implements the plan into the shared file map (LLM).

A function-level task is implemented in one call that sees the whole plan. An application is built
subtask by subtask into ``app.py``, each call seeing the plan and the code so far and returning the whole
updated module; a last call writes pytest tests into ``test_app.py``. Every call answers through a flat
schema (one module of code, or one file to replace): the small local model handles a single ``code``
field well and nested lists of files badly. In later rounds the Coder answers the Reviewer's issues.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from graphs.compiler import OutputError, StageCall
from nodes.llm import structured
from nodes.views import (
    APP_FILE,
    FUNCTION_FILE,
    TEST_FILE,
    apply_changes,
    artifacts,
    code_view,
    plan_view,
    review_view,
    strip_fences,
    task_view,
)
from state.artifacts import CodeArtifact, ReviewReport, TaskSpec
from state.contracts import Contract
from state.graph_state import dump, read

CONTRACT = Contract(role="coder", duty="implement", inputs=("task", "plan"),
                    optional_inputs=("code", "review"), outputs=("code",))

SYSTEM = """You are the Coder of a small software team. Write correct, complete, runnable Python.
No placeholders, no TODOs. Handle the edge cases the task implies."""

FUNCTION_PROMPT = """{task}

Plan:
{plan}

Return the complete implementation of `{name}` (with any imports and helper functions it needs)."""

SUBTASK_PROMPT = """{task}

Plan:
{plan}

Current {app}:
{code}

Now implement subtask {number}: {title}. Return the complete new content of {app}: everything that is
already there plus this subtask. Keep all code in {app}. Run the command-line interface only under
`if __name__ == "__main__":` so that tests can import {app}."""

TESTS_PROMPT = """{task}

{app}:
{code}

Write pytest tests for {app} in {tests}: `from {module} import *`, then one test function per feature,
including edge cases. Use pytest's tmp_path fixture and monkeypatch.chdir(tmp_path) so tests never touch
real files. Never call input() or the command-line loop. Return the complete content of {tests}."""

REVISE_PROMPT = """{task}

Plan:
{plan}

Current code:
{code}

The Reviewer asked for changes:
{review}

Fix the most important issue. Return {what}."""


class Implementation(BaseModel):
    """A module's source code."""

    code: str = Field(description="complete Python source")


def file_fix_schema(paths: list[str]) -> type[BaseModel]:
    """Return a schema for replacing one of ``paths`` (an enum the server's grammar enforces)."""
    return create_model("FileFix", path=(Literal[tuple(sorted(paths))], ...),  # type: ignore[call-overload]
                        code=(str, Field(description="the complete new content of that file")))


def fix_one_file(call: StageCall, system: str, prompt: str, code: CodeArtifact) -> CodeArtifact:
    """Ask for one file's complete new content and return the code with it replaced."""
    paths = [p for p in code.files if p.endswith(".py")] or list(code.files)
    answer = structured(call, file_fix_schema(paths), system, prompt)
    return apply_changes(code, {str(answer.path): str(answer.code)}, entry_points=code.entry_points)  # type: ignore[attr-defined]


def function_module(task: TaskSpec, body: str) -> CodeArtifact:
    """Return the code artifact for a function task: the stub (its imports and helpers), then the code."""
    source = strip_fences(body)
    if f"def {task.entry_point}" not in source:
        raise OutputError(f"the code does not define `{task.entry_point}`")
    return CodeArtifact(files={FUNCTION_FILE: f"{task.stub}\n\n{source}"},
                        entry_points=(FUNCTION_FILE,))


def _module(call: StageCall, prompt: str) -> str:
    code = strip_fences(structured(call, Implementation, SYSTEM, prompt).code)
    if len(code.strip()) < 20:
        raise OutputError("the code is empty")
    return code


def implement(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write or revise the code."""
    task, plan, code = artifacts(state)
    assert plan is not None
    review = read(state, "review", ReviewReport)
    if review is not None and code is not None:
        return {"code": dump(revise(call, task, plan_view(plan), code, review))}
    if task.level == "function":
        prompt = FUNCTION_PROMPT.format(task=task_view(task), plan=plan_view(plan), name=task.entry_point)
        return {"code": dump(function_module(task, structured(call, Implementation, SYSTEM, prompt).code))}
    files: dict[str, str] = {}
    for number, subtask in enumerate(plan.subtasks, 1):
        current = f"```python\n{files[APP_FILE]}```" if APP_FILE in files else "(empty)"
        files[APP_FILE] = _module(call, SUBTASK_PROMPT.format(
            task=task_view(task), plan=plan_view(plan), app=APP_FILE, code=current, number=number,
            title=subtask.title))
    files[TEST_FILE] = _module(call, TESTS_PROMPT.format(
        task=task_view(task), app=APP_FILE, code=f"```python\n{files[APP_FILE]}```", tests=TEST_FILE,
        module=APP_FILE.removesuffix(".py")))
    return {"code": dump(apply_changes(None, files, entry_points=(APP_FILE,)))}


def revise(call: StageCall, task: TaskSpec, plan: str, code: CodeArtifact,
           review: ReviewReport) -> CodeArtifact:
    """Return the code revised to answer the review."""
    if task.level == "function":
        prompt = REVISE_PROMPT.format(task=task_view(task), plan=plan, code=code_view(code, task),
                                      review=review_view(review),
                                      what=f"the complete corrected implementation of `{task.entry_point}`")
        return function_module(task, structured(call, Implementation, SYSTEM, prompt).code)
    prompt = REVISE_PROMPT.format(task=task_view(task), plan=plan, code=code_view(code),
                                  review=review_view(review),
                                  what="the file to change and its complete new content")
    return fix_one_file(call, SYSTEM, prompt, code)
