"""Every role acts through its executor: each model call and each sandbox run happens inside one of the
role's typed actions (before → dispatched → after in the ledger), named as its spec names it."""

from __future__ import annotations

from typing import Any

from accord.nodes.development.roles import SPECS
from tests.conftest import APPROVE, BAD, CHANGES, GOOD
from tests.conftest import PLAN as FUNCTION_PLAN
from tests.unit.test_application_flow import BUILT, PLAN, TASK


def actions_taken(ledger: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Return each role's dispatched actions in order, asserting that no model call or sandbox run of a
    role happened outside an open action of that role."""
    open_action: dict[str, str] = {}
    taken: dict[str, list[str]] = {}
    for entry in ledger:
        role = entry["role"]
        if entry["kind"] == "action":
            name = entry["detail"].split(":")[0]
            assert name in {a.name for a in SPECS[role].actions}, f"{role} has no action {name}"
            if entry["outcome"] == "before":
                open_action[role] = name
            elif entry["outcome"] == "dispatched":
                taken.setdefault(role, []).append(name)
            elif entry["outcome"] in ("after", "failed"):
                open_action.pop(role, None)
        elif entry["kind"] in ("llm", "sandbox"):
            assert role in open_action, f"{role}: {entry['kind']} {entry['detail']!r} outside an action"
    return taken


def test_a_function_tasks_roles_act_through_their_executors(scripted):
    run = scripted(planner=[FUNCTION_PLAN], coder=[BAD], debugger=[GOOD], reviewer=[CHANGES, APPROVE])
    values = run(max_rounds=2)
    assert values["status"] == "completed"
    taken = actions_taken(values["ledger"])
    assert taken["planner"] == ["PlanDraft"]
    assert taken["tester"][0] == "tests" and set(taken["tester"][1:]) == {"sandbox"}
    assert "code" in taken["coder"]
    assert {"sandbox", "code"} <= set(taken["debugger"])
    assert taken["reviewer"][0] == "sandbox"


def test_an_applications_roles_act_through_their_executors(scripted):
    run = scripted(planner=[PLAN], coder=BUILT, reviewer=[APPROVE])
    values = run(TASK)
    assert values["status"] == "completed"
    taken = actions_taken(values["ledger"])
    assert taken["planner"] == ["FeaturesDraft"]
    # A piece of app.py per feature, the interface from the plan, then a test per function, each run in
    # the sandbox before it is kept.
    assert taken["coder"] == ["piece"] * 2 + ["interface"] + ["test", "sandbox"] * 2
    assert taken["debugger"] == ["sandbox", "static_check"]
    assert taken["reviewer"] == ["sandbox", "analyse", "ReviewDraft"]
