"""A thread's account: the steps it took, the MAST failures in them, blame and what each role spent.

Every reader of a thread — the eval runner's rows, the run's page, ``accord blame | cost | export`` and
the Python API — takes its account from ``of_chain`` (a branch already read) or ``account`` (a graph and
a thread), so the chain trace → failures → blame → cost is written once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.accountability import cost, mast
from accord.accountability.blame import Blame, blame
from accord.accountability.trace import Step, steps
from accord.graphs.catalog import blame_oracle, workflow_of
from accord.graphs.oracle import Oracle
from accord.state.history import Checkpoint, from_graph
from accord.state.lifecycle import Lifecycle


@dataclass(frozen=True)
class Account:
    """Who did what in one branch of a thread, what it cost, and who is to blame."""

    values: Mapping[str, Any]
    """The branch's last state."""
    trace: Sequence[Step]
    """The working steps, oldest first."""
    failures: Sequence[mast.Finding]
    """The MAST failure modes found in the steps (by the detectors; by the judge too, where one was given)."""
    blame: Blame
    """Each step's verdict, repairs and harms, and the error's origin."""
    cost: Mapping[str, Any]
    """The ledger summed in all and per role, model and stage (``accountability.cost.breakdown``)."""


UNISOLATED = "Model-written code ran with rlimits only, unisolated (ACCORD_SANDBOX=unsafe-rlimits)."
"""What the CLI and the page say of a run that ran code without bubblewrap."""


def outcome(values: Mapping[str, Any]) -> dict[str, Any]:
    """Return a thread's outcome from its last state: status, stage, reason, round, the path it took and
    its ledger's totals."""
    verdicts = values.get("verdicts", [])
    return {
        "status": values.get("status", "running"),
        "stage": values.get("stage", "initialized"),
        "reason": values.get("reason", ""),
        "round": values.get("counters", {}).get("round", 1),
        "path": ["initialized", *[v["target"] for v in verdicts if v.get("target")]],
        # Whether model-written code ran with rlimits alone (ACCORD_SANDBOX=unsafe-rlimits) in this run.
        "unisolated": any(e.get("isolation") == "rlimits" for e in values.get("ledger", [])),
        **cost.breakdown(values.get("ledger", []))["total"],
    }


def of_chain(
    chain: Sequence[Checkpoint],
    lifecycle: Lifecycle,
    oracle: Oracle | None = None,
    judge: mast.Judge | None = None,
) -> Account:
    """Return the account of a branch (oldest checkpoint first).

    Args:
        chain: the branch's checkpoints.
        lifecycle: the table the thread ran.
        oracle: what judges each step now; None: the judgments stored as it ran.
        judge: MAST's LLM judge, for the modes no detector found (its findings are marked judged).
    """
    branch = list(chain)
    values = branch[-1].values if branch else {}
    trace = steps(branch, lifecycle)
    return Account(
        values=values,
        trace=trace,
        failures=mast.classify(trace, values, judge),
        blame=blame(branch, lifecycle, oracle),
        cost=cost.breakdown(values.get("ledger", [])),
    )


def account(
    graph: Any, thread: str, oracle: Oracle | None = None, judge: mast.Judge | None = None
) -> Account:
    """Return the account of a thread of a compiled workflow graph, by its registered lifecycle.

    Blame reads ``oracle`` when given, else what the thread's workflow judges an ended thread by
    (``judged_after``), else the judgments stored as it ran.

    Raises:
        LookupError: the graph holds no checkpoint of ``thread``.
        KeyError: the thread runs a workflow that is not registered here.
    """
    chain = from_graph(graph, thread)
    if not chain:
        raise LookupError(f"no checkpoints for thread {thread!r}")
    values = chain[-1].values
    return of_chain(chain, workflow_of(values).lifecycle, oracle or blame_oracle(values), judge)
