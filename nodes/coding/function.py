"""A function task's code: several candidate implementations for the Tester to select from, fresh ones
when the selection asks, and redraws when a revision repeats a version already tried."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.nodes.coding.methods import fix_methods, implicated
from accord.nodes.coding.prompts import FUNCTION_PROMPT, SYSTEM
from accord.nodes.coding.writing import tried_versions, unrepeated, write_class, write_function, write_plainly
from accord.nodes.development.artifacts import Candidates
from accord.nodes.views import FUNCTION_FILE, plan_view, task_view
from accord.runtime.executor import perform
from accord.state.artifacts import CodeArtifact, Plan, TaskSpec
from accord.state.stage import OutputError, StageCall

SAMPLE_TEMPERATURE = 0.8
"""Sampled candidates: hot enough to differ from the greedy ones."""

REDRAWS = 2
"""Sampled draws after a function's revision or fix that repeats a version already tried (``unrepeated``);
a class's rewrite, a call per method, gets one."""

CLASS_CANDIDATES = 2
"""At most this many classes a draw: each costs a continuation per method (and a redraw per method that
does not parse), so four candidates of a five-method class were twenty calls before any test ran."""


def new_function(
    call: StageCall, system: str, task: TaskSpec, prompt: str, state: Mapping[str, Any]
) -> CodeArtifact:
    """Write a function task's code, sampling again while it repeats a version already tried (handed
    over in a message or among the candidates the selection ran)."""
    return unrepeated(
        call,
        lambda temperature: write_function(call, system, task, prompt, temperature),
        tried_versions(state),
        REDRAWS,
    )


def fixed_class(
    call: StageCall, task: TaskSpec, code: CodeArtifact, failures: str, state: Mapping[str, Any]
) -> CodeArtifact | None:
    """Return a class with the methods ``failures`` (failing tests, or a review) name rewritten
    (``fix_methods``), sampled once more when that repeats a version already tried; None when the failures
    name no method."""
    methods = implicated(code.files.get(FUNCTION_FILE, ""), task.entry_point or "", failures)
    if not methods:
        return None

    def rewrite(code: CodeArtifact, failures: str, temperature: float | None) -> CodeArtifact:
        return fix_methods(call, task, code, methods, failures, temperature)

    return unrepeated(
        call,
        lambda temperature: perform(
            call, "MethodFix", rewrite, code=code, failures=failures, temperature=temperature
        ),
        tried_versions(state, code),
    )


def write_candidates(
    call: StageCall, task: TaskSpec, plan: Plan, attempt: CodeArtifact | None = None
) -> Candidates:
    """Write up to ``max_candidates`` distinct implementations of a function, for the Tester to select.

    The first is what one plain call gives (the stub as a benchmark harness asks for it, at the role's
    temperature): the pool holds the model's plain best. A plain ``attempt`` made before the team was
    called in is that call, kept instead of made again. The second is written from the task and the
    plan, the rest from both, sampled: diversity the selection can choose from. A class is written method
    by method (``write_class``).
    """
    if task.level == "class":
        return _class_candidates(call, task, plan, attempt)
    planned = FUNCTION_PROMPT.format(task=task_view(task), plan=plan_view(plan), name=task.entry_point)
    budget = max(1, call.context.max_candidates)
    tries: list[tuple[str | None, float | None]] = [(None, None), (planned, None)]
    tries += [(planned, SAMPLE_TEMPERATURE)] * (budget - len(tries))
    items: list[CodeArtifact] = []
    error = ""
    for number, (prompt, temperature) in enumerate(tries[:budget], 1):
        try:
            if prompt is None:
                code = attempt or write_plainly(call, task)
            else:
                code = write_function(call, SYSTEM, task, prompt, temperature)
        except OutputError as exc:
            error = str(exc)
            call.record("retry", outcome=str(number), detail=f"candidate {number}: {exc}"[:300])
            continue
        if code in items:
            call.record("retry", outcome=str(number), detail=f"candidate {number} repeats an earlier one")
            continue
        items.append(code)
    if not items:
        raise OutputError(f"no candidate was valid code; the last: {error}")
    return Candidates(items=tuple(items))


def _class_candidates(
    call: StageCall, task: TaskSpec, plan: Plan, attempt: CodeArtifact | None
) -> Candidates:
    """Write up to ``max_candidates`` distinct classes, at most ``CLASS_CANDIDATES``, as
    ``write_candidates`` does: from the skeleton alone, then with the plan, then with the plan sampled."""
    budget = max(1, min(call.context.max_candidates, CLASS_CANDIDATES))
    tries: list[tuple[Plan | None, float | None]] = [(None, None), (plan, None)]
    tries += [(plan, SAMPLE_TEMPERATURE)] * (budget - len(tries))
    items: list[CodeArtifact] = []
    for number, (shown, temperature) in enumerate(tries[:budget], 1):
        code = (
            attempt
            if attempt is not None and shown is None and temperature is None
            else write_class(call, task, shown, temperature)
        )
        if code in items:
            call.record("retry", outcome=str(number), detail=f"candidate {number} repeats an earlier one")
            continue
        items.append(code)
    return Candidates(items=tuple(items))


def resampling(state: Mapping[str, Any]) -> bool:
    """Return whether the selection just asked for fresh candidates (no candidate passed every example)."""
    verdicts = state.get("verdicts") or []
    last = verdicts[-1] if verdicts else {}
    return last.get("stage") == "selecting" and last.get("outcome") == "resample"


def fresh_candidates(call: StageCall, task: TaskSpec, plan: Plan, pool: Candidates) -> Candidates:
    """Add up to ``max_candidates`` sampled implementations the pool does not hold yet, alternating the
    prompt with the plan and the plain call from the task alone."""
    planned = FUNCTION_PROMPT.format(task=task_view(task), plan=plan_view(plan), name=task.entry_point)
    items = list(pool.items)
    budget = call.context.max_candidates
    for number in range(max(1, min(budget, CLASS_CANDIDATES) if task.level == "class" else budget)):
        try:
            if task.level == "class":
                code = write_class(call, task, (plan, None)[number % 2], SAMPLE_TEMPERATURE)
            elif number % 2 == 0:
                code = write_function(call, SYSTEM, task, planned, SAMPLE_TEMPERATURE)
            else:
                code = write_plainly(call, task, SAMPLE_TEMPERATURE)
        except OutputError as exc:
            call.record("retry", outcome=str(number + 1), detail=f"fresh candidate: {exc}"[:300])
            continue
        if code in items:
            call.record("retry", outcome=str(number + 1), detail="fresh candidate repeats one in the pool")
            continue
        items.append(code)
    return Candidates(items=tuple(items))
