"""The Reviewer: runs the integration tests (LOCAL_CODE), analyses the code statically (MCP_TOOL), reviews
the whole codebase (LLM), decides.

Every action runs through the role's executor (``runtime.executor``), so each is hooked, checked and in
the ledger. The integration run executes every test together plus a smoke run of each entry point and, for
an application, its scripted sessions: a records application's command-line interface
(``nodes.interface.play``), any other program's session from its design (``nodes.sessions.play``). The
static analysis is Accord's MCP server (ruff and bandit; the code is read, never run), falling back to
the local undefined-names check when the server cannot be started. The model's review lists issues with
a severity and a location; the gate, not the model, decides whether the run is approved (see
``graphs.development``). A function whose cases all pass is approved on that evidence without analysis
or a model review, and so is any code where the review is an idle duty of the Reviewer's model
(``state.context.IDLE_DUTIES``): there the integration run alone decides, its failures going back to
the Coder.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from accord.nodes import interface, sessions, static_check, testing
from accord.nodes.llm import answering_model, structured
from accord.nodes.verification import chosen_tests, limits, test_code
from accord.nodes.views import artifacts, code_view, failures_view, plan_view, task_view
from accord.runtime.executor import Executor, role_spec
from accord.state.artifacts import CodeArtifact, ReviewIssue, ReviewReport, TaskSpec, TestReport
from accord.state.graph_state import dump
from accord.state.stage import StageCall, stage_handles

SYSTEM = """Review the whole codebase against the task and the plan. Report only real problems: wrong
results, crashes, unhandled edge cases, data that is lost or corrupted. For each, give the severity
(critical: wrong or crashing on normal use; major: wrong on an edge case; minor: style or clarity), the
location (file and function) and a concrete description. Approve when there is no critical or major
problem."""

REVIEW_PROMPT = """{task}

Plan:
{plan}

Code:
{code}

Integration test run: {integration}

Static analysis (ruff, bandit): {analysis}

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


MAX_FINDINGS = 10
QUIET = {"minor", "low"}
"""Severities left out of the prompt: unused imports and `assert` are noise to a reviewer of behaviour."""


def review(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Run the integration tests, then analyse and review the code."""
    task, plan, code = artifacts(state)
    assert code is not None
    cases = (*(plan.examples if plan else task.examples), *chosen_tests(state))

    def integration_run(code: CodeArtifact) -> TestReport:
        report = test_code(task, cases, code, call, plan.design if plan else None)
        if task.level != "application":
            return report
        assert plan is not None, "an application is always planned (it states no example to attempt on)"
        design = plan.design if plan.design is not None and plan.shape == "program" else None
        # A program driven by its arguments is run as its session uses it: with none it may rightly refuse.
        smokes = (
            []
            if design and design.interface == "arguments"
            else [testing.smoke(code, entry, limits(call)) for entry in code.entry_points]
        )
        smokes += [
            case
            for entry in code.entry_points
            for case in (
                sessions.play(code, entry, design, limits(call))
                if design
                else interface.play(code, entry, plan, limits(call))
            )
        ]
        for case in smokes:
            call.record("sandbox", outcome="passed" if case.passed else "failed", detail=case.name)
        return testing.merge(
            report, *(TestReport(ending="passed" if c.passed else "failed", cases=(c,)) for c in smokes)
        )

    def judge(
        task: TaskSpec, code: CodeArtifact, test_report: TestReport, analysis: dict[str, Any]
    ) -> ReviewDraft:
        summary = (
            f"{sum(c.passed for c in test_report.cases)}/{len(test_report.cases)} passed"
            if test_report.passed
            else "FAILED\n" + failures_view(test_report)
        )
        prompt = REVIEW_PROMPT.format(
            task=task_view(task),
            code=code_view(code, task),
            plan=plan_view(plan) if plan else "(none: a plain attempt)",
            integration=summary,
            analysis=findings_view(analysis),
        )
        return structured(call, ReviewDraft, SYSTEM, prompt)

    actions = Executor(
        role_spec(call),
        record=call.record,
        passthrough=stage_handles,
        handlers={"sandbox": integration_run, "ReviewDraft": judge, "undefined_names": undefined_names},
    )
    integration = actions.run("sandbox", code=code)
    if task.completes_stub and integration.passed:
        # A function's executed cases decide its review: on the local model, blocking issues raised
        # against code whose cases all pass never led to a repair, so that review is not paid for.
        return {"review": dump(ReviewReport(decision="approve", integration=integration))}
    if call.context.idle(call.role, "review", model := answering_model(call)):
        call.record("action", outcome="idle", detail=f"review: an idle duty on {model} (every_duty runs it)")
        decision = "approve" if integration.passed else "request_changes"
        return {"review": dump(ReviewReport(decision=decision, integration=integration))}
    analysis = actions.run("analyse", files=dict(code.files))
    draft = actions.run("ReviewDraft", task=task, code=code, test_report=integration, analysis=analysis)
    # Small models repeat themselves; an issue said twice is still one issue.
    issues = tuple(
        dict.fromkeys(
            ReviewIssue(
                severity=i.severity, location=i.location.strip() or "?", description=i.description.strip()
            )
            for i in draft.issues
            if i.description.strip()
        )
    )
    report = ReviewReport(decision=draft.decision, issues=issues, integration=integration)
    return {"review": dump(report)}


def undefined_names(files: dict[str, str]) -> dict[str, Any]:
    """The local stand-in for the analysis server: names used but never defined, as findings."""
    return {
        "findings": [
            {
                "tool": "symtable",
                "rule": "undefined-name",
                "severity": "major",
                "file": path,
                "line": 0,
                "message": problem,
            }
            for path in sorted(p for p in files if p.endswith(".py"))
            for problem in static_check.undefined_names(path, files)
        ]
    }


def findings_view(analysis: Mapping[str, Any]) -> str:
    """Return the findings worth a reviewer's attention, one per line (or that there are none)."""
    shown = [f for f in analysis.get("findings", []) if f.get("severity") not in QUIET][:MAX_FINDINGS]
    if not shown:
        return "no findings."
    return "\n" + "\n".join(
        f"- {f['file']}:{f['line']} {f['tool']} {f['rule']} ({f['severity']}): {f['message']}" for f in shown
    )
