"""The real development graph on the real local model, against two HumanEval problems."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from accord.evals.benchmarks.humaneval import passes_hidden_tests, problems
from accord.graphs.development import LIFECYCLE, build_graph
from accord.runtime import local_model
from accord.state.artifacts import CodeArtifact
from accord.state.context import Context
from accord.state.graph_state import ENDED

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("task_id", ["HumanEval/0", "HumanEval/2"])
def test_graph_reaches_a_terminal_stage_with_a_consistent_ledger(task_id, server, tmp_path):
    with SqliteSaver.from_conn_string(str(tmp_path / "checkpoints.sqlite")) as saver:
        graph = build_graph(checkpointer=saver)
        config = {"configurable": {"thread_id": task_id}}
        values = graph.invoke(
            {"request": problems()[task_id]["prompt"]},
            config,
            context=Context(max_rounds=2, max_debug_attempts=2, max_candidates=2),
        )
        history = list(graph.get_state_history(config))

    assert values["status"] in ENDED
    assert values["stage"] in {s.name for s in LIFECYCLE.terminal()}
    assert history[0].next == ()  # the run ended: nothing left to schedule

    # The path follows δ: each decision starts where the previous one led.
    decisions = [v for v in values["verdicts"] if v["target"]]
    stage = LIFECYCLE.initial
    for v in decisions:
        assert v["stage"] == stage
        assert LIFECYCLE.delta[(v["stage"], v["outcome"])].target == v["target"]
        stage = v["target"]
    assert stage == values["stage"]

    ledger = values["ledger"]
    llm = [e for e in ledger if e["kind"] == "llm"]
    # Each role on the default team's model for it (the 1.5B Coder, the 0.5B model elsewhere).
    assert llm and all(e["model"] == local_model.default_model(e["role"]) for e in llm)
    assert all(e["tokens_in"] > 0 and e["latency_s"] > 0 for e in llm)
    assert all(e["tokens_out"] > 0 for e in llm if e["outcome"] == "ok")
    assert len([e for e in ledger if e["kind"] == "gate"]) == len(decisions)
    assert {e["round"] for e in ledger} <= set(range(1, 3))
    # Every LLM call was made by the role whose stage it is recorded under.
    roles = {s.name: set(s.roles) for s in LIFECYCLE.stages}
    assert all(e["role"] in roles[e["stage"]] for e in llm)

    if values["status"] == "completed":
        code = CodeArtifact.model_validate(values["code"])
        passed, detail = passes_hidden_tests(problems()[task_id], code)
        print(f"{task_id}: completed; hidden tests {'pass' if passed else 'fail: ' + detail[-200:]}")
