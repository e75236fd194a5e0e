"""Run budgets: LLM calls, tokens, cost and working time, counted from the ledger.

A budget is checked before every stage and before every model call; the first one spent ends the run in
the lifecycle's ``budget`` outcome with that budget named as the reason. A call already under way is not
cut short, so tokens and cost can overshoot by at most one reply.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from accord.state.context import Context


class BudgetExhausted(Exception):
    """Raised before a model call that a spent run budget forbids; the message names the budget."""


@dataclass(frozen=True)
class Spend:
    """What a run has used so far."""

    llm_calls: int = 0
    tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    """Working time: the stages' own time (a run paused or waiting to resume does not count)."""

    def __add__(self, other: Spend) -> Spend:
        return Spend(
            self.llm_calls + other.llm_calls,
            self.tokens + other.tokens,
            self.cost + other.cost,
            self.seconds + other.seconds,
        )


def spent(ledger: Iterable[Mapping[str, Any]]) -> Spend:
    """Return what the ledger entries account for: LLM calls with their tokens and cost, and the stages'
    time (each gate entry carries its stage's duration)."""
    calls = tokens = 0
    cost = seconds = 0.0
    for entry in ledger:
        if entry["kind"] == "llm":
            calls += 1
            tokens += int(entry.get("tokens_in", 0)) + int(entry.get("tokens_out", 0))
            cost += float(entry.get("cost", 0.0))
        elif entry["kind"] == "gate":
            seconds += float(entry.get("latency_s", 0.0))
    return Spend(calls, tokens, cost, seconds)


def exhausted(context: Context, spend: Spend) -> str:
    """Return why the run may not go on (the first budget spent), or '' while every budget holds."""
    checks = (
        ("LLM-call", spend.llm_calls, context.max_llm_calls, "{:,}", " calls"),
        ("token", spend.tokens, context.max_run_tokens, "{:,}", " tokens"),
        ("cost", spend.cost, context.max_cost, "${:.4f}", ""),
        ("wall-time", spend.seconds, context.max_wall_s, "{:.1f}", " s"),
    )
    for name, used, limit, number, unit in checks:
        if limit and used >= limit:
            return f"{name} budget exhausted: {number.format(used)} of {number.format(limit)}{unit}"
    return ""
