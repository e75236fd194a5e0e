"""A ProgramDev requirement that is not a list of records, through the development graph on the real local
model: the Planner designs a program, the Coder writes its units and its main(), and the result runs."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from evals import programdev
from graphs.development import build_graph
from state.artifacts import CodeArtifact
from state.context import Context

pytestmark = pytest.mark.integration


def test_tictactoe_is_designed_as_a_program_and_runs(server):
    graph = build_graph(checkpointer=InMemorySaver())
    values = graph.invoke({"request": programdev.requirements()["TicTacToe"]},
                          {"configurable": {"thread_id": "tictactoe"}}, context=Context(max_rounds=2))
    assert values["status"] in {"completed", "failed"}  # a defined end either way
    plan = values["plan"]
    assert plan["design"]["shape"] == "program" and plan["subtasks"][-1]["function"] == "main()"
    code = CodeArtifact.model_validate(values["code"])
    assert "def main" in code.files["app.py"] and "if command ==" not in code.files["app.py"]
    runs, why = programdev.executable("TicTacToe", code)
    assert runs, why  # it starts and survives a session of moves without a crash
    result = programdev.judged("TicTacToe", code)
    print(f"TicTacToe: {values['status']}; acceptance {result['checks']}")
