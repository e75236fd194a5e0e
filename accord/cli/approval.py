"""Plan approval from the command line: ``accord run --approve-plan`` stops after planning and shows the
plan; ``accord resume THREAD --approve``, ``--reject REASON`` or ``--edit PLAN.json`` answers (the
``human`` role's interrupt, ``nodes/development/approval.py``). A run that waits for a person exits with
``WAITING``."""

from __future__ import annotations

import argparse
import getpass
import json
from pathlib import Path
from typing import Any

from rich.console import Console

WAITING = 7
"""The exit code of a run that waits for a person's answer."""


def add_options(run: argparse.ArgumentParser, resume: argparse.ArgumentParser) -> None:
    """Add the approval options to ``accord run`` and ``accord resume``."""
    run.add_argument(
        "--approve-plan",
        action="store_true",
        help="stop after planning until a person approves, rejects or edits the plan "
        f"(exit {WAITING}; answer with accord resume THREAD --approve | --reject | --edit)",
    )
    answer = resume.add_mutually_exclusive_group()
    answer.add_argument("--approve", action="store_true", help="approve the plan the run waits on")
    answer.add_argument("--reject", metavar="REASON", help="reject the plan: the Planner plans again with it")
    answer.add_argument(
        "--edit",
        metavar="PLAN.json",
        help="replace the plan by this one (the plan's JSON, as `accord show THREAD --json` prints it)",
    )
    resume.add_argument("--by", help="who answers (default: the user name)")


def answer(args: argparse.Namespace) -> dict[str, Any] | None:
    """Return the person's answer the resume options give, or None when they give none.

    Raises:
        ValueError: ``--edit``'s file is missing or not JSON (nothing is sent; the run keeps waiting).
    """
    by = args.by or getpass.getuser()
    if args.approve:
        return {"decision": "approve", "by": by}
    if args.reject is not None:
        return {"decision": "reject", "reason": args.reject, "by": by}
    if args.edit is not None:
        try:
            plan = json.loads(Path(args.edit).read_text())
        except (OSError, ValueError) as exc:
            raise ValueError(f"--edit {args.edit}: {exc}") from None
        return {"decision": "edit", "plan": plan, "by": by}
    return None


def questions(graph: Any, config: Any) -> list[Any]:
    """Return what the thread waits on: the values of its pending interrupts (none when it does not)."""
    snapshot = graph.get_state(config)
    return [i.value for task in snapshot.tasks for i in task.interrupts]


def show(console: Console, asked: list[Any], thread: str) -> int:
    """Print what the run waits on and how to answer; return ``WAITING``."""
    for question in asked:
        if isinstance(question, dict) and "plan_text" in question:
            console.print(f"[bold]the plan, for a person's approval:[/]\n{question['plan_text']}")
            if question.get("refused"):
                console.print(f"[red]the last answer was refused: {question['refused']}[/]")
        else:
            console.print(f"waiting on: {question}")
    console.print(
        f"thread [bold]{thread}[/] waits for a person: accord resume {thread} --approve | "
        f"--reject REASON | --edit PLAN.json"
    )
    return WAITING
