"""Judging the candidate result at every checkpoint: the raw material of blame attribution.

An ``Oracle`` judges a run's current candidate result, which its ``candidate`` function picks from the
state: in a development run the code, or the plan while no code exists; in an audit the verdict the
findings so far add up to. The compiler asks it after every working stage (and every vote) and stores the
``Judgment`` in that step's update, so it lands in the checkpoint. Evals plug in the strongest oracle they
have (hidden tests, a label); live runs use the visible tests. A candidate is hashed, and one already
judged is not judged again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from accord.state.graph_state import Judgment

Judge = Callable[[Mapping[str, Any], Any], "tuple[bool, str] | None"]
"""(state, stage call) -> (correct, evidence), or None when the oracle cannot tell."""
Candidate = Callable[[Mapping[str, Any]], "tuple[str, dict[str, Any]] | None"]
"""state -> (subject, the candidate's JSON form), or None while there is none."""


def code_or_plan(state: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """Return a development run's candidate: the code, else the plan, else None."""
    if state.get("code"):
        return "code", state["code"]
    if state.get("plan"):
        return "plan", state["plan"]
    return None


@dataclass(frozen=True)
class Oracle:
    """A named judge of a run's candidate result, one judge per kind of candidate (subject)."""

    name: str
    judges: Mapping[str, Judge]
    """By subject, e.g. ``code`` and ``plan``; a subject without a judge is not judged."""
    candidate: Candidate = code_or_plan


def digest(artifact: Mapping[str, Any]) -> str:
    """Return a short stable hash of an artifact's JSON form."""
    return hashlib.sha256(json.dumps(artifact, sort_keys=True).encode()).hexdigest()[:16]


def judge(oracle: Oracle, state: Mapping[str, Any], call: Any) -> Judgment | None:
    """Return the oracle's judgment of the candidate in ``state`` after ``call``'s stage.

    A candidate already judged by this oracle (same hash, in ``state["judgments"]``) is not judged again.
    """
    found = oracle.candidate(state)
    if found is None:
        return None
    subject, artifact = found
    key = digest(artifact)
    where = {"step": call.step, "stage": call.stage, "role": call.role, "round": call.round}
    for earlier in reversed(state.get("judgments") or []):
        if earlier["digest"] == key and earlier["oracle"] == oracle.name:
            return Judgment(
                **where,
                subject=subject,
                digest=key,
                correct=earlier["correct"],
                oracle=oracle.name,
                evidence=earlier["evidence"],
            )
    judge_fn = oracle.judges.get(subject)
    verdict = judge_fn(state, call) if judge_fn is not None else None
    if verdict is None:
        return None
    correct, evidence = verdict
    return Judgment(
        **where, subject=subject, digest=key, correct=correct, oracle=oracle.name, evidence=evidence[:500]
    )
