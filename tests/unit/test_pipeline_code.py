"""The pipeline on a function to write, with scripted models: the Planner's steps and examples, the
Executor's function, the Critic's approval or correction, blame from HumanEval's hidden tests, and the
code set through the eval runner."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from accord.accountability.blame import blame
from accord.evals import runner
from accord.evals.benchmarks import BENCHMARKS, humaneval
from accord.graphs.pipeline import LIFECYCLE, build_graph
from accord.nodes.pipeline.artifacts import Question
from accord.nodes.pipeline.coding import CodePlanDraft, ExampleDraft, example
from accord.nodes.pipeline.intake import parse_pipeline_request
from accord.state.artifacts import Example, TaskSpec
from accord.state.context import Context
from accord.state.history import from_graph
from accord.state.stage import OutputError
from tests.scripted import ScriptedChatModel

TASK = "HumanEval/53"
"""``add(x, y)``: the sum of two numbers."""
STUB = humaneval.problems()[TASK]["prompt"]
RIGHT = "```python\ndef add(x: int, y: int):\n    return x + y\n```"
WRONG = "```python\ndef add(x: int, y: int):\n    return x - y\n```"


def code_plan(returns: str = "5") -> dict[str, Any]:
    return {
        "steps": ["Add x and y.", "Return the sum."],
        "examples": [{"arguments": "2, 3", "returns": returns}],
    }


def check(correct: bool, why: str = "It returns the sum.") -> dict[str, Any]:
    return {"check": why, "correct": correct}


class CodePipeline:
    """Runs the pipeline on ``add`` with scripted roles; HumanEval's hidden tests judge every stage."""

    def __init__(self, planner: list[Any], executor: list[Any], critic: list[Any]):
        self.models = {
            "planner": ScriptedChatModel(script=planner, repeat_last=True),
            "executor": ScriptedChatModel(script=executor, repeat_last=True),
            "critic": ScriptedChatModel(script=critic, repeat_last=True),
        }
        oracle = humaneval.hidden_tests_oracle(humaneval.problems()[TASK], workflow="pipeline")
        self.graph = build_graph(self.models, InMemorySaver(), oracle=oracle)
        self.config = {"configurable": {"thread_id": "code"}}

    def __call__(self) -> dict[str, Any]:
        return dict(self.graph.invoke({"request": STUB}, self.config, context=Context()))

    def blame(self):  # type: ignore[no-untyped-def]
        return blame(from_graph(self.graph, "code"), LIFECYCLE)


def test_a_stub_is_a_function_to_write_and_prose_without_options_is_refused():
    assert isinstance(parse_pipeline_request(STUB), TaskSpec)
    assert isinstance(parse_pipeline_request("Which is prime?\nA. 4\nB. 5"), Question)
    with pytest.raises(OutputError, match=r"no options.*or give a Python function stub"):
        parse_pipeline_request("Write me a to-do app.")


def test_a_critic_that_corrects_wrong_code_repairs_it():
    run = CodePipeline([code_plan()], [WRONG], [check(False, "It subtracts instead of adding."), RIGHT])
    values = run()
    assert values["status"] == "completed" and "return x + y" in values["code"]["files"]["solution.py"]
    assert [v["stage"] for v in values["verdicts"]] == [
        "initialized",
        "planning_code",
        "executing_code",
        "critiquing_code",
    ]
    assert values["verdicts"][-1]["outcome"] == "corrected"
    assert values["critique"] == {
        "kind": "critique",
        "approved": False,
        "reason": "It subtracts instead of adding.",
    }
    assert "- add(2, 3) == 5" in run.models["executor"].prompts[0]  # the plan's examples, as handed over
    assert "return x - y" in run.models["critic"].prompts[0]
    assert "The code is wrong: It subtracts instead of adding." in run.models["critic"].prompts[1]
    flags = {s.role: (s.correct, s.flag) for s in run.blame().stages}
    assert flags["planner"][0] is True and flags["executor"] == (False, "harm")
    assert flags["critic"] == (True, "repair")


def test_a_plan_with_a_wrong_example_carried_into_wrong_code_is_the_error_origin():
    run = CodePipeline([code_plan(returns="6")], [WRONG], [check(True)])
    values = run()
    assert values["critique"] == {"kind": "critique", "approved": True, "reason": "It returns the sum."}
    assert values["verdicts"][-1]["outcome"] == "approved" and run.models["critic"].calls == 1
    result = run.blame()
    assert result.final_correct is False and result.origin.role == "planner"
    assert "does not hold: add(2, 3) == 6" in next(s.evidence for s in result.stages if s.role == "planner")


def test_examples_are_calls_by_their_arguments_and_a_bad_one_is_retried_under_contract():
    assert example(ExampleDraft(arguments="[1, 2], 3", returns="[4, 5]"), "add") == Example(
        call="add([1, 2], 3)", expected="[4, 5]"
    )
    assert example(ExampleDraft(arguments="add(2, 3)", returns="5"), "add").call == "add(2, 3)"
    run = CodePipeline(
        [{**code_plan(), "examples": [{"arguments": "2, 3)", "returns": "5"}]}, code_plan()],
        [RIGHT],
        [check(True)],
    )
    values = run()
    assert values["status"] == "completed" and run.models["planner"].calls == 2
    assert "an example's arguments must be Python" in run.models["planner"].prompts[1]
    assert values["reasoning"]["examples"] == [{"call": "add(2, 3)", "expected": "5", "setup": []}]


def test_a_code_plan_holds_steps_of_a_sentence_as_a_questions_plan_does():
    steps = CodePlanDraft.model_json_schema()["properties"]["steps"]
    assert steps["minItems"] == 1 and steps["items"]["minLength"] == 12
    run = CodePipeline([{**code_plan(), "steps": ["1. 2. 3. 4. 5."]}, code_plan()], [RIGHT], [check(True)])
    values = run()
    assert values["status"] == "completed" and run.models["planner"].calls == 2
    assert "the plan has no steps: give the implementation steps" in run.models["planner"].prompts[1]
    assert values["reasoning"]["steps"] == ["Add x and y.", "Return the sum."]


def test_the_accountable_critic_decides_in_a_typed_check_the_simple_one_lets_the_code_stand(tmp_path):
    run = CodePipeline([code_plan()], [RIGHT], ["Looks fine to me.", check(True)])
    values = run()  # a reply that is no check is refused and retried with the reason
    assert values["status"] == "completed" and run.models["critic"].calls == 2
    assert "CodeCheckDraft" in run.models["critic"].prompts[1]
    code = BENCHMARKS["humaneval-pipeline"]
    tasks = [t for t in code.tasks() if t.id == TASK]
    plain = {
        "planner": ScriptedChatModel(script=["Add them.\nadd(2, 3) == 5"], repeat_last=True),
        "executor": ScriptedChatModel(script=[RIGHT], repeat_last=True),
        "critic": ScriptedChatModel(script=["Looks fine to me."], repeat_last=True),
    }
    rows = runner.run(code, code.configurations["simple"], tasks, tmp_path, Context(), models=plain)
    assert rows[0]["passed"] is True and rows[0]["approved"] is True
    # The free-text plan's example was read and judged right, so the Executor worked from a right input.
    assert rows[0]["blame"]["roles"]["executor"]["right_inputs"] == 1


def test_every_configuration_runs_the_code_set_and_the_hidden_tests_score_it(tmp_path):
    code = BENCHMARKS["humaneval-pipeline"]
    tasks = [t for t in code.tasks() if t.id == TASK]
    typed = {
        "planner": ScriptedChatModel(script=[code_plan()], repeat_last=True),
        "executor": ScriptedChatModel(script=[WRONG], repeat_last=True),
        "critic": ScriptedChatModel(script=[check(False, "Wrong operator."), RIGHT]),
    }
    rows = runner.run(code, code.configurations["accountable"], tasks, tmp_path, Context(), models=typed)
    assert rows[0]["passed"] is True and rows[0]["approved"] is False and rows[0]["llm_calls"] == 4
    silent = {
        **typed,
        "executor": ScriptedChatModel(script=[RIGHT]),
        "critic": ScriptedChatModel(script=["Fine."], repeat_last=True),
    }
    rows = runner.run(
        code, code.configurations["accountable"], tasks, tmp_path / "failed", Context(), models=silent
    )
    assert rows[0]["status"] == "failed" and rows[0]["passed"] is False  # right code, but never handed over
    alone = {"executor": ScriptedChatModel(script=[WRONG], repeat_last=True)}
    rows = runner.run(code, code.configurations["single"], tasks, tmp_path, Context(), models=alone)
    assert rows[0]["passed"] is False and rows[0]["llm_calls"] == 1 and rows[0]["approved"] is None
