"""``make bench-load``: many concurrent runs against a slow, flaky model endpoint.

``--runs`` development runs (one function task each) start at once and go through Accord's real client
to a loopback endpoint (``tests.endpoint``) that answers after a random delay and fails a share of
requests with HTTP 500 or a dropped connection. Retries absorb most faults; a run that a fault stops
anyway is resumed from its checkpoint, as a user would. Then every thread's checkpoints are checked: the
run ended ``completed`` or ``failed``, its steps increase one by one, and the last checkpoint holds the
state the run returned. Reports throughput, latency and peak memory.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig

from accord.graphs.development import build_graph
from accord.graphs.store import checkpointer
from accord.state.context import Context
from accord.state.graph_state import ENDED
from tests.endpoint import Drop, FakeEndpoint, Reply, Status, Text, Tool

TASK = '''def add(a: int, b: int) -> int:
    """Return the sum of a and b.
    >>> add(1, 2)
    3
    """
'''
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
CODE = "```python\ndef add(a, b):\n    return a + b\n```"
CASES = "```python\nassert add(2, 3) == 5\nassert add(-1, 1) == 0\n```"
RESUMES = 3
"""Resumes a stopped run gets before it counts as lost."""


class FlakyModel:
    """Answers each role's request correctly, after a random delay, unless it injects a fault."""

    def __init__(self, seed: int, max_delay_s: float, fault_rate: float) -> None:
        self.random, self.lock = random.Random(seed), threading.Lock()
        self.max_delay_s, self.fault_rate = max_delay_s, fault_rate
        self.faults = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        with self.lock:
            delay, roll, kind = (
                self.random.uniform(0, self.max_delay_s),
                self.random.random(),
                self.random.random(),
            )
            faulty = roll < self.fault_rate
            self.faults += faulty
        time.sleep(delay)
        if faulty:
            return Status(500) if kind < 0.5 else Drop()
        if body.get("tools"):
            return Tool(json.dumps(PLAN))
        system = str(body["messages"][0]["content"])
        return Text(CASES if "You are the Tester" in system else CODE)


def consistent(graph: Any, config: RunnableConfig, values: dict[str, Any]) -> bool:
    """Return whether a thread's checkpoints tell one straight story ending in ``values``."""
    history = list(graph.get_state_history(config))
    steps = [h.metadata["step"] for h in reversed(history)]
    last = history[0].values
    return (
        steps == list(range(steps[0], steps[0] + len(steps)))
        and not history[0].next
        and last.get("status") == values.get("status")
        and last.get("verdicts") == values.get("verdicts")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--max-delay-s", type=float, default=0.2, help="longest model reply delay")
    parser.add_argument("--fault-rate", type=float, default=0.1, help="share of requests that fail")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    model = FlakyModel(args.seed, args.max_delay_s, args.fault_rate)
    outcomes: dict[str, dict[str, Any]] = {}
    with (
        FakeEndpoint(model) as endpoint,
        tempfile.TemporaryDirectory() as tmp,
        checkpointer(Path(tmp) / "load.sqlite") as saver,
    ):
        graph = build_graph(checkpointer=saver)
        context = Context(base_url=endpoint.url, model="flaky", max_candidates=1, request_timeout_s=10)

        def one(i: int) -> None:
            config: RunnableConfig = {"configurable": {"thread_id": f"load-{i}"}}
            started, resumes, values = time.monotonic(), 0, {}
            inputs: dict[str, str] | None = {"request": TASK}
            while True:
                try:
                    values = dict(graph.invoke(inputs, config, context=context))
                    break
                except Exception:  # a fault that outlasted the retries: resume from the checkpoint
                    if resumes == RESUMES:
                        break
                    resumes, inputs = resumes + 1, None
            outcomes[f"load-{i}"] = {
                "status": values.get("status", "stopped"),
                "resumes": resumes,
                "seconds": time.monotonic() - started,
                "consistent": bool(values) and consistent(graph, config, values),
            }

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=args.runs) as pool:
            list(pool.map(one, range(args.runs)))
        wall = time.monotonic() - started
    statuses = [o["status"] for o in outcomes.values()]
    seconds = sorted(o["seconds"] for o in outcomes.values())
    peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"{args.runs} concurrent runs, delay up to {args.max_delay_s} s, fault rate {args.fault_rate:.0%}: "
        f"{len(endpoint.requests)} requests, {model.faults} faults injected"
    )
    print(
        f"ended: completed {statuses.count('completed')}, failed {statuses.count('failed')}, "
        f"not terminal {sum(s not in ENDED for s in statuses)}; "
        f"resumed runs {sum(o['resumes'] > 0 for o in outcomes.values())}; "
        f"checkpoints consistent {sum(o['consistent'] for o in outcomes.values())}/{args.runs}"
    )
    print(
        f"wall {wall:.1f} s, throughput {args.runs / wall:.2f} runs/s, run latency median "
        f"{statistics.median(seconds):.1f} s, p95 {seconds[int(0.95 * (len(seconds) - 1))]:.1f} s"
    )
    print(f"peak memory: Accord process {peak_self:.0f} MiB, largest sandboxed child {peak_children:.0f} MiB")
    terminal = all(s in ENDED for s in statuses)
    return 0 if terminal and all(o["consistent"] for o in outcomes.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
