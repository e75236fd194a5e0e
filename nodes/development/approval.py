"""A person in the lifecycle: the ``human`` role, whose one action puts the plan to a person through
LangGraph's ``interrupt``.

The run waits at its checkpoint, however long, until the answer comes (``accord resume THREAD --approve``,
``--reject REASON`` or ``--edit PLAN.json``, or Studio's resume): approve, reject with the reason the
Planner's next attempt must answer, or edit (the edited plan replaces the Planner's). An answer that is
none of these, or an edit that is not a valid plan, is refused with the reason and the run keeps waiting.
The decision, who made it and when are an ``Approval`` artifact and a ledger entry, so that blame can
attribute an edit that brings an error to the person (the role ``human``).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from functools import partial
from typing import Any, Literal

from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from accord.nodes.development.artifacts import Approval
from accord.nodes.views import artifacts, plan_view
from accord.runtime.executor import perform
from accord.state.artifacts import Plan
from accord.state.contracts import Contract
from accord.state.graph_state import dump
from accord.state.role_specs import (
    CONTRACT_BOUND,
    ActionSpec,
    ActionType,
    DutySpec,
    Param,
    RoleSpec,
    SafetyProperty,
)
from accord.state.stage import StageCall

APPROVE = Contract(
    role="human",
    duty="approve",
    inputs=("task", "plan"),
    outputs=("approval", "plan"),
    recorded=("approval",),
)
"""A person reads the task and the plan and hands the plan on, as it was or edited; the approval is kept for
the record (the gate and the Planner's next attempt read it from state)."""

SPEC = RoleSpec(
    name="human",
    goal="approve the plan before work goes on, reject it with a reason, or edit it",
    domain="oversight",
    duties=(
        DutySpec(
            name="approve",
            description="decide on the Planner's plan",
            contract=APPROVE,
            actions=("ask_person",),
        ),
    ),
    actions=(
        ActionSpec(
            name="ask_person",
            description="show the plan to a person and wait for the answer "
            "(a LangGraph interrupt: the run waits at its checkpoint)",
            type=ActionType.HUMAN,
            params=(Param(name="plan", type="Plan"),),
            returns="answer",
            config={"retries": 0},
        ),
    ),
    properties=(
        CONTRACT_BOUND,
        SafetyProperty(
            kind="must_never",
            name="accept_an_invalid_edit",
            statement="let an edited plan that does not validate replace the Planner's",
            enforced_by="nodes/development/approval.py:decision validates the edit against Plan; "
            "the run keeps waiting",
        ),
    ),
)


class PersonAnswer(BaseModel):
    """What a person answers when a plan is put to them."""

    model_config = ConfigDict(extra="forbid")

    decision: Literal["approve", "reject", "edit"]
    reason: str = Field(default="", description="why the plan is rejected (required to reject)")
    plan: dict[str, Any] | None = Field(default=None, description="the edited plan (required to edit)")
    by: str = Field(default="a person", min_length=1, description="who decides")


ASKED = (
    "Approve the plan, reject it with the reason, or edit it. Answer "
    '{"decision": "approve"}, {"decision": "reject", "reason": "..."} or '
    '{"decision": "edit", "plan": {...}}, optionally with "by": your name.'
)


def decision(answer: Any) -> tuple[Approval, Plan | None]:
    """Return the approval an answer makes and, for an edit, the edited plan.

    Raises:
        ValueError: the answer is not one of the three, a rejection gives no reason, or an edit's plan
            does not validate (the message says which).
    """
    try:
        said = PersonAnswer.model_validate(answer)
    except ValidationError as exc:
        raise ValueError(f"not an answer: {exc.errors()[0]['msg']} ({ASKED})") from None
    if said.decision == "reject" and not said.reason.strip():
        raise ValueError("a rejection needs the reason, for the Planner's next attempt")
    edited = None
    if said.decision == "edit":
        try:
            edited = Plan.model_validate(said.plan)
        except ValidationError as exc:
            where = ".".join(str(p) for p in exc.errors()[0]["loc"]) or "the plan"
            raise ValueError(f"the edited plan is not valid: {where}: {exc.errors()[0]['msg']}") from None
    at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    made = {"approve": "approved", "reject": "rejected", "edit": "edited"}[said.decision]
    return Approval(decision=made, reason=said.reason.strip(), by=said.by, at=at), edited


def _ask(question: Mapping[str, Any], **_: Any) -> Any:
    """The person's answer to ``question``: the run waits here until it is resumed with one."""
    return interrupt(question)


def approve(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Put the plan to a person and take the decision; an answer refused is asked for again, with why."""
    task, plan, _ = artifacts(state)
    assert plan is not None  # the contract's precondition
    question = {"ask": ASKED, "task": task.request, "plan": dump(plan), "plan_text": plan_view(plan)}
    refused = ""
    while True:
        # Each interrupt is answered in turn on resume (LangGraph replays the node, matching answers to
        # interrupts by order), so a refused answer is followed by the next one.
        shown = {**question, "refused": refused} if refused else question
        answer = perform(call, "ask_person", partial(_ask, shown), plan=plan)
        try:
            approval, edited = decision(answer)
        except ValueError as exc:
            refused = str(exc)
            call.record("human", outcome="refused", detail=refused[:300])
            continue
        break
    reason = f": {approval.reason}" if approval.reason else ""
    call.record("human", outcome=approval.decision, detail=f"by {approval.by} at {approval.at}{reason}")
    return {"approval": dump(approval), "plan": dump(edited or plan)}
