"""The audit workflow's configurations: SEMAP's baselines and Accord's accountable audit, as data.

- ``single``: one model call from the code alone ("is this function vulnerable?"), a typed answer;
- ``simple``: the three analysts once each, in parallel, free-text replies that reason before a VERDICT
  line, read by string match, majority vote, no contracts, no deliberation (the decentralized baseline);
- ``accountable``: the audit graph as it ships;
- ``no-tools``: the audit graph with a Tester that has no static analysers;
- ``tool-calling``: the audit graph with a Tester whose model calls the analysers itself (LLM_TOOLS).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from accord.evals.configs import Configuration
from accord.graphs import audit
from accord.graphs.compiler import Gate
from accord.graphs.duties import Duty, Role, roles_from_specs
from accord.nodes.audit import analysts
from accord.nodes.audit.roles import ANALYSTS, SPECS
from accord.state.contracts import Contract
from accord.state.graph_state import ballot
from accord.state.lifecycle import Lifecycle, Stage, Transition, with_budget

_END = (
    Stage(name="completed", terminal=True, status="completed"),
    Stage(name="failed", terminal=True, status="failed"),
)
_INTAKE = Stage(name="initialized", roles=("intake",), duty="intake", outcomes=("pass", "fail"))

SINGLE = with_budget(
    Lifecycle(
        name="audit",
        initial="initialized",
        stages=(
            _INTAKE,
            Stage(name="judging", roles=("auditor",), duty="analyse", outcomes=("pass", "fail")),
            *_END,
        ),
        transitions=(
            Transition(source="initialized", outcome="pass", target="judging"),
            Transition(source="initialized", outcome="fail", target="failed"),
            Transition(source="judging", outcome="pass", target="completed"),
            Transition(source="judging", outcome="fail", target="failed"),
        ),
    ),
    target="failed",
)
"""One analyst, one call."""

ONCE = with_budget(
    Lifecycle(
        name="audit",
        initial="initialized",
        stages=(
            _INTAKE,
            Stage(
                name="analysing",
                roles=ANALYSTS,
                duty="analyse",
                choices=audit.CHOICES,
                outcomes=("decided", "fail"),
            ),
            *_END,
        ),
        transitions=(
            Transition(source="initialized", outcome="pass", target="analysing"),
            Transition(source="initialized", outcome="fail", target="failed"),
            Transition(source="analysing", outcome="decided", target="completed"),
            Transition(source="analysing", outcome="fail", target="failed"),
        ),
    ),
    target="failed",
)
"""The three analysts once each, then the majority."""


def gate_once(state: Mapping[str, Any]) -> tuple[str, str]:
    """The baseline's vote: whatever the analysts said decides (a tie counts as vulnerable)."""
    votes = ballot(state)
    evidence = ", ".join(f"{v['role']}={v['outcome']}" for v in votes)
    if not any(v["outcome"] in audit.CHOICES for v in votes):
        return "fail", f"no analyst reached a finding: {evidence}"
    return "decided", evidence


def gate_judged(state: Mapping[str, Any]) -> tuple[str, str]:
    """The single analyst's answer is the verdict."""
    return "pass", "vulnerable" if audit.verdict(state) else "safe"


def _alone(state: Mapping[str, Any], call: Any) -> dict[str, Any]:
    """The Auditor's judgement without a vote: no one to vote with."""
    update = analysts.work()["auditor"](state, call)
    return {"findings": update["findings"]}


_WORK = {("intake", "intake"): audit.intake}
SINGLE_ROLES = {
    "intake": audit.ROLES["intake"],
    "auditor": Role(
        "auditor",
        {
            "analyse": Duty(
                Contract(role="auditor", duty="analyse", inputs=("audit_task",), outputs=("findings",)),
                _alone,
            )
        },
        SPECS["auditor"],
    ),
}


def _roles(free_text: bool = False, tools: bool = True, tool_calling: bool = False) -> dict[str, Role]:
    work = analysts.work(free_text=free_text, tools=tools, tool_calling=tool_calling)
    return roles_from_specs(SPECS, {**_WORK, **{(r, d): w for r, w in work.items() for d in audit.DUTIES}})


GATES: dict[str, Gate] = dict(audit.GATES)

CONFIGURATIONS: dict[str, Configuration] = {
    c.name: dataclasses.replace(c, live_oracle=audit.votes_word)
    for c in (
        Configuration(
            "single",
            "one model call from the code alone",
            SINGLE,
            SINGLE_ROLES,
            {"initialized": audit.gate_task, "judging": gate_judged},
            contracts=False,
            typed_messages=False,
            inputs=audit.INPUTS,
        ),
        Configuration(
            "simple",
            "the three analysts once each, free-text replies by string match, majority vote, no contracts",
            ONCE,
            _roles(free_text=True),
            {"initialized": audit.gate_task, "analysing": gate_once},
            contracts=False,
            typed_messages=False,
            inputs=audit.INPUTS,
        ),
        Configuration(
            "accountable",
            "Accord's audit: contracts, typed findings, vote, bounded deliberation",
            audit.LIFECYCLE,
            audit.ROLES,
            GATES,
            inputs=audit.INPUTS,
        ),
        Configuration(
            "no-tools",
            "Accord's audit with a Tester that has no static analysers",
            audit.LIFECYCLE,
            _roles(tools=False),
            GATES,
            inputs=audit.INPUTS,
        ),
        Configuration(
            "tool-calling",
            "Accord's audit with a Tester whose model calls the language's "
            "analysers itself, choosing which (an LLM_TOOLS action, at most 3 calls), before it "
            "judges",
            audit.LIFECYCLE,
            _roles(tool_calling=True),
            GATES,
            inputs=audit.INPUTS,
        ),
    )
}
"""Every audit configuration by name, in the order reports list them."""
