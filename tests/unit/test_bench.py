"""The overhead benchmark compares like with like: both graphs take the same path through δ."""

from __future__ import annotations

from bench import transitions as bench


def test_both_graphs_take_the_same_thirteen_transitions_to_completed():
    accord, bare = bench.accord_graph(), bench.bare_graph()
    config = {"configurable": {"thread_id": "b"}}
    a = [
        next(iter(c))
        for c in accord.stream(
            {"request": bench.STUB}, config, context=bench.TEAM_PATH, stream_mode="updates"
        )
    ]
    b = [next(iter(c)) for c in bare.stream({"request": bench.STUB}, config, stream_mode="updates")]
    assert (
        a
        == b
        == [
            "initialized",
            "attempting",
            "checking",
            "planning",
            "implementing",
            "testing",
            "debugging",
            "testing",
            "reviewing",
            "implementing",
            "testing",
            "reviewing",
            "completed",
        ]
    )
    values = accord.get_state(config).values
    assert values["status"] == "completed" and len(values["judgments"]) == 11


def test_measure_reports_positive_figures():
    result = bench.measure(runs=3)
    assert result["transitions"] == 13
    assert result["bare_us"] > 0 and result["accord_us"] > 0 and result["blame_us"] > 0
