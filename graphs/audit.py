"""The audit graph: SEMAP's decentralized workflow for vulnerability detection.

initialized → analysing (Auditor, Critic and Tester in parallel, each judging alone) → the vote: all
three agree → completed; a split → deliberating (each reads the others' findings and votes again), as
many rounds as the ``round`` counter allows → completed with the majority's verdict, or failed when too
few analysts reach a finding. ``LIFECYCLE`` is the single source of truth for the edges, compiled by the
same compiler as the development graph.

Voting policy: an analyst whose finding broke its contract (after its retries) abstains; a verdict needs
at least two findings; a tie (one each way, one abstaining) counts as vulnerable, since a missed flaw
costs more than a second look.
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from accord.graphs.catalog import Workflow
from accord.graphs.compiler import Compiler, Gate
from accord.graphs.duties import roles_from_specs
from accord.graphs.oracle import Oracle
from accord.nodes.audit import analysts
from accord.nodes.audit.artifacts import AuditTask
from accord.nodes.audit.intake import parse_audit_request
from accord.nodes.audit.roles import ANALYSTS, SPECS
from accord.nodes.requests import request_of
from accord.state.graph_state import ballot, dump, read
from accord.state.lifecycle import Counter, Lifecycle, Stage, Transition, with_budget
from accord.state.stage import StageCall

CHOICES = ("vulnerable", "safe")
DUTIES = ("analyse", "deliberate")
VOTED = ("consensus", "split", "decided", "fail")


def _voting(name: str, duty: str) -> Stage:
    return Stage(name=name, roles=ANALYSTS, duty=duty, choices=CHOICES, outcomes=VOTED)


LIFECYCLE = with_budget(
    Lifecycle(
        name="audit",
        initial="initialized",
        stages=(
            Stage(name="initialized", roles=("intake",), duty="intake", outcomes=("pass", "fail")),
            _voting("analysing", "analyse"),
            _voting("deliberating", "deliberate"),
            Stage(name="completed", terminal=True, status="completed"),
            Stage(name="failed", terminal=True, status="failed"),
        ),
        transitions=(
            Transition(source="initialized", outcome="pass", target="analysing"),
            Transition(source="initialized", outcome="fail", target="failed"),
            *(
                t
                for source in ("analysing", "deliberating")
                for t in (
                    Transition(source=source, outcome="consensus", target="completed"),
                    Transition(source=source, outcome="split", target="deliberating", counter="round"),
                    Transition(source=source, outcome="decided", target="completed"),
                    Transition(source=source, outcome="fail", target="failed"),
                )
            ),
        ),
        counters=(
            Counter(
                name="round",
                start=1,
                limit=2,
                exhausted="decided",
                reason="deliberation rounds spent: the majority stands",
            ),
        ),
    ),
    target="failed",
)


def majority(findings: Mapping[str, Mapping[str, Any]]) -> bool | None:
    """Return the verdict the findings add up to (True: vulnerable; a tie counts as vulnerable), or None
    when there are none."""
    if not findings:
        return None
    tally = Tally(bool(f["vulnerable"]) for f in findings.values())
    return tally[True] >= tally[False]


def verdict(state: Mapping[str, Any]) -> bool | None:
    """Return the audit's verdict from the findings in ``state`` (None: no verdict)."""
    return majority((state.get("findings") or {}).get("by_role", {}))


def gate_task(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass a well-formed audit task."""
    task = read(state, "audit_task", AuditTask)
    assert task is not None
    where = f", function {task.function}" if task.function else ""
    return "pass", f"{task.language}, {task.code.count(chr(10)) + 1} lines from line {task.first_line}{where}"


def gate_votes(state: Mapping[str, Any]) -> tuple[str, str]:
    """Join the analysts' votes: all three agree → consensus; otherwise → split (the majority's verdict
    stands once no deliberation round is left); fewer than two findings → fail."""
    votes = ballot(state)
    evidence = ", ".join(f"{v['role']}={v['outcome']}" for v in votes)
    cast = [v for v in votes if v["outcome"] in CHOICES]
    if len(cast) < 2:
        return "fail", f"{len(cast)} of {len(votes)} analysts reached a finding: {evidence}"
    decided = verdict(state)
    word = "vulnerable" if decided else "safe"
    if len(cast) == len(ANALYSTS) and len({v["outcome"] for v in cast}) == 1:
        return "consensus", f"{word}: {evidence}"
    return "split", f"{word} by majority: {evidence}"


def intake(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Turn the request into an audit task (LOCAL_CODE)."""
    task = parse_audit_request(request_of(state), state.get("source", ""), state.get("function"))
    return {"audit_task": dump(task)}


WORK = {
    ("intake", "intake"): intake,
    **{(role, duty): work for role, work in analysts.work().items() for duty in DUTIES},
}
ROLES = roles_from_specs(SPECS, WORK)
INPUTS = {"source": str, "function": str}
"""What a caller may give beside the request: where the code came from (the audited file's name, whose
suffix tells the language) and the function to pick out of it (absent: all of it)."""
GATES: dict[str, Gate] = {"initialized": gate_task, "analysing": gate_votes, "deliberating": gate_votes}


def audit_candidate(state: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """An audit's candidate result: the verdict its findings add up to so far (a lone finding is its own
    verdict), or None before any finding."""
    findings = (state.get("findings") or {}).get("by_role", {})
    if not findings:
        return None
    return "verdict", {"vulnerable": majority(findings), "by_role": sorted(findings)}


def label_oracle(vulnerable: bool | None, name: str = "label") -> Oracle:
    """Return the eval oracle for a labelled sample: a candidate verdict is right when it matches (None:
    no verdict is right)."""

    def judge(state: Mapping[str, Any], call: Any) -> tuple[bool, str]:
        found = audit_candidate(state)
        assert found is not None
        said = found[1]["vulnerable"]
        return said == vulnerable, f"says {'vulnerable' if said else 'safe'}"

    return Oracle(name=name, judges={"verdict": judge}, candidate=audit_candidate)


def votes_word(values: Mapping[str, Any]) -> Oracle:
    """Return the oracle an audit's run has without the sample's label: the verdict its vote ended on. A
    run that ended without one (too few findings) has no word, and every finding is judged wrong by it.

    Blame by it is what a user can compute once the run has ended; evals set it beside blame by the label
    to measure how often the two agree.
    """
    ended = verdict(values) if values.get("status") == "completed" else None
    return label_oracle(ended, name="the vote's word")


def build_graph(
    models: Mapping[str, BaseChatModel] | None = None,
    checkpointer: Checkpointer = None,
    oracle: Oracle | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the audit graph.

    Args:
        models: scripted models by role (tests), else the Context's endpoints are used.
        checkpointer: where checkpoints go (None for ``langgraph dev``, which brings its own).
        oracle: judges every finding and vote for blame (evals pass the sample's label).
    """
    return (
        Compiler(LIFECYCLE, ROLES, GATES, models, oracle, inputs=INPUTS)
        .build()
        .compile(checkpointer=checkpointer, name="audit")
    )


graph = build_graph()
"""The graph ``langgraph dev`` serves (no checkpointer: the server brings its own)."""

WORKFLOW = Workflow(
    "audit",
    LIFECYCLE,
    SPECS,
    lambda **options: build_graph(**options),  # looked up when called: a test may replace build_graph
    roles=ROLES,
    judged_after=votes_word,
)
"""The audit workflow as Accord registers it (``accord.workflows`` entry point ``audit``)."""
