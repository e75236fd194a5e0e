"""Judging the candidate result at every checkpoint: the raw material of blame attribution.

An ``Oracle`` judges the current candidate of a development run: the code, or the plan while no code
exists. The compiler asks it after every working stage and stores the ``Judgment`` in that stage's
update, so it lands in the checkpoint. Evals plug in the strongest oracle they have (hidden tests); live
runs use the visible tests. A candidate is hashed, and one already judged is not judged again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from state.graph_state import Judgment

Subject = Literal["plan", "code"]
Judge = Callable[[Mapping[str, Any], Any], "tuple[bool, str] | None"]
"""(state, stage call) -> (correct, evidence), or None when the oracle cannot tell."""


@dataclass(frozen=True)
class Oracle:
    """A named pair of judges: one for code, one (optional) for a plan."""

    name: str
    code: Judge
    plan: Judge | None = None


def candidate(state: Mapping[str, Any]) -> tuple[Subject, dict[str, Any]] | None:
    """Return the candidate result in ``state``: the code, else the plan, else None."""
    if state.get("code"):
        return "code", state["code"]
    if state.get("plan"):
        return "plan", state["plan"]
    return None


def digest(artifact: Mapping[str, Any]) -> str:
    """Return a short stable hash of an artifact's JSON form."""
    return hashlib.sha256(json.dumps(artifact, sort_keys=True).encode()).hexdigest()[:16]


def judge(oracle: Oracle, state: Mapping[str, Any], call: Any) -> Judgment | None:
    """Return the oracle's judgment of the candidate in ``state`` after ``call``'s stage.

    A candidate already judged by this oracle (same hash, in ``state["judgments"]``) is not judged again.
    """
    found = candidate(state)
    if found is None:
        return None
    subject, artifact = found
    key = digest(artifact)
    where = {"step": call.step, "stage": call.stage, "role": call.role, "round": call.round}
    for earlier in reversed(state.get("judgments") or []):
        if earlier["digest"] == key and earlier["oracle"] == oracle.name:
            return Judgment(**where, subject=subject, digest=key, correct=earlier["correct"],
                            oracle=oracle.name, evidence=earlier["evidence"])
    judge_fn = oracle.code if subject == "code" else oracle.plan
    verdict = judge_fn(state, call) if judge_fn is not None else None
    if verdict is None:
        return None
    correct, evidence = verdict
    return Judgment(**where, subject=subject, digest=key, correct=correct, oracle=oracle.name,
                    evidence=evidence[:500])
