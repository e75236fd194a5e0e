"""The pipeline graph with scripted models: Planner → Executor → Critic on a multiple-choice question,
typed handoffs, strict answers, and blame on every stage's answer."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from accord import cli
from accord.accountability.blame import blame
from accord.graphs import pipeline as pipeline_graph
from accord.graphs.pipeline import LIFECYCLE, build_graph, gold_oracle
from accord.nodes.pipeline.intake import parse_question
from accord.nodes.pipeline.work import AnswerDraft, ReasoningDraft, lettered, option, said_option
from accord.state.context import Context
from accord.state.history import from_graph
from accord.state.stage import OutputError
from tests.scripted import ScriptedChatModel
from tests.unit.test_lifecycle import _edges

QUESTION = """All birds lay eggs. A robin is a bird. What follows?
A. A robin flies
B. A robin lays eggs
C. A robin sings
D. Nothing follows"""


def plan(leads_to: str) -> dict[str, Any]:
    return {"steps": ["All birds lay eggs.", "A robin is a bird, so it lays eggs."], "leads_to": leads_to}


def answer(choice: str) -> dict[str, Any]:
    return {"reasoning": "Robins are birds and birds lay eggs.", "choice": choice}


def critique(choice: str) -> dict[str, Any]:
    return {"check": "Only B follows from the two premises.", "choice": choice}


class Pipeline:
    """Runs the pipeline with scripted roles against the gold option B, and keeps what happened."""

    def __init__(self, planner: list[Any], executor: list[Any], critic: list[Any], gold: str = "B"):
        self.models = {
            "planner": ScriptedChatModel(script=planner, repeat_last=True),
            "executor": ScriptedChatModel(script=executor, repeat_last=True),
            "critic": ScriptedChatModel(script=critic, repeat_last=True),
        }
        self.graph = build_graph(self.models, InMemorySaver(), oracle=gold_oracle(gold))
        self.config = {"configurable": {"thread_id": "pipeline"}}

    def __call__(self, request: str = QUESTION) -> dict[str, Any]:
        return dict(self.graph.invoke({"request": request}, self.config, context=Context()))

    def blame(self):  # type: ignore[no-untyped-def]
        return blame(from_graph(self.graph, "pipeline"), LIFECYCLE)


def test_the_compiled_edges_are_the_table():
    delta = {(t.source, t.outcome, t.target) for t in LIFECYCLE.transitions}
    fixed = {("__start__", None, LIFECYCLE.initial)}
    fixed |= {(s.name, None, "__end__") for s in LIFECYCLE.terminal()}
    assert _edges(build_graph()) == delta | fixed


def test_each_role_hands_a_typed_artifact_to_the_next():
    run = Pipeline([plan("B")], [answer("B")], [critique("B")])
    values = run()
    assert values["status"] == "completed" and values["answer"]["choice"] == "B"
    assert [v["outcome"] for v in values["verdicts"]] == ["question", "pass", "pass", "approved"]
    sent = [(m["sender"], m["receiver"], [a["kind"] for a in m["payload"]]) for m in values["handoffs"]]
    assert ("planner", "executor", ["reasoning"]) in sent and ("executor", "critic", ["answer"]) in sent
    assert "1. All birds lay eggs." in run.models["executor"].prompts[0]  # the plan, as the Executor reads it
    assert "Answer: B." in run.models["critic"].prompts[0]


def test_a_critic_that_repairs_and_one_that_harms_are_each_seen_by_blame():
    repaired = Pipeline([plan("A")], [answer("A")], [critique("B")])
    values = repaired()
    assert values["verdicts"][-1]["outcome"] == "corrected" and values["answer"]["choice"] == "B"
    assert values["critique"]["approved"] is False
    result = repaired.blame()
    flags = {(s.stage, s.role): (s.correct, s.flag) for s in result.stages}
    assert flags[("planning", "planner")][0] is False and flags[("critiquing", "critic")] == (True, "repair")
    assert result.final_correct is True and result.origin is None

    harmed = Pipeline([plan("B")], [answer("B")], [critique("C")])
    harmed()
    result = harmed.blame()
    flags = {(s.stage, s.role): (s.correct, s.flag) for s in result.stages}
    assert flags[("critiquing", "critic")] == (False, "harm")
    assert result.final_correct is False and result.origin.role == "critic"


def test_a_wrong_plan_carried_through_is_the_error_origin():
    run = Pipeline([plan("D")], [answer("D")], [critique("D")])
    assert run()["answer"]["choice"] == "D"
    result = run.blame()
    assert result.origin.role == "planner" and result.origin.stage == "planning"
    assert result.rates()["executor"] == {"repairs": 0, "wrong_inputs": 1, "harms": 0, "right_inputs": 0}


def test_an_answer_that_is_not_an_option_is_retried_under_contract_then_fails():
    run = Pipeline([plan("B")], [answer("the second one")], [critique("B")])
    values = run()
    assert values["status"] == "failed" and values["stage"] == "failed"
    assert run.models["executor"].calls == 1 + Context().max_output_retries
    # The schema the model fills names the question's letters; the feedback says which are allowed.
    assert "choice\n  Input should be 'A', 'B', 'C' or 'D'" in run.models["executor"].prompts[1]
    assert run.models["critic"].calls == 0


@pytest.mark.parametrize(
    "request_, reason",
    [
        ("", "empty"),
        ("What is two and two?", "no options"),
        ("Q?\nA. one\nC. three", "in order from A"),
        ("x" * 20_000 + "\nA. a\nB. b", "limit"),
    ],
)
def test_bad_questions_are_refused_before_any_model_call(request_, reason):
    run = Pipeline([plan("B")], [answer("B")], [critique("B")])
    values = run(request_)
    assert values["status"] == "failed" and reason in values["reason"]
    assert sum(m.calls for m in run.models.values()) == 0
    with pytest.raises(OutputError, match=reason):
        parse_question(request_)


def test_options_are_read_strictly():
    question = parse_question(QUESTION)
    assert [option(v, question) for v in ("B", " (c) ", "D.")] == ["B", "C", "D"]
    for loose in ("E", "B because", "the answer is B", ""):
        with pytest.raises(OutputError):
            option(loose, question)
    assert said_option("Reasoning...\nAnswer: (C)", question) == "C"
    assert said_option("I think A.\nThe answer is B", question) == "B"
    assert said_option("Probably the second.", question) is None
    assert said_option("Answer: E", question) is None
    # How the local models state an answer in the free-text pipeline's replies.
    assert said_option("Therefore, the correct answer is \\boxed{D}.", question) == "D"
    assert said_option("...Li Shan and Zhao Qiang.\n\nThe answer is: B", question) == "B"
    assert said_option("**Answer:** C", question) == "C"
    assert said_option("**B**", question) == "B"
    for none in ("Answer: None", "Answer: AC", "The answer is a subset of the premises."):
        assert said_option(none, question) is None


def test_accord_run_answers_a_question_and_show_reads_the_thread(workdir, monkeypatch, capsys):
    run = Pipeline([plan("A")], [answer("A")], [critique("B")])
    monkeypatch.setattr(pipeline_graph, "build_graph", partial(build_graph, run.models))
    assert cli.main(["run", "--graph", "pipeline", QUESTION, "--thread", "p1"]) == 0
    assert "answer: B — Only B follows" in capsys.readouterr().err
    assert cli.main(["show", "p1"]) == 0
    shown = capsys.readouterr().out
    assert "path: initialized → planning → executing → critiquing → completed" in shown
    assert "critiquing   critic    corrected" in shown
    # No gold option here: blame goes by the Critic's word, B, so the Executor's A reads as the mistake the
    # Critic repaired, and the plan that led to A as the Planner's.
    assert cli.main(["blame", "p1", "--json"]) == 0
    blamed = json.loads(capsys.readouterr().out)
    assert blamed["final_correct"] is True and blamed["origin"] is None
    assert [(s["role"], s["correct"], s["flag"]) for s in blamed["stages"]] == [
        ("planner", False, None),
        ("executor", False, "no-op"),
        ("critic", True, "repair"),
    ]
    assert {s["oracle"] for s in blamed["stages"]} == {"the Critic's word"}
    # A function's Critic approves or corrects code, not an option: its word judges nothing there.
    assert pipeline_graph.critics_word({"task": {"kind": "task"}, "code": {"files": {}}}) is None


def test_the_schema_a_model_fills_offers_only_the_question_s_letters():
    question = parse_question(QUESTION.rsplit("\n", 1)[0])  # options A to C
    schema = lettered(AnswerDraft, question).model_json_schema()
    assert schema["title"] == "AnswerDraft" and schema["properties"]["choice"]["enum"] == ["A", "B", "C"]
    assert schema["properties"]["reasoning"]["maxLength"] == 800


def test_the_plan_schema_asks_for_at_least_one_step_of_a_sentence():
    # A grammar-constrained small model fills what the schema allows: with no minimum, Gemma 3 270M
    # answered every LogiQA question with steps too short to be one.
    steps = ReasoningDraft.model_json_schema()["properties"]["steps"]
    assert steps["minItems"] == 1 and steps["items"]["minLength"] == 12


def test_a_plan_of_bare_numbers_is_no_plan():
    # Long enough for the schema's shortest step, with no word in it.
    numbers = {"steps": ["1. 2. 3. 4. 5.", "1) 2) 3) 4) 5)"], "leads_to": "B"}
    run = Pipeline([numbers, plan("B")], [answer("B")], [critique("B")])
    values = run()
    assert values["status"] == "completed" and run.models["planner"].calls == 2
    assert "the plan has no steps" in run.models["planner"].prompts[1]
