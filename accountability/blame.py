"""Blame attribution from a branch of checkpoints, as the accountability paper defines it.

Each working stage that ran (one checkpoint; the roles of a fan-out stage and its vote each have their
own) is judged correct or not: by the judgment the oracle stored in that checkpoint, or, offline, by an
oracle given now (a stronger one, such as hidden tests). A judged stage is flagged against the result it
received, the one judged in the step before it: repair (wrong → right), harm (right → wrong) or no-op.
Stages that ran in parallel each received the same result; a vote, which receives several, is judged but
not flagged. In an audit that makes a deliberating analyst's flag say whether its changed vote fixed a
wrong majority or flipped a right one. The error origin is the earliest stage whose mistake is never
repaired in the final result: the first wrong stage after the last right one; NONE when the final result
is right.
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
    """Compared with the result it received; None when it received none, or several (a vote)."""
    received_correct: bool | None = None
    """Whether the result it received was right (None: as for ``flag``)."""
    oracle: str
    evidence: str = ""
    """The oracle's evidence, then any violated contract and the gate's decision."""
    agent: str = ""
    """Who played the role in this stage, where it was not this process (a remote A2A agent)."""


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
        for stage in blame.stages:
            if stage.received_correct is None:
                continue
            c = counts.setdefault(stage.role, {"repairs": 0, "wrong_inputs": 0, "harms": 0,
                                               "right_inputs": 0})
            if stage.received_correct:
                c["right_inputs"] += 1
                c["harms"] += stage.flag == "harm"
            else:
                c["wrong_inputs"] += 1
                c["repairs"] += stage.flag == "repair"
    return counts


def _judgments(checkpoints: list[Checkpoint], lifecycle: Lifecycle,
               oracle: Oracle | None) -> list[Judgment]:
    """Return one judgment per judged working stage: stored ones, or the given oracle's."""
    found: list[Judgment] = []
    for before, checkpoint in itertools.pairwise(checkpoints):
        stored = [j for j in checkpoint.values.get("judgments", []) if j["step"] == checkpoint.step]
        if oracle is None or (stored and all(j["oracle"] == oracle.name for j in stored)):
            found += [Judgment.model_validate(j) for j in stored]
            continue
        stage = lifecycle.by_name.get(checkpoint.node or "")
        if stage is None or stage.terminal or not stage.roles:
            continue  # offline, a step is judged as one stage: a parallel step keeps what it stored
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
    # Its own entries only: roles that ran in the same (parallel) step have theirs.
    own = [e for e in values.get("ledger", [])
           if e.get("step") == judgment.step and e["role"] == judgment.role]
    parts = [judgment.evidence]
    parts += [f"contract {e['outcome']}: {e['detail']}" for e in own
              if e["kind"] == "contract" and e["outcome"] != "pass"]
    gates = [e for e in own if e["kind"] == "gate"]
    parts += [f"gate {e['outcome']} {e['detail']}" for e in gates]
    return "; ".join(p for p in parts if p)


def _agent(judgment: Judgment, values: Mapping[str, Any]) -> str:
    """Return the agent that played the judged stage's role, where its ledger entries name one."""
    return next((e["agent"] for e in values.get("ledger", []) if e.get("step") == judgment.step
                 and e["role"] == judgment.role and e.get("agent")), "")


def blame(checkpoints: list[Checkpoint], lifecycle: Lifecycle, oracle: Oracle | None = None) -> Blame:
    """Return the blame of a branch (oldest checkpoint first).

    Args:
        checkpoints: the branch, from ``state.history``.
        lifecycle: the graph's lifecycle, to tell working stages from terminal ones.
        oracle: judge every stage with this oracle (offline) instead of the stored judgments.
    """
    judgments = _judgments(checkpoints, lifecycle, oracle)
    last_values = checkpoints[-1].values if checkpoints else {}
    by_step: dict[int, list[Judgment]] = {}
    for judgment in judgments:
        by_step.setdefault(judgment.step, []).append(judgment)
    stages: list[StageBlame] = []
    received: list[Judgment] = []
    for step in sorted(by_step):
        for judgment in by_step[step]:
            source = received[0].correct if len(received) == 1 else None
            flag: Flag | None = None
            if source is not None:
                flag = ("repair" if judgment.correct else "no-op") if not source else (
                    "no-op" if judgment.correct else "harm")
            evidence = _evidence(judgment, last_values)
            if flag == "harm" and judgment.stage == "implementing" and judgment.round > 1:
                evidence = f"acting on the review that requested changes; {evidence}"
            stages.append(StageBlame(step=judgment.step, stage=judgment.stage, role=judgment.role,
                                     round=judgment.round, subject=judgment.subject,
                                     correct=judgment.correct, flag=flag, received_correct=source,
                                     oracle=judgment.oracle, evidence=evidence,
                                     agent=_agent(judgment, last_values)))
        received = by_step[step]
    if not stages or stages[-1].correct:
        return Blame(stages=tuple(stages), final_correct=stages[-1].correct if stages else None, origin=None)
    last_right = max((i for i, s in enumerate(stages) if s.correct), default=-1)
    return Blame(stages=tuple(stages), final_correct=False, origin=stages[last_right + 1])
