"""Role specs: consistent by construction, the one source of the graph's roles, printed by `accord roles`."""

from __future__ import annotations

import json

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import ValidationError

from accord import cli
from evals.endpoint import FakeEndpoint, Text, Tool
from graphs.compiler import roles_from_specs
from graphs.development import ROLES, WORK, build_graph
from nodes import roles
from nodes.roles import SPECS
from nodes.scripted import ScriptedChatModel
from state.context import Context
from state.contracts import Contract
from state.roles import ActionSpec, ActionType, DutySpec, RoleSpec
from tests.conftest import BAD, GOOD, PLAN, STUB, TESTS


def spec(**changes) -> RoleSpec:
    fields = dict(name="critic", goal="judge", domain="review",
                  duties=(DutySpec(name="judge", description="judge the code", actions=("look",),
                                   contract=Contract(role="critic", duty="judge", outputs=("review",))),),
                  actions=(ActionSpec(name="look", description="read", type=ActionType.LLM, returns="str"),))
    return RoleSpec(**{**fields, **changes})


def test_a_spec_that_contradicts_itself_is_refused():
    assert spec().accepts() == frozenset() and spec().produces() == {"review"}
    with pytest.raises(ValidationError, match="unknown actions"):
        spec(actions=())
    with pytest.raises(ValidationError, match="its contract is for coder/judge"):
        spec(duties=(DutySpec(name="judge", description="", actions=(),
                              contract=Contract(role="coder", duty="judge")),))


def test_the_graphs_roles_are_built_from_the_specs_and_nothing_else():
    for name, role in ROLES.items():
        assert {d: duty.contract for d, duty in role.duties.items()} == {
            d.name: d.contract for d in SPECS[name].duties}
    with pytest.raises(ValueError, match="no work for duties"):
        roles_from_specs(SPECS, {k: v for k, v in WORK.items() if k != ("tester", "select")})
    with pytest.raises(ValueError, match="no role spec declares"):
        roles_from_specs(SPECS, {**WORK, ("tester", "guess"): WORK[("tester", "select")]})


def test_every_llm_action_the_ledger_records_is_declared(tmp_path):
    models = {"planner": ScriptedChatModel(script=[PLAN]), "coder": ScriptedChatModel(script=[BAD]),
              "tester": ScriptedChatModel(script=[TESTS]), "debugger": ScriptedChatModel(script=[GOOD])}
    graph = build_graph(models, checkpointer=InMemorySaver())
    values = graph.invoke({"request": STUB}, {"configurable": {"thread_id": "r"}},
                          context=Context(max_candidates=1))
    assert values["status"] == "completed"
    for entry in values["ledger"]:
        if entry["kind"] == "llm":
            assert SPECS[entry["role"]].action(entry["detail"]).type is ActionType.LLM, entry
    # The Tester wrote its cases from the task alone: no candidate's code was in its prompt.
    assert "return a - b" not in models["tester"].prompts[0]


def test_roles_json_is_the_specs(capsys):
    assert cli.main(["roles", "--json"]) == 0
    printed = [RoleSpec.model_validate(r) for r in json.loads(capsys.readouterr().out)]
    assert printed == list(SPECS.values())
    assert [r.name for r in printed] == ["intake", "planner", "coder", "tester", "debugger", "reviewer"]
    assert cli.main(["roles"]) == 0
    text = capsys.readouterr().out
    assert "tester: test the task's behaviour" in text and "action tests [LLM](task: TaskSpec)" in text
    assert "must never: see any candidate's code" in text


def test_a_roles_model_override_sits_between_the_runs_default_and_its_per_role_setting(monkeypatch):
    monkeypatch.setitem(roles.SPECS, "planner", SPECS["planner"].model_copy(update={"model": "planner-m"}))
    answers = [Tool(json.dumps(PLAN)), Text(GOOD), Text(TESTS)]
    for context, planner_model in [(Context(model="default-m"), "planner-m"),
                                   (Context(model="default-m", role_models={"planner": {"model": "run-m"}}),
                                    "run-m")]:
        with FakeEndpoint(list(answers)) as endpoint:
            context.base_url, context.max_candidates = endpoint.url, 1
            graph = build_graph(checkpointer=InMemorySaver())
            graph.invoke({"request": STUB}, {"configurable": {"thread_id": "m"}}, context=context)
        assert [r["model"] for r in endpoint.requests] == [planner_model, "default-m", "default-m"]


def test_each_roles_agent_card_validates_as_an_a2a_sdk_agent_card(capsys):
    from a2a.types import AgentCard
    from google.protobuf.json_format import ParseDict

    assert cli.main(["roles", "--a2a"]) == 0
    cards = [ParseDict(card, AgentCard()) for card in json.loads(capsys.readouterr().out)]  # strict
    assert [c.name for c in cards] == [f"accord-{name}" for name in SPECS]
    for card, spec in zip(cards, SPECS.values(), strict=True):
        assert [s.name for s in card.skills] == [a.name for a in spec.actions]
        assert spec.goal in card.description and list(card.default_output_modes) == ["application/json"]
    assert list(cards[0].default_input_modes) == ["text/plain"]  # the intake takes the request as text
