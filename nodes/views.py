"""How artifacts are shown to models: compact, deterministic text views, and code clean-up."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from accord.state.artifacts import CodeArtifact, Design, Plan, ReviewReport, TaskSpec, TestReport, Turn
from accord.state.graph_state import read

FUNCTION_FILE = "solution.py"
"""The module a function-level task's code lives in."""
APP_FILE = "app.py"
"""The module an application's code lives in (its entry point)."""
TEST_FILE = "test_app.py"
"""The pytest file the Coder writes for an application."""
_FENCE_LINE = re.compile(r"^\s*```[\w+-]*\s*$")
_FENCE = re.compile(r"^\s*```[\w+-]*\s*\n(.*?)\n\s*```\s*$", re.S)


def strip_fences(code: str) -> str:
    """Return code without a surrounding Markdown fence, or without a lone opening or closing one."""
    match = _FENCE.match(code)
    if match:
        return match.group(1).strip("\n") + "\n"
    # A small model may open a fence it never closes (or the reverse); either line alone is not Python.
    lines = code.strip("\n").splitlines()
    if lines and _FENCE_LINE.match(lines[0]):
        lines = lines[1:]
    if lines and _FENCE_LINE.match(lines[-1]):
        lines = lines[:-1]
    return "\n".join(lines).strip("\n") + "\n"


_LANGUAGE_LINE = re.compile(r"\A\s*(?:python3?|py)\s*\n", re.I)
"""A fence's language written on the line after it (```\\npython), which is not code."""
_BLOCK = re.compile(r"```[\w+-]*[ \t]*\n(.*?)```", re.S)


def defines(source: str, name: str) -> bool:
    """Return whether ``source`` has a line defining ``name``: a function or a class."""
    pattern = rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b"
    return re.search(pattern, source, re.MULTILINE) is not None


def code_block(reply: str, name: str = "") -> str:
    """Return the code of a plain-text reply: its fenced block defining ``name`` (else its first block).

    A reply without a complete block is code itself, or prose and then a block cut off at the length
    limit: the text after its last opening fence.
    """
    blocks: list[str] = _BLOCK.findall(reply)
    if blocks:
        chosen = next((b for b in blocks if name and defines(b, name)), blocks[0])
        return _LANGUAGE_LINE.sub("", chosen, count=1).strip("\n") + "\n"
    if "```" in reply:
        reply = reply[reply.rindex("```") :]
    return strip_fences(reply)


def task_view(task: TaskSpec) -> str:
    """Return the task as the roles see it."""
    if task.level == "function":
        return f"Complete the Python function `{task.entry_point}`:\n```python\n{task.stub}\n```"
    if task.level == "class":
        return (
            f"Complete the Python class `{task.entry_point}`: implement every method whose body is only "
            f"a docstring, keep the code it already has:\n```python\n{task.stub}\n```"
        )
    return f"Build this application in Python:\n{task.request}"


FILE_SHOWN = 400
"""Characters of an input file the plan shows (the session reads the whole file)."""


def plan_view(plan: Plan) -> str:
    """Return the plan as a numbered list with acceptance criteria."""
    lines = []
    for i, sub in enumerate(plan.subtasks, 1):
        lines.append(f"{i}. {sub.title}: {sub.description}".rstrip(": "))
        if sub.function:
            lines.append(f"   function: {sub.function}")
        lines += [f"   - {c}" for c in sub.acceptance_criteria]
    if plan.design is not None and plan.design.shape == "program":
        lines.append(f"How main() is used: {plan.design.interface}")
        if plan.design.session:
            lines.append("Session:")
            lines += [f"   {turn_view(plan.design, t)}" for t in plan.design.session]
        for name, text in sorted(plan.design.files.items()):
            lines.append(f"Input file `{name}`:\n```\n{text.rstrip()[:FILE_SHOWN]}\n```")
    return "\n".join(lines)


def turn_view(design: Design, turn: Turn) -> str:
    """Return one turn of a program's session as a user drives it: a command line or a typed line, and
    what the program must print after it."""
    typed = f"$ python app.py {turn.input}" if design.interface == "arguments" else f"> {turn.input}"
    return typed + (f"   → prints {turn.expect!r}" if turn.expect else "")


def code_view(code: CodeArtifact | None, task: TaskSpec | None = None) -> str:
    """Return every file of the code, fenced; for a function task, only the code after the stub."""
    if code is None or not code.files:
        return "(no files yet)"
    if task is not None and task.completes_stub and task.stub:
        body = code.files.get(FUNCTION_FILE, "").removeprefix(task.stub).strip("\n")
        return f"```python\n{body}\n```"
    return "\n\n".join(
        f"File `{path}`:\n```python\n{body.rstrip()}\n```" for path, body in sorted(code.files.items())
    )


def failures_view(report: TestReport, limit: int = 6) -> str:
    """Return the failing cases of a report, or how the run ended when no case ran."""
    failures = report.failures()
    if not failures:
        stopped = f" (the sandbox's {report.limit.replace('_', ' ')} stopped it)" if report.limit else ""
        return f"The test run ended with {report.ending}{stopped}:\n{report.output[-1500:]}"
    shown = "\n\n".join(
        f"- {c.name}\n{c.message.strip()[:800]}"
        + (f"\nTrace of this call, each line with the values before it ran:\n{c.trace}" if c.trace else "")
        for c in failures[:limit]
    )
    more = f"\n(and {len(failures) - limit} more failures)" if len(failures) > limit else ""
    return shown + more


def review_view(review: ReviewReport) -> str:
    """Return the review's issues and its integration failures."""
    lines = [f"- [{i.severity}] {i.location}: {i.description}" for i in review.issues]
    if review.integration and not review.integration.passed:
        lines.append("Integration tests failed:\n" + failures_view(review.integration))
    return "\n".join(lines) or "(no issues listed)"


def artifacts(state: Mapping[str, Any]) -> tuple[TaskSpec, Plan | None, CodeArtifact | None]:
    """Return the task, plan and code in state."""
    task = read(state, "task", TaskSpec)
    assert task is not None, "contract preconditions guarantee a task"
    return task, read(state, "plan", Plan), read(state, "code", CodeArtifact)


def apply_changes(
    code: CodeArtifact | None, changes: Mapping[str, str], entry_points: tuple[str, ...] = ()
) -> CodeArtifact:
    """Return the file map with ``changes`` written over it; test files are found by their names."""
    files = {
        **(code.files if code else {}),
        **{p.strip().lstrip("./"): strip_fences(c) for p, c in changes.items() if p.strip()},
    }
    tests = tuple(sorted(p for p in files if re.search(r"(^|/)(test_[^/]*|[^/]*_test)\.py$", p)))
    return CodeArtifact(files=files, entry_points=entry_points, test_files=tests)
