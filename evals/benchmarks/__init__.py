"""Benchmarks the eval runner knows: each is a loader of tasks and an oracle that scores a result.

A benchmark gives the agents only a task's ``prompt`` (and its neutral ``inputs``, such as a file name); its
``score``, ``oracle`` and ``details`` hold what the agents must never see (hidden tests, labels, answers).
Each benchmark runs one workflow, whose configurations it names: HumanEval, a user's own JSONL set of
function tasks, ClassEval and ProgramDev the development graph (HumanEval, as ``humaneval-pipeline``, also the
pipeline), the vulnerability sets the audit graph, the multiple-choice sets the pipeline.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from accord.evals.benchmarks import classeval, humaneval, multiple_choice, programdev, vulnerabilities
from accord.evals.configs import Configuration, audit, development, pipeline
from accord.graphs.oracle import Oracle
from accord.state.artifacts import CodeArtifact


@dataclass(frozen=True)
class EvalTask:
    """One benchmark task as the agents see it."""

    id: str
    prompt: str
    inputs: Mapping[str, Any] = field(default_factory=dict)
    """Further input state the agents see beside the prompt (e.g. ``source``, a neutral file name)."""


class Benchmark(Protocol):
    """A set of tasks and the oracle that scores them."""

    name: str
    configurations: Mapping[str, Configuration]
    """The configurations of the workflow the benchmark runs, by name."""

    def tasks(self) -> list[EvalTask]:
        """Return every task, in the benchmark's order."""

    def score(self, task_id: str, values: Mapping[str, Any]) -> tuple[bool, str]:
        """Return whether the run's final state solves the task, and why not."""

    def oracle(self, task_id: str) -> Oracle:
        """Return the oracle that judges each checkpoint's candidate (for blame)."""

    def details(self, task_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Return what a result row holds beyond the score (e.g. the label and each voter's verdict)."""


class FunctionSet:
    """Function tasks in HumanEval's format (``evals.benchmarks.humaneval``), run by the development graph;
    their hidden tests score."""

    configurations: Mapping[str, Configuration] = development.CONFIGURATIONS

    def __init__(self, name: str, problems: Callable[[], Mapping[str, Mapping[str, Any]]]) -> None:
        self.name = name
        self.problems = problems

    def tasks(self) -> list[EvalTask]:
        """Return the problems; the prompt is the function stub with its docstring, nothing else."""
        return [EvalTask(id=tid, prompt=p["prompt"]) for tid, p in self.problems().items()]

    def score(self, task_id: str, values: Mapping[str, Any]) -> tuple[bool, str]:
        """Run the hidden tests against the final code in the sandbox."""
        if not values.get("code"):
            return False, "no code produced"
        return humaneval.passes_hidden_tests(
            self.problems()[task_id], CodeArtifact.model_validate(values["code"])
        )

    def oracle(self, task_id: str) -> Oracle:
        """Return the hidden-test oracle for one problem."""
        return humaneval.hidden_tests_oracle(self.problems()[task_id])

    def details(self, task_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """A code row needs nothing beyond its score."""
        return {}


def user_set(path: Path) -> FunctionSet:
    """Return a user's own function tasks from a JSONL file, named after the file.

    Raises:
        ValueError: the file is not a valid task set (``evals.benchmarks.humaneval.read_tasks``).
    """
    problems = humaneval.read_tasks(path)
    return FunctionSet(path.stem, lambda: problems)


class HumanEvalPipeline(FunctionSet):
    """HumanEval through the pipeline (Planner → Executor → Critic): the accountability paper's code set."""

    configurations: Mapping[str, Configuration] = pipeline.CONFIGURATIONS

    def __init__(self) -> None:
        super().__init__("humaneval-pipeline", humaneval.problems)

    def score(self, task_id: str, values: Mapping[str, Any]) -> tuple[bool, str]:
        """Run the hidden tests against the code a completed run hands over (a failed run hands over
        none, as a failed run on a question gives no answer)."""
        if values.get("status") != "completed":
            return False, f"no code: the run failed ({values.get('reason', '')[:200]})"
        return super().score(task_id, values)

    def oracle(self, task_id: str) -> Oracle:
        """Return the hidden-test oracle, judging the Planner's reasoning by its examples."""
        return humaneval.hidden_tests_oracle(self.problems()[task_id], workflow="pipeline")

    def details(self, task_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Return whether the Critic approved the code (None: no Critic ran)."""
        return {"approved": (values.get("critique") or {}).get("approved")}


class ClassEval:
    """ClassEval's 100 class-level tasks, run by the development graph; ClassEval's test classes score a
    task (class level: all of them) and each method (its own test class)."""

    name = "classeval"
    configurations: Mapping[str, Configuration] = development.CONFIGURATIONS

    def tasks(self) -> list[EvalTask]:
        """Return the tasks whose reference passes its own tests here (``classeval.runnable``); the prompt
        is the class skeleton with its docstrings, nothing else."""
        return [EvalTask(id=tid, prompt=p["skeleton"]) for tid, p in classeval.runnable().items()]

    def score(self, task_id: str, values: Mapping[str, Any]) -> tuple[bool, str]:
        """Run the task's test classes against the final code in the sandbox."""
        if not values.get("code"):
            return False, "no code produced"
        passed, failure, _ = self._results(task_id, json.dumps(values["code"], sort_keys=True))
        return passed, failure

    def oracle(self, task_id: str) -> Oracle:
        """Return the test-class oracle for one task."""
        return classeval.oracle(classeval.problems()[task_id])

    def details(self, task_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Return each method's result on its own test class (method-level pass@1)."""
        if not values.get("code"):
            return {"methods": dict.fromkeys(classeval.method_classes(classeval.problems()[task_id]), False)}
        return {"methods": self._results(task_id, json.dumps(values["code"], sort_keys=True))[2]}

    @staticmethod
    @lru_cache(maxsize=8)
    def _results(task_id: str, code: str) -> tuple[bool, str, dict[str, bool]]:
        # score and details read the same run
        return classeval.passes(classeval.problems()[task_id], CodeArtifact.model_validate_json(code))


class ProgramDev:
    """ProgramDev's 30 application requirements, run by the development graph; executability and the
    acceptance checks written from each requirement score a program (``evals.benchmarks.programdev``)."""

    name = "programdev"
    configurations: Mapping[str, Configuration] = development.CONFIGURATIONS

    def tasks(self) -> list[EvalTask]:
        """Return the requirements as the MAST study states them, nothing else."""
        return [EvalTask(id=name, prompt=text) for name, text in programdev.requirements().items()]

    def score(self, task_id: str, values: Mapping[str, Any]) -> tuple[bool, str]:
        """Run the program in the sandbox: executable and every acceptance check passed."""
        if not values.get("code"):
            return False, "no code produced"
        result = self._judged(task_id, json.dumps(values["code"], sort_keys=True))
        return result["solved"], result["reason"]

    def oracle(self, task_id: str) -> Oracle:
        """Return the acceptance oracle for one requirement."""
        return programdev.oracle(task_id)

    def details(self, task_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Return executability and each acceptance check's result."""
        if not values.get("code"):
            return {"executable": False, "checks": dict.fromkeys(programdev.check_names(task_id), False)}
        result = self._judged(task_id, json.dumps(values["code"], sort_keys=True))
        return {"executable": result["executable"], "checks": result["checks"]}

    @staticmethod
    @lru_cache(maxsize=8)
    def _judged(task_id: str, code: str) -> dict[str, Any]:
        # score and details read the same runs
        return programdev.judged(task_id, CodeArtifact.model_validate_json(code))


class Vulnerabilities:
    """A labelled vulnerability set, audited one function at a time; the label scores the verdict."""

    configurations: Mapping[str, Configuration] = audit.CONFIGURATIONS

    def __init__(self, name: str) -> None:
        self.name = name

    def tasks(self) -> list[EvalTask]:
        """Return the samples: the code, and a file name that says only its language."""
        return [
            EvalTask(id=s.id, prompt=s.code, inputs={"source": vulnerabilities.source_name(s)})
            for s in vulnerabilities.samples(self.name).values()
        ]

    def score(self, task_id: str, values: Mapping[str, Any]) -> tuple[bool, str]:
        """Return whether the verdict matches the label."""
        return vulnerabilities.score(self.name, task_id, values)

    def oracle(self, task_id: str) -> Oracle:
        """Return the label oracle that judges every finding and vote."""
        return vulnerabilities.oracle(self.name, task_id)

    def details(self, task_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Return the label, the verdict and each analyst's votes (for precision, recall, per-role
        accuracy and agreement)."""
        return vulnerabilities.classification(self.name, task_id, values)


class MultipleChoice:
    """A multiple-choice set, answered by the pipeline; the gold option scores the final answer and judges
    every stage's."""

    configurations: Mapping[str, Configuration] = pipeline.CONFIGURATIONS

    def __init__(self, name: str) -> None:
        self.name = name

    def tasks(self) -> list[EvalTask]:
        """Return the questions: the text, then the options one per line, lettered from A."""
        questions = multiple_choice.items(self.name).values()
        return [EvalTask(id=item.id, prompt=item.prompt()) for item in questions]

    def score(self, task_id: str, values: Mapping[str, Any]) -> tuple[bool, str]:
        """Return whether the run completed with the gold option."""
        return multiple_choice.score(self.name, task_id, values)

    def oracle(self, task_id: str) -> Oracle:
        """Return the gold-option oracle that judges every stage's answer."""
        return multiple_choice.oracle(self.name, task_id)

    def details(self, task_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Return the final answer and the option the plan led to."""
        return multiple_choice.details(self.name, task_id, values)


BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        FunctionSet("humaneval", humaneval.problems),
        HumanEvalPipeline(),
        ClassEval(),
        ProgramDev(),
        Vulnerabilities("devign100"),
        Vulnerabilities("vuln-python100"),
        MultipleChoice("logiqa"),
        MultipleChoice("agieval"),
    )
}
