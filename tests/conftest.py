"""Shared fixtures: scripted models by role and a runner that keeps the final state."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from accord.graphs import development as development_graph
from accord.graphs.development import VISIBLE_TESTS, build_graph
from accord.graphs.oracle import Oracle
from accord.state.context import Context
from tests.scripted import ScriptedChatModel

STUB = '''def add(a: int, b: int) -> int:
    """Return the sum of a and b.
    >>> add(1, 2)
    3
    >>> add(-1, 1)
    0
    """
'''


def fenced(code: str) -> str:
    """Return code as a model writes it in a plain-text reply: a fenced block between prose."""
    return f"Here is the code:\n```python\n{code}```\nIt handles every case."


GOOD = fenced("def add(a, b):\n    return a + b\n")
BAD = fenced("def add(a, b):\n    return a - b\n")
TESTS = "```python\nassert add(2, 3) == 5\nassert add(0, 0) == 0\nassert add(-2, -3) == -5\n```"
"""The Tester's cases for the stub: all right, so they agree with GOOD."""
PLAN = {
    "subtasks": [
        {
            "title": "add",
            "description": "return a + b",
            "function": "add(a, b)",
            "acceptance_criteria": ["add(1, 2) == 3"],
        }
    ]
}
APPROVE = {"decision": "approve", "issues": []}
CHANGES = {
    "decision": "request_changes",
    "issues": [{"severity": "major", "location": "solution.py:add", "description": "wrong"}],
}


@pytest.fixture(autouse=True)
def team_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the team's path: the scripts answer the team's calls in turn. The tests of the plain attempt
    first (``Context.first_attempt``, on by default) turn it on themselves."""
    monkeypatch.setenv("ACCORD_FIRST_ATTEMPT", "false")


def scripted_model(role: str, script: list[Any]) -> ScriptedChatModel:
    """Replay ``script`` for ``role``. The Debugger's last fix repeats: a repeated fix is drawn again, so a
    script of one wrong fix reads as a Debugger that keeps returning it."""
    return ScriptedChatModel(script=list(script), repeat_last=role == "debugger")


class Run:
    """Runs the development graph with scripted models and keeps what happened."""

    def __init__(self, oracle: Oracle | None = VISIBLE_TESTS, **scripts: list[Any]) -> None:
        self.models = {
            "tester": ScriptedChatModel(script=[TESTS], repeat_last=True),
            **{role: scripted_model(role, script) for role, script in scripts.items()},
        }
        self.saver = InMemorySaver()
        self.graph = build_graph(self.models, checkpointer=self.saver, oracle=oracle)
        self.config = {"configurable": {"thread_id": "test"}}

    def __call__(self, request: str = STUB, **context: Any) -> dict[str, Any]:
        # One candidate unless a test asks for more: scripts then read as one answer per Coder call. The
        # team at once unless a test asks for the plain attempt first.
        context = {"max_candidates": 1, "first_attempt": False, **context}
        return dict(self.graph.invoke({"request": request}, self.config, context=Context(**context)))

    def path(self, values: dict[str, Any]) -> list[str]:
        return ["initialized", *[v["target"] for v in values["verdicts"] if v["target"]]]


@pytest.fixture
def scripted() -> type[Run]:
    return Run


@pytest.fixture
def workdir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A working directory with a stub and no ACCORD_DB set."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ACCORD_DB", raising=False)
    (tmp_path / "stub.py").write_text(STUB)
    return tmp_path


def script_cli(monkeypatch: pytest.MonkeyPatch, **scripts: list[Any]) -> dict[str, ScriptedChatModel]:
    """Make the CLI's graphs use scripted models by role."""
    models = {
        "tester": ScriptedChatModel(script=[TESTS], repeat_last=True),
        **{role: scripted_model(role, s) for role, s in scripts.items()},
    }
    monkeypatch.setattr(development_graph, "build_graph", partial(build_graph, models))
    return models
