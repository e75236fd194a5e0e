"""Lifecycle tables: validation on build, and compiled edges equal to δ."""

from __future__ import annotations

import pytest

from accord.graphs.compiler import OUTCOME_SEPARATOR
from accord.graphs.development import LIFECYCLE, graph
from accord.state.lifecycle import Counter, Lifecycle, Stage, Transition


def _edges(compiled):
    """Return (source, outcome, target) for every drawn edge, gate labels expanded."""
    found = set()
    for edge in compiled.get_graph().edges:
        for outcome in (edge.data or "").split(OUTCOME_SEPARATOR):
            found.add((edge.source, outcome or None, edge.target))
    return found


def test_compiled_edges_are_exactly_delta():
    delta = {(t.source, t.outcome, t.target) for t in LIFECYCLE.transitions}
    fixed = {("__start__", None, LIFECYCLE.initial)} | {
        (s.name, None, "__end__") for s in LIFECYCLE.terminal()
    }
    assert _edges(graph) == delta | fixed


def test_every_gate_outcome_is_a_labelled_edge_in_the_drawing():
    mermaid = graph.get_graph().draw_mermaid()
    for t in LIFECYCLE.transitions:
        assert t.outcome in mermaid
    assert "pass / exhausted" in mermaid  # two outcomes sharing testing -> reviewing


def _table(**changes):
    base = dict(
        name="t",
        initial="a",
        stages=(
            Stage(name="a", roles=("r",), outcomes=("pass", "fail")),
            Stage(name="b", roles=("r",), outcomes=("pass", "again", "exhausted", "fail")),
            Stage(name="done", terminal=True, status="completed"),
            Stage(name="failed", terminal=True, status="failed"),
        ),
        transitions=(
            Transition(source="a", outcome="pass", target="b"),
            Transition(source="a", outcome="fail", target="failed"),
            Transition(source="b", outcome="pass", target="done"),
            Transition(source="b", outcome="again", target="a", counter="n"),
            Transition(source="b", outcome="exhausted", target="failed"),
            Transition(source="b", outcome="fail", target="failed"),
        ),
        counters=(Counter(name="n", limit=2, exhausted="exhausted", reason="n exhausted"),),
    )
    return {**base, **changes}


def test_a_well_formed_table_builds():
    assert Lifecycle(**_table()).successors("b")["again"] == "a"


def test_unbounded_loop_is_rejected():
    table = _table()
    transitions = tuple(
        t if t.outcome != "again" else Transition(source="b", outcome="again", target="a")
        for t in table["transitions"]
    )
    with pytest.raises(ValueError, match="unbounded loop"):
        Lifecycle(**{**table, "transitions": transitions})


def test_undefined_delta_is_rejected():
    table = _table()
    with pytest.raises(ValueError, match=r"δ\('a', 'fail'\) is undefined"):
        Lifecycle(**{**table, "transitions": table["transitions"][:1] + table["transitions"][2:]})


def test_unreachable_stage_is_rejected():
    table = _table()
    stages = (*table["stages"], Stage(name="island", roles=("r",), outcomes=("pass",)))
    transitions = (*table["transitions"], Transition(source="island", outcome="pass", target="done"))
    with pytest.raises(ValueError, match="'island' is unreachable"):
        Lifecycle(**{**table, "stages": stages, "transitions": transitions})


def test_stage_that_cannot_reach_a_terminal_is_rejected():
    table = _table()
    stages = (
        *table["stages"][:2],
        Stage(name="trap", roles=("r",), outcomes=("pass", "exhausted")),
        *table["stages"][2:],
    )
    counters = (*table["counters"], Counter(name="m", limit=1, exhausted="exhausted", reason="m"))
    transitions = tuple(
        t if (t.source, t.outcome) != ("a", "fail") else Transition(source="a", outcome="fail", target="trap")
        for t in table["transitions"]
    )
    transitions = (
        *transitions,
        Transition(source="trap", outcome="pass", target="trap", counter="m"),
        Transition(source="trap", outcome="exhausted", target="trap", counter="m"),
    )
    with pytest.raises(ValueError, match="no terminal stage is reachable from 'trap'"):
        Lifecycle(**{**table, "stages": stages, "transitions": transitions, "counters": counters})


def test_counted_transition_needs_an_exhausted_exit():
    table = _table()
    transitions = tuple(t for t in table["transitions"] if t.outcome != "exhausted")
    stages = tuple(
        s if s.name != "b" else Stage(name="b", roles=("r",), outcomes=("pass", "again", "fail"))
        for s in table["stages"]
    )
    with pytest.raises(ValueError, match="has no 'exhausted' transition"):
        Lifecycle(**{**table, "stages": stages, "transitions": transitions})


def test_undeclared_outcome_and_terminal_exits_are_rejected():
    table = _table()
    with pytest.raises(ValueError, match="'maybe' is not an outcome of 'a'"):
        Lifecycle(
            **{
                **table,
                "transitions": (*table["transitions"], Transition(source="a", outcome="maybe", target="b")),
            }
        )
    with pytest.raises(ValueError, match="terminal stage 'done' has outgoing"):
        Lifecycle(
            **{
                **table,
                "transitions": (*table["transitions"], Transition(source="done", outcome="pass", target="a")),
            }
        )
