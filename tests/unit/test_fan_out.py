"""A fan-out stage runs several roles in parallel; a voting gate joins their votes."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from accord.graphs.compiler import Compiler
from accord.graphs.duties import Duty, Role
from accord.state.artifacts import TaskSpec, Vote
from accord.state.contracts import Contract
from accord.state.graph_state import dump
from accord.state.lifecycle import Lifecycle, Stage, Transition

VOTERS = ("auditor", "critic", "tester")

LIFECYCLE = Lifecycle(
    name="vote",
    initial="intake",
    stages=(
        Stage(name="intake", roles=("intake",), outcomes=("pass", "fail")),
        Stage(name="analysing", roles=VOTERS, outcomes=("vulnerable", "safe", "fail")),
        Stage(name="flagged", terminal=True, status="completed"),
        Stage(name="cleared", terminal=True, status="completed"),
        Stage(name="failed", terminal=True, status="failed"),
    ),
    transitions=(
        Transition(source="intake", outcome="pass", target="analysing"),
        Transition(source="intake", outcome="fail", target="failed"),
        Transition(source="analysing", outcome="vulnerable", target="flagged"),
        Transition(source="analysing", outcome="safe", target="cleared"),
        Transition(source="analysing", outcome="fail", target="failed"),
    ),
)


def _voter(name: str, votes: dict[str, str]) -> Role:
    def work(state: Any, call: Any) -> dict[str, Any]:
        return {"vote": dump(Vote(outcome=votes[name], rationale=f"{name} says {votes[name]}"))}

    return Role(name, {"work": Duty(Contract(role=name, inputs=("task",), outputs=("vote",)), work)})


def _graph(votes: dict[str, str]):
    intake = Role(
        "intake",
        {
            "work": Duty(
                Contract(role="intake", outputs=("task",)),
                lambda s, c: {"task": dump(TaskSpec(request=s["request"], level="application"))},
            )
        },
    )
    roles = {"intake": intake, **{name: _voter(name, votes) for name in VOTERS}}
    gates = {"intake": lambda state: ("pass", "")}
    return Compiler(LIFECYCLE, roles, gates).build().compile(checkpointer=InMemorySaver())


@pytest.mark.parametrize(
    ("votes", "expected"),
    [
        ({"auditor": "vulnerable", "critic": "vulnerable", "tester": "safe"}, "flagged"),
        ({"auditor": "safe", "critic": "vulnerable", "tester": "safe"}, "cleared"),
        ({"auditor": "safe", "critic": "vulnerable", "tester": "fail"}, "failed"),  # three-way tie
    ],
)
def test_majority_vote_decides(votes, expected):
    values = _graph(votes).invoke({"request": "audit this"}, {"configurable": {"thread_id": "v"}})
    assert values["stage"] == expected
    cast = [v for v in values["verdicts"] if v["stage"] == "analysing" and v["target"] is None]
    assert sorted(v["role"] for v in cast) == sorted(VOTERS)
    decision = values["verdicts"][-1]
    assert decision["role"] == "vote" and decision["target"] == expected


def test_fan_out_roles_run_in_one_parallel_step():
    graph = _graph(dict.fromkeys(VOTERS, "safe"))
    config = {"configurable": {"thread_id": "p"}}
    graph.invoke({"request": "x"}, config)
    scheduled = [set(snapshot.next) for snapshot in graph.get_state_history(config)]
    assert {f"analysing.{v}" for v in VOTERS} in scheduled
    drawn = {(e.source, e.target) for e in graph.get_graph().edges}
    assert {("analysing", f"analysing.{v}") for v in VOTERS} <= drawn
    assert {(f"analysing.{v}", "analysing.vote") for v in VOTERS} <= drawn


def test_fan_out_roles_must_vote():
    intake = Role("intake", {"work": Duty(Contract(role="intake", outputs=("task",)), lambda s, c: {})})
    silent = {n: Role(n, {"work": Duty(Contract(role=n, outputs=()), lambda s, c: {})}) for n in VOTERS}
    with pytest.raises(ValueError, match="does not output a vote"):
        Compiler(LIFECYCLE, {"intake": intake, **silent}, {"intake": lambda s: ("pass", "")})
