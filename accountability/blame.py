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

from accord.graphs.compiler import VOTE, fan_out_role
from accord.graphs.oracle import Oracle, judge
from accord.state.artifacts import Frozen
from accord.state.context import Context
from accord.state.graph_state import Judgment, updated
from accord.state.history import Checkpoint
from accord.state.lifecycle import Lifecycle, Stage
from accord.state.stage import StageCall

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
            c = counts.setdefault(
                stage.role, {"repairs": 0, "wrong_inputs": 0, "harms": 0, "right_inputs": 0}
            )
            if stage.received_correct:
                c["right_inputs"] += 1
                c["harms"] += stage.flag == "harm"
            else:
                c["wrong_inputs"] += 1
                c["repairs"] += stage.flag == "repair"
    return counts


def _judgments(checkpoints: list[Checkpoint], lifecycle: Lifecycle, oracle: Oracle | None) -> list[Judgment]:
    """Return one judgment per judged working stage: stored ones, or the given oracle's."""
    found: list[Judgment] = []
    for before, checkpoint in itertools.pairwise(checkpoints):
        stored = [j for j in checkpoint.values.get("judgments", []) if j["step"] == checkpoint.step]
        if oracle is None or (stored and all(j["oracle"] == oracle.name for j in stored)):
            found += [Judgment.model_validate(j) for j in stored]
            continue
        # The round the stage ran in: its gate may have started the next one.
        rounds = int(before.values.get("counters", {}).get("round", 1))
        for stage, role, values in _role_runs(before, checkpoint, lifecycle):
            call = StageCall(
                stage=stage.name, role=role, round=rounds, context=Context(), models={}, step=checkpoint.step
            )
            # Offline: earlier judgments by this oracle are carried along so a candidate is judged once.
            judged = {**values, "judgments": [j.model_dump() for j in found]}
            if (judgment := judge(oracle, judged, call)) is not None:
                found.append(judgment)
    return found


def _role_runs(
    before: Checkpoint, after: Checkpoint, lifecycle: Lifecycle
) -> list[tuple[Stage, str, Mapping[str, Any]]]:
    """Return the role runs of the step between two checkpoints, each with the state the compiler judges
    it by as the graph runs: a one-role stage on the state after it; in a fan-out stage, each role on the
    state before the step with its own update (the history's writes), and the vote joining them on the
    state it reads. A fan-out stage's own node only starts its roles and is not judged."""
    stage = lifecycle.by_name.get(after.node or "")
    if stage is not None:
        one_role = not stage.terminal and len(stage.roles) == 1
        return [(stage, stage.roles[0], after.values)] if one_role else []
    runs: list[tuple[Stage, str, Mapping[str, Any]]] = []
    for node, update in before.ran.items():
        if (ran := fan_out_role(node)) is None or (stage := lifecycle.by_name.get(ran[0])) is None:
            continue
        if ran[1] in stage.roles:
            runs.append((stage, ran[1], updated(before.values, update)))
        elif ran[1] == VOTE:
            runs.append((stage, VOTE, before.values))
    return runs


def _evidence(judgment: Judgment, values: Mapping[str, Any]) -> str:
    # Its own entries only: roles that ran in the same (parallel) step have theirs.
    own = [
        e for e in values.get("ledger", []) if e.get("step") == judgment.step and e["role"] == judgment.role
    ]
    parts = [judgment.evidence]
    parts += [
        f"contract {e['outcome']}: {e['detail']}"
        for e in own
        if e["kind"] == "contract" and e["outcome"] != "pass"
    ]
    gates = [e for e in own if e["kind"] == "gate"]
    parts += [f"gate {e['outcome']} {e['detail']}" for e in gates]
    return "; ".join(p for p in parts if p)


def _agent(judgment: Judgment, values: Mapping[str, Any]) -> str:
    """Return the agent that played the judged stage's role, where its ledger entries name one."""
    return next(
        (
            e["agent"]
            for e in values.get("ledger", [])
            if e.get("step") == judgment.step and e["role"] == judgment.role and e.get("agent")
        ),
        "",
    )


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
                flag = (
                    ("repair" if judgment.correct else "no-op")
                    if not source
                    else ("no-op" if judgment.correct else "harm")
                )
            evidence = _evidence(judgment, last_values)
            if flag == "harm" and judgment.round > received[0].round:
                evidence = f"acting on the feedback that started round {judgment.round}; {evidence}"
            stages.append(
                StageBlame(
                    step=judgment.step,
                    stage=judgment.stage,
                    role=judgment.role,
                    round=judgment.round,
                    subject=judgment.subject,
                    correct=judgment.correct,
                    flag=flag,
                    received_correct=source,
                    oracle=judgment.oracle,
                    evidence=evidence,
                    agent=_agent(judgment, last_values),
                )
            )
        received = by_step[step]
    if not stages or stages[-1].correct:
        return Blame(stages=tuple(stages), final_correct=stages[-1].correct if stages else None, origin=None)
    last_right = max((i for i, s in enumerate(stages) if s.correct), default=-1)
    return Blame(stages=tuple(stages), final_correct=False, origin=stages[last_right + 1])
