"""Contracts reject missing, invalid and out-of-contract artifacts, and misaddressed messages."""

from __future__ import annotations

from accord.state.artifacts import CodeArtifact, Plan, Subtask, TaskSpec
from accord.state.contracts import (
    Contract,
    accepted_kinds,
    check_message,
    check_postconditions,
    check_preconditions,
)
from accord.state.graph_state import dump
from accord.state.messages import Message

CODER = Contract(
    role="coder", duty="implement", inputs=("task", "plan"), optional_inputs=("review",), outputs=("code",)
)
TASK = TaskSpec(request="x", level="application")
PLAN = Plan(subtasks=(Subtask(title="a", acceptance_criteria=("works",)),))
CODE = CodeArtifact(files={"a.py": "print(1)\n"})


def test_preconditions_need_every_input_present_and_valid():
    assert check_preconditions(CODER, {"task": dump(TASK), "plan": dump(PLAN)}) == []
    missing = check_preconditions(CODER, {"task": dump(TASK)})
    assert [(v.phase, v.key, v.detail) for v in missing] == [("precondition", "plan", "missing")]
    invalid = check_preconditions(CODER, {"task": dump(TASK), "plan": {"kind": "plan", "subtasks": []}})
    assert invalid[0].key == "plan" and "at least 1" in invalid[0].detail


def test_optional_inputs_are_validated_when_present():
    bad_review = {"kind": "review", "decision": "maybe"}
    violations = check_preconditions(CODER, {"task": dump(TASK), "plan": dump(PLAN), "review": bad_review})
    assert [v.key for v in violations] == ["review"]


def test_postconditions_need_outputs_and_nothing_else():
    assert check_postconditions(CODER, {"code": dump(CODE)}) == []
    assert check_postconditions(CODER, {})[0].detail == "missing"
    outside = check_postconditions(CODER, {"code": dump(CODE), "plan": dump(PLAN)})
    assert [(v.key, v.detail) for v in outside] == [("plan", "written outside the role's declared outputs")]
    wrong = check_postconditions(CODER, {"code": {"kind": "code", "files": "not a map"}})
    assert wrong[0].key == "code" and "files" in wrong[0].detail


def test_messages_to_unknown_roles_or_with_refused_kinds_are_violations():
    accepted = accepted_kinds([CODER, Contract(role="planner", inputs=("task",), outputs=("plan",))])
    ok = Message(sender="planner", receiver="coder", payload=(PLAN,))
    assert check_message(ok, accepted) == []
    unknown = Message(sender="planner", receiver="janitor", payload=(PLAN,))
    assert "unknown receiver" in check_message(unknown, accepted)[0].detail
    refused = Message(sender="coder", receiver="planner", payload=(CODE,))
    assert "does not take 'code'" in check_message(refused, accepted)[0].detail


def test_artifacts_are_frozen_and_closed():
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        TaskSpec(request="x", level="application", surprise=1)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        TASK.request = "y"  # type: ignore[misc]
    message = Message(sender="a", receiver="b", payload=(TASK, PLAN))
    assert Message.model_validate(message.model_dump(mode="json")).kinds() == ["task", "plan"]
