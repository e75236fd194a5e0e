"""Measure how fast a run's page renders and loads: a thread with a thousand ledger entries.

Usage: ``python -m bench.page [--entries N] [--repeat K]`` (``make bench`` runs it when Chromium
is
installed). The page of a development run with N ledger entries (model calls, sandbox runs and contract
checks over 100 steps, each step judged) is rendered by ``accountability.page``, then loaded K times in
headless Chromium, and a blank page K times beside it: a load's time is the page's wall time less the
blank page's median, so the browser's own start is not counted.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from accord.accountability import page
from accord.accountability.blame import Blame, StageBlame
from accord.accountability.trace import Step
from accord.graphs.development import LIFECYCLE

WORKING = [s for s in LIFECYCLE.stages if s.roles and not s.terminal]


def synthetic(entries: int, steps: int = 100) -> tuple[dict[str, Any], list[Step], Blame]:
    """Return the last state, the steps and the blame of a development run with ``entries`` ledger
    entries spread over ``steps`` steps."""
    kinds = ("llm", "sandbox", "contract")
    ledger = [
        {
            "step": 1 + i % steps,
            "kind": kinds[i % 3],
            "role": WORKING[i % len(WORKING)].roles[0],
            "stage": WORKING[i % len(WORKING)].name,
            "model": "qwen2.5-coder-0.5b" if i % 3 == 0 else None,
            "tokens_in": 400,
            "tokens_out": 120,
            "latency_s": 2.5,
            "cost": 0.0,
            "outcome": "pass",
            "detail": f"entry {i}: " + "evidence " * 12,
        }
        for i in range(entries)
    ]
    trace = [
        Step(
            step=i + 1,
            stage=WORKING[i % len(WORKING)].name,
            role=WORKING[i % len(WORKING)].roles[0],
            round=1 + i // len(WORKING),
            wrote={},
            verdict=None,
        )
        for i in range(steps)
    ]
    stages = tuple(
        StageBlame(
            step=s.step,
            stage=s.stage,
            role=s.role,
            round=s.round,
            subject="code",
            correct=s.step % 5 != 0,
            oracle="synthetic",
            evidence="judged",
        )
        for s in trace
    )
    values = {
        "status": "completed",
        "ledger": ledger,
        "verdicts": [],
        "code": {"files": {"solution.py": "def add(a, b):\n    return a + b\n" * 50}},
    }
    return values, trace, Blame(stages=stages, final_correct=True, origin=None)


def _load(browser: str, file: Path) -> float:
    started = time.monotonic()
    subprocess.run(
        [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--dump-dom", file.as_uri()],
        capture_output=True,
        check=True,
        timeout=120,
    )
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    values, trace, blamed = synthetic(args.entries)
    started = time.monotonic()
    html = page.render("bench/page", values, trace, LIFECYCLE, blamed, [])
    rendered = time.monotonic() - started
    print(
        f"page of {args.entries} ledger entries and {len(trace)} steps: {len(html) / 1e6:.2f} MB, "
        f"rendered in {rendered:.3f} s"
    )
    browser = next(
        (found for name in ("chromium", "chromium-browser") if (found := shutil.which(name))), None
    )
    if browser is None:
        print("no Chromium here: apt-get install chromium to measure the load")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        full, blank = Path(folder) / "page.html", Path(folder) / "blank.html"
        full.write_text(html)
        blank.write_text("<!doctype html><title>blank</title>")
        base = statistics.median(_load(browser, blank) for _ in range(args.repeat))
        loads = [_load(browser, full) - base for _ in range(args.repeat)]
    print(
        f"load in headless Chromium beyond a blank page: median {statistics.median(loads):.3f} s, "
        f"max {max(loads):.3f} s over {args.repeat} loads (a blank page: {base:.3f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
