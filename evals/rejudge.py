"""Verdicts given again by the evals' own judge: a solution file against one task of a set, or every row
of a result folder from the code the row keeps (``runner.packed``).

The judge is each benchmark's ``score``, the same call the runner makes when a task ends, so a verdict
given here is the verdict a run would get.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accord.evals import runner
from accord.evals.benchmarks import BENCHMARKS, Benchmark, ProgramDev, user_set
from accord.state.artifacts import CodeArtifact


@dataclass(frozen=True)
class Rejudged:
    """One row's verdict given again."""

    row: Mapping[str, Any]
    passed: bool | None
    """The verdict now; None when the row keeps no code to judge."""
    detail: str

    @property
    def reproduced(self) -> bool:
        return self.passed is not None and self.passed == self.row["passed"]


def benchmark_named(name: str, tasks: Path | None = None) -> Benchmark:
    """Return a built-in set by name, or a user's JSONL set (``tasks``, named after its file).

    Raises:
        ValueError: no such set, or the file is not a valid task set.
    """
    if tasks is not None:
        return user_set(tasks)
    if name not in BENCHMARKS:
        raise ValueError(f"unknown set {name!r} (known: {', '.join(BENCHMARKS)}; or --file TASKS.jsonl)")
    return BENCHMARKS[name]


def solution_code(benchmark: Benchmark, solution: Path) -> CodeArtifact:
    """Return a solution file as the code a run would hand over: the module a function or class set
    imports (``solution.py``), or, for a program, the file itself as its entry point."""
    text = solution.read_text(encoding="utf-8")
    if isinstance(benchmark, ProgramDev):
        return CodeArtifact(files={solution.name: text}, entry_points=(solution.name,))
    return CodeArtifact(files={"solution.py": text})


def judge(benchmark: Benchmark, task_id: str, code: CodeArtifact) -> tuple[bool, str]:
    """Return the verdict on ``code`` for the task, and why it fails.

    Raises:
        KeyError: the set has no such task.
    """
    if task_id not in {task.id for task in benchmark.tasks()}:
        raise KeyError(f"{benchmark.name} has no task {task_id!r}")
    return benchmark.score(task_id, {"code": code.model_dump(), "status": "completed"})


def rejudge(folder: Path, tasks: Path | None = None) -> Iterator[Rejudged]:
    """Yield each row of ``folder`` judged again from the code it keeps (rows of one set each).

    Raises:
        ValueError: a row's set is unknown here (a user's set needs its ``tasks`` file).
    """
    sets: dict[str, Benchmark] = {}
    for row in runner.read_rows(folder):
        name = row["benchmark"]
        if name not in sets:
            sets[name] = benchmark_named(name, tasks if tasks is not None and tasks.stem == name else None)
        if "code" not in row:
            yield Rejudged(row, None, f"kept no code: judged by {row.get('judge', 'exit status')}")
            continue
        values = {"code": runner.unpacked(row["code"]), "status": row.get("status", "completed")}
        passed, detail = sets[name].score(row["id"], values)
        yield Rejudged(row, passed, detail.strip().splitlines()[-1][:300] if detail.strip() else "")
