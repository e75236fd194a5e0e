"""MAST's detectors of this checkout on a result folder's stored runs, beside what its rows recorded.

A row's MAST findings come from the detectors at the row's commit. When the detectors change, this reads the
runs again from the folder's checkpoints (kept locally, beside ``results.jsonl``) and counts what the
detectors of this checkout find, per configuration. It only prints: a folder's tables come from its rows, at
one commit, and a changed detector is judged on runs made at a commit that has it.

    python -m accord.evals.probes.redetect results/humaneval-164-default [CONFIG ...]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from accord.accountability import mast
from accord.accountability.trace import steps
from accord.evals.runner import CHECKPOINTS, read_rows, stored_runs


def redetect(folder: Path, configs: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Return per configuration: tasks, and the findings by mode its rows recorded and the detectors find now.

    A row whose thread is not in the folder's checkpoints is left out of both counts (``missing``).
    """
    rows = [r for r in read_rows(folder) if not configs or r["config"] in configs]
    found: dict[str, dict[str, Any]] = {
        r["config"]: {"tasks": 0, "missing": 0, "recorded": Counter(), "now": Counter()} for r in rows
    }
    for row, chain, lifecycle in stored_runs(rows, folder):
        counts = found[row["config"]]
        counts["tasks"] += 1
        counts["recorded"].update(f["mode"] for f in row["mast"])
        counts["now"].update(f.mode for f in mast.detect(steps(chain, lifecycle), chain[-1].values))
    for name, counts in found.items():
        counts["missing"] = sum(r["config"] == name for r in rows) - counts["tasks"]
    return found


def _line(name: str, counts: Counter[str], tasks: int) -> str:
    modes = ", ".join(f"{mode} {n}" for mode, n in sorted(counts.items()))
    return f"  {name}: {counts.total() / max(tasks, 1):.2f} per task ({modes or 'none'})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("configs", nargs="*", help="these configurations only")
    args = parser.parse_args(argv)
    if not (args.folder / CHECKPOINTS).exists():
        print(f"no checkpoints in {args.folder}: the runs are kept only where they ran")
        return 2
    for name, c in redetect(args.folder, args.configs or None).items():
        missing = f" ({c['missing']} not in the checkpoints)" if c["missing"] else ""
        print(f"{name}: {c['tasks']} tasks{missing}")
        print(_line("its rows' detectors", c["recorded"], c["tasks"]))
        print(_line("this checkout's detectors", c["now"], c["tasks"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
