"""The development graph on scripted models, for a LangGraph server in tests (no model needed).

The Coder's code (the plain attempt, its sample, then the team's round 1) is wrong and the Debugger repairs
it, so blame on the server's thread has a known answer.
"""

from __future__ import annotations

from accord.graphs.development import build_graph
from tests.conftest import APPROVE, BAD, GOOD, PLAN, TESTS
from tests.scripted import ScriptedChatModel

graph = build_graph(
    {
        role: ScriptedChatModel(script=script, repeat_last=True)
        for role, script in {
            "planner": [PLAN],
            "coder": [BAD],
            "tester": [TESTS],
            "debugger": [GOOD],
            "reviewer": [APPROVE],
        }.items()
    }
)
