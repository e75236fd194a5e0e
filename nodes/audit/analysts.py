"""The analysts' work: each judges the code (analyse) and, after a split vote, judges again having read
the others' findings (deliberate). Every judgement is a typed ``Finding`` under the role's name and a vote.

The Auditor reads the code; the Critic argues the unsafe case and the safe case before it judges; the
Tester runs the static analysers for the language (LOCAL_CODE actions) and, on self-contained Python, a
proof script in the sandbox (``proof``), and judges with their reports, which its finding carries. Every
action runs through the role's executor, so each is in the ledger.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from difflib import SequenceMatcher
from functools import partial
from typing import Any

from pydantic import BaseModel, Field

from accord.nodes.audit import proof
from accord.nodes.audit.analysers import ANALYSERS
from accord.nodes.audit.artifacts import AuditTask, Finding, Findings, ToolReport
from accord.nodes.llm import structured, text, tool_loop
from accord.runtime.executor import Executor, Toolbox, role_spec
from accord.state.artifacts import Vote
from accord.state.graph_state import dump, read
from accord.state.stage import OutputError, StageCall, Work, stage_handles

KINDS = """memory safety (buffer overflow, out-of-bounds read or write, use after free, double free, NULL
dereference, integer overflow), injection (SQL, shell command, path traversal, cross-site scripting),
unchecked input, unsafe deserialisation, resource exhaustion"""

AUDITOR = f"""Judge whether the code has a security vulnerability: {KINDS}. Cite the line numbers as
shown. Say vulnerable only for a concrete flaw you can point to, with the input that triggers it."""

CRITIC = f"""Before you judge, argue both sides. First the strongest case that the code is vulnerable
({KINDS}): which input, which path, which line. Then the strongest case that it is safe: which checks,
types or callers prevent it. Then judge which case is stronger, citing the line numbers as shown."""

TESTER = f"""Judge whether the code has a security vulnerability ({KINDS}) with the static analysers'
reports. A report is evidence, not a verdict: analysers flag risky calls that are often used safely.
Confirm a reported issue in the code before you call it a vulnerability, and cite the report."""

TASK_PROMPT = """{language} code{function}, with its line numbers:
```
{code}
```
{extra}
{ask}"""

DELIBERATION = """
The other analysts judged the same code:
{others}

Your own finding was: {own}

Reconsider with their evidence, then give your final finding. Change your judgement only for a concrete
reason in the code."""

SAME_EVIDENCE = 0.8
"""How alike (difflib's ratio) two findings' evidence is when it gives no new reason."""

QUESTION = "Is this code vulnerable?"
"""What a typed analyst is asked: its schema puts the evidence before the verdict."""

REASON_FIRST = (
    "First say what the code does with its inputs, and the flaw or the checks that decide it. "
    "Then end with one line: VERDICT: VULNERABLE or VERDICT: SAFE."
)
"""What a free-text analyst is asked in place of the question, as the last words of its prompt, so that it
reasons before its verdict as the typed one does: a small model answers the last question it reads
("Vulnerable", one word, for almost every sample) whatever its system prompt asked first."""
LANGUAGE = {"c": "C", "cpp": "C++", "python": "Python"}


class FindingDraft(BaseModel):
    """A judgement of the code: the reasoning first, then the verdict it leads to."""

    # Field order is generation order: a small model that states its verdict first argues for it after,
    # whatever the code says; reasoning first lets the verdict follow from it.
    evidence: str = Field(
        description="what the code does with its inputs, and the flaw or the checks that prevent one"
    )
    lines: list[int] = Field(default_factory=list, description="the line numbers of the flaw, if any")
    cwe: str | None = Field(default=None, description="the flaw's CWE id, e.g. CWE-787; null when safe")
    vulnerable: bool = Field(description="true only when the evidence shows a concrete flaw")
    confidence: float = Field(default=0.5, description="how sure you are, from 0 to 1")


class CritiqueDraft(BaseModel):
    """Both cases, then a judgement."""

    unsafe_case: str = Field(description="the strongest case that the code is vulnerable")
    safe_case: str = Field(description="the strongest case that the code is safe")
    evidence: str = Field(description="which case is stronger, and why")
    lines: list[int] = Field(default_factory=list, description="the line numbers of the flaw, if any")
    cwe: str | None = Field(default=None, description="the flaw's CWE id, e.g. CWE-787; null when safe")
    vulnerable: bool = Field(description="true only when the unsafe case is the stronger")
    confidence: float = Field(default=0.5, description="how sure you are, from 0 to 1")


class ToolFindingDraft(FindingDraft):
    """A judgement of the code that cites the analysers' reports."""


def _cwe(text: str | None) -> str | None:
    """Return a CWE id in its canonical form (``CWE-79``), or None when ``text`` holds none."""
    match = re.search(r"(?:CWE[-_ ]?)?0*(\d{1,4})", text or "", re.I)
    return f"CWE-{match[1]}" if match and match[1] != "0" else None


def finding(
    draft: FindingDraft | CritiqueDraft, task: AuditTask, tools: tuple[ToolReport, ...] = ()
) -> Finding:
    """Return the typed finding a draft states: its CWE canonical, its lines those of the code, its
    confidence within 0..1 (a small model's slips are corrected, not fatal).

    Raises:
        OutputError: the draft gives no evidence.
    """
    evidence = draft.evidence.strip()
    if not evidence:
        raise OutputError("the finding gives no evidence: say why the code is or is not vulnerable")
    if isinstance(draft, CritiqueDraft):
        evidence = f"unsafe: {draft.unsafe_case.strip()} | safe: {draft.safe_case.strip()} | {evidence}"
    last = task.first_line + task.code.count("\n")
    return Finding(
        vulnerable=draft.vulnerable,
        cwe=_cwe(draft.cwe) if draft.vulnerable else None,
        lines=tuple(sorted({n for n in draft.lines if task.first_line <= n <= last})),
        evidence=evidence[:2000],
        confidence=min(1.0, max(0.0, draft.confidence)),
        tools=tools,
    )


def verdict_word(vulnerable: bool) -> str:
    """Return the vote a finding casts."""
    return "vulnerable" if vulnerable else "safe"


def finding_view(found: Mapping[str, Any]) -> str:
    """Return a finding's JSON form as one paragraph for a prompt."""
    cwe = f" ({found['cwe']})" if found.get("cwe") else ""
    lines = f", lines {', '.join(map(str, found['lines']))}" if found.get("lines") else ""
    return (
        f"{verdict_word(found['vulnerable'])}{cwe}{lines}, confidence {found['confidence']:.1f}: "
        f"{found['evidence']}"
    )


def _prompt(
    state: Mapping[str, Any], call: StageCall, task: AuditTask, extra: str = "", ask: str = QUESTION
) -> str:
    """Return an analyst's prompt, ending on ``ask`` (the words a small model answers)."""
    function = f" (function {task.function})" if task.function else ""
    first = not state.get("findings")  # a first judgement: the contract withholds the others' findings
    text = TASK_PROMPT.format(
        language=LANGUAGE[task.language],
        function=function,
        code=task.numbered(),
        extra=extra,
        ask=ask if first else QUESTION,
    )
    if first:
        return text
    mine = state["findings"]["by_role"]
    others = (
        "\n".join(
            f"- {role.capitalize()}: {finding_view(f)}" for role, f in mine.items() if role != call.role
        )
        or "- (none reached a finding)"
    )
    own = finding_view(mine[call.role]) if call.role in mine else "(none: your first attempt failed)"
    return text + DELIBERATION.format(others=others, own=own) + ("" if ask == QUESTION else "\n" + ask)


def _update(call: StageCall, found: Finding) -> dict[str, Any]:
    vote = Vote(outcome=verdict_word(found.vulnerable), rationale=found.evidence[:300])
    return {"findings": dump(Findings(by_role={call.role: found})), "vote": dump(vote)}


def said_vulnerable(reply: str) -> bool | None:
    """Return the verdict a free-text reply ends on: its last ``VERDICT:`` line, else the last of
    vulnerable (True), safe or not vulnerable (False) it says; None when it says none (the string match
    of the papers' baselines, read from the whole reply)."""
    said = re.findall(r"\b(not vulnerable|vulnerable|safe)\b", reply, re.I)
    verdicts = re.findall(r"verdict\W*(not vulnerable|vulnerable|safe)\b", reply, re.I)
    last = (verdicts or said or [None])[-1]
    return None if last is None else last.lower() == "vulnerable"


def _from_free_text(reply: str) -> FindingDraft:
    vulnerable = said_vulnerable(reply)
    if vulnerable is None:
        raise OutputError("the reply says neither VULNERABLE nor SAFE")
    return FindingDraft(vulnerable=vulnerable, evidence=reply.strip())


def judged(
    state: Mapping[str, Any],
    call: StageCall,
    schema: type[BaseModel],
    system: str,
    analysers: bool = False,
    tools: bool = True,
    free_text: bool = False,
    tool_calling: bool = False,
) -> dict[str, Any]:
    """Run one analyst's judgement and return its finding and vote.

    Args:
        schema: the typed judgement asked for (its name is the role's LLM action).
        system: the duty's instructions.
        analysers: the analyst reads the static analysers' reports (the Tester).
        tools: the analysers run (False: the analyst is told none could).
        free_text: ask for a plain reply and read its verdict by string match (the baselines).
        tool_calling: the analyst's model calls the language's analysers itself, choosing which
            (``ToolFindingLoop``, an LLM_TOOLS action), instead of reading every analyser's report.
    """
    task = read(state, "audit_task", AuditTask)
    assert task is not None

    def judge(task: AuditTask, reports: list[ToolReport] | None = None) -> Any:
        extra = tools_view(reports or []) if analysers else ""
        if free_text:
            prompt = _prompt(state, call, task, extra, ask=REASON_FIRST)
            return _from_free_text(text(call, system, prompt, what=schema.__name__))
        return structured(call, schema, system, _prompt(state, call, task, extra))

    observed: list[tuple[str, Any]] = []

    def loop(task: AuditTask, tools: Toolbox) -> ToolFindingDraft:
        ran = tuple(f.__name__ for f in ANALYSERS[task.language])
        draft, calls = tool_loop(
            call,
            ToolFindingDraft,
            system,
            _prompt(state, call, task),
            tools,
            bound={"task": task},
            view=lambda r: tools_view([r]).strip(),
            only=ran,
        )
        observed.extend(calls)
        return draft

    handlers: dict[str, Callable[..., Any]] = {
        tool.__name__: tool for tools_ in ANALYSERS.values() for tool in tools_
    }
    if analysers:
        handlers |= {
            "ProofScript": partial(proof.write_proof, call),
            "prove": partial(proof.run_proof, timeout_s=call.context.sandbox_timeout_s),
            "ToolFindingLoop": loop,
        }
    actions = Executor(
        role_spec(call),
        record=call.record,
        passthrough=stage_handles,
        handlers={schema.__name__: judge, **handlers},
    )
    earlier = (state.get("findings") or {}).get("by_role", {}).get(call.role)
    if not analysers:
        return _update(call, argued(finding(actions.run(schema.__name__, task=task), task), earlier, call))
    if earlier and earlier.get("tools"):  # a deliberation: the code has not changed, nor have its reports
        reports = tuple(ToolReport.model_validate(r) for r in earlier["tools"])
    elif tools and tool_calling:
        proofs: tuple[ToolReport, ...] = ()
        if proof.self_contained(task):
            proofs = (actions.run("prove", task=task, script=actions.run("ProofScript", task=task)),)
        draft = actions.run("ToolFindingLoop", task=task)
        # The reports it chose to read, each once, then the proof: what its finding cites.
        chosen = {r.tool: r for _, r in observed if isinstance(r, ToolReport)}
        return _update(call, argued(finding(draft, task, (*chosen.values(), *proofs)), earlier, call))
    elif tools:
        reports = tuple(actions.run(tool.__name__, task=task) for tool in ANALYSERS[task.language])
        if proof.self_contained(task):
            script = actions.run("ProofScript", task=task)
            reports += (actions.run("prove", task=task, script=script),)
    else:
        reports = ()
    draft = actions.run(schema.__name__, task=task, reports=list(reports))
    return _update(call, argued(finding(draft, task, reports), earlier, call))


def argued(found: Finding, standing: Mapping[str, Any] | None, call: StageCall) -> Finding:
    """Return a deliberation's finding, or the analyst's standing one when the new finding reverses its
    verdict on the same evidence: a change of mind states a new reason. (A small model that reads the
    others' findings copies its own evidence and flips the verdict under it.) The kept finding is in the
    ledger."""
    if standing is None or found.vulnerable == standing["vulnerable"]:
        return found
    if SequenceMatcher(None, found.evidence, standing["evidence"]).ratio() < SAME_EVIDENCE:
        return found
    call.record(
        "action",
        outcome="kept",
        detail=f"said {verdict_word(found.vulnerable)} on its earlier "
        f"evidence: its {verdict_word(standing['vulnerable'])} finding stands",
    )
    return Finding.model_validate(standing)


def tools_view(reports: tuple[ToolReport, ...] | list[ToolReport]) -> str:
    """Return the analysers' reports for a prompt (or that none could run), then a proof run's."""
    ran = [r for r in reports if r.available and r.tool != "proof"]
    proofs = [
        f"\nA proof script ran the code in a sandbox: {'; '.join(r.issues)}\n"
        for r in reports
        if r.available and r.tool == "proof"
    ]
    if not ran:
        return "\nNo static analyser could run here: judge from the code alone.\n" + "".join(proofs)
    parts = [f"{r.tool}: " + ("no issues" if not r.issues else "\n  " + "\n  ".join(r.issues)) for r in ran]
    return "\nStatic analysers' reports:\n" + "\n".join(parts) + "\n" + "".join(proofs)


def work(free_text: bool = False, tools: bool = True, tool_calling: bool = False) -> dict[str, Work]:
    """Return each analyst's work by role: the Auditor reads, the Critic argues both cases, the Tester
    judges with the analysers (``tools=False``: without them; ``tool_calling``: calling them itself);
    ``free_text`` for the baselines."""
    return {
        "auditor": partial(judged, schema=FindingDraft, system=AUDITOR, free_text=free_text),
        "critic": partial(judged, schema=CritiqueDraft, system=CRITIC, free_text=free_text),
        "tester": partial(
            judged,
            schema=ToolFindingDraft,
            system=TESTER,
            analysers=True,
            tools=tools,
            free_text=free_text,
            tool_calling=tool_calling,
        ),
    }
