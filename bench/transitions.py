"""``make bench``: what Accord's contracts, gates, ledger, judgments and blame cost per transition.

The development lifecycle runs with zero-latency canned roles (no model, no sandbox), twice: compiled by
Accord (contract checks, verdicts, counters, ledger, typed handoffs, an oracle hook) and as a bare
LangGraph graph with the same work functions and the same gates routing by δ. Both use an in-memory
checkpointer, so the difference is Accord's own. Blame is timed on the runs' checkpoint histories.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from accord.accountability.blame import blame
from accord.graphs import store
from accord.graphs.compiler import Compiler
from accord.graphs.development import GATES, LIFECYCLE, ROLES, build_graph
from accord.graphs.duties import Duty, Role
from accord.graphs.oracle import Oracle
from accord.nodes.development.artifacts import Approval, Candidates, CandidateScore, Selection, TestSuite
from accord.state.artifacts import (
    CaseResult,
    CodeArtifact,
    Example,
    Plan,
    ReviewIssue,
    ReviewReport,
    Subtask,
    TestReport,
)
from accord.state.context import Context
from accord.state.graph_state import AccordState, dump
from accord.state.history import from_graph
from accord.state.stage import StageCall

STUB = 'def add(a, b):\n    """Return a + b.\n    >>> add(1, 2)\n    3\n    """\n'
BAD, GOOD, GOOD2 = (
    "def add(a, b):\n    return a - b\n",
    "def add(a, b):\n    return a + b\n",
    "def add(a, b):\n    return b + a\n",
)


def _code(body: str) -> dict[str, Any]:
    return dump(CodeArtifact(files={"solution.py": STUB + body}, entry_points=("solution.py",)))


def _report(passed: bool) -> dict[str, Any]:
    case = CaseResult(name="example 1: add(1, 2)", passed=passed, message="" if passed else "got -1")
    return dump(TestReport(ending="passed" if passed else "failed", cases=(case,)))


def _round(state: Mapping[str, Any]) -> int:
    return int(state.get("counters", {}).get("round", 1))


CANNED = {
    "plan": lambda s: {
        "plan": dump(
            Plan(
                subtasks=(Subtask(title="add", acceptance_criteria=("sum",)),),
                examples=tuple(s["task"]["examples"]),
            )
        )
    },
    "adjudicate": lambda s: {
        "plan": dump(Plan(subtasks=(Subtask(title="decide", acceptance_criteria=("add(2, 3) == 5",)),)))
    },
    "approve": lambda s: {
        "plan": s["plan"],
        "approval": dump(Approval(decision="approved", by="bench", at="2026-01-01T00:00:00")),
    },
    "implement": lambda s: {"code": _code(BAD if _round(s) == 1 else GOOD2)},
    "attempt": lambda s: {"code": _code(BAD)},
    "sample": lambda s: {"candidates": dump(Candidates(items=(CodeArtifact(**s["code"]),)))},
    "design_tests": lambda s: {"tests": dump(TestSuite(cases=(Example(call="add(2, 3)", expected="5"),)))},
    "select": lambda s: {
        "code": s["code"],
        "selection": dump(
            Selection(
                chosen=0, scores=(CandidateScore(index=0, examples_passed=1, tests_passed=1, agreeing=1),)
            )
        ),
    },
    "run_tests": lambda s: {"test_report": _report(BAD not in s["code"]["files"]["solution.py"])},
    "fix": lambda s: {"code": _code(GOOD)},
    "review": lambda s: {
        "review": dump(
            ReviewReport(decision="approve", integration=TestReport(ending="passed"))
            if _round(s) > 1
            else ReviewReport(
                decision="request_changes",
                integration=_report(False),
                issues=(
                    ReviewIssue(severity="major", location="solution.py", description="add(1, 2) is wrong"),
                ),
            )
        )
    },
}
"""Zero-latency work per duty: round 1 fails its tests once, is fixed, and gets changes requested. The
Coder writes one implementation, not candidates, so the Tester's stages are not on this path."""


def _canned_roles() -> dict[str, Role]:
    roles = {}
    for name, role in ROLES.items():
        duties = {
            d: Duty(duty.contract, duty.work if d == "intake" else _work(CANNED[d]))
            for d, duty in role.duties.items()
        }
        roles[name] = Role(name, duties, role.spec)
    return roles


def _work(fn: Any) -> Any:
    return lambda state, call: fn(state)


FREE_ORACLE = Oracle(
    name="canned",
    judges={
        "code": lambda s, c: (GOOD in s["code"]["files"]["solution.py"], ""),
        "plan": lambda s, c: (True, ""),
    },
)


TEAM_PATH = Context(max_samples=0)
"""The runs the bench times: the failed attempt escalates at once, so that every role's stage is on the
path."""


def accord_graph() -> Any:
    """Return the lifecycle compiled by Accord, with canned roles and a zero-cost oracle."""
    return (
        Compiler(LIFECYCLE, _canned_roles(), GATES, oracle=FREE_ORACLE)
        .build()
        .compile(checkpointer=InMemorySaver())
    )


def bare_graph() -> Any:
    """Return the same work and gates as a plain StateGraph: no contracts, records or counters."""
    roles = _canned_roles()
    builder: StateGraph[Any, Any, Any, Any] = StateGraph(AccordState)
    builder.add_edge(START, LIFECYCLE.initial)
    for stage in LIFECYCLE.stages:
        if stage.terminal:
            builder.add_node(stage.name, lambda s, name=stage.name: {"status": name})
            builder.add_edge(stage.name, END)
            continue
        duty = roles[stage.roles[0]].duties[stage.duty]

        def node(state: Any, stage: Any = stage, duty: Any = duty) -> dict[str, Any]:
            call = StageCall(
                stage=stage.name, role=stage.roles[0], round=_round(state), context=Context(), models={}
            )
            update = duty.work(state, call)
            outcome, _ = GATES[stage.name]({**state, **update})
            if (stage.name, outcome) == ("checking", "retry"):
                outcome = "escalate"  # the team's path: no sampled attempt (TEAM_PATH on Accord's side)
            counters = dict(state.get("counters") or {"round": 1})
            if (stage.name, outcome) == ("reviewing", "changes"):
                counters["round"] += 1
            # gate_fix reads the code versions handed over, so the bare graph hands code over too.
            handoff = [{"payload": [update["code"]]}] if "code" in update else []
            return {
                **update,
                "stage": LIFECYCLE.delta[(stage.name, outcome)].target,
                "counters": counters,
                "handoffs": handoff,
            }

        builder.add_node(stage.name, node)
        targets = {t.target for t in LIFECYCLE.transitions if t.source == stage.name}
        builder.add_conditional_edges(stage.name, lambda s: s["stage"], {t: t for t in targets})
    return builder.compile(checkpointer=InMemorySaver())


def _time_runs(graph: Any, runs: int, prefix: str) -> tuple[list[float], int]:
    """Return per-run wall times and the node transitions of one run (each run a fresh thread)."""
    times, transitions = [], 0
    for i in range(runs):
        config = {"configurable": {"thread_id": f"{prefix}-{i}"}}
        started = time.perf_counter()
        transitions = sum(
            1 for _ in graph.stream({"request": STUB}, config, context=TEAM_PATH, stream_mode="updates")
        )
        times.append(time.perf_counter() - started)
    return times, transitions


def measure(runs: int = 200) -> dict[str, float]:
    """Return per-transition microseconds: bare, Accord, overhead, blame, and the ratio."""
    accord, bare = accord_graph(), bare_graph()
    _time_runs(accord, 5, "warm"), _time_runs(bare, 5, "warm")  # imports and caches
    accord_times, transitions = _time_runs(accord, runs, "bench")
    bare_times, bare_transitions = _time_runs(bare, runs, "bench")
    assert transitions == bare_transitions, (transitions, bare_transitions)
    values = accord.get_state({"configurable": {"thread_id": "bench-0"}}).values
    assert values["status"] == "completed" and values["counters"]["round"] == 2, values.get("reason")
    started = time.perf_counter()
    for i in range(min(runs, 50)):
        blame(from_graph(accord, f"bench-{i}"), LIFECYCLE)
    blame_s = (time.perf_counter() - started) / min(runs, 50)
    a, b = statistics.median(accord_times), statistics.median(bare_times)
    return {
        "transitions": transitions,
        "bare_us": b / transitions * 1e6,
        "accord_us": a / transitions * 1e6,
        "overhead_us": (a - b) / transitions * 1e6,
        "ratio": a / b,
        "blame_us": blame_s / transitions * 1e6,
    }


def local_share(overhead_us: float, thread: str) -> str:
    """Return the overhead's share of a recorded local-model run's wall time."""
    with store.checkpointer() as saver:
        chain = from_graph(build_graph(checkpointer=saver), thread)
    if len(chain) < 2 or not chain[0].created_at or not chain[-1].created_at:
        return f"no run {thread!r} in {store.db_path()}"
    wall = (
        datetime.fromisoformat(chain[-1].created_at) - datetime.fromisoformat(chain[0].created_at)
    ).total_seconds()
    steps = len(chain) - 1
    share = steps * overhead_us / 1e6 / wall
    # The live oracle runs the visible tests in the sandbox once per new code version: not free.
    oracle_s = sum(e["latency_s"] for e in chain[-1].values.get("ledger", []) if e["kind"] == "oracle")
    return (
        f"run {thread}: {steps} transitions in {wall:.1f} s; Accord's overhead {share:.5%} of wall time"
        f"; the oracle's sandbox runs {oracle_s:.1f} s ({oracle_s / wall:.2%})"
    )


def main() -> None:
    """Print the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--thread", help="a local-model run in the checkpoint database to compare with")
    args = parser.parse_args()
    r = measure(args.runs)
    print(f"{args.runs} runs of {r['transitions']} node transitions each (median run)")
    print(f"bare LangGraph     {r['bare_us']:8.1f} µs per transition")
    print(f"Accord             {r['accord_us']:8.1f} µs per transition")
    print(
        f"overhead           {r['overhead_us']:8.1f} µs per transition (target < 1000), "
        f"ratio {r['ratio']:.2f}×"
    )
    print(f"blame from history {r['blame_us']:8.1f} µs per transition")
    if args.thread:
        print(local_share(r["overhead_us"] + r["blame_us"], args.thread))


if __name__ == "__main__":
    main()
