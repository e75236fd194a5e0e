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


def cmd_roles(args: argparse.Namespace) -> int:
    """Print every role of the development graph from its spec."""
    from nodes.roles import SPECS
    from state.context import Context

    default = Context().model or "the run's model (local model unless configured)"
    if args.json:
        data: list[dict[str, Any]] = [spec.model_dump(mode="json") for spec in SPECS.values()]
        print(json.dumps(data, indent=2))
    else:
        print("\n\n".join(describe(spec, default) for spec in SPECS.values()))
    return 0


def add_roles_command(sub: Any) -> None:
    """Register ``accord roles`` on the CLI's subparsers."""
    p = sub.add_parser("roles", help="every role: identity, duties, contracts, actions, safety properties")
    p.add_argument("--json", action="store_true", help="the role specs as JSON")
    p.set_defaults(func=cmd_roles)
