"""``accord audit FILE``: three analysts judge a file (or one function of it) for vulnerabilities, and vote.

Exit codes: 0 the verdict is safe, 3 vulnerable, 1 no verdict (the audit failed, or its model could not
start), 2 bad input, 4 stopped on an error (``accord resume THREAD`` continues it).
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rich.console import Console

from accord.accountability import cost
from accord.cli.running import read_text_file
from accord.graphs import store
from accord.runtime import local_model, model_server

console = Console(stderr=True, highlight=False, soft_wrap=True)
SAFE, VULNERABLE, NO_VERDICT = 0, 3, 1


def report(values: Mapping[str, Any], thread: str) -> dict[str, Any]:
    """Return an audit thread's outcome: the verdict, each analyst's finding and votes, the cost."""
    from accord.graphs.audit import verdict

    decided = verdict(values) if values.get("status") == "completed" else None
    votes = [
        {k: v[k] for k in ("stage", "round", "role", "outcome", "evidence")}
        for v in values.get("verdicts", [])
        if v["stage"] != "initialized"
    ]
    return {
        "thread": thread,
        "status": values.get("status", "running"),
        "reason": values.get("reason", ""),
        "verdict": None if decided is None else ("vulnerable" if decided else "safe"),
        "findings": (values.get("findings") or {}).get("by_role", {}),
        "votes": votes,
        "cost": cost.breakdown(values.get("ledger", []))["total"],
    }


def show(result: Mapping[str, Any]) -> None:
    """Print an audit's outcome for a person."""
    word = result["verdict"] or "no verdict"
    colour = {"vulnerable": "red", "safe": "green"}.get(word, "yellow")
    reason = f" — {result['reason']}" if result["reason"] else ""
    console.print(f"[{colour} bold]{word.upper()}[/]{reason}")
    for role, found in result["findings"].items():
        said = "vulnerable" if found["vulnerable"] else "safe"
        where = " ".join(
            [found["cwe"] or "", f"lines {','.join(map(str, found['lines']))}" if found["lines"] else ""]
        ).strip()
        console.print(
            f"  [bold]{role:<8}[/] {said:<10} {where:<20} confidence {found['confidence']:.1f}\n"
            f"           {found['evidence'][:400]}"
        )
        for tool in found.get("tools", []):
            said = (
                ("; ".join(tool["issues"][:5]) or "no issues")
                if tool["available"]
                else ("; ".join(tool["issues"]) or "not installed")
            )
            console.print(f"           [dim]{tool['tool']}: {said}[/]")
    for vote in result["votes"]:
        if vote["role"] == "vote":
            console.print(f"  vote ({vote['stage']}): {vote['outcome']} — {vote['evidence'][:200]}")
    cost = result["cost"]
    console.print(
        f"thread {result['thread']}: {cost['llm_calls']} LLM calls, {cost['tokens_in']:,} tokens "
        f"in / {cost['tokens_out']:,} out, cost {cost['cost']}"
    )


def cmd_audit(
    args: argparse.Namespace,
    context: Callable[[argparse.Namespace], Any],
    stream: Callable[..., dict[str, Any]],
) -> int:
    """Audit a file; return 0 safe, 3 vulnerable, 1 no verdict."""
    from accord.graphs.audit import build_graph

    try:
        code = read_text_file(Path(args.file))
    except ValueError as exc:
        console.print(f"[red]{exc}[/]")
        return 2
    thread = args.thread or uuid.uuid4().hex[:12]
    started = time.monotonic()
    inputs = {
        "request": code,
        "source": Path(args.file).name,
        **({"function": args.function} if args.function else {}),
    }
    run = context(args)  # bad options are refused before the run store is opened
    with store.checkpointer() as saver:
        graph = build_graph(checkpointer=saver)
        console.print(f"thread [bold]{thread}[/] (resume with: accord resume {thread})")
        try:
            values = stream(graph, inputs, store.config(thread), run)
        except local_model.ModelSetupError as exc:
            console.print(f"[red]local model: {exc}[/]")
            return NO_VERDICT
        except KeyboardInterrupt:
            console.print(f"[yellow]interrupted; resume with: accord resume {thread}[/]")
            return 130
        except Exception as exc:  # the audit stays at its last checkpoint, whatever broke
            console.print(
                f"[red]audit stopped by {type(exc).__name__}: {exc}[/]\n"
                f"its last checkpoint is kept; resume with: accord resume {thread}"
            )
            return 4
        finally:
            model_server.stop_owned()
    result = report(values, thread)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        show(result)
        console.print(f"[dim]{time.monotonic() - started:.1f}s[/]")
    return {"vulnerable": VULNERABLE, "safe": SAFE}.get(result["verdict"] or "", NO_VERDICT)


def add_audit_command(
    sub: Any,
    model_options: Callable[[argparse.ArgumentParser], None],
    context: Callable[[argparse.Namespace], Any],
    stream: Callable[..., dict[str, Any]],
) -> None:
    """Register ``accord audit`` on the CLI's subparsers."""
    p = sub.add_parser(
        "audit",
        help="audit C, C++ or Python code for vulnerabilities (exit 0 safe, 3 vulnerable, 1 no verdict)",
    )
    p.add_argument("file", help="the source file")
    p.add_argument("--function", help="audit only this function of the file")
    p.add_argument("--thread", help="thread id (default: a new one)")
    p.add_argument("--json", action="store_true", help="the verdict, findings, votes and cost as JSON")
    model_options(p)
    p.set_defaults(func=lambda args: cmd_audit(args, context, stream))
