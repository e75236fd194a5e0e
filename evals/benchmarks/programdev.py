"""ProgramDev (the MAST study's 30 application requirements): the requirements, and the oracle.

ProgramDev has no reference tests. A program is judged two ways, in Accord's sandbox:

- **executable**: its entry point starts and survives a session of plausible inputs for its requirement
  without a crash (the end of the input, or still running when the time is up, is not a crash);
- **acceptance**: the checks in ``programdev_checks``, written by hand from each requirement's
  text alone and never shown to the agents. A check plays its inputs in each notation a user of such a
  program might type (a cell as ``1 1``, ``1,1``, ``0 0``, ``1`` or ``a1``) and passes when one of them
  makes the program show what the requirement says (a win announced, a move refused); where the last
  inputs must cause it, the program must not show it unprompted as often (``passes``).

A task is solved when its program is executable and passes every acceptance check.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from accord.evals.benchmarks.programdev_checks import CHECKS, Attempt, Check
from accord.evals.paths import data_dir
from accord.graphs.oracle import Oracle, code_or_plan
from accord.runtime import sandbox
from accord.state.artifacts import CodeArtifact

LIMITS = sandbox.Limits(timeout_s=8)
"""Each run of a check: long enough for a program to start and play its inputs, short enough for 30."""
QUIT = ("q", "quit", "exit")
"""What the executability session ends with, after a check's inputs: the usual ways to leave."""
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@cache
def requirements() -> dict[str, str]:
    """Return the 30 requirements by project name, as the MAST study gives them."""
    rows = json.loads((data_dir() / "programdev" / "programdev_dataset.json").read_text(encoding="utf-8"))
    return {row["project_name"]: row["description"] for row in rows}


def entry_point(code: CodeArtifact) -> str | None:
    """Return the file a user runs: the code's first entry point, else its only non-test module."""
    if code.entry_points:
        return code.entry_points[0]
    modules = [p for p in code.files if p.endswith(".py") and p not in code.test_files]
    return modules[0] if len(modules) == 1 else None


def _run(code: CodeArtifact, entry: str, attempt: Attempt) -> sandbox.SandboxResult:
    stdin = "".join(f"{line}\n" for line in attempt.lines)
    return sandbox.run(
        sandbox.python(entry, *attempt.argv), {**code.files, **attempt.files}, LIMITS, stdin=stdin
    )


def crashed(result: sandbox.SandboxResult) -> str:
    """Return how a run crashed, or '' (the input's end and a time-out are how a session stops)."""
    last = (result.stderr.strip().splitlines() or [""])[-1][:200]
    if result.ending not in ("exited", "timeout"):
        return f"stopped by the sandbox ({result.ending})"
    if "Traceback" in result.stderr and "EOFError" not in last and "KeyboardInterrupt" not in last:
        return f"crashed: {last}"
    return ""


def executable(name: str, code: CodeArtifact) -> tuple[bool, str]:
    """Return whether the program survives a plausible session for requirement ``name``, and why not."""
    entry = entry_point(code)
    if entry is None or entry not in code.files:
        return False, "no entry point"
    first = CHECKS[name][0].attempts[0]
    session = Attempt(lines=(*first.lines, *QUIT), argv=first.argv, files=first.files)
    problem = crashed(_run(code, entry, session))
    return not problem, problem


def shown(pattern: re.Pattern[str], output: str) -> int:
    """Return how often the output shows ``pattern`` (as printed, or with its colour codes taken out)."""
    return max(len(pattern.findall(output)), len(pattern.findall(ANSI.sub("", output))))


def passes(check: Check, code: CodeArtifact) -> bool:
    """Return whether one of the check's attempts makes the program show what it must, without a crash.

    For a check of what the inputs cause, the output must show it more often than the program does
    unprompted (its instructions may name a winner or a game over). For one of what the last input
    causes, the inputs before it must not add to that, and the last must: a notation the program cannot
    read, refused at the first move, is not an occupied cell refused.
    """
    entry = entry_point(code)
    if entry is None or entry not in code.files:
        return False
    for attempt in check.attempts:
        result = _run(code, entry, attempt)
        seen = 0 if crashed(result) else shown(check.shows, result.stdout)
        if not seen:
            continue
        if check.caused and attempt.lines:
            unprompted = shown(check.shows, _run(code, entry, dataclasses.replace(attempt, lines=())).stdout)
            before = unprompted
            if check.caused == "last":
                earlier = dataclasses.replace(attempt, lines=attempt.lines[:-1])
                before = shown(check.shows, _run(code, entry, earlier).stdout)
            if before != unprompted or seen <= before:
                continue
        return True
    return False


def check_names(name: str) -> list[str]:
    """Return the names of requirement ``name``'s acceptance checks."""
    return [check.name for check in CHECKS[name]]


def judged(name: str, code: CodeArtifact) -> dict[str, Any]:
    """Return executability, each acceptance check's result, and whether the task is solved."""
    runs, why = executable(name, code)
    checks = {check.name: runs and passes(check, code) for check in CHECKS[name]}
    failed = [n for n, ok in checks.items() if not ok]
    reason = why if not runs else f"acceptance failed: {', '.join(failed)}" if failed else ""
    return {"executable": runs, "checks": checks, "solved": runs and not failed, "reason": reason}


def oracle(name: str) -> Oracle:
    """Return the oracle that judges a checkpoint's code by executability and the acceptance checks."""

    def judge_code(state: Mapping[str, Any], call: Any) -> tuple[bool, str]:
        result = judged(name, CodeArtifact.model_validate(state["code"]))
        return result["solved"], result["reason"] or "executable and every acceptance check passed"

    return Oracle(
        name=f"ProgramDev acceptance of {name}", judges={"code": judge_code}, candidate=code_or_plan
    )
