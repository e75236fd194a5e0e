"""Blame attribution from a branch of checkpoints, as the accountability paper defines it.

Each working stage that ran (one checkpoint) is judged correct or not: by the judgment the oracle stored
in that checkpoint, or, offline, by an oracle given now (a stronger one, such as hidden tests). Between
consecutive judged stages the later one is flagged: repair (wrong → right), harm (right → wrong) or
no-op. The error origin is the earliest stage whose mistake is never repaired in the final result: the
first wrong stage after the last right one; NONE when the final result is right.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from graphs.oracle import Oracle, judge
from state.artifacts import Frozen
from state.context import Context
from state.graph_state import Judgment
from state.history import Checkpoint
from state.lifecycle import Lifecycle
from state.stage import StageCall

Flag = Literal["repair", "harm", "no-op"]


class StageBlame(Frozen):
    """One stage's verdict in a run."""

    step: int
    stage: str
    role: str
    round: int
    subject: str
    correct: bool
    flag: Flag | None = None
    """Compared with the previous judged stage; None for the first."""
    oracle: str
    evidence: str = ""
    """The oracle's evidence, then any violated contract and the gate's decision."""


class Blame(Frozen):
    """Blame for one branch of one thread."""

    stages: tuple[StageBlame, ...]
    final_correct: bool | None
    """None when no stage could be judged."""
    origin: StageBlame | None
    """The error origin; None means NONE (the final result is right, or nothing was judged)."""

    def rates(self) -> dict[str, dict[str, int]]:
        """Return per role: repairs and chances to repair (wrong input), harms and chances (right input)."""
        return role_counts([self])


def role_counts(blames: Iterable[Blame]) -> dict[str, dict[str, int]]:
    """Return per role the repair and harm counts and their opportunities, over many runs."""
    counts: dict[str, dict[str, int]] = {}
    for blame in blames:
        for before, after in zip(blame.stages, blame.stages[1:], strict=False):
            c = counts.setdefault(after.role, {"repairs": 0, "wrong_inputs": 0, "harms": 0,
                                               "right_inputs": 0})
            if before.correct:
                c["right_inputs"] += 1
                c["harms"] += after.flag == "harm"
            else:
                c["wrong_inputs"] += 1
                c["repairs"] += after.flag == "repair"
    return counts


def _judgments(checkpoints: list[Checkpoint], lifecycle: Lifecycle,
               oracle: Oracle | None) -> list[Judgment]:
    """Return one judgment per judged working stage: stored ones, or the given oracle's."""
    found: list[Judgment] = []
    for before, checkpoint in itertools.pairwise(checkpoints):
        stage = lifecycle.by_name.get(checkpoint.node or "")
        if stage is None or stage.terminal or not stage.roles:
            continue
        stored = [j for j in checkpoint.values.get("judgments", []) if j["step"] == checkpoint.step]
        if oracle is None:
            found += [Judgment.model_validate(j) for j in stored[-1:]]
            continue
        if stored and stored[-1]["oracle"] == oracle.name:
            found.append(Judgment.model_validate(stored[-1]))
            continue
        # The round the stage ran in: its gate may have started the next one.
        rounds = before.values.get("counters", {}).get("round", 1)
        call = StageCall(stage=stage.name, role=stage.roles[0], round=int(rounds), context=Context(),
                         models={}, step=checkpoint.step)
        # Offline: earlier judgments by this oracle are carried along so a candidate is judged once.
        values = {**checkpoint.values, "judgments": [j.model_dump() for j in found]}
        if (judgment := judge(oracle, values, call)) is not None:
            found.append(judgment)
    return found


def _evidence(judgment: Judgment, values: Mapping[str, Any]) -> str:
    parts = [judgment.evidence]
    parts += [f"contract {e['outcome']}: {e['detail']}" for e in values.get("ledger", [])
              if e.get("step") == judgment.step and e["kind"] == "contract" and e["outcome"] != "pass"]
    gates = [e for e in values.get("ledger", []) if e.get("step") == judgment.step and e["kind"] == "gate"]
    parts += [f"gate {e['outcome']} {e['detail']}" for e in gates]
    return "; ".join(p for p in parts if p)


def blame(checkpoints: list[Checkpoint], lifecycle: Lifecycle, oracle: Oracle | None = None) -> Blame:
    """Return the blame of a branch (oldest checkpoint first).

    Args:
        checkpoints: the branch, from ``state.history``.
        lifecycle: the graph's lifecycle, to tell working stages from terminal ones.
        oracle: judge every stage with this oracle (offline) instead of the stored judgments.
    """
    judgments = _judgments(checkpoints, lifecycle, oracle)
    last_values = checkpoints[-1].values if checkpoints else {}
    stages: list[StageBlame] = []
    for judgment in judgments:
        flag: Flag | None = None
        if stages:
            before = stages[-1].correct
            flag = ("repair" if judgment.correct else "no-op") if not before else (
                "no-op" if judgment.correct else "harm")
        evidence = _evidence(judgment, last_values)
        if flag == "harm" and judgment.stage == "implementing" and judgment.round > 1:
            evidence = f"acting on the review that requested changes; {evidence}"
        stages.append(StageBlame(step=judgment.step, stage=judgment.stage, role=judgment.role,
                                 round=judgment.round, subject=judgment.subject, correct=judgment.correct,
                                 flag=flag, oracle=judgment.oracle, evidence=evidence))
    if not stages or stages[-1].correct:
        return Blame(stages=tuple(stages), final_correct=stages[-1].correct if stages else None, origin=None)
    last_right = max((i for i, s in enumerate(stages) if s.correct), default=-1)
    return Blame(stages=tuple(stages), final_correct=False, origin=stages[last_right + 1])
