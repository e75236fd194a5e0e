"""The monolithic baseline: one model call from the task alone, no plan, no tests (the evals' ``single``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nodes.coder.prompts import ALONE_PROMPT, SYSTEM
from nodes.coder.writing import write_function, write_piece
from nodes.views import APP_FILE, artifacts, task_view
from state.artifacts import CodeArtifact
from state.graph_state import dump
from state.stage import StageCall

APP_PROMPT = """{task}

Return the whole program, one Python module `{app}` runnable as `python {app}`, in one ```python code
block."""


def implement_alone(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write the code in one call that sees only the task."""
    task, _, _ = artifacts(state)
    if task.level == "function":
        prompt = ALONE_PROMPT.format(task=task_view(task), name=task.entry_point)
        return {"code": dump(write_function(call, SYSTEM, task, prompt))}
    source = write_piece(call, APP_PROMPT.format(task=task_view(task), app=APP_FILE))
    code = CodeArtifact(files={APP_FILE: source}, entry_points=(APP_FILE,))
    return {"code": dump(code)}
