"""Lifecycles L = (stages, outcomes, δ, initial, terminal) as data, validated when built.

Each stage declares the outcomes its gate can emit; δ must give a target for every one of them (δ is total
on non-terminal stages). Loops are bounded by counters: a transition may increment a counter, and once the
counter reaches its limit, or the gate meets the same outcome on the same evidence as the last time the
stage decided (the work in between changed nothing it checks), the gate's outcome is replaced by the
counter's ``exhausted`` outcome. Validation
proves the table is well formed: every stage reachable, a terminal stage reachable from every stage, and
the graph without counted transitions acyclic, so every cycle passes through a bounded counter.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property

from pydantic import model_validator

from accord.state.artifacts import Frozen


class Stage(Frozen):
    """A lifecycle state. Working stages name the role(s) that do the work."""

    name: str
    roles: tuple[str, ...] = ()
    """One role, or several for a fan-out stage whose votes a voting gate joins."""
    choices: tuple[str, ...] = ()
    """For a fan-out stage whose gate reads the votes (e.g. ``vulnerable``/``safe`` into consensus or
    split): what each role may vote. Empty: each role votes for one of the stage's outcomes and the
    majority wins."""
    duty: str = "work"
    """Which of the role's duties this stage performs."""
    outcomes: tuple[str, ...] = ()
    """Every outcome this stage's gate can emit (empty for terminal stages)."""
    terminal: bool = False
    status: str | None = None
    """For terminal stages: the run status it stands for (``completed``, ``unverified`` or ``failed``)."""


class Transition(Frozen):
    """One entry of δ: (source, outcome) -> target, optionally counted."""

    source: str
    outcome: str
    target: str
    counter: str | None = None
    """Counter this transition increments; it may be taken only while the counter is under its limit."""


class Counter(Frozen):
    """A loop bound."""

    name: str
    start: int = 0
    limit: int
    """Default limit; a run's Context may set another."""
    exhausted: str
    """Outcome taken instead of a counted transition once the limit is reached, or once the stage's
    evidence repeats the last it decided on."""
    reason: str
    """Why the run moved on, recorded with the decision (e.g. ``round budget exhausted``)."""
    resets: tuple[str, ...] = ()
    """Counters set back to their start when this one increments (e.g. debug attempts per round)."""


class Lifecycle(Frozen):
    """A finite-state machine whose transitions are verification outcomes."""

    name: str
    stages: tuple[Stage, ...]
    transitions: tuple[Transition, ...]
    initial: str
    counters: tuple[Counter, ...] = ()

    @cached_property
    def by_name(self) -> dict[str, Stage]:
        """Map stage names to stages."""
        return {stage.name: stage for stage in self.stages}

    @cached_property
    def delta(self) -> dict[tuple[str, str], Transition]:
        """Map (source, outcome) to its transition."""
        return {(t.source, t.outcome): t for t in self.transitions}

    @cached_property
    def counter(self) -> dict[str, Counter]:
        """Map counter names to counters."""
        return {c.name: c for c in self.counters}

    def successors(self, stage: str) -> dict[str, str]:
        """Return outcome -> target for a stage."""
        return {t.outcome: t.target for t in self.transitions if t.source == stage}

    def terminal(self) -> list[Stage]:
        """Return the terminal stages."""
        return [s for s in self.stages if s.terminal]

    @model_validator(mode="after")
    def _validate(self) -> Lifecycle:
        """Reject a malformed table (pydantic reports it as a ValidationError, a ValueError)."""
        problems = self._problems()
        if problems:
            raise ValueError(f"lifecycle {self.name!r}: " + "; ".join(problems))
        return self

    def _problems(self) -> list[str]:
        names = [s.name for s in self.stages]
        stages = {s.name: s for s in self.stages}
        problems = [f"duplicate stage {n!r}" for n in set(names) if names.count(n) > 1]
        if self.initial not in stages:
            problems.append(f"initial stage {self.initial!r} is not a stage")
        counters = {c.name: c for c in self.counters}
        seen: set[tuple[str, str]] = set()
        for t in self.transitions:
            key = (t.source, t.outcome)
            if key in seen:
                problems.append(f"δ{key} defined twice")
            seen.add(key)
            for end in (t.source, t.target):
                if end not in stages:
                    problems.append(f"transition {key} names unknown stage {end!r}")
            if t.source in stages and t.outcome not in stages[t.source].outcomes:
                problems.append(f"δ{key}: {t.outcome!r} is not an outcome of {t.source!r}")
            if t.counter is not None:
                if t.counter not in counters:
                    problems.append(f"δ{key} increments unknown counter {t.counter!r}")
                elif (t.source, counters[t.counter].exhausted) not in {
                    (u.source, u.outcome) for u in self.transitions
                }:
                    problems.append(
                        f"δ{key} is counted by {t.counter!r} but {t.source!r} has no "
                        f"{counters[t.counter].exhausted!r} transition"
                    )
        problems += [
            f"stage {s.name!r} has choices but is not a fan-out stage"
            for s in self.stages
            if s.choices and len(s.roles) < 2
        ]
        for stage in self.stages:
            if stage.terminal:
                if stage.outcomes or any(t.source == stage.name for t in self.transitions):
                    problems.append(f"terminal stage {stage.name!r} has outgoing transitions")
                continue
            if not stage.outcomes:
                problems.append(f"non-terminal stage {stage.name!r} declares no outcomes")
            problems += [
                f"δ({stage.name!r}, {o!r}) is undefined"
                for o in stage.outcomes
                if (stage.name, o) not in seen
            ]
        if problems:
            return problems
        return self._graph_problems()

    def _graph_problems(self) -> list[str]:
        edges: dict[str, set[str]] = defaultdict(set)
        uncounted: dict[str, set[str]] = defaultdict(set)
        for t in self.transitions:
            edges[t.source].add(t.target)
            if t.counter is None:
                uncounted[t.source].add(t.target)
        problems = []
        reachable = _closure(self.initial, edges)
        problems += [f"stage {s.name!r} is unreachable" for s in self.stages if s.name not in reachable]
        terminals = {s.name for s in self.stages if s.terminal}
        if not terminals:
            problems.append("no terminal stage")
        for stage in self.stages:
            if not _closure(stage.name, edges) & terminals:
                problems.append(f"no terminal stage is reachable from {stage.name!r}")
        if cycle := _find_cycle(uncounted):
            problems.append("unbounded loop (no counter on it): " + " -> ".join(cycle))
        return problems


BUDGET = "budget"
"""The outcome a working stage takes when a run budget (LLM calls, tokens, cost, time) is spent."""


def with_budget(lifecycle: Lifecycle, target: str) -> Lifecycle:
    """Return ``lifecycle`` with a ``budget`` outcome on every working stage, leading to ``target``.

    The compiler enforces the run budgets on the stages that declare this outcome; δ stays the whole
    truth about where a run can go.
    """
    working = [s for s in lifecycle.stages if not s.terminal and BUDGET not in s.outcomes]
    stages = tuple(
        s.model_copy(update={"outcomes": (*s.outcomes, BUDGET)}) if s in working else s
        for s in lifecycle.stages
    )
    spent = tuple(Transition(source=s.name, outcome=BUDGET, target=target) for s in working)
    return Lifecycle(
        name=lifecycle.name,
        initial=lifecycle.initial,
        counters=lifecycle.counters,
        stages=stages,
        transitions=(*lifecycle.transitions, *spent),
    )


def _closure(start: str, edges: dict[str, set[str]]) -> set[str]:
    """Return every node reachable from ``start`` (itself included)."""
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """Return one cycle of the directed graph as a path, or None if it is acyclic."""
    color: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        color[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if color.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in color and (found := visit(nxt)):
                return found
        color[node] = 2
        path.pop()
        return None

    for node in sorted(list(edges)):
        if node not in color and (found := visit(node)):
            return found
    return None
