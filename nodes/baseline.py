"""The monolithic baseline: one model call from the task alone, no plan, no tests (the evals' ``single``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphs.compiler import StageCall
from nodes.coder import SYSTEM, Implementation, function_module
from nodes.llm import structured
from nodes.views import APP_FILE, artifacts, strip_fences, task_view
from state.artifacts import CodeArtifact
from state.contracts import Contract
from state.graph_state import dump

CONTRACT = Contract(role="coder", duty="implement", inputs=("task",), outputs=("code",))

PROMPT = """{task}

Return {what}."""


def implement_alone(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write the code in one call that sees only the task."""
    task, _, _ = artifacts(state)
    if task.level == "function":
        what = f"the complete implementation of `{task.entry_point}` (with any imports and helpers it needs)"
        answer = structured(call, Implementation, SYSTEM, PROMPT.format(task=task_view(task), what=what))
        return {"code": dump(function_module(task, answer.code))}
    what = f"the whole program, one Python module `{APP_FILE}` runnable as `python {APP_FILE}`"
    answer = structured(call, Implementation, SYSTEM, PROMPT.format(task=task_view(task), what=what))
    code = CodeArtifact(files={APP_FILE: strip_fences(answer.code)}, entry_points=(APP_FILE,))
    return {"code": dump(code)}
