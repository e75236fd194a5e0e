"""Role specs: consistent by construction, the one source of the graph's roles, printed by `accord roles`."""

from __future__ import annotations

import dataclasses
import json

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import ValidationError

from accord import cli
from accord.graphs import development
from accord.graphs.development import ROLES, WORK, build_graph
from accord.graphs.duties import roles_from_specs
from accord.nodes.coding.writing import HARNESS_PROMPT
from accord.nodes.development import approval
from accord.nodes.development.roles import SPECS, TEAM
from accord.state.context import Context
from accord.state.contracts import Contract
from accord.state.role_specs import ActionSpec, ActionType, DutySpec, RoleSpec
from tests.conftest import BAD, GOOD, PLAN, STUB, TESTS
from tests.endpoint import FakeEndpoint, Text, Tool
from tests.scripted import ScriptedChatModel


def spec(**changes) -> RoleSpec:
    fields = dict(
        name="critic",
        goal="judge",
        domain="review",
        duties=(
            DutySpec(
                name="judge",
                description="judge the code",
                actions=("look",),
                contract=Contract(role="critic", duty="judge", outputs=("review",)),
            ),
        ),
        actions=(ActionSpec(name="look", description="read", type=ActionType.LLM, returns="str"),),
    )
    return RoleSpec(**{**fields, **changes})


def test_a_spec_that_contradicts_itself_is_refused():
    assert spec().accepts() == frozenset() and spec().produces() == {"review"}
    with pytest.raises(ValidationError, match="unknown actions"):
        spec(actions=())
    with pytest.raises(ValidationError, match="its contract is for coder/judge"):
        spec(
            duties=(
                DutySpec(
                    name="judge", description="", actions=(), contract=Contract(role="coder", duty="judge")
                ),
            )
        )


def test_the_graphs_roles_are_built_from_the_specs_and_nothing_else():
    assert set(ROLES) == {*SPECS, "human"} and development.SPECS["human"] is approval.SPEC
    for name, role in ROLES.items():
        assert {d: duty.contract for d, duty in role.duties.items()} == {
            d.name: d.contract for d in development.SPECS[name].duties
        }
    with pytest.raises(ValueError, match="no work for duties"):
        roles_from_specs(development.SPECS, {k: v for k, v in WORK.items() if k != ("tester", "select")})
    with pytest.raises(ValueError, match="no role spec declares"):
        roles_from_specs(development.SPECS, {**WORK, ("tester", "guess"): WORK[("tester", "select")]})


def test_every_llm_action_the_ledger_records_is_declared(tmp_path):
    models = {
        "planner": ScriptedChatModel(script=[PLAN]),
        "coder": ScriptedChatModel(script=[BAD]),
        "tester": ScriptedChatModel(script=[TESTS]),
        "debugger": ScriptedChatModel(script=[GOOD]),
    }
    graph = build_graph(models, checkpointer=InMemorySaver())
    values = graph.invoke(
        {"request": STUB},
        {"configurable": {"thread_id": "r"}},
        context=Context(max_candidates=1, first_attempt=False),
    )
    assert values["status"] == "completed"
    for entry in values["ledger"]:
        if entry["kind"] == "llm":
            assert SPECS[entry["role"]].action(entry["detail"]).type is ActionType.LLM, entry
    # The Tester wrote its cases from the task alone: no candidate's code was in its prompt.
    assert "return a - b" not in models["tester"].prompts[0]


def test_roles_json_is_the_specs(capsys):
    assert cli.main(["roles", "--json"]) == 0
    printed = [RoleSpec.model_validate(r) for r in json.loads(capsys.readouterr().out)]
    assert printed == list(development.SPECS.values())
    assert [r.name for r in printed] == [*SPECS, "human"]  # the team, and a person who may approve the plan
    assert list(SPECS) == ["intake", "planner", "coder", "tester", "debugger", "reviewer"]
    assert cli.main(["roles"]) == 0
    text = capsys.readouterr().out
    assert "tester: test the task's behaviour" in text and "action tests [LLM](task: TaskSpec)" in text
    assert "must never: see any candidate's code" in text
    # Each role names the embedded model it plays on where a run names none: the default team's.
    assert (
        "coder: write code that meets the task and the plan (implementation); model: the run's "
        "(qwen2.5-coder-1.5b unless configured)" in text
    )
    assert (
        "reviewer: approve only code that works and meets the task (code review); model: the run's "
        "(qwen2.5-coder-0.5b unless configured)" in text
    )


def test_a_roles_model_override_sits_between_the_runs_default_and_its_per_role_setting(monkeypatch):
    planner = development.ROLES["planner"]
    monkeypatch.setitem(
        development.ROLES,
        "planner",
        dataclasses.replace(planner, spec=SPECS["planner"].model_copy(update={"model": "planner-m"})),
    )
    answers = [Tool(json.dumps(PLAN)), Text(GOOD), Text(TESTS)]
    team = {"model": "default-m", "first_attempt": False}
    for context, planner_model in [
        (Context(**team), "planner-m"),
        (Context(**team, role_models={"planner": {"model": "run-m"}}), "run-m"),
    ]:
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
    assert [c.name for c in cards] == [f"accord-{name}" for name in development.SPECS]
    for card, spec in zip(cards, development.SPECS.values(), strict=True):
        assert [s.name for s in card.skills] == [a.name for a in spec.actions]
        assert spec.goal in card.description and list(card.default_output_modes) == ["application/json"]
    assert list(cards[0].default_input_modes) == ["text/plain"]  # the intake takes the request as text
    assert {mode for card in cards[1:] for mode in card.default_input_modes} == {"application/json"}


def _prompts_of_a_run(context: Context) -> dict[str, str]:
    models = {
        "planner": ScriptedChatModel(script=[PLAN]),
        "coder": ScriptedChatModel(script=[GOOD]),
        "tester": ScriptedChatModel(script=[TESTS]),
    }
    graph = build_graph(models, checkpointer=InMemorySaver())
    values = graph.invoke({"request": STUB}, {"configurable": {"thread_id": "s"}}, context=context)
    assert values["status"] == "completed"
    return {role: model.prompts[0] for role, model in models.items()}


def test_a_roles_style_shapes_its_system_prompt_and_no_other():
    default = _prompts_of_a_run(Context(max_candidates=1, first_attempt=False))
    assert not any("Communication style" in p for p in default.values())  # the prompts' own style
    styled = _prompts_of_a_run(
        Context(
            max_candidates=1,
            first_attempt=False,
            role_styles={
                "planner": {"tone": "formal", "verbosity": "detailed", "languages": ["de", "python"]}
            },
        )
    )
    system, user = styled["planner"].split("\nhuman: ", 1)
    assert system.endswith(
        "Communication style: a formal tone. Explain each point in full: what is wrong "
        "or chosen, why, which input shows it. Write prose in German and code in Python."
    )
    assert user == default["planner"].split("\nhuman: ", 1)[1]
    assert styled["coder"] == default["coder"] and styled["tester"] == default["tester"]


def test_a_style_comes_from_the_command_line_and_a_bad_one_is_refused_before_anything_runs(
    workdir, monkeypatch, capsys
):
    from tests.conftest import APPROVE, script_cli

    models = script_cli(monkeypatch, planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    assert (
        cli.main(
            [
                "run",
                "--file",
                "stub.py",
                "--max-candidates",
                "1",
                "--style",
                "planner=languages=fr,python",
                "--style",
                "planner=tone=warm",
            ]
        )
        == 0
    )
    assert "a warm tone" in models["planner"].prompts[0] and "prose in French" in models["planner"].prompts[0]
    for bad, why in [
        ("planner=verbosity=chatty", "verbosity"),
        ("planner=tone", "ROLE=FIELD=VALUE"),
        ("planner=mood=calm", "mood"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            cli.main(["run", "--file", "stub.py", "--style", bad])
        assert exit_.value.code == 2 and why in capsys.readouterr().err
    assert models["planner"].calls == 1  # no refused run reached a model


def test_each_roles_runtime_state_is_readable_while_a_run_stands_and_after(workdir, monkeypatch, capsys):
    from accord.cli.introspect import runtime
    from accord.graphs.development import LIFECYCLE
    from tests.conftest import APPROVE, script_cli

    # A run that stopped inside the Coder's stage (its model gave out): the state a live run shows.
    models = {"planner": ScriptedChatModel(script=[PLAN]), "coder": ScriptedChatModel(script=[])}
    graph = build_graph(models, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "live"}}
    with pytest.raises(RuntimeError, match="script exhausted"):
        graph.invoke({"request": STUB}, config, context=Context(max_candidates=1, first_attempt=False))
    states = runtime(
        graph.get_state(config).values, {s.name: s.roles for s in LIFECYCLE.stages}, development.SPECS
    )
    assert states["planner"]["status"] == "done" and states["planner"]["llm_calls"] == 1
    assert states["planner"]["tokens_in"] > 0 and states["planner"]["models"] == ["scripted"]
    assert (states["coder"]["status"], states["coder"]["stage"]) == ("working", "implementing")
    assert states["reviewer"] == {**states["reviewer"], "status": "waiting", "llm_calls": 0, "last": ""}

    script_cli(monkeypatch, planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    assert cli.main(["run", "--file", "stub.py", "--thread", "done", "--max-candidates", "1"]) == 0
    capsys.readouterr()
    assert cli.main(["roles", "--thread", "done", "--json"]) == 0
    finished = json.loads(capsys.readouterr().out)
    # No one was asked to approve the plan: the person had no part in the run.
    assert {name: s["status"] for name, s in finished.items()} == {
        **dict.fromkeys(SPECS, "done"),
        "human": "unused",
    }
    assert finished["reviewer"]["actions"] == 1 and finished["reviewer"]["sandbox_runs"] >= 1
    assert cli.main(["roles", "--thread", "nowhere"]) == 2


def test_every_system_prompt_opens_with_the_roles_identity_from_its_spec(scripted):
    run = scripted(planner=[PLAN], coder=[BAD], debugger=[GOOD], reviewer=[])
    run()
    for role, model in run.models.items():
        for prompt in model.prompts:
            if prompt.startswith(f"human: {HARNESS_PROMPT.splitlines()[0]}"):
                assert role == "coder"  # the plain call, as a harness makes it: the model alone, no identity
                continue
            system = prompt.split("\nhuman:", 1)[0]
            assert system.startswith(f"system: {SPECS[role].identity()}\n"), (role, system[:200])
    identity = SPECS["planner"].identity()
    assert all(member.capitalize() in identity for member in TEAM)  # the whole team, none missing
