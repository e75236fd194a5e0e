"""The multiple-choice benchmarks through the eval runner: every question parses, every configuration
runs, and the gold option scores the final answer and judges every stage's."""

from __future__ import annotations

from typing import Any

import pytest

from evals import multiple_choice, report, runner
from evals.benchmarks import BENCHMARKS
from nodes.pipeline.intake import parse_question
from state.context import Context
from tests.scripted import ScriptedChatModel
from tests.unit.test_pipeline_graph import answer, critique, plan

LOGIQA = BENCHMARKS["logiqa"]


def roles(planner: Any, executor: Any, critic: Any) -> dict[str, ScriptedChatModel]:
    return {role: ScriptedChatModel(script=[said], repeat_last=True)
            for role, said in (("planner", planner), ("executor", executor), ("critic", critic))}


@pytest.mark.parametrize("name, size, letters", [("logiqa", 300, {4}), ("agieval", 300, {4, 5})])
def test_every_question_reaches_the_agents_with_its_options_and_no_gold(name, size, letters):
    items = multiple_choice.items(name)
    assert len(items) == size
    for task in BENCHMARKS[name].tasks():
        item = items[task.id]
        question = parse_question(task.prompt)  # what the pipeline's intake makes of it
        assert len(question.options) == len(item.options) and item.gold in question.letters
        assert "answer" not in task.prompt.lower().split("\n\n")[-1]  # the options say nothing of the gold
        assert task.inputs == {}
    assert {len(i.options) for i in items.values()} == letters


def test_every_configuration_runs_and_the_gold_scores_the_final_answer(tmp_path):
    tasks = runner.select(LOGIQA.tasks(), limit=3)
    assert [multiple_choice.items("logiqa")[t.id].gold for t in tasks] == ["A", "A", "D"]
    typed = roles(plan("A"), answer("A"), critique("A"))
    rows = runner.run(LOGIQA, LOGIQA.configurations["accountable"], tasks, tmp_path, Context(), models=typed)
    assert [r["passed"] for r in rows] == [True, True, False]
    assert rows[2]["answer"] == "A" and rows[2]["plan_leads_to"] == "A" and rows[0]["llm_calls"] == 3
    assert rows[2]["blame"]["origin"]["role"] == "planner"
    plain = roles("First compare the options. Answer: B", "Following the plan... Answer: D",
                  "The answer follows.\nAnswer: (D)")
    rows = runner.run(LOGIQA, LOGIQA.configurations["simple"], tasks, tmp_path, Context(), models=plain)
    assert [r["answer"] for r in rows] == ["D", "D", "D"]
    assert [r["passed"] for r in rows] == [False, False, True]
    assert rows[2]["blame"]["roles"]["executor"]["repairs"] == 1  # the plan led to B, the Executor to D
    unparsed = roles("Think.", "I am not sure which one.", "Answer: A")
    rows = runner.run(LOGIQA, LOGIQA.configurations["simple"], tasks[:1], tmp_path / "u", Context(),
                      models=unparsed)
    assert rows[0]["answer"] is None and rows[0]["status"] == "failed" and not rows[0]["passed"]
    alone = roles(None, answer("D"), None)
    rows = runner.run(LOGIQA, LOGIQA.configurations["single"], tasks, tmp_path, Context(), models=alone)
    assert [r["passed"] for r in rows] == [False, False, True] and rows[0]["llm_calls"] == 1
    summary = report.summarize(report.collect([tmp_path]))
    assert list(summary) == ["single", "simple", "accountable"]
    assert summary["accountable"]["pass@1"] == round(2 / 3, 4)
    assert summary["accountable"]["error_origins"] == {"planner": 1}
