"""What an eval compares: a configuration is a lifecycle, its roles and gates, and which protocol checks
are on, compiled by the same compiler as the workflow it varies; and the ways to vary a lifecycle.

Each workflow's configurations are in this package's modules (``development``, ``audit``, ``pipeline``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from accord.graphs.compiler import Compiler, Gate
from accord.graphs.duties import Duty, Role
from accord.graphs.oracle import Oracle
from accord.runtime.local_model import LETTER_OF, default_model
from accord.state.context import Context
from accord.state.lifecycle import BUDGET, Lifecycle, Transition
from accord.state.role_specs import ActionType


def fixed_sequence(lifecycle: Lifecycle, order: Sequence[str]) -> Lifecycle:
    """Return ``lifecycle``'s stages run at most once each in ``order``, whatever their gates say.

    Every outcome goes on to the next stage (the last one: to ``completed``) except ``fail`` and ``budget``,
    which end the run, and an outcome the lifecycle sends further along ``order``, which goes there: the
    stages it passes do not apply (an application has no candidates to select; tests that pass leave the
    Debugger nothing to fix). With ``ignoring`` gates only a role that produced nothing usable fails. No
    counters, so no loops.
    """
    done, failed = (
        next(s for s in lifecycle.stages if s.status == status) for status in ("completed", "failed")
    )
    stages = [lifecycle.by_name[s] for s in order]

    def onward(i: int, outcome: str) -> str:
        if outcome in ("fail", BUDGET):
            return failed.name
        routed = lifecycle.delta.get((order[i], outcome))
        if routed is not None and routed.target in order[i + 1 :]:
            return routed.target
        return order[i + 1] if i + 1 < len(order) else done.name

    transitions = [
        Transition(source=stage.name, outcome=outcome, target=onward(i, outcome))
        for i, stage in enumerate(stages)
        for outcome in stage.outcomes
    ]
    return Lifecycle(
        name=lifecycle.name, initial=order[0], stages=(*stages, done, failed), transitions=tuple(transitions)
    )


def skipping(lifecycle: Lifecycle, skipped: str) -> Lifecycle:
    """Return ``lifecycle`` without the stage ``skipped``: what entered it goes where its ``pass`` led."""
    onward = next(t.target for t in lifecycle.transitions if t.source == skipped and t.outcome == "pass")
    transitions = tuple(
        t.model_copy(update={"target": onward}) if t.target == skipped else t
        for t in lifecycle.transitions
        if t.source != skipped
    )
    return Lifecycle(
        name=lifecycle.name,
        initial=lifecycle.initial,
        counters=lifecycle.counters,
        stages=tuple(s for s in lifecycle.stages if s.name != skipped),
        transitions=transitions,
    )


def rerouting(lifecycle: Lifecycle, source: str, outcome: str, target: str) -> Lifecycle:
    """Return ``lifecycle`` with the transition taken on ``outcome`` at ``source`` leading to ``target``."""
    if not any((t.source, t.outcome) == (source, outcome) for t in lifecycle.transitions):
        raise ValueError(f"{lifecycle.name} has no transition from {source} on {outcome}")
    transitions = tuple(
        t.model_copy(update={"target": target}) if (t.source, t.outcome) == (source, outcome) else t
        for t in lifecycle.transitions
    )
    return Lifecycle(
        name=lifecycle.name,
        initial=lifecycle.initial,
        counters=lifecycle.counters,
        stages=lifecycle.stages,
        transitions=transitions,
    )


def receiving(roles: Mapping[str, Role], role: str, duty: str, kind: str) -> dict[str, Role]:
    """Return ``roles`` with one duty also taking ``kind`` in its messages, and ignoring it."""
    old = roles[role].duties[duty]
    contract = old.contract.model_copy(update={"optional_inputs": (*old.contract.optional_inputs, kind)})
    return {
        **roles,
        role: dataclasses.replace(roles[role], duties={**roles[role].duties, duty: Duty(contract, old.work)}),
    }


def ignoring(gate: Gate) -> Gate:
    """Return a gate whose ``fail`` is recorded as evidence but not acted on (the no-gates ablation)."""

    def ignored(state: Mapping[str, Any]) -> tuple[str, str]:
        outcome, evidence = gate(state)
        return ("pass", f"ignored: fail, {evidence}") if outcome == "fail" else (outcome, evidence)

    return ignored


@dataclass(frozen=True)
class Configuration:
    """One graph to evaluate: a lifecycle, its roles and gates, and which protocol checks are on."""

    name: str
    description: str
    lifecycle: Lifecycle
    roles: Mapping[str, Role]
    gates: Mapping[str, Gate]
    contracts: bool = True
    typed_messages: bool = True
    inputs: Mapping[str, Any] = field(default_factory=dict)
    """The state keys, beyond ``request``, the workflow takes from a task (its graph module's ``INPUTS``)."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Context fields this configuration fixes, e.g. ``{"max_candidates": 1}``."""
    needs: Callable[[], object] | None = None
    """A check that what this configuration runs is on this machine (a published coder's checkout), called
    before any task runs; it raises with the fix."""
    live_oracle: Callable[[Mapping[str, Any]], Oracle] | None = None
    """What a run of this workflow can judge its stages by without the benchmark's answers, given the values
    it ended with (the stated examples, for code; the Critic's word, for a question): the runner also blames
    by it, to measure how often that agrees with blame by the benchmark's oracle. None: the workflow has no
    such evidence."""

    def build(
        self,
        models: Mapping[str, BaseChatModel] | None = None,
        checkpointer: Checkpointer = None,
        oracle: Oracle | None = None,
    ) -> CompiledStateGraph[Any, Any, Any, Any]:
        """Compile this configuration's graph."""
        compiler = Compiler(
            self.lifecycle,
            self.roles,
            self.gates,
            models,
            oracle,
            contracts=self.contracts,
            typed_messages=self.typed_messages,
            inputs=self.inputs,
        )
        return compiler.build().compile(checkpointer=checkpointer, name=f"{self.lifecycle.name}-{self.name}")


def speakers(config: Configuration) -> list[str]:
    """Return the configuration's roles that call a model (an LLM action in their spec), in stage order."""
    staged = dict.fromkeys(r for stage in config.lifecycle.stages for r in stage.roles)
    return [
        r
        for r in staged
        if (spec := config.roles[r].spec) is not None and any(a.type == ActionType.LLM for a in spec.actions)
    ]


def on_models(config: Configuration, context: Context) -> Configuration:
    """Return ``config`` named after the models its roles run on, unless every one runs on its embedded
    default (``local_model.default_model``): one model for all (``single@qwen2.5-coder-0.5b``), the paper's
    letters for a mix of lettered models (``accountable@ABC``, roles in stage order), else each role's
    (``accountable@critic=gpt-4o``). Results, threads and reports then keep runs on different models apart
    in one folder."""
    roles = speakers(config)
    models = {role: context.model_for(role).model or default_model(role) for role in roles}
    if all(model == default_model(role) for role, model in models.items()):
        return config
    if len(set(models.values())) == 1:
        mix = next(iter(models.values()))
    elif all(m in LETTER_OF for m in models.values()):
        mix = "".join(LETTER_OF[m] for m in models.values())
    else:
        mix = ",".join(f"{role}={model}" for role, model in models.items())
    return dataclasses.replace(config, name=f"{config.name}@{mix}")


def base_name(name: str) -> str:
    """Return the configuration a name made by ``on_models`` runs (``single@m`` → ``single``)."""
    return name.split("@", 1)[0]
