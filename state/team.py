"""Agents apart from roles: an agent is a model (or an A2A agent elsewhere) that may play some roles, and a
team file casts agents onto a workflow's roles.

The hybrid role-based architecture separates the two: a role is what is done (its spec: duties,
contracts, actions), an agent is who does it. One agent may play several roles in a run (one model as
Coder and Debugger); the ledger names the agent behind every entry of a role it plays. A cast is checked
against the workflow before any model is called.

A team file (YAML)::

    agents:
      - name: small
        model: qwen2.5-coder-0.5b
        roles: [coder, debugger, tester]
      - name: big
        model: qwen2.5-coder-1.5b
        roles: [planner, reviewer]
    cast: {planner: big, coder: small, tester: small, debugger: small, reviewer: big}
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError, model_validator

from accord.state.artifacts import Frozen
from accord.state.role_specs import ActionType, RoleSpec


class AgentSpec(Frozen):
    """One agent: who it is, the model it runs on (or where it is served) and the roles it may play."""

    name: str = Field(min_length=1)
    roles: tuple[str, ...] = Field(min_length=1)
    """The roles it may play."""
    model: str | None = None
    """Its model; None: the run's default model."""
    base_url: str | None = None
    """Its OpenAI-compatible endpoint; None: the run's default endpoint."""
    url: str | None = None
    """Where it is served as an A2A agent (``accord serve --a2a``), when it runs elsewhere."""


class Team(Frozen):
    """Agents and the role each plays."""

    agents: tuple[AgentSpec, ...] = Field(min_length=1)
    cast: dict[str, str]
    """Role → the name of the agent that plays it."""

    @model_validator(mode="after")
    def _consistent(self) -> Team:
        names = [a.name for a in self.agents]
        if repeated := sorted({n for n in names if names.count(n) > 1}):
            raise ValueError(f"agent names repeat: {repeated}")
        by_name = {a.name: a for a in self.agents}
        problems = [
            f"{role} is cast to {agent!r}, which is no agent of the team"
            if agent not in by_name
            else f"{agent} may not play {role} (it plays {', '.join(by_name[agent].roles)})"
            for role, agent in self.cast.items()
            if agent not in by_name or role not in by_name[agent].roles
        ]
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def agent_of(self, role: str) -> AgentSpec:
        """Return the agent that plays ``role``."""
        return next(a for a in self.agents if a.name == self.cast[role])

    def problems(self, specs: Mapping[str, RoleSpec]) -> list[str]:
        """Return what keeps this cast from a workflow with these role specs: a role that calls a model
        and has no agent, or a cast of a role the workflow does not have."""
        needed = sorted(
            name for name, spec in specs.items() if any(a.type is ActionType.LLM for a in spec.actions)
        )
        found = [f"no agent plays {role}" for role in needed if role not in self.cast]
        found += [f"the workflow has no role {role}" for role in sorted(set(self.cast) - set(specs))]
        return found


def load_team(path: Path) -> Team:
    """Read a team file.

    Raises:
        ValueError: the file cannot be read, is not YAML, or is not a consistent team (the message says why).
    """
    try:
        raw: Any = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"team file {path}: {exc}") from None
    try:
        return Team.model_validate(raw)
    except ValidationError as exc:
        said = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '<file>'}: {e['msg']}" for e in exc.errors()
        )
        raise ValueError(f"team file {path}: {said}") from None
