"""The Coder: implements the plan into the shared file map (LLM).

A function-level task is implemented in one call that sees the whole plan. An application is built
subtask by subtask, each call seeing the plan and the code so far; if no test file exists at the end, one
more call writes pytest tests. In later rounds the Coder answers the Reviewer's issues.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from graphs.compiler import OutputError, StageCall
from nodes.llm import structured
from nodes.views import (
    FUNCTION_FILE,
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
No placeholders, no TODOs, no example usage at module level. Handle edge cases the task implies."""

FUNCTION_PROMPT = """{task}

Plan:
{plan}

Return the complete implementation of `{name}` (with any imports and helper functions it needs)."""

SUBTASK_PROMPT = """{task}

Plan:
{plan}

Code so far:
{code}

Now implement subtask {number}: {title}. Return every file you create or change, each with its full
content. Keep what already works."""

TESTS_PROMPT = """{task}

Code so far:
{code}

Write pytest tests for this code in a file named test_app.py. Test each feature, including edge cases.
Tests must not wait for keyboard input. Return the test file with its full content."""

REVISE_PROMPT = """{task}

Plan:
{plan}

Current code:
{code}

The Reviewer asked for changes:
{review}

Fix every issue. Return {what}."""


class Implementation(BaseModel):
    """A function's implementation."""

    code: str = Field(description="complete Python source: imports, helpers and the function")


class FileChange(BaseModel):
    """One file, with its complete new content."""

    path: str = Field(description="relative file path, e.g. app.py or test_app.py")
    content: str = Field(description="the complete content of the file")


class FileChanges(BaseModel):
    """Files to create or replace."""

    files: list[FileChange] = Field(description="the files to write, each complete")


def function_module(task: TaskSpec, body: str) -> CodeArtifact:
    """Return the code artifact for a function task: the stub (its imports and helpers), then the code."""
    source = strip_fences(body)
    if f"def {task.entry_point}" not in source:
        raise OutputError(f"the code does not define `{task.entry_point}`")
    return CodeArtifact(files={FUNCTION_FILE: f"{task.stub}\n\n{source}"},
                        entry_points=(FUNCTION_FILE,))


def _changes(call: StageCall, prompt: str) -> dict[str, str]:
    changes = structured(call, FileChanges, SYSTEM, prompt)
    files = {c.path: c.content for c in changes.files if c.path.strip() and c.content.strip()}
    if not files:
        raise OutputError("no files were returned")
    return files


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
    for number, subtask in enumerate(plan.subtasks, 1):
        prompt = SUBTASK_PROMPT.format(task=task_view(task), plan=plan_view(plan), code=code_view(code),
                                       number=number, title=subtask.title)
        code = apply_changes(code, _changes(call, prompt))
    assert code is not None
    if not code.test_files:
        code = apply_changes(code, _changes(call, TESTS_PROMPT.format(task=task_view(task),
                                                                       code=code_view(code))))
    return {"code": dump(code)}


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
                                  what="every file you change, each with its full content")
    return apply_changes(code, _changes(call, prompt))
