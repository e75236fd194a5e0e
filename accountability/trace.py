"""A branch of checkpoints as a trace: one step per working stage, with what it wrote and what it cost.

Exports (Who&When, MAST/MAD, OpenTelemetry) and the failure detectors read this view rather than raw
checkpoints, so they all agree on what a "step" is: one stage's node run, numbered by its checkpoint step.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accord.state.artifacts import ARTIFACT_MODELS, artifact_text
from accord.state.graph_state import handoffs
from accord.state.history import Checkpoint
from accord.state.lifecycle import Lifecycle


@dataclass(frozen=True)
class Step:
    """One working stage's run."""

    step: int
    stage: str
    role: str
    round: int
    wrote: dict[str, Any]
    """The artifacts this step changed, by kind (JSON)."""
    verdict: dict[str, Any] | None
    """The gate's decision (``Verdict`` JSON) taken after this step."""
    ledger: list[dict[str, Any]] = field(default_factory=list)
    violations: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)

    def content(self) -> str:
        """Return a compact text of what the step did, as a chat-log utterance."""
        parts = [f"[{self.stage}, round {self.round}]"]
        for kind, artifact in self.wrote.items():
            parts.append(f"{kind}: {artifact_text(kind, artifact)}")
        parts += [f"violation ({v['phase']} {v['key']}): {v['detail'][:200]}" for v in self.violations]
        if self.verdict:
            parts.append(
                f"gate: {self.verdict['outcome']} -> {self.verdict.get('target')} "
                f"({self.verdict.get('evidence', '')[:200]})"
            )
        return "\n".join(parts)


def _new(values: Mapping[str, Any], before: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    return list(values.get(key, []))[len(before.get(key, [])) :]


def steps(checkpoints: list[Checkpoint], lifecycle: Lifecycle) -> list[Step]:
    """Return the working-stage steps of a branch, oldest first."""
    out: list[Step] = []
    for before, after in itertools.pairwise(checkpoints):
        stage = lifecycle.by_name.get(after.node or "")
        if stage is None or stage.terminal or not stage.roles:
            continue
        wrote = {
            k: after.values[k]
            for k in ARTIFACT_MODELS
            if k in after.values and after.values.get(k) != before.values.get(k)
        }
        verdicts = [v for v in _new(after.values, before.values, "verdicts") if v.get("target")]
        out.append(
            Step(
                step=after.step,
                stage=stage.name,
                role=stage.roles[0],
                round=int(before.values.get("counters", {}).get("round", 1)),
                wrote=wrote,
                verdict=verdicts[-1] if verdicts else None,
                ledger=_new(after.values, before.values, "ledger"),
                violations=_new(after.values, before.values, "violations"),
                messages=handoffs(after.values)[len(handoffs(before.values)) :],
            )
        )
    return out
