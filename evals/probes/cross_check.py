"""How far the cross-check's agreement tells a right answer from a wrong one, on tasks stating no example.

Usage: ``python -m accord.evals.probes.cross_check FOLDER [--team CONFIG]``. FOLDER holds a team
configuration's rows (``accountable`` unless ``--team`` names another) and, for the same tasks, ``single``'s.
Each cross-checked run is read from its checkpoints: whether most candidates behaved alike on the Tester's
cases where the chosen one returned a value (agreed), behaved alike only in raising on every case, or
disagreed, and then whether the Planner decided the calls in dispute (disputed, decided); the hidden tests say
which final answers were right, and ``single``'s rows which the plain call had right already. The figures go
to ``FOLDER/cross_check.json``; a doc's ``<!-- cross-check: FOLDER -->`` mark gets them as a table
(``python -m accord.evals.reports.tables``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from accord.evals.reports import stats
from accord.evals.runner import CHECKPOINTS, read_rows
from accord.graphs import store
from accord.graphs.development import majority
from accord.nodes import testing
from accord.nodes.development.artifacts import Selection, TestSuite
from accord.nodes.views import FUNCTION_FILE
from accord.runtime import sandbox
from accord.state.artifacts import CodeArtifact

FIGURES = "cross_check.json"
KINDS = ("agreed", "alike only in raising", "disputed", "disputed, decided", "not cross-checked")


def kind(values: Mapping[str, Any]) -> str:
    """Return what a run's cross-check showed (``KINDS``)."""
    crossed = [v for v in values.get("verdicts") or [] if v["stage"] == "cross_checking"]
    if not crossed or not values.get("selection"):
        return KINDS[4]
    if any(v["stage"] == "adjudicating" and v["outcome"] == "pass" for v in values["verdicts"]):
        return KINDS[3]
    if not majority(Selection.model_validate(values["selection"])):
        return KINDS[2]
    return KINDS[0] if _returned(values) else KINDS[1]


def _returned(values: Mapping[str, Any]) -> bool:
    """Return whether the final code returns a value, rather than raising, on any of the Tester's cases
    (run again in the sandbox, so that rows of every version read alike)."""
    cases = TestSuite.model_validate(values["tests"]).cases if values.get("tests") else ()
    if not cases:
        return False
    code = CodeArtifact.model_validate(values["code"])
    report, _ = testing.run_examples(code, FUNCTION_FILE, tuple(cases), sandbox.Limits())
    return any(not c.got.startswith("raised ") for c in report.cases)


def check(folder: Path, team: str = "accountable") -> dict[str, Any]:
    """Return, per task and summed by kind, whether the final answer and the plain call's were right."""
    rows = {(r["config"], r["id"]): r for r in read_rows(folder)}
    ids = [i for (config, i) in rows if config == team and ("single", i) in rows]
    if not ids:
        raise SystemExit(f"{folder}: no task has both single's and {team}'s rows")
    tasks = []
    with store.checkpointer(folder / CHECKPOINTS) as saver:
        for task in ids:
            latest = saver.get_tuple(store.config(rows[(team, task)]["thread"]))
            values = dict(latest.checkpoint["channel_values"]) if latest else {}
            tasks.append(
                {
                    "id": task,
                    "kind": kind(values),
                    "right": rows[(team, task)]["passed"],
                    "plain_right": rows[("single", task)]["passed"],
                }
            )
    summed = {
        k: {
            "tasks": sum(t["kind"] == k for t in tasks),
            "right": sum(t["right"] for t in tasks if t["kind"] == k),
            "plain_right": sum(t["plain_right"] for t in tasks if t["kind"] == k),
        }
        for k in KINDS
    }
    return {"team": team, "tasks": tasks, "sum": summed}


def table(folder: Path) -> str:
    """Return the figures of ``folder`` as a markdown table (a line saying none when not run)."""
    path = folder / FIGURES
    if not path.exists():
        return f"`python -m accord.evals.probes.cross_check {folder.name}` has not run on this folder yet.\n"
    summed = json.loads(path.read_text())["sum"]
    lines = [
        "| cross-check | tasks | final answer right | the plain call right |\n",
        "|---|---|---|---|\n",
    ]
    for k in KINDS:
        s = summed.get(k)  # a folder read before the Planner decided disputes has no decided ones
        if s and s["tasks"]:
            lines.append(
                f"| {k} | {s['tasks']} | {s['right']}, {stats.rate(s['right'], s['tasks'])} "
                f"| {s['plain_right']}, {stats.rate(s['plain_right'], s['tasks'])} |\n"
            )
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--team", default="accountable", help="the configuration that cross-checked")
    args = parser.parse_args(argv)
    (args.folder / FIGURES).write_text(json.dumps(check(args.folder, args.team), indent=1) + "\n")
    print(table(args.folder), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
