"""``accord roles``: every role as its spec says it is — identity, duties, contracts, actions, properties."""

from __future__ import annotations

import argparse
import json
from typing import Any

from state.roles import RoleSpec


def describe(spec: RoleSpec, default_model: str) -> str:
    """Return a role spec as readable text."""
    lines = [f"{spec.name}: {spec.goal} ({spec.domain}); model: {spec.model or default_model}"]
    for duty in spec.duties:
        c = duty.contract
        inputs = ", ".join([*c.inputs, *(f"{k}?" for k in c.optional_inputs)]) or "-"
        outputs = ", ".join([*c.outputs, *(f"{k}?" for k in c.optional_outputs)]) or "-"
        lines.append(f"  duty {duty.name}: {duty.description}\n    contract: {inputs} → {outputs}; "
                     f"actions: {', '.join(duty.actions)}")
    for action in spec.actions:
        params = ", ".join(f"{p.name}: {p.type}{' = None' if p.optional else ''}" for p in action.params)
        lines.append(f"  action {action.name} [{action.type.name}]({params}) -> {action.returns}: "
                     f"{action.description}")
    for prop in spec.properties:
        lines.append(f"  {prop.kind.replace('_', ' ')}: {prop.statement} (enforced by {prop.enforced_by})")
    return "\n".join(lines)


def agent_card(spec: RoleSpec, version: str = "0.1.0") -> Any:
    """Return the role's A2A Agent Card (``a2a.types.AgentCard``): one skill per action.

    Artifacts travel as JSON; only the intake takes text. A role is not served on its own (the
    development graph is, at ``/a2a/{assistant_id}``), so the card names no interface.
    """
    from a2a.types import AgentCapabilities, AgentCard, AgentSkill

    inputs = ["text/plain"] if "task" in spec.produces() else ["application/json"]
    outputs = ["application/json"]
    skills = [AgentSkill(id=f"{spec.name}.{a.name}", name=a.name, description=a.description,
                         tags=[a.type.value, spec.domain], input_modes=inputs, output_modes=outputs)
              for a in spec.actions]
    duties = "; ".join(f"{d.name}: {d.description}" for d in spec.duties)
    return AgentCard(name=f"accord-{spec.name}", description=f"{spec.goal} ({spec.domain}). Duties: {duties}",
                     version=version, capabilities=AgentCapabilities(streaming=False),
                     default_input_modes=inputs, default_output_modes=outputs, skills=skills)


def cmd_roles(args: argparse.Namespace) -> int:
    """Print every role of the development graph from its spec."""
    from nodes.roles import SPECS
    from state.context import Context

    default = Context().model or "the run's model (local model unless configured)"
    if args.a2a:
        from google.protobuf.json_format import MessageToDict

        print(json.dumps([MessageToDict(agent_card(spec)) for spec in SPECS.values()], indent=2))
    elif args.json:
        data: list[dict[str, Any]] = [spec.model_dump(mode="json") for spec in SPECS.values()]
        print(json.dumps(data, indent=2))
    else:
        print("\n\n".join(describe(spec, default) for spec in SPECS.values()))
    return 0


def add_roles_command(sub: Any) -> None:
    """Register ``accord roles`` on the CLI's subparsers."""
    p = sub.add_parser("roles", help="every role: identity, duties, contracts, actions, safety properties")
    p.add_argument("--json", action="store_true", help="the role specs as JSON")
    p.add_argument("--a2a", action="store_true", help="each role's A2A Agent Card (JSON)")
    p.set_defaults(func=cmd_roles)
