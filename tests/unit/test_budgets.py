"""Run budgets: LLM calls, tokens, cost and working time end a run in ``failed`` with the budget named,
and adversarial models cannot keep a run going past them."""

from __future__ import annotations

from itertools import cycle
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from accord import cli
from accord.cli import running
from accord.graphs.development import LIFECYCLE, build_graph
from accord.state.budget import Spend, exhausted, spent
from accord.state.context import Context
from accord.state.lifecycle import BUDGET
from tests.conftest import BAD, CHANGES, PLAN, STUB, TESTS, fenced, script_cli
from tests.scripted import ScriptedChatModel

UNBOUNDED = {"max_rounds": 1000, "max_debug_attempts": 1000, "max_candidates": 1}
"""Loop bounds loose enough that only a run budget can stop an adversarial run."""


def run(scripts: dict[str, list[Any]], **context: Any) -> dict[str, Any]:
    """Run the development graph on the stub; every scripted role repeats its last answer forever."""
    models = {role: ScriptedChatModel(script=s, repeat_last=True) for role, s in scripts.items()}
    graph = build_graph(models, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "budget"}, "recursion_limit": 10_000}
    context = {"first_attempt": False, **UNBOUNDED, **context}
    return dict(graph.invoke({"request": STUB}, config, context=Context(**context)))


def llm_calls(values: dict[str, Any]) -> int:
    return sum(1 for e in values["ledger"] if e["kind"] == "llm")


def alternating() -> list[str]:
    """Two wrong fixes, then the other, then the first... (a long script, cycled)."""
    fixes = cycle([BAD, fenced("def add(a, b):\n    return a * b\n")])
    return [next(fixes) for _ in range(400)]


ADVERSARIES = {
    "planner": [PLAN],
    "coder": [BAD],
    "tester": [TESTS],
    "debugger": alternating(),
    "reviewer": [CHANGES],
}
"""Wrong code forever, a Debugger that alternates between two wrong fixes, a Reviewer that always asks
for changes."""


def test_the_llm_call_budget_ends_an_adversarial_run():
    values = run(ADVERSARIES, max_llm_calls=12)
    assert values["status"] == "failed"
    assert values["reason"] == "LLM-call budget exhausted: 12 of 12 calls"
    assert llm_calls(values) == 12
    last = values["verdicts"][-1]
    assert last["outcome"] == BUDGET and last["target"] == "failed"


def test_the_token_budget_ends_the_run_within_one_reply():
    values = run(ADVERSARIES, max_run_tokens=2_000)
    assert values["status"] == "failed" and values["reason"].startswith("token budget exhausted")
    used = spent(values["ledger"]).tokens
    biggest = max(e["tokens_in"] + e["tokens_out"] for e in values["ledger"] if e["kind"] == "llm")
    assert 2_000 <= used < 2_000 + biggest


def test_the_cost_budget_counts_the_prices():
    values = run(ADVERSARIES, max_cost=1.0, price_in_per_1k=0.5, price_out_per_1k=1.0)
    assert values["status"] == "failed" and values["reason"].startswith("cost budget exhausted: $")
    assert values["reason"].endswith(" of $1.0000")
    assert 1.0 <= spent(values["ledger"]).cost < 1.5


def test_the_wall_time_budget_counts_working_time():
    values = run(ADVERSARIES, max_wall_s=0.5)
    assert values["status"] == "failed" and values["reason"].startswith("wall-time budget exhausted")
    assert spent(values["ledger"]).seconds >= 0.5


def test_without_budgets_the_loop_bounds_still_end_the_adversarial_run():
    values = run(ADVERSARIES, max_rounds=4, max_debug_attempts=3)
    assert values["status"] == "failed"
    assert values["reason"].startswith(("round budget exhausted", "evidence repeats"))


def test_a_planner_that_returns_nothing_fails_within_its_retries():
    values = run({"planner": [{"subtasks": []}]}, max_llm_calls=100)
    assert values["status"] == "failed" and "budget" not in values["reason"]
    assert llm_calls(values) == 1 + Context().max_output_retries


def test_a_budget_spent_mid_stage_drops_the_stage_and_keeps_its_calls():
    # Four candidates are asked for; the budget allows the planner's call and two of them.
    values = run(
        {"planner": [PLAN], "coder": [BAD, fenced("def add(a, b):\n    return 0\n")]},
        max_llm_calls=3,
        max_candidates=4,
    )
    assert values["reason"] == "LLM-call budget exhausted: 3 of 3 calls"
    assert values["verdicts"][-1]["stage"] == "implementing"
    assert "code" not in values and "candidates" not in values
    assert [e["role"] for e in values["ledger"] if e["kind"] == "llm"] == ["planner", "coder", "coder"]


def test_every_working_stage_can_take_the_budget_outcome_to_failed():
    for stage in LIFECYCLE.stages:
        if not stage.terminal:
            assert LIFECYCLE.delta[(stage.name, BUDGET)].target == "failed"


def test_exhausted_names_the_first_budget_spent():
    context = Context(max_llm_calls=5, max_run_tokens=100, first_attempt=False)
    assert exhausted(context, Spend(llm_calls=4, tokens=99)) == ""
    assert exhausted(context, Spend(llm_calls=4, tokens=100)) == "token budget exhausted: 100 of 100 tokens"
    assert exhausted(Context(), Spend(llm_calls=10**6, tokens=10**9, cost=1e6, seconds=1e6)) == ""


def test_the_cli_sets_the_budgets(workdir, monkeypatch, capsys):
    script_cli(monkeypatch, planner=[PLAN], coder=[BAD], debugger=[BAD], reviewer=[CHANGES])
    code = cli.main(
        ["run", "--file", "stub.py", "--thread", "b", "--max-candidates", "1", "--max-llm-calls", "2"]
    )
    assert code == 1
    assert "LLM-call budget exhausted: 2 of 2 calls" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--max-run-tokens", "--max-cost", "--max-wall-s"])
def test_the_cli_accepts_every_budget(flag):
    args = cli.parser().parse_args(["run", "task", flag, "7"])
    context = running.run_context(args)
    assert {
        "--max-run-tokens": context.max_run_tokens,
        "--max-cost": context.max_cost,
        "--max-wall-s": context.max_wall_s,
    }[flag] == 7
