"""The repair workflow: its lifecycle table, gates, roles and graph, registered with Accord as ``repair``.

initialized → reproducing → fixing → verifying → reviewing → completed, with verifying and reviewing
sending work back to fixing while attempts last; a project whose tests already pass completes at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from accord import (
    CodeArtifact,
    Compiler,
    Counter,
    Gate,
    Lifecycle,
    Oracle,
    ReviewReport,
    Stage,
    StageCall,
    TestReport,
    Transition,
    Workflow,
    read,
    roles_from_specs,
    with_budget,
)
from accord_repair import work
from accord_repair.artifacts import RepairTask
from accord_repair.roles import SPECS

LIFECYCLE = with_budget(
    Lifecycle(
        name="repair",
        initial="initialized",
        stages=(
            Stage(name="initialized", roles=("intake",), duty="intake", outcomes=("pass", "fail")),
            Stage(
                name="reproducing",
                roles=("runner",),
                duty="reproduce",
                outcomes=("failing", "passing", "fail"),
            ),
            Stage(name="fixing", roles=("fixer",), duty="fix", outcomes=("pass", "fail")),
            Stage(
                name="verifying",
                roles=("runner",),
                duty="verify",
                outcomes=("pass", "failing", "exhausted", "fail"),
            ),
            Stage(
                name="reviewing",
                roles=("reviewer",),
                duty="review",
                outcomes=("approve", "changes", "exhausted", "fail"),
            ),
            Stage(name="completed", terminal=True, status="completed"),
            Stage(name="failed", terminal=True, status="failed"),
        ),
        transitions=(
            Transition(source="initialized", outcome="pass", target="reproducing"),
            Transition(source="initialized", outcome="fail", target="failed"),
            Transition(source="reproducing", outcome="failing", target="fixing"),
            Transition(source="reproducing", outcome="passing", target="completed"),
            Transition(source="reproducing", outcome="fail", target="failed"),
            Transition(source="fixing", outcome="pass", target="verifying"),
            Transition(source="fixing", outcome="fail", target="failed"),
            Transition(source="verifying", outcome="pass", target="reviewing"),
            Transition(source="verifying", outcome="failing", target="fixing", counter="attempt"),
            Transition(source="verifying", outcome="exhausted", target="failed"),
            Transition(source="verifying", outcome="fail", target="failed"),
            Transition(source="reviewing", outcome="approve", target="completed"),
            Transition(source="reviewing", outcome="changes", target="fixing", counter="attempt"),
            Transition(source="reviewing", outcome="exhausted", target="completed"),
            Transition(source="reviewing", outcome="fail", target="failed"),
        ),
        counters=(
            Counter(name="attempt", start=1, limit=3, exhausted="exhausted", reason="fix attempts spent"),
        ),
    ),
    target="failed",
)


def _tests_ran(state: Mapping[str, Any], passed: tuple[str, str]) -> tuple[str, str]:
    """Return ``passed`` when the test command passed, else ``failing`` with what it showed."""
    report = read(state, "test_report", TestReport)
    assert report is not None  # the runner's contract
    return passed if report.passed else ("failing", f"{report.ending}: {work.summary(report.output)}")


def gate_task(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass a project read with its test command."""
    task = read(state, "repair_task", RepairTask)
    assert task is not None
    return "pass", task.text()


def gate_reproduced(state: Mapping[str, Any]) -> tuple[str, str]:
    """Go on to fix a failure the command shows; a command that passes leaves nothing to repair."""
    return _tests_ran(state, ("passing", "the tests already pass: nothing to repair"))


def gate_fixed(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass the changed code on to be verified."""
    code, task = read(state, "code", CodeArtifact), read(state, "repair_task", RepairTask)
    assert code is not None and task is not None
    changed = sorted(name for name, body in code.files.items() if task.original.get(name) != body)
    return "pass", f"changed {', '.join(changed) or 'nothing'}"


def gate_verified(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass code whose tests pass; send a failure back to the Fixer."""
    return _tests_ran(state, ("pass", "the project's tests pass"))


def gate_review(state: Mapping[str, Any]) -> tuple[str, str]:
    """Complete an approved fix; send a review's problems back to the Fixer."""
    review = read(state, "review", ReviewReport)
    assert review is not None
    if review.decision == "approve":
        return "approve", "the reviewer approves the diff"
    return "changes", "; ".join(issue.description for issue in review.issues)[:300]


GATES: dict[str, Gate] = {
    "initialized": gate_task,
    "reproducing": gate_reproduced,
    "fixing": gate_fixed,
    "verifying": gate_verified,
    "reviewing": gate_review,
}
WORK = {
    ("intake", "intake"): work.intake,
    ("runner", "reproduce"): work.run_tests,
    ("runner", "verify"): work.run_tests,
    ("fixer", "fix"): work.fix,
    ("reviewer", "review"): work.review,
}
ROLES = roles_from_specs(SPECS, WORK)


def _project_tests(state: Mapping[str, Any], call: StageCall) -> tuple[bool, str] | None:
    task, code = read(state, "repair_task", RepairTask), read(state, "code", CodeArtifact)
    if task is None or code is None:
        return None
    # The oracle's own sandbox run is not the stage's: it is not recorded in the stage's ledger.
    report = work.run_command(task, code, dataclasses.replace(call, ledger=[]))
    return report.passed, work.summary(report.output) or report.ending


PROJECT_TESTS = Oracle(name="project tests", judges={"code": _project_tests})
"""The live oracle: the project's own test command, run on the code at every checkpoint."""


def build_graph(
    models: Mapping[str, BaseChatModel] | None = None,
    checkpointer: Checkpointer = None,
    oracle: Oracle | None = PROJECT_TESTS,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the repair graph (``models``: scripted models by role, for tests)."""
    return (
        Compiler(LIFECYCLE, ROLES, GATES, models, oracle)
        .build()
        .compile(checkpointer=checkpointer, name="repair")
    )


WORKFLOW = Workflow(name="repair", lifecycle=LIFECYCLE, specs=SPECS, build=build_graph)
"""What the ``accord.workflows`` entry point names: Accord's commands find the workflow through it."""
graph = build_graph()
"""The graph ``langgraph dev`` serves (``langgraph.json``); the server brings its own checkpointer."""
