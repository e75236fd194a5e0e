"""LLM_TOOLS actions: a model that calls the role's other actions as tools, bounded by max_tool_calls."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel

from accord.evals.configs.audit import CONFIGURATIONS
from accord.graphs.compiler import Compiler
from accord.nodes.llm import tool_loop
from accord.runtime.executor import Executor, Toolbox
from accord.state.context import Context
from accord.state.contracts import Contract
from accord.state.role_specs import ActionSpec, ActionType, DutySpec, Param, RoleSpec
from accord.state.stage import OutputError, StageCall, stage_handles
from tests.scripted import ScriptedChatModel
from tests.unit.test_audit_graph import OVERFLOW, VULNERABLE, critique


class Sum(BaseModel):
    total: int


def spec(max_tool_calls: int = 2, tools: tuple[str, ...] = ("add",)) -> RoleSpec:
    actions = (
        ActionSpec(
            name="add",
            description="add two numbers",
            type=ActionType.LOCAL_CODE,
            params=(Param(name="a", type="int"), Param(name="b", type="int")),
            returns="int",
        ),
        ActionSpec(
            name="Sum",
            description="sum with tools",
            type=ActionType.LLM_TOOLS,
            params=(Param(name="question", type="str"),),
            returns="Sum",
            config={"tools": list(tools), "max_tool_calls": max_tool_calls},
        ),
    )
    return RoleSpec(
        name="adder",
        goal="add",
        domain="tests",
        actions=actions,
        duties=(
            DutySpec(
                name="work",
                description="",
                actions=("add", "Sum"),
                contract=Contract(role="adder", duty="work"),
            ),
        ),
    )


def run(script: list[Any], max_tool_calls: int = 2) -> tuple[Sum, list[dict[str, Any]], ScriptedChatModel]:
    model = ScriptedChatModel(script=script)
    call = StageCall(
        stage="work",
        role="adder",
        round=1,
        context=Context(),
        models={"adder": model},
        spec=spec(max_tool_calls),
    )
    ledger: list[dict[str, Any]] = []
    added: list[tuple[int, int]] = []

    def add(a: int, b: int) -> int:
        added.append((a, b))
        return a + b

    def ask(question: str, tools: Toolbox) -> Sum:
        answer, _ = tool_loop(call, Sum, "Add with the tool.", question, tools)
        return answer

    executor = Executor(
        spec(max_tool_calls),
        handlers={"add": add, "Sum": ask},
        passthrough=stage_handles,
        record=lambda kind, **fields: ledger.append({"kind": kind, **fields}),
    )
    answer = executor.run("Sum", question="What is 2 + 3 + 4?")
    return answer, ledger + [e.model_dump() for e in call.ledger], model


def test_the_model_calls_a_tool_observes_and_answers():
    answer, ledger, model = run(
        [
            {"step": "add", "arguments": {"a": 2, "b": 3}},
            {"step": "add", "arguments": {"a": 5, "b": 4}},
            {"step": "answer"},
            {"total": 9},
        ],
        max_tool_calls=3,
    )
    assert answer == Sum(total=9) and model.calls == 4
    assert "tool: 5" in model.prompts[1] and "tool: 9" in model.prompts[2]  # each result came back
    calls = [e for e in ledger if e["kind"] == "action" and e["outcome"] == "tool_call"]
    assert [c["detail"] for c in calls] == ["Sum: add (call 1 of 3)", "Sum: add (call 2 of 3)"]
    assert [e["detail"] for e in ledger if e["kind"] == "llm"] == [
        "next step: add",
        "next step: add",
        "next step: answer",
        "Sum",
    ]


def test_the_loop_stops_at_max_tool_calls_and_forces_the_answer():
    keeps_calling = {"step": "add", "arguments": {"a": 1, "b": 1}}
    answer, ledger, model = run([keeps_calling, keeps_calling, {"total": 2}], max_tool_calls=2)
    assert answer == Sum(total=2)
    assert sum(e["kind"] == "action" and e["outcome"] == "tool_call" for e in ledger) == 2
    assert model.calls == 3  # two steps, then the answer without a third choice


def test_a_tool_that_fails_answers_the_model_with_its_error():
    answer, _, model = run([{"step": "add", "arguments": {"a": "x"}}, {"step": "answer"}, {"total": 0}])
    assert answer == Sum(total=0)
    assert "error: add: parameters" in model.prompts[1]


@pytest.mark.parametrize(
    ("script", "said"),
    [
        (["I would just say 9."], "calls no tool"),
        ([{"step": "multiply"}], "'multiply' is none of"),
        ([{"step": "answer"}, {"total": "nine"}], "total"),
    ],
)
def test_a_reply_that_calls_no_tool_an_unknown_one_or_a_bad_answer_is_malformed_output(script, said):
    with pytest.raises(OutputError, match=said):
        run(script)


def test_an_llm_tools_action_must_name_other_actions_of_the_role():
    with pytest.raises(ValueError, match=r"name no other action of the role: \['sub'\]"):
        Executor(spec(tools=("sub",)), handlers={"add": int, "Sum": int})
    with pytest.raises(ValueError, match="max_tool_calls of at least 1"):
        Executor(spec(max_tool_calls=0), handlers={"add": int, "Sum": int})


def test_the_audit_tester_calls_the_analysers_it_chooses_and_cites_them():
    tester = ScriptedChatModel(script=[{"step": "flawfinder"}, {"step": "answer"}, VULNERABLE])
    models = {
        "auditor": ScriptedChatModel(script=[VULNERABLE], repeat_last=True),
        "critic": ScriptedChatModel(script=[critique(VULNERABLE)], repeat_last=True),
        "tester": tester,
    }
    config = CONFIGURATIONS["tool-calling"]
    graph = (
        Compiler(config.lifecycle, config.roles, config.gates, models)
        .build()
        .compile(checkpointer=InMemorySaver())
    )
    values = graph.invoke(
        {"request": OVERFLOW, "source": "overflow.c"}, {"configurable": {"thread_id": "t"}}, context=Context()
    )
    assert values["status"] == "completed"
    cited = values["findings"]["by_role"]["tester"]["tools"]
    assert [r["tool"] for r in cited] == ["flawfinder"]  # it chose one analyser, not cppcheck
    offered = tester.prompts[0].split("at most 3 calls")[1]
    assert "- cppcheck:" in offered and "- flawfinder:" in offered and "bandit" not in offered
    tester_entries = [e for e in values["ledger"] if e["role"] == "tester"]
    assert [e["detail"] for e in tester_entries if e["outcome"] == "tool_call"] == [
        "ToolFindingLoop: flawfinder (call 1 of 3)"
    ]
