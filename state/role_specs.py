"""Role specs as data: identity, duties with their contracts, typed actions, safety properties, model, style.

A role is a runtime entity, not prompt text: ``accord roles`` prints these specs, the development graph is
built from them, and a spec that contradicts itself (a duty naming an action the role does not have, a
contract for another role) fails when it is built.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, model_validator

from accord.state.artifacts import Frozen
from accord.state.contracts import Contract


class ActionType(StrEnum):
    """How an action runs: code on this machine, an HTTP service, a model, a model that calls the role's
    other actions as tools until it answers, a tool on an MCP server, or a person's answer (the run waits
    for it at a LangGraph interrupt)."""

    LOCAL_CODE = "local_code"
    WEB_SERVICE = "web_service"
    LLM = "llm"
    LLM_TOOLS = "llm_tools"
    MCP_TOOL = "mcp_tool"
    HUMAN = "human"


class Param(Frozen):
    """One parameter of an action."""

    name: str
    type: str
    """Its Python type, as written in an annotation (e.g. ``TaskSpec``, ``int``)."""
    optional: bool = False
    default: Any = None


class ActionSpec(Frozen):
    """One typed action a role can take; its ``name`` is what the ledger records for it."""

    name: str
    description: str
    type: ActionType
    params: tuple[Param, ...] = ()
    returns: str
    config: dict[str, Any] = Field(default_factory=dict)
    """Type-specific settings: the sandbox limits for LOCAL_CODE, output schema and temperature for LLM,
    endpoint, method and timeout for WEB_SERVICE (``protocol: a2a`` makes it an A2A ``message/send``),
    server, tool and timeout for MCP_TOOL, ``tools`` (the role's actions its model may call) and
    ``max_tool_calls`` for LLM_TOOLS."""


class SafetyProperty(Frozen):
    """Something a role must always or must never do, and what enforces it."""

    kind: Literal["must_always", "must_never"]
    name: str
    statement: str
    enforced_by: str
    """The mechanism that checks it (the sandbox, a contract check, a gate), so it can be audited."""
    check: Literal["", "workspace_paths", "offline"] = ""
    """A predicate the action executor evaluates before every action (``runtime/executor.py:CHECKS``):
    ``workspace_paths`` refuses a path parameter outside the workspace, ``offline`` any network action."""


CONTRACT_BOUND = SafetyProperty(
    kind="must_never",
    name="write_outside_contract",
    statement="write an artifact its duty's contract does not declare as an output",
    enforced_by="the contract postcondition check on every state update (graphs/compiler.py)",
)
"""Every role's property in any workflow: the compiler's contract wrapper enforces it."""


class DutySpec(Frozen):
    """A named responsibility: the contract it is held to and the actions that fulfil it."""

    name: str
    description: str
    contract: Contract
    actions: tuple[str, ...]


VERBOSITY = {
    "terse": "Keep every text field to the point: one sentence where one will do.",
    "normal": "Explain briefly where an explanation helps the reader.",
    "detailed": "Explain each point in full: what is wrong or chosen, why, which input shows it.",
}
LANGUAGES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
    "zh": "Chinese",
    "ja": "Japanese",
    "python": "Python",
}


class Style(Frozen):
    """How a role's prompts speak. The prompts are written in the default style; any other setting adds
    one instruction to the role's system prompt (``instruction``)."""

    tone: str = "direct"
    verbosity: Literal["terse", "normal", "detailed"] = "terse"
    languages: tuple[str, ...] = Field(default=("en", "python"), min_length=2)
    """The natural language of prose first, then the languages code is written in."""

    def instruction(self) -> str:
        """Return what the system prompt adds for this style ("" for the default)."""
        if self == Style():
            return ""
        prose, *code = (LANGUAGES.get(name.lower(), name) for name in self.languages)
        return (
            f"\n\nCommunication style: a {self.tone} tone. {VERBOSITY[self.verbosity]} "
            f"Write prose in {prose} and code in {', '.join(code)}."
        )


class RoleSpec(Frozen):
    """Everything a role is, queryable while a run is live."""

    name: str
    goal: str
    domain: str
    duties: tuple[DutySpec, ...]
    actions: tuple[ActionSpec, ...]
    properties: tuple[SafetyProperty, ...] = ()
    team: tuple[str, ...] = ()
    """The roles it works with, itself included, in the order work flows; its system prompt names them."""
    team_name: str = "a small software team"
    """What the team is, as its system prompt says it."""
    model: str | None = None
    """A model for this role alone; None falls back to the run's default (the Context's ``model``)."""
    style: Style = Style()

    @model_validator(mode="after")
    def _consistent(self) -> RoleSpec:
        actions = [a.name for a in self.actions]
        if len(set(actions)) < len(actions):
            raise ValueError(f"role {self.name}: action names repeat: {actions}")
        for duty in self.duties:
            if duty.contract.role != self.name or duty.contract.duty != duty.name:
                raise ValueError(
                    f"role {self.name}, duty {duty.name}: its contract is for "
                    f"{duty.contract.role}/{duty.contract.duty}"
                )
            if unknown := [a for a in duty.actions if a not in actions]:
                raise ValueError(f"role {self.name}, duty {duty.name}: unknown actions {unknown}")
        return self

    def identity(self) -> str:
        """Return who the role is, as every one of its system prompts opens."""
        team = f" ({', '.join(member.capitalize() for member in self.team)})" if self.team else ""
        return f"You are the {self.name.capitalize()} of {self.team_name}{team}. Your goal: {self.goal}."

    def system_prompt(self, instructions: str, style: Style | None = None) -> str:
        """Return a system prompt: the role's identity, a duty's ``instructions``, then its style's."""
        return f"{self.identity()}\n{instructions}" + (style or self.style).instruction()

    def action(self, name: str) -> ActionSpec:
        """Return the action called ``name``."""
        return next(a for a in self.actions if a.name == name)

    def narrowed(self, *names: str) -> RoleSpec:
        """Return the role with only the actions ``names`` and those they fall back to (and no duties):
        what an executor for just those actions needs."""
        wanted = set(names)
        wanted |= {a.config["fallback"] for a in self.actions if a.name in wanted and "fallback" in a.config}
        return self.model_copy(
            update={"duties": (), "actions": tuple(a for a in self.actions if a.name in wanted)}
        )

    def accepts(self) -> frozenset[str]:
        """Return the artifact kinds a message to this role may carry (its message interface)."""
        return frozenset().union(*(d.contract.accepts() for d in self.duties))

    def produces(self) -> frozenset[str]:
        """Return the artifact kinds this role may write."""
        return frozenset().union(
            *(set(d.contract.outputs) | set(d.contract.optional_outputs) for d in self.duties)
        )
