"""What a role receives when its stage runs: the stage call, the errors it may raise, the work signature.

This is protocol, not scheduling: roles (``nodes``) depend on it and the compiler (``graphs``) fills it
in, so no role knows the compiler that runs it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import openai
from langchain_core.language_models import BaseChatModel
from langgraph.errors import GraphBubbleUp
from pydantic import ValidationError

from accord.state.budget import BudgetExhausted, Spend, exhausted, spent
from accord.state.context import Context
from accord.state.contracts import Violation
from accord.state.graph_state import LedgerEntry
from accord.state.role_specs import RoleSpec


class OutputError(ValueError):
    """Raised by a role whose model output is malformed; the contract wrapper records it as a violation."""


class RequestRefused(OutputError):
    """Raised when the endpoint refuses a model call as asked (HTTP 400 or 422: a prompt over the model's
    context, a parameter it does not take, a message it cannot read). The same request is refused again, so
    the stage fails at once: its output retries would only lengthen the prompt."""


class RoleUnavailable(RuntimeError):
    """Raised when the agent playing a role elsewhere cannot be reached: no fault of the role's output, so
    the run stops at its last checkpoint, to be resumed once the agent answers."""


@dataclass
class StageCall:
    """What a role gets besides the state: where it is, who it is, its settings, feedback, and a ledger."""

    stage: str
    role: str
    round: int
    context: Context
    models: Mapping[str, BaseChatModel]
    """Build-time model overrides by role (tests pass scripted models here)."""
    spec: RoleSpec | None = None
    """The role's spec: its actions, model and style (None for a role built without one)."""
    feedback: list[Violation] = field(default_factory=list)
    """Violations of the previous attempt, for the role to correct."""
    ledger: list[LedgerEntry] = field(default_factory=list)
    step: int = -1
    """The LangGraph step this stage runs in (its checkpoint's ``metadata.step``)."""
    spent_before: Spend | None = None
    """What the run spent before this stage; None where the stage declares no ``budget`` outcome."""
    started: float = field(default_factory=time.monotonic)

    def record(self, kind: str, **fields: Any) -> None:
        """Append a ledger entry for this stage, naming the agent the run cast in the role, if any."""
        fields.setdefault("agent", self.context.role_agents.get(self.role, ""))
        self.ledger.append(
            LedgerEntry(
                kind=kind, role=self.role, stage=self.stage, round=self.round, step=self.step, **fields
            )
        )

    def check_budget(self) -> None:
        """Raise BudgetExhausted when a run budget is spent (before the stage and each model call)."""
        if self.spent_before is None:
            return
        here = spent(e.model_dump() for e in self.ledger) + Spend(seconds=time.monotonic() - self.started)
        if reason := exhausted(self.context, self.spent_before + here):
            raise BudgetExhausted(reason)


Work = Callable[[Mapping[str, Any], StageCall], dict[str, Any]]
"""A duty's work: (state, call) -> update holding exactly the contract's output artifacts (JSON)."""


def is_transient(exc: BaseException) -> bool:
    """Return whether an error is worth retrying (endpoint down, timeout, rate limit, 5xx)."""
    return isinstance(
        exc,
        (
            openai.APIConnectionError,
            openai.APITimeoutError,
            openai.RateLimitError,
            openai.InternalServerError,
        ),
    )


def stage_handles(exc: BaseException) -> bool:
    """Return whether running a stage handles ``exc`` itself: transient endpoint errors (the retry
    policy), malformed output (retried with the violation fed back), a spent budget, an interrupt."""
    handled = OutputError | ValidationError | BudgetExhausted | GraphBubbleUp
    return isinstance(exc, handled) or is_transient(exc)
