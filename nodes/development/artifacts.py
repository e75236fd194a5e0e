"""The development workflow's own artifacts: the Tester's cases, the Coder's candidates, the selection
among them, and a person's approval of the plan."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from accord.state.artifacts import CodeArtifact, Example, Frozen, register_artifact


@register_artifact
class TestSuite(Frozen):
    """The Tester's cases for a function, written from its specification alone, never from the code."""

    __test__ = False  # not a pytest test class
    kind: Literal["tests"] = "tests"
    cases: tuple[Example, ...] = Field(min_length=1)

    def text(self) -> str:
        """Return the cases on one line."""
        return "; ".join(f"{c.call} == {c.expected}" for c in self.cases)


@register_artifact
class Candidates(Frozen):
    """Alternative implementations of one task, for a selection on executed evidence."""

    kind: Literal["candidates"] = "candidates"
    items: tuple[CodeArtifact, ...] = Field(min_length=1)

    def text(self) -> str:
        """Return how many candidates there are."""
        return f"{len(self.items)} candidates"


class CandidateScore(Frozen):
    """What running one candidate showed."""

    index: int
    examples_passed: int
    """The task's own examples it passes (the strongest evidence)."""
    tests_passed: int
    """The Tester's cases it passes."""
    agreeing: int
    """Candidates (itself included) that return the same on every Tester case."""
    answered: int = 0
    """Tester cases it returned a value on rather than raising: candidates that all raise on a case the
    signature does not take agree on nothing about behaviour."""


class Dispute(Frozen):
    """A Tester case the candidates answered differently, and each value returned on it (the most
    candidates' first). Raising is no answer to choose."""

    case: Example
    answers: tuple[str, ...] = Field(min_length=1)


@register_artifact
class Selection(Frozen):
    """Which candidate was chosen, on what evidence, and which Tester cases the choice disputes."""

    kind: Literal["selection"] = "selection"
    chosen: int
    scores: tuple[CandidateScore, ...] = Field(min_length=1)
    flagged: tuple[Example, ...] = ()
    """Tester cases the chosen code disagrees with: disputed, so not used as tests."""
    disputes: tuple[Dispute, ...] = ()
    """Tester cases on which the candidates returned different values, for the Planner to decide."""

    def text(self) -> str:
        """Return which candidate was chosen, of how many."""
        return f"candidate {self.chosen + 1} of {len(self.scores)}"


@register_artifact
class Approval(Frozen):
    """A person's decision on an artifact put to them (the plan): approved, edited, or rejected with the
    reason the next attempt must answer."""

    kind: Literal["approval"] = "approval"
    decision: Literal["approved", "edited", "rejected"]
    reason: str = ""
    by: str = Field(min_length=1)
    """Who decided, as they gave their name (the ledger and blame name the role ``human``)."""
    at: str
    """When, as an ISO 8601 UTC time."""

    def text(self) -> str:
        """Return the decision, who made it and why."""
        reason = f": {self.reason}" if self.reason else ""
        return f"{self.decision} by {self.by}{reason}"
