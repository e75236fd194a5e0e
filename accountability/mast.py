"""Failure taxonomy: a run's failures in MAST's 14 modes and 3 categories.

Deterministic detectors read the trace (contracts, gates, messages, judgments) and say which step showed
the failure and why. Modes no detector covers can be judged by an LLM given MAST's definitions; such
findings are marked ``judged``. Definitions ship with this package
(``accountability/taxonomy``, from the MAST study; see its PROVENANCE.md).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from typing import Any, Literal

from accord.accountability.trace import Step
from accord.nodes.llm import client, resolve
from accord.state.artifacts import Frozen
from accord.state.context import Context

CATEGORIES = ("Specification Issues", "Inter-Agent Misalignment", "Task Verification")
"""MAST's three failure categories (FC1, FC2, FC3)."""


class Finding(Frozen):
    """One failure: its MAST mode, where it showed, and why."""

    mode: str
    """MAST code, e.g. ``FM-1.3``."""
    name: str
    category: str
    step: int
    round: int
    role: str
    evidence: str
    judged: bool = False
    """True when an LLM judge, not a detector, found it."""
    retried: bool = False
    """True for a contract violation its contract caught and sent back for a retry: a failure the protocol
    caught, reported apart from the failures left after retries."""


Judge = Callable[[list[Step], list[str]], list[Finding]]
"""An LLM judge: (a run's trace, the MAST codes to look for) -> the failures it finds."""


@cache
def modes() -> dict[str, dict[str, Any]]:
    """Return MAST's failure modes by code (``FM-1.1`` … ``FM-3.3``)."""
    text = resources.files("accountability").joinpath("taxonomy", "mast_failure_modes.json").read_text()
    return {m["code"]: m for m in json.loads(text)}


def finding(code: str, step: Step, evidence: str, judged: bool = False, retried: bool = False) -> Finding:
    """Return a finding of mode ``code`` at ``step``."""
    mode = modes()[code]
    return Finding(
        mode=code,
        name=mode["name"],
        category=mode["category"],
        step=step.step,
        round=step.round,
        role=step.role,
        evidence=evidence[:300],
        judged=judged,
        retried=retried,
    )


_PHASE_MODES = {"precondition": "FM-1.1", "message": "FM-2.4", "postcondition": "FM-1.2", "output": "FM-1.2"}


def _contracts(step: Step) -> list[Finding]:
    # Violations the role repaired on a retry are still failures: the ledger's contract retries name them
    # as "<role> <phase> <key>: <detail>"; the ones never repaired are the step's violations.
    events = [
        (e["detail"], True)
        for e in step.ledger
        if e["kind"] == "retry" and e["detail"].startswith(f"{step.role} ")
    ]
    events += [(f"{v['role']} {v['phase']} {v['key']}: {v['detail']}", False) for v in step.violations]
    found = []
    for event, retried in events:
        phase = event.split(" ", 2)[1] if event.count(" ") >= 2 else "output"
        found.append(
            finding(_PHASE_MODES.get(phase, "FM-1.2"), step, f"contract violated: {event}", retried=retried)
        )
    failed = step.verdict is not None and step.verdict["outcome"] == "fail"
    if "plan" in step.wrote and failed and not step.violations:
        evidence = (step.verdict or {}).get("evidence", "")
        found.append(finding("FM-1.1", step, f"the plan misses a requirement: {evidence}"))
    return found


def _repetition(step: Step, earlier: list[Step]) -> list[Finding]:
    if step.verdict and step.verdict["outcome"] == "repeat":
        return [finding("FM-1.3", step, step.verdict["evidence"])]
    code = step.wrote.get("code")
    if code is None:
        return []
    before = [s for s in earlier if "code" in s.wrote]
    # The first code of a round that feedback started (a review's requested changes, a rejected plan).
    if before and before[-1].round < step.round and before[-1].wrote["code"] == code:
        return [finding("FM-2.5", step, "the code is unchanged after the feedback that started the round")]
    return []


def _verification(step: Step) -> list[Finding]:
    report = step.wrote.get("test_report")
    if report is None or not step.verdict or step.verdict["outcome"] != "pass":
        return []
    real = [c for c in report["cases"] if not c["name"].startswith("static check")]
    if not real:
        return [finding("FM-3.2", step, "the tests passed with no test case run")]
    return []


def _ending(trace: list[Step], values: Mapping[str, Any]) -> list[Finding]:
    if not trace or values.get("status") != "completed":
        return []
    last = trace[-1]
    code_steps = [s for s in trace if "code" in s.wrote]
    # Tested means a step ran tests (it wrote a test report), whatever its workflow names the stage.
    tested = [s for s in trace if "test_report" in s.wrote]
    if code_steps and (not tested or tested[-1].step < code_steps[-1].step):
        return [finding("FM-3.3", last, "the run completed without testing its final code")]
    judgments = values.get("judgments") or []
    if judgments and not judgments[-1]["correct"]:
        return [
            finding(
                "FM-3.3",
                last,
                f"completed, but the {judgments[-1]['oracle']} fail: {judgments[-1]['evidence']}",
            )
        ]
    return []


def detect(trace: list[Step], values: Mapping[str, Any]) -> list[Finding]:
    """Return the failures the deterministic detectors find in a run's trace and final state."""
    found: list[Finding] = []
    for i, step in enumerate(trace):
        found += _contracts(step) + _repetition(step, trace[:i]) + _verification(step)
    return found + _ending(trace, values)


def classify(trace: list[Step], values: Mapping[str, Any], judge: Judge | None = None) -> list[Finding]:
    """Return detector findings, plus an LLM judge's for the modes no detector found (marked judged)."""
    found = detect(trace, values)
    if judge is not None:
        missing = [code for code in modes() if code not in {f.mode for f in found}]
        found += [f.model_copy(update={"judged": True}) for f in judge(trace, missing)]
    return found


JUDGE_SYSTEM = """You annotate failures of a multi-agent software team with the MAST taxonomy.
Report only failures the trace shows, each with the step number it happened at and the evidence (quote
the trace). Use only the failure modes listed. Report nothing when no listed failure occurred."""


def llm_judge(model: Any) -> Judge:
    """Return a judge that asks ``model`` (a LangChain chat model) for the listed modes' failures."""
    from pydantic import Field, create_model

    def judge(trace: list[Step], codes: list[str]) -> list[Finding]:
        if not trace or not codes:
            return []
        code_type: Any = Literal[tuple(codes)]
        item = create_model(
            "JudgedFailure",
            mode=(code_type, ...),
            step=(int, ...),
            evidence=(str, Field(description="what in the trace shows it")),
        )
        answer = create_model("JudgedFailures", failures=(list[item], Field(max_length=5)))
        definitions = "\n\n".join(
            f"{c} {modes()[c]['name']}: {modes()[c]['definition_full'][:600]}" for c in codes
        )
        text = "\n\n".join(f"Step {s.step} ({s.role}):\n{s.content()[:1200]}" for s in trace)
        prompt = f"Failure modes:\n{definitions}\n\nTrace:\n{text}\n\nList the failures."
        parsed = model.with_structured_output(answer, method="function_calling").invoke(
            [("system", JUDGE_SYSTEM), ("human", prompt)]
        )
        by_step = {s.step: s for s in trace}
        found = []
        for f in getattr(parsed, "failures", None) or []:
            step = by_step.get(f.step, trace[-1])
            found.append(finding(f.mode, step, f.evidence, judged=True))
        return found

    return judge


def judge_on(model: str | None = None) -> Judge:
    """Return the LLM judge on ``model`` (a name the run's settings resolve: embedded, or an endpoint's),
    by default the run's default model.

    Raises:
        ModelSetupError: the model is named, not embedded, and no endpoint is set.
    """
    settings = Context(model=model).model_for("judge")
    name, base_url, key = resolve(settings)
    return llm_judge(client(name, base_url, key, 0.0, settings.max_tokens))


def summary(findings: list[Finding]) -> dict[str, Any]:
    """Return failure counts per category, per round and per mode."""
    return {
        "by_category": dict(Counter(f.category for f in findings)),
        "by_round": {str(k): v for k, v in sorted(Counter(f.round for f in findings).items())},
        "by_mode": dict(Counter(f"{f.mode} {f.name}" for f in findings)),
    }
