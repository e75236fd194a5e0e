"""The Coder: implements the plan into the shared file map (LLM).

A function-level task gets several candidate implementations, each a fenced block in a plain-text reply
(the Tester's selection keeps one): ``function``. An application is built feature by feature into
``app.py``, its interface written by code, then its tests: ``application``, ``app_tests``. How code is
asked for and merged: ``writing``; what is said: ``prompts``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.nodes.coding.application import build_application, repair_step
from accord.nodes.coding.function import (
    SAMPLE_TEMPERATURE,
    fixed_class,
    fresh_candidates,
    new_function,
    resampling,
    write_candidates,
)
from accord.nodes.coding.prompts import CHANGED_DEFINITIONS, REVISE_PROMPT, SYSTEM
from accord.nodes.coding.writing import fix_one_file, tried_versions, unrepeated, write_class, write_plainly
from accord.nodes.development.artifacts import Candidates
from accord.nodes.views import artifacts, code_view, plan_view, review_view, task_view
from accord.state.artifacts import CodeArtifact, Plan, ReviewReport, TaskSpec
from accord.state.graph_state import dump, read
from accord.state.stage import StageCall

__all__ = ["SYSTEM", "attempt", "implement", "revise", "sample"]


def attempt(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write a function or class as one plain call does, from the task alone: the try the team is called
    in for only when it and its sampled successors fail the task's examples (then the last is the pool's
    first candidate). The first attempt is at the role's temperature; one after a failed attempt is
    sampled, drawn again while it repeats a version already tried."""
    task, _, earlier = artifacts(state)
    # A sample and its redraws are at the candidates' temperature, as best-of-n samples.
    temperature = None if earlier is None else SAMPLE_TEMPERATURE

    def draw(_: float | None) -> CodeArtifact:
        return plain(call, task, temperature)

    if earlier is None:
        return {"code": dump(draw(None))}
    return {"code": dump(unrepeated(call, draw, tried_versions(state, earlier)))}


def sample(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Draw ``cross_samples`` more plain attempts beside the one that passed its check, each written from the
    task alone at the candidates' temperature, so that the Tester can run them side by side on inputs the
    task does not state: where independent samples behave alike, the attempt is not one draw's accident."""
    task, _, code = artifacts(state)
    assert code is not None
    drawn = [plain(call, task, SAMPLE_TEMPERATURE) for _ in range(call.context.cross_samples)]
    return {"candidates": dump(Candidates(items=(code, *drawn)))}


def plain(call: StageCall, task: TaskSpec, temperature: float | None) -> CodeArtifact:
    """Return one plain try at the task, as the ``single`` baseline makes it: a class method by method."""
    if task.level == "class":
        return write_class(call, task, None, temperature)
    return write_plainly(call, task, temperature)


def implement(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write or revise the code."""
    task, plan, code = artifacts(state)
    assert plan is not None
    pool = read(state, "candidates", Candidates)
    if pool is not None and code is not None and resampling(state):
        # The chosen code stands until the selection has run the bigger pool.
        return {"code": dump(code), "candidates": dump(fresh_candidates(call, task, plan, pool))}
    review = read(state, "review", ReviewReport)
    if review is not None and code is not None:
        revised = revise(call, task, plan, code, review, state)
        if pool is None:
            return {"code": dump(revised)}
        # The revision joins the pool: the selection keeps it only if the evidence says it is better.
        items = pool.items if revised in pool.items else (*pool.items, revised)
        return {"code": dump(revised), "candidates": dump(Candidates(items=items))}
    if task.completes_stub:
        # The plain attempt, when one was made and failed its check, is the pool's plain candidate.
        candidates = write_candidates(call, task, plan, code)
        return {"code": dump(candidates.items[0]), "candidates": dump(candidates)}
    return {"code": dump(build_application(call, task, plan))}


def revise(
    call: StageCall,
    task: TaskSpec,
    plan: Plan,
    code: CodeArtifact,
    review: ReviewReport,
    state: Mapping[str, Any],
) -> CodeArtifact:
    """Return the code revised to answer the review: an application's step with a wrong effect is sampled
    again first (``repair_step``); otherwise the Coder fixes the most important issue. A class has the
    methods the review names rewritten, one continuation each."""
    if task.level == "class" and (fixed := fixed_class(call, task, code, review_view(review), state)):
        return fixed
    if task.completes_stub:
        prompt = REVISE_PROMPT.format(
            task=task_view(task),
            plan=plan_view(plan),
            code=code_view(code, task),
            review=review_view(review),
            what=f"the complete corrected implementation of `{task.entry_point}` in one ```python code block",
        )
        return new_function(call, SYSTEM, task, prompt, state)
    if (repaired := repair_step(call, task, plan, code)) is not None:
        return repaired
    prompt = REVISE_PROMPT.format(
        task=task_view(task),
        plan=plan_view(plan),
        code=code_view(code),
        review=review_view(review),
        what=CHANGED_DEFINITIONS,
    )
    return fix_one_file(call, SYSTEM, prompt, code, plan)
