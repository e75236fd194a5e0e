"""``accord serve --a2a --role NAME``: one role of a workflow served as an A2A agent.

The agent answers ``message/send`` for the role's duties (``graphs.remote``) on its own models: the
``--model``/``--mix`` options and ``ACCORD_*`` settings of this process, not the caller's. A graph elsewhere
uses it with ``--remote NAME=URL``. With ``ACCORD_A2A_TOKEN`` set, every request but the Agent Card's must
carry it as a bearer token.
"""

from __future__ import annotations

import argparse
import ipaddress
from collections.abc import Callable
from typing import Any

from accord.cli.running import console, usage_error
from accord.graphs import remote
from accord.graphs.catalog import DEFAULT, workflows
from accord.runtime import model_server
from accord.state.settings import settings


def loopback(host: str) -> bool:
    """Return whether ``host`` names this machine alone (a loopback address, or ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cmd_serve(args: argparse.Namespace, context: Callable[[argparse.Namespace], Any]) -> int:
    """Serve one role until interrupted."""
    import uvicorn

    if not args.a2a:
        usage_error("serve what? --a2a --role NAME serves a role as an A2A agent")
    workflow = workflows()[args.workflow]
    if args.role not in workflow.roles:
        served = ", ".join(sorted(workflow.roles)) or "none: the workflow does not share its roles' work"
        usage_error(f"the {args.workflow} workflow has no role {args.role!r} to serve (roles: {served})")
    url = f"http://{args.host}:{args.port}/"
    configured = settings()
    token = configured.a2a_token.get_secret_value() if configured.a2a_token else None
    if not token and not loopback(args.host):
        usage_error(
            f"serving on {args.host} without a bearer token would let anyone on the network use the role: "
            "set ACCORD_A2A_TOKEN, or bind a loopback address (--host 127.0.0.1)"
        )
    app = remote.app(
        workflow.roles[args.role], url, context(args), token, max_body_bytes=configured.a2a_max_body_bytes
    )
    console.print(
        f"serving the {args.workflow} workflow's {args.role} as an A2A agent at {url} "
        f"(card: {url}.well-known/agent-card.json" + ("; a bearer token is required" if token else "") + ")"
    )
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    finally:
        model_server.stop_owned()
    return 0


def add_serve_command(
    sub: Any,
    model_options: Callable[[argparse.ArgumentParser], None],
    context: Callable[[argparse.Namespace], Any],
) -> None:
    """Register ``accord serve`` on the CLI's subparsers."""
    p = sub.add_parser("serve", help="serve a role as an A2A agent (--a2a --role NAME)")
    p.add_argument("--a2a", action="store_true", help="serve over A2A (JSON-RPC message/send)")
    p.add_argument("--role", required=True, help="the role to serve, e.g. reviewer")
    p.add_argument(
        "--workflow", default=DEFAULT, choices=sorted(workflows()), help="whose role (default: %(default)s)"
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    p.add_argument("--port", type=int, default=8931, help="port (default: %(default)s)")
    model_options(p)
    p.set_defaults(func=lambda args: cmd_serve(args, context))
