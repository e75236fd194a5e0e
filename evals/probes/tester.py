"""How well the Tester's cases, written from the specification alone, would check the plain call's answer.

Usage: ``python -m accord.evals.probes.tester FOLDER [--team CONFIG]``. FOLDER holds ``single``'s rows and a
team
configuration's (``accountable`` unless ``--team`` names another) on the same tasks, as ``accord eval run
unstated-dev`` writes them. For each task the plain call's code runs in the sandbox on the cases the team's
Tester wrote for it, and the hidden tests' verdict on that code tells a case that caught a wrong answer
from one that failed a right answer. This is what a gate checking the plain call on the Tester's cases
would have decided, without running one. The figures go to ``FOLDER/tester_check.json``; a doc's
``<!-- tester-check: FOLDER -->`` mark gets them as a table (``python -m accord.evals.reports.tables``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from accord.evals.reports import stats
from accord.evals.runner import CHECKPOINTS, read_rows
from accord.graphs import store
from accord.nodes import testing
from accord.nodes.development.artifacts import TestSuite
from accord.nodes.views import FUNCTION_FILE
from accord.runtime import sandbox
from accord.state.artifacts import CodeArtifact

FIGURES = "tester_check.json"


def check(folder: Path, team: str = "accountable") -> dict[str, Any]:
    """Return, per task and in sum, how the plain call's code fares on the team's Tester cases."""
    rows = {(r["config"], r["id"]): r for r in read_rows(folder)}
    ids = [i for (config, i) in rows if config == team and ("single", i) in rows]
    if not ids:
        raise SystemExit(f"{folder}: no task has both single's and {team}'s rows")
    tasks = []
    with store.checkpointer(folder / CHECKPOINTS) as saver:
        for task in ids:
            plain, teamed = rows[("single", task)], rows[(team, task)]
            suite = _values(saver, teamed["thread"]).get("tests")
            cases = TestSuite.model_validate(suite).cases if suite else ()
            passed = 0
            if cases:
                code = CodeArtifact.model_validate(_values(saver, plain["thread"])["code"])
                report, _ = testing.run_examples(code, FUNCTION_FILE, tuple(cases), sandbox.Limits())
                passed = sum(c.passed for c in report.cases)
            tasks.append(
                {
                    "id": task,
                    "right": plain["passed"],
                    "cases": len(cases),
                    "passed": passed,
                    "tester_tokens": teamed["by_role"].get("tester", {}).get("tokens", 0),
                    "single_tokens": plain["tokens_in"] + plain["tokens_out"],
                }
            )
    return {"team": team, "tasks": tasks, "sum": summed(tasks)}


def _values(saver: Any, thread: str) -> dict[str, Any]:
    latest = saver.get_tuple(store.config(thread))
    return dict(latest.checkpoint["channel_values"]) if latest else {}


def summed(tasks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Return the sums a gate on the Tester's cases would have met: right answers failing a case (false
    alarms), wrong answers failing one (caught), the share of cases each passed, the Tester's tokens."""
    written = [t for t in tasks if t["cases"]]
    right = [t for t in written if t["right"]]
    wrong = [t for t in written if not t["right"]]

    def share(group: Sequence[Mapping[str, Any]]) -> float | None:
        return statistics.median(t["passed"] / t["cases"] for t in group) if group else None

    return {
        "tasks": len(tasks),
        "with_cases": len(written),
        "right": len(right),
        "wrong": len(wrong),
        "right_failing": sum(t["passed"] < t["cases"] for t in right),
        "wrong_failing": sum(t["passed"] < t["cases"] for t in wrong),
        "right_share": share(right),
        "wrong_share": share(wrong),
        "tester_tokens": statistics.median(t["tester_tokens"] for t in written) if written else 0,
        "single_tokens": statistics.median(t["single_tokens"] for t in tasks),
    }


def table(folder: Path) -> str:
    """Return the figures of ``folder`` as a markdown table (a line saying none when not run)."""
    path = folder / FIGURES
    if not path.exists():
        return f"`python -m accord.evals.probes.tester {folder.name}` has not run on this folder yet.\n"
    s = json.loads(path.read_text())["sum"]

    def part(hits: int, n: int) -> str:
        return f"{hits} / {n}, {stats.rate(hits, n)}" if n else "—"

    def pct(share: float | None) -> str:
        return "—" if share is None else f"{share:.0%}"

    return (
        "| tasks with the Tester's cases | right plain answers failing a case | wrong plain answers "
        "failing a case | median share of cases passed, right / wrong | median tokens, Tester / plain "
        "call |\n|---|---|---|---|---|\n"
        f"| {s['with_cases']} of {s['tasks']} | {part(s['right_failing'], s['right'])} "
        f"| {part(s['wrong_failing'], s['wrong'])} | {pct(s['right_share'])} / {pct(s['wrong_share'])} "
        f"| {s['tester_tokens']:,.0f} / {s['single_tokens']:,.0f} |\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--team", default="accountable", help="the configuration whose Tester wrote cases")
    args = parser.parse_args(argv)
    figures = check(args.folder, args.team)
    (args.folder / FIGURES).write_text(json.dumps(figures, indent=1) + "\n")
    print(table(args.folder), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
