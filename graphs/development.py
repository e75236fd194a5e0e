"""The development graph: Planner → Coder → Tester → Debugger → Reviewer under SEMAP's centralized lifecycle.

A function or class task is first given to one plain call (``single``'s prompt, on the Coder's model):
attempting → checking runs the examples it states in the sandbox (for a task stating none, that the entry
point is defined), and an attempt that passes them all goes to the Reviewer's executed-evidence review and
``completed``. With ``cross_samples`` set, an attempt whose check stated nothing of behaviour (a task with no
example) is first cross-checked: sampling → probing → cross_checking, where the Coder draws ``cross_samples``
more plain attempts, the Tester writes cases from the specification alone, and the candidate that most of them
behave alike with is kept (agreed). Where no majority behaves alike and the candidates returned different
values on some calls (disputed), the Planner decides from the task's words which value each of those calls
must return (adjudicating), and the candidates are run again with the decisions as examples (rechecking). A
failing one is sampled again (checking → attempting, at most ``max_samples`` times, sooner ended when a sample
fails as the one before it did), and only then escalates to the team, the last attempt kept as its first
candidate (``Context.first_attempt`` off sends every task to the team at once). The team: initialized →
planning → implementing → testing ⇄ debugging → reviewing → completed | unverified | failed, with
review-requested changes going back to implementing (round + 1, at most ``max_rounds``) and the test-and-fix
loop bounded by ``max_debug_attempts`` per round. A function's candidates take a detour: implementing →
designing_tests (once) → selecting → testing, where the Tester writes cases from the specification and keeps
the candidate with the most executed evidence. When no candidate of several passes every example, the Coder
draws fresh ones (at most ``max_resamples`` times) and then the run fails on that evidence; a single candidate
goes on to testing and repair. A run that asks for it (``approve_plan``) puts the plan to a person before
implementing: approving → implementing, or back to planning with the person's reason (round + 1).
``LIFECYCLE`` is the single source of truth: the compiled graph's edges are exactly its transitions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from accord.graphs.catalog import Workflow
from accord.graphs.compiler import Compiler, Gate
from accord.graphs.duties import roles_from_specs
from accord.graphs.oracle import Oracle
from accord.nodes import verification
from accord.nodes.development import approval, coder, debugger, planner, reviewer, tester
from accord.nodes.development.artifacts import Approval, Candidates, Selection, TestSuite
from accord.nodes.development.roles import SPECS as ROLE_SPECS
from accord.nodes.requests import parse_request, request_of
from accord.nodes.views import artifacts
from accord.state.artifacts import CodeArtifact, Plan, ReviewReport, TaskSpec, TestReport
from accord.state.graph_state import code_versions, dump, read
from accord.state.lifecycle import Counter, Lifecycle, Stage, Transition, with_budget
from accord.state.stage import StageCall

SAMPLED_ATTEMPTS = 3
"""Plain attempts sampled after the first fails the task's examples, before the team is called in
(``Context.max_samples`` sets another number; 0 escalates at once)."""

LIFECYCLE = with_budget(
    Lifecycle(
        name="development",
        initial="initialized",
        stages=(
            Stage(name="initialized", roles=("intake",), duty="intake", outcomes=("pass", "attempt", "fail")),
            Stage(name="attempting", roles=("coder",), duty="attempt", outcomes=("pass", "fail")),
            Stage(
                name="checking",
                roles=("debugger",),
                duty="run_tests",
                outcomes=("pass", "cross_check", "retry", "escalate", "fail"),
            ),
            Stage(name="probing", roles=("tester",), duty="design_tests", outcomes=("pass", "fail")),
            Stage(name="sampling", roles=("coder",), duty="sample", outcomes=("pass", "fail")),
            Stage(
                name="cross_checking",
                roles=("tester",),
                duty="select",
                outcomes=("agreed", "disputed", "unanswered", "fail"),
            ),
            Stage(
                name="adjudicating",
                roles=("planner",),
                duty="adjudicate",
                outcomes=("pass", "undecided", "fail"),
            ),
            Stage(name="rechecking", roles=("tester",), duty="select", outcomes=("pass", "fail")),
            Stage(name="planning", roles=("planner",), duty="plan", outcomes=("pass", "approval", "fail")),
            Stage(
                name="approving",
                roles=("human",),
                duty="approve",
                outcomes=("approved", "rejected", "exhausted", "fail"),
            ),
            Stage(
                name="implementing",
                roles=("coder",),
                duty="implement",
                outcomes=("pass", "tests_needed", "select", "fail"),
            ),
            Stage(name="designing_tests", roles=("tester",), duty="design_tests", outcomes=("pass", "fail")),
            Stage(
                name="selecting",
                roles=("tester",),
                duty="select",
                outcomes=("pass", "repair", "resample", "unsolved", "fail"),
            ),
            Stage(
                name="testing",
                roles=("debugger",),
                duty="run_tests",
                outcomes=("pass", "tests_failed", "exhausted", "fail"),
            ),
            Stage(name="debugging", roles=("debugger",), duty="fix", outcomes=("pass", "repeat", "fail")),
            Stage(
                name="reviewing",
                roles=("reviewer",),
                duty="review",
                outcomes=("pass", "unchecked", "changes", "exhausted", "fail"),
            ),
            Stage(name="completed", terminal=True, status="completed"),
            Stage(name="unverified", terminal=True, status="unverified"),
            Stage(name="failed", terminal=True, status="failed"),
        ),
        transitions=(
            Transition(source="initialized", outcome="pass", target="planning"),
            Transition(source="initialized", outcome="attempt", target="attempting", counter="attempt"),
            Transition(source="initialized", outcome="fail", target="failed"),
            Transition(source="attempting", outcome="pass", target="checking"),
            # An attempt that gave no usable code is one the team makes anyway.
            Transition(source="attempting", outcome="fail", target="planning"),
            Transition(source="checking", outcome="pass", target="reviewing"),
            # An attempt that passed a check of nothing the task states (no example) is run beside samples
            # of its own prompt on the Tester's cases: the candidates' agreement chooses among them.
            Transition(source="checking", outcome="cross_check", target="sampling", counter="cross_check"),
            Transition(source="sampling", outcome="pass", target="probing"),
            Transition(source="sampling", outcome="fail", target="reviewing"),
            Transition(source="probing", outcome="pass", target="cross_checking"),
            # Without cases to run there is nothing to compare the samples on: the attempt goes on alone.
            Transition(source="probing", outcome="fail", target="reviewing"),
            Transition(source="cross_checking", outcome="agreed", target="reviewing"),
            # Where the candidates returned different values, the Planner decides from the task's words which
            # each call must return, and the candidates are run again with those decisions as examples.
            Transition(source="cross_checking", outcome="disputed", target="adjudicating"),
            Transition(source="cross_checking", outcome="unanswered", target="reviewing"),
            # The attempt stays the code when the selection could not run.
            Transition(source="cross_checking", outcome="fail", target="reviewing"),
            Transition(source="adjudicating", outcome="pass", target="rechecking"),
            Transition(source="adjudicating", outcome="undecided", target="reviewing"),
            Transition(source="adjudicating", outcome="fail", target="reviewing"),
            Transition(source="rechecking", outcome="pass", target="reviewing"),
            Transition(source="rechecking", outcome="fail", target="reviewing"),
            # A failed attempt is sampled again before the team is called in: on HumanEval's dev problems the
            # samples repaired most of the wrong attempts they followed (docs/evals.md, "Sampled attempts").
            Transition(source="checking", outcome="retry", target="attempting", counter="sample"),
            Transition(source="checking", outcome="escalate", target="planning"),
            Transition(source="checking", outcome="fail", target="failed"),
            Transition(source="planning", outcome="pass", target="implementing"),
            Transition(source="planning", outcome="approval", target="approving"),
            Transition(source="planning", outcome="fail", target="failed"),
            Transition(source="approving", outcome="approved", target="implementing"),
            Transition(source="approving", outcome="rejected", target="planning", counter="round"),
            Transition(source="approving", outcome="exhausted", target="failed"),
            Transition(source="approving", outcome="fail", target="failed"),
            Transition(source="implementing", outcome="pass", target="testing"),
            Transition(source="implementing", outcome="tests_needed", target="designing_tests"),
            Transition(source="implementing", outcome="select", target="selecting"),
            Transition(source="implementing", outcome="fail", target="failed"),
            Transition(source="designing_tests", outcome="pass", target="selecting"),
            # Without the Tester's cases the selection still has the task's examples.
            Transition(source="designing_tests", outcome="fail", target="selecting"),
            Transition(source="selecting", outcome="pass", target="testing"),
            Transition(source="selecting", outcome="repair", target="testing"),
            Transition(source="selecting", outcome="resample", target="implementing", counter="resample"),
            # A pool is its own repair: the selection ran every candidate on the examples the Debugger would
            # be shown, and over HumanEval and ClassEval the Debugger's fixes of a pool's best repaired none.
            Transition(source="selecting", outcome="unsolved", target="failed"),
            Transition(source="selecting", outcome="fail", target="failed"),
            Transition(source="testing", outcome="pass", target="reviewing"),
            Transition(source="testing", outcome="tests_failed", target="debugging", counter="debug"),
            Transition(source="testing", outcome="exhausted", target="reviewing"),
            Transition(source="testing", outcome="fail", target="failed"),
            Transition(source="debugging", outcome="pass", target="testing"),
            Transition(source="debugging", outcome="repeat", target="reviewing"),
            Transition(source="debugging", outcome="fail", target="reviewing"),
            Transition(source="reviewing", outcome="pass", target="completed"),
            # Approved code that nothing but loading checked is handed over as it is, and said to be so.
            Transition(source="reviewing", outcome="unchecked", target="unverified"),
            Transition(source="reviewing", outcome="changes", target="implementing", counter="round"),
            Transition(source="reviewing", outcome="exhausted", target="failed"),
            Transition(source="reviewing", outcome="fail", target="failed"),
        ),
        counters=(
            Counter(
                name="round",
                start=1,
                limit=5,
                exhausted="exhausted",
                reason="round budget exhausted",
                resets=("debug",),
            ),
            Counter(name="debug", start=0, limit=3, exhausted="exhausted", reason="debug attempts exhausted"),
            Counter(name="resample", start=0, limit=0, exhausted="unsolved", reason="no resample left"),
            Counter(name="attempt", start=0, limit=1, exhausted="pass", reason="no plain attempt first"),
            Counter(name="cross_check", start=0, limit=0, exhausted="pass", reason="no cross-check"),
            Counter(
                name="sample",
                start=0,
                limit=SAMPLED_ATTEMPTS,
                exhausted="escalate",
                reason="no sampled attempt left",
            ),
        ),
    ),
    target="failed",
)

MAX_SUBTASKS = 12
BLOCKING = frozenset({"major", "critical"})
"""Review severities that block approval."""


def gate_task(state: Mapping[str, Any]) -> tuple[str, str]:
    """Send a function or class task to one plain attempt first; an application, or a task whose plan a
    person is to approve, to the team.

    A task stating no example goes to the attempt too, checked on its entry point alone: on HumanEval's
    dev problems with their examples removed the team solved no more than the plain call, for many times
    its tokens, and the Tester's cases failed most right answers (docs/evals.md, "Tasks that state no
    example").
    """
    task = read(state, "task", TaskSpec)
    assert task is not None
    detail = f"entry point {task.entry_point}" if task.completes_stub else ""
    outcome = "attempt" if task.completes_stub and not state.get("approve_plan") else "pass"
    return outcome, f"{task.level} task, {len(task.examples)} examples {detail}".strip()


def gate_attempt(state: Mapping[str, Any]) -> tuple[str, str]:
    """Keep the plain attempt that passes every example the task states; sample any other again (the
    ``sample`` counter escalates to the team once its attempts are spent, or once an attempt fails as the
    one before it did)."""
    report, task = read(state, "test_report", TestReport), read(state, "task", TaskSpec)
    assert report is not None and task is not None
    passed = sum(c.passed for c in report.cases)
    # The checks are the entry point's definition, then the stated examples: name both, so that a task
    # stating none does not read as one whose example passed.
    stated = len(task.examples)
    summary = (
        f"{passed}/{len(report.cases)} checks passed (the entry point's definition and "
        f"{stated} stated example{'' if stated == 1 else 's'})"
    )
    if report.passed:
        # A check of the entry point alone says nothing of behaviour: the Tester cross-checks it, when the
        # run's ``cross_samples`` lets the ``cross_check`` counter through.
        return ("pass" if task.examples else "cross_check"), summary
    failures = report.failures()
    # How the first example failed, not only which: a sample failing alike is no new evidence.
    failing = "; ".join(c.name for c in failures[:3])
    said = (failures[0].got or failures[0].message).strip().splitlines() if failures else []
    got = f" (got {said[-1][:200]})" if said else ""
    return "retry", f"{summary} ({report.ending}): {failing}".rstrip(": ") + got


def gate_plan(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass a plan of 1..12 distinct subtasks that carries every example the task states."""
    plan, task = read(state, "plan", Plan), read(state, "task", TaskSpec)
    assert plan is not None and task is not None
    titles = [s.title.lower() for s in plan.subtasks]
    if len(titles) > MAX_SUBTASKS:
        return "fail", f"{len(titles)} subtasks (at most {MAX_SUBTASKS})"
    if len(set(titles)) < len(titles):
        return "fail", "subtasks repeat each other"
    if missing := [e.call for e in task.examples if e not in plan.examples]:
        return "fail", f"plan drops the task's examples: {missing}"
    outcome = "approval" if state.get("approve_plan") else "pass"
    return outcome, f"{len(titles)} subtasks, {len(plan.examples)} examples"


def gate_approval(state: Mapping[str, Any]) -> tuple[str, str]:
    """Go on with the plan a person approved or edited; plan again when they rejected it."""
    approval = read(state, "approval", Approval)
    assert approval is not None
    said = f"{approval.decision} by {approval.by}" + (f": {approval.reason}" if approval.reason else "")
    return ("rejected" if approval.decision == "rejected" else "approved"), said


def gate_code(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass code that has files and whose entry points exist; send candidates to the Tester."""
    code = read(state, "code", CodeArtifact)
    assert code is not None
    if not code.files:
        return "fail", "no files"
    if missing := [e for e in code.entry_points if e not in code.files]:
        return "fail", f"entry points missing: {missing}"
    if candidates := read(state, "candidates", Candidates):
        outcome = "select" if state.get("tests") else "tests_needed"
        return outcome, f"{len(candidates.items)} candidates"
    return "pass", f"{len(code.files)} files, {len(code.test_files)} test files"


def gate_samples(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass the attempt and its samples on to be run side by side."""
    candidates = read(state, "candidates", Candidates)
    assert candidates is not None
    return "pass", f"{len(candidates.items)} candidates"


def gate_designed(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass the Tester's cases on to the selection."""
    suite = read(state, "tests", TestSuite)
    assert suite is not None
    return "pass", f"{len(suite.cases)} test cases"


def gate_selection(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass the chosen candidate on, with the evidence it was chosen on. When it fails an example of the
    task, a pool of several asks for fresh candidates; a single candidate, with none to choose from, goes
    to repair."""
    selection, plan = read(state, "selection", Selection), read(state, "plan", Plan)
    assert selection is not None and plan is not None
    best = selection.scores[selection.chosen]
    evidence = (
        f"candidate {best.index + 1} of {len(selection.scores)}: {best.examples_passed} "
        f"examples and {best.tests_passed} test cases passed, {best.agreeing} candidates "
        f"agree; {len(selection.flagged)} cases disputed"
    )
    if best.examples_passed >= len(plan.examples):
        return "pass", evidence
    if len(selection.scores) == 1:
        return "repair", f"the one candidate fails an example; {evidence}"
    return "resample", f"no candidate passes every example; {evidence}"


def gate_cross_check(state: Mapping[str, Any]) -> tuple[str, str]:
    """Say whether most candidates behaved as the chosen one did on the Tester's cases (agreed), returned
    different values on some (disputed, for the Planner to decide), or answered none of them (unanswered)."""
    selection = read(state, "selection", Selection)
    assert selection is not None
    best, total = selection.scores[selection.chosen], len(selection.scores)
    evidence = (
        f"candidate {best.index + 1} of {total}: {best.agreeing} of {total} candidates behave alike on the "
        f"Tester's cases, {best.answered} answered without raising, {best.tests_passed} passed, "
        f"{len(selection.flagged)} disputed"
    )
    if agrees(selection):
        return "agreed", evidence
    if selection.disputes:
        return "disputed", f"{evidence}; {len(selection.disputes)} calls answered differently"
    return "unanswered", evidence


def gate_decided(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass the Planner's decisions on to run the candidates on; without one, nothing more is known."""
    plan = read(state, "plan", Plan)
    assert plan is not None
    if not plan.examples:
        return "undecided", "the task's words decide none of the disputed calls"
    return "pass", f"{len(plan.examples)} disputed calls decided: " + "; ".join(
        e.shown() for e in plan.examples
    )[:400]


def gate_rechecked(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass the candidate that behaves as the Planner decided on most disputed calls on to review."""
    selection, plan = read(state, "selection", Selection), read(state, "plan", Plan)
    assert selection is not None and plan is not None
    best = selection.scores[selection.chosen]
    return "pass", (
        f"candidate {best.index + 1} of {len(selection.scores)}: {best.examples_passed} of "
        f"{len(plan.examples)} decided calls, {best.agreeing} candidates behave alike"
    )


def majority(selection: Selection) -> bool:
    """Return whether most of several candidates behave as the chosen one on the Tester's cases."""
    total = len(selection.scores)
    return total > 1 and 2 * selection.scores[selection.chosen].agreeing > total


def agrees(selection: Selection) -> bool:
    """Return whether most of several candidates behave as the chosen one on cases it answers: alike only
    in raising on every case, they agree on nothing about behaviour."""
    return majority(selection) and selection.scores[selection.chosen].answered > 0


def gate_tests(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass when every test passed; otherwise send the failures to the Debugger."""
    report = read(state, "test_report", TestReport)
    assert report is not None
    passed = sum(c.passed for c in report.cases)
    summary = f"{passed}/{len(report.cases)} passed ({report.ending})"
    if report.passed:
        return "pass", summary
    failing = "; ".join(c.name for c in report.failures()[:3])
    return "tests_failed", f"{summary}: {failing}".rstrip(": ")


def gate_fix(state: Mapping[str, Any]) -> tuple[str, str]:
    """Stop the test-and-fix loop when the fix repeats a version already tried."""
    code = read(state, "code", CodeArtifact)
    assert code is not None
    if code.files in code_versions(state):
        return "repeat", "the fix repeats an earlier version of the code"
    return "pass", "new version of the code"


def gate_review(state: Mapping[str, Any]) -> tuple[str, str]:
    """Approve only when the integration run passed and no blocking issue was raised, or the only blocking
    issues are ones the Coder disputed (``disputed``)."""
    review = read(state, "review", ReviewReport)
    assert review is not None and review.integration is not None
    blocking = [i for i in review.issues if i.severity in BLOCKING]
    if not review.integration.passed:
        failing = "; ".join(c.name for c in review.integration.failures()[:3]) or review.integration.ending
        return "changes", f"integration tests failed: {failing}"
    if review.decision == "request_changes" and blocking:
        issues = "; ".join(f"[{i.severity}] {i.location}: {i.description}" for i in blocking)[:600]
        if not disputed(state, issues):
            return "changes", issues
        approved = f"approved on the executed evidence; disputed by the Coder: {issues}"[:400]
    else:
        approved = f"approved; {len(review.issues)} non-blocking issues"
    verified, how = verified_by(state)
    return ("pass" if verified else "unchecked"), f"{how}; {approved}"


def verified_by(state: Mapping[str, Any]) -> tuple[bool, str]:
    """Return whether the code was checked on behaviour, not only on loading, and by what: the task's
    stated examples, the plan's examples, the Planner's decisions of the calls the candidates disputed, the
    agreement of most candidates on the Tester's cases, or every one of those cases passed; an application
    by its integration checks. A function checked only on defining its entry point, or whose candidates
    disagree where no decision settles it, is unverified, whatever its review said."""
    task, plan = read(state, "task", TaskSpec), read(state, "plan", Plan)
    selection, suite = read(state, "selection", Selection), read(state, "tests", TestSuite)
    review = read(state, "review", ReviewReport)
    assert task is not None and review is not None and review.integration is not None
    if task.examples:
        stated = len(task.examples)
        said = f"verified by the task's {stated} stated example{'' if stated == 1 else 's'}"
        return True, f"{said}; {_agreement(selection, suite)}" if selection and suite else said
    if plan is not None and adjudicated(state):
        # The integration run that passed ran the decisions: the plan's examples.
        decided = len(plan.examples)
        return (
            True,
            f"verified by the Planner's {decided} decisions, from the task's words, of disputed calls",
        )
    if plan is not None and plan.examples:
        return True, f"verified by the plan's {len(plan.examples)} examples (the task states none)"
    if not task.completes_stub:
        return True, f"verified by {len(review.integration.cases)} integration checks"
    if selection is None or suite is None:
        return False, "unverified: the task states no example, and only loading the entry point was checked"
    agreement = _agreement(selection, suite)
    if agrees(selection):
        return True, f"verified by agreement: {agreement}"
    if not selection.flagged:
        return True, f"verified by the Tester's {len(suite.cases)} cases, written from the task alone"
    if not selection.scores[selection.chosen].answered:
        return False, f"unverified: the chosen candidate raised on every generated case, {agreement}"
    return False, f"unverified: the candidates disagree, {agreement}"


def adjudicated(state: Mapping[str, Any]) -> bool:
    """Return whether the plan is the Planner's decisions of the calls the candidates disputed."""
    return any(v["stage"] == "adjudicating" and v["outcome"] == "pass" for v in state.get("verdicts") or [])


def _agreement(selection: Selection, suite: TestSuite) -> str:
    best = selection.scores[selection.chosen]
    return (
        f"{best.agreeing} of {len(selection.scores)} candidates behave alike on {len(suite.cases)} "
        f"generated cases ({best.answered} answered, {len(selection.flagged)} disputed)"
    )


def disputed(state: Mapping[str, Any], issues: str) -> bool:
    """Return whether the Reviewer repeats the blocking issues of its last review about code the Coder
    handed back unchanged in answer to them.

    The Coder keeping its code is its reply to the review; with every executed check passing, the
    Reviewer saying the same again is a disagreement no further round resolves. The small local model's
    reviewers repeated such claims against the plan and against passing tests round after round.
    """
    last = next((v for v in reversed(state.get("verdicts") or []) if v["stage"] == "reviewing"), None)
    versions = code_versions(state)
    return (
        last is not None
        and last["outcome"] == "changes"
        and last["evidence"] == issues
        and len(versions) >= 2
        and versions[-1] == versions[-2]
    )


def intake(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Turn the request into a task spec (LOCAL_CODE)."""
    return {"task": dump(parse_request(request_of(state)))}


WORK = {
    ("intake", "intake"): intake,
    ("coder", "attempt"): coder.attempt,
    ("coder", "sample"): coder.sample,
    ("planner", "plan"): planner.plan,
    ("planner", "adjudicate"): planner.adjudicate,
    ("human", "approve"): approval.approve,
    ("coder", "implement"): coder.implement,
    ("tester", "design_tests"): tester.design_tests,
    ("tester", "select"): tester.select,
    ("debugger", "run_tests"): debugger.run_tests,
    ("debugger", "fix"): debugger.fix,
    ("reviewer", "review"): reviewer.review,
}
SPECS = {**ROLE_SPECS, approval.SPEC.name: approval.SPEC}
"""The team's specs (``nodes/development/roles.py``), and the person who may approve the plan
(``nodes/development/approval.py``)."""
ROLES = roles_from_specs(SPECS, WORK)
INPUTS = {"approve_plan": bool}
"""What a caller may give beside the request: whether a person approves the plan before work goes on
(``accord run --approve-plan``; in Studio, ``true`` in the input), when the planning gate hands the plan to
the ``human`` role."""
"""The graph's roles, built from their specs: contracts come from nowhere else."""
SYSTEM_PROMPTS = {
    role: SPECS[role].system_prompt(module.SYSTEM)
    for role, module in (
        ("planner", planner),
        ("coder", coder),
        ("tester", tester),
        ("debugger", debugger),
        ("reviewer", reviewer),
    )
}
"""Each role's system prompt for its main duty, as its model receives it: identity from the spec, then the
duty's instructions (what a Who&When export records)."""
GATES: dict[str, Gate] = {
    "initialized": gate_task,
    "attempting": gate_code,
    "checking": gate_attempt,
    "probing": gate_designed,
    "sampling": gate_samples,
    "cross_checking": gate_cross_check,
    "adjudicating": gate_decided,
    "rechecking": gate_rechecked,
    "planning": gate_plan,
    "approving": gate_approval,
    "implementing": gate_code,
    "designing_tests": gate_designed,
    "selecting": gate_selection,
    "testing": gate_tests,
    "debugging": gate_fix,
    "reviewing": gate_review,
}


def _visible_tests(state: Mapping[str, Any], call: StageCall) -> tuple[bool, str]:
    task, plan, code = artifacts(state)
    assert code is not None
    # The oracle's own sandbox runs are not the stage's: its ledger entry times them instead.
    report = verification.test_code(
        task,
        plan.examples if plan else task.examples,
        code,
        dataclasses.replace(call, ledger=[]),
        plan.design if plan else None,
    )
    failures = report.failures()
    if report.passed:
        return True, f"{len(report.cases)}/{len(report.cases)} visible tests passed"
    first = f"{failures[0].name}: {failures[0].message.strip()[:300]}" if failures else report.output[-300:]
    return False, f"{report.ending}: {first}"


VISIBLE_TESTS = Oracle(name="visible tests", judges={"code": _visible_tests})
"""The live oracle: the task's examples, the code's own tests and the static checks, in the sandbox."""


def build_graph(
    models: Mapping[str, BaseChatModel] | None = None,
    checkpointer: Checkpointer = None,
    oracle: Oracle | None = VISIBLE_TESTS,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the development graph.

    Args:
        models: scripted models by role (tests), else the Context's endpoints are used.
        checkpointer: where checkpoints go (None for ``langgraph dev``, which brings its own).
        oracle: judges the candidate at every checkpoint for blame (None: no judging).
    """
    builder = Compiler(LIFECYCLE, ROLES, GATES, models, oracle, inputs=INPUTS).build()
    return builder.compile(checkpointer=checkpointer, name="development")


graph = build_graph()
"""The graph ``langgraph dev`` serves (no checkpointer: the server brings its own)."""

WORKFLOW = Workflow(
    "development",
    LIFECYCLE,
    SPECS,
    lambda **options: build_graph(**options),  # looked up when called: a test may replace build_graph
    SYSTEM_PROMPTS,
    ROLES,
)
"""The development workflow as Accord registers it (``accord.workflows`` entry point ``development``)."""
