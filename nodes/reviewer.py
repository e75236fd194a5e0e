"""The Reviewer: runs the integration tests (LOCAL_CODE), reviews the whole codebase (LLM), decides.

The integration run executes every test together plus a smoke run of each entry point. The model's
review lists issues with a severity and a location; the gate, not the model, decides whether the run is
approved (see ``graphs.development``). A function whose cases all pass is approved on that evidence
without a model review.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from graphs.compiler import StageCall
from nodes import testing
from nodes.debugger import limits, test_code
from nodes.llm import structured
from nodes.tester import chosen_tests
from nodes.views import artifacts, code_view, failures_view, plan_view, task_view
from state.artifacts import ReviewIssue, ReviewReport, TestReport
from state.contracts import Contract
from state.graph_state import dump

CONTRACT = Contract(role="reviewer", duty="review", inputs=("task", "plan", "code"),
                    optional_inputs=("test_report", "tests", "selection"), outputs=("review",))

SYSTEM = """You are the Reviewer of a small software team. Review the whole codebase against the task
and the plan. Report only real problems: wrong results, crashes, unhandled edge cases, data that is lost
or corrupted. For each, give the severity (critical: wrong or crashing on normal use; major: wrong on an
edge case; minor: style or clarity), the location (file and function) and a concrete description.
Approve when there is no critical or major problem."""

REVIEW_PROMPT = """{task}

Plan:
{plan}

Code:
{code}

Integration test run: {integration}

Review the code."""


class IssueDraft(BaseModel):
    """One problem in the code."""

    severity: Literal["minor", "major", "critical"]
    location: str = Field(description="file and function the problem is in")
    description: str = Field(description="what is wrong and what input shows it")


class ReviewDraft(BaseModel):
    """The review decision."""

    decision: Literal["approve", "request_changes"]
    issues: list[IssueDraft] = Field(default_factory=list, max_length=5, description="problems found")


def review(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Run the integration tests, then review the code."""
    task, plan, code = artifacts(state)
    assert plan is not None and code is not None
    integration = test_code(task, (*plan.examples, *chosen_tests(state)), code, call)
    if task.level == "application":
        smokes = [testing.smoke(code, entry, limits(call)) for entry in code.entry_points]
        for case in smokes:
            call.record("sandbox", outcome="passed" if case.passed else "failed", detail=case.name)
        integration = testing.merge(integration, *(
            TestReport(ending="passed" if c.passed else "failed", cases=(c,)) for c in smokes))
    if task.level == "function" and integration.passed:
        # A function's executed cases decide its review: on the local model, blocking issues raised
        # against code whose cases all pass never led to a repair, so that review is not paid for.
        return {"review": dump(ReviewReport(decision="approve", integration=integration))}
    summary = (f"{sum(c.passed for c in integration.cases)}/{len(integration.cases)} passed"
               if integration.passed else "FAILED\n" + failures_view(integration))
    prompt = REVIEW_PROMPT.format(task=task_view(task), plan=plan_view(plan),
                                  code=code_view(code, task), integration=summary)
    draft = structured(call, ReviewDraft, SYSTEM, prompt)
    # Small models repeat themselves; an issue said twice is still one issue.
    issues = tuple(dict.fromkeys(
        ReviewIssue(severity=i.severity, location=i.location.strip() or "?",
                    description=i.description.strip())
        for i in draft.issues if i.description.strip()))
    report = ReviewReport(decision=draft.decision, issues=issues, integration=integration)
    return {"review": dump(report)}
