"""``accord roles``: every role as its spec says it is — identity, duties, contracts, actions, properties."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from accord.runtime import local_model
from accord.state.role_specs import RoleSpec


def describe(spec: RoleSpec) -> str:
    """Return a role spec as readable text, its model the spec's own or the run's (the embedded default
    team's for the role where the run names none and no endpoint serves it)."""
    model = spec.model or f"the run's ({local_model.default_model(spec.name)} unless configured)"
    lines = [f"{spec.name}: {spec.goal} ({spec.domain}); model: {model}"]
    if spec.team:
        lines.append(f"  identity: {spec.identity()}")
    for duty in spec.duties:
        c = duty.contract
        inputs = ", ".join([*c.inputs, *(f"{k}?" for k in c.optional_inputs)]) or "-"
        outputs = ", ".join([*c.outputs, *(f"{k}?" for k in c.optional_outputs)]) or "-"
        hidden = f" (withheld: {', '.join(c.withheld)})" if c.withheld else ""
        lines.append(
            f"  duty {duty.name}: {duty.description}\n    contract: {inputs}{hidden} → {outputs}; "
            f"actions: {', '.join(duty.actions)}"
        )
    for action in spec.actions:
        params = ", ".join(f"{p.name}: {p.type}{' = None' if p.optional else ''}" for p in action.params)
        lines.append(
            f"  action {action.name} [{action.type.name}]({params}) -> {action.returns}: {action.description}"
        )
    for prop in spec.properties:
        lines.append(f"  {prop.kind.replace('_', ' ')}: {prop.statement} (enforced by {prop.enforced_by})")
    return "\n".join(lines)


def runtime(
    values: Mapping[str, Any], stage_roles: Mapping[str, tuple[str, ...]], names: Iterable[str]
) -> dict[str, dict[str, Any]]:
    """Return each role's runtime state in a thread (live or finished), from its checkpointed state.

    ``status``: ``working`` (the thread's current stage is the role's and the run goes on), ``done`` (it has
    worked in this run), ``waiting`` (not yet), ``unused`` (the run ended without it); then the stage it last
    worked in, its model calls, tokens, cost, sandbox runs, executor actions and contract violations, and its
    last ledger entry.
    """
    ledger, running = values.get("ledger", []), values.get("status", "running") == "running"
    current = values.get("stage", "initialized")
    states: dict[str, dict[str, Any]] = {}
    for name in names:
        mine = [e for e in ledger if e["role"] == name]
        llm = [e for e in mine if e["kind"] == "llm"]
        working = running and name in stage_roles.get(current, ())
        last = mine[-1] if mine else None
        states[name] = {
            "status": "working" if working else "done" if mine else "waiting" if running else "unused",
            "stage": current if working else (last["stage"] if last else None),
            "round": last["round"] if last else None,
            "llm_calls": len(llm),
            "tokens_in": sum(e["tokens_in"] for e in llm),
            "tokens_out": sum(e["tokens_out"] for e in llm),
            "cost": round(sum(e["cost"] for e in llm), 6),
            "models": sorted({e["model"] for e in llm if e.get("model")}),
            "agents": sorted({e["agent"] for e in mine if e.get("agent")}),
            "sandbox_runs": sum(e["kind"] == "sandbox" for e in mine),
            "actions": sum(e["kind"] == "action" and e["outcome"] == "dispatched" for e in mine),
            "violations": sum(v["role"] == name for v in values.get("violations", [])),
            "last": f"{last['kind']} {last['outcome']} {last['detail']}".strip()[:120] if last else "",
        }
    return states


def cmd_roles(args: argparse.Namespace) -> int:
    """Print every role of a workflow from its spec, or each role's state in a thread."""
    from accord.graphs.catalog import workflows

    if args.thread:
        return _thread_roles(args)
    specs = workflows()[args.workflow].specs
    if args.a2a:
        from google.protobuf.json_format import MessageToDict

        from accord.graphs.remote import agent_card

        print(json.dumps([MessageToDict(agent_card(spec)) for spec in specs.values()], indent=2))
    elif args.json:
        data: list[dict[str, Any]] = [spec.model_dump(mode="json") for spec in specs.values()]
        print(json.dumps(data, indent=2))
    else:
        print("\n\n".join(describe(spec) for spec in specs.values()))
    return 0


def _thread_roles(args: argparse.Namespace) -> int:
    from accord.graphs import store
    from accord.graphs.catalog import thread_workflow

    with store.checkpointer() as saver:
        workflow = thread_workflow(saver, args.thread)
        values = dict(workflow.build(checkpointer=saver).get_state(store.config(args.thread)).values)
    if not values:
        print(f"no thread {args.thread!r}", file=sys.stderr)
        return 2
    states = runtime(values, {s.name: s.roles for s in workflow.lifecycle.stages}, workflow.specs)
    if args.json:
        print(json.dumps(states, indent=2))
        return 0
    print(f"thread {args.thread}: {values.get('status', 'running')} at {values.get('stage', 'initialized')}")
    for name, st in states.items():
        print(
            f"  {name:<9} {st['status']:<8} {st['stage'] or '-':<15} calls {st['llm_calls']:>3}  "
            f"tokens {st['tokens_in'] + st['tokens_out']:>7,}  sandbox {st['sandbox_runs']:>3}  "
            f"actions {st['actions']:>2}  violations {st['violations']}  {st['last']}"
            + (f"  (played by {', '.join(st['agents'])})" if st["agents"] else "")
        )
    return 0


def add_roles_command(sub: Any) -> None:
    """Register ``accord roles`` on the CLI's subparsers."""
    from accord.graphs.catalog import DEFAULT, workflows

    p = sub.add_parser("roles", help="every role: identity, duties, contracts, actions, safety properties")
    p.add_argument("--json", action="store_true", help="the role specs as JSON")
    p.add_argument("--a2a", action="store_true", help="each role's A2A Agent Card (JSON)")
    p.add_argument("--thread", help="each role's runtime state in this thread (live or finished)")
    p.add_argument(
        "--workflow", default=DEFAULT, choices=sorted(workflows()), help="whose roles (default: %(default)s)"
    )
    p.set_defaults(func=cmd_roles)
