"""The configurations an eval compares: Accord in full, the papers' baselines, and ablations.

Each is a real graph compiled from a lifecycle table by the same compiler, on the same model and budget:

- ``single``: one plain model call from the task alone, as a benchmark harness makes it (the monolithic
  baseline: the model at its plain best); ``single-completion``: the stub continued as a completion, as
  the original HumanEval harness asks; ``single-coder``: one call with the Coder's prompt instead;
  ``single-holistic``: a class asked for in one call with ClassEval's instruction;
- ``best-of-n``: the ``single`` call made ``Context.best_of`` times, sampled, and the reply passing most
  stated examples kept (the plain model given a team's tokens); ``self-repair``: the ``single`` call, its
  failing stated examples fed back in the same chat, up to ``Context.best_of`` calls; ``mapcoder``: a
  published multi-agent coder run from its released code (``nodes.development.peers``), and ``agentcoder``
  another, from its released prompts and loop;
- ``simple``: the same roles once each in a fixed sequence, free-text handoffs, no contracts, no gates
  (the baseline pipeline of SEMAP and the accountability paper);
- ``accountable``: the development graph as it ships (a plain attempt first, the team when it fails the
  stated examples); ``team``: the same graph sending every task to the team at once;
- ``no-contracts``, ``no-messages``, ``no-gates``: Accord without one protocol ingredient each;
- ``no-tester``, ``no-diversity``, ``no-selection``: Accord without one accuracy ingredient each (no
  Tester cases, one candidate, or the first candidate kept with the Tester's cases trusted blindly).

Because every configuration is a lifecycle, blame, MAST detection and cost read all of them the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from accord.graphs import development
from accord.graphs.compiler import Compiler, Gate
from accord.graphs.duties import Duty, Role
from accord.graphs.oracle import Oracle
from accord.nodes.development import baseline, peers
from accord.nodes.development.roles import BASELINE_CODER, SPECS
from accord.runtime.local_model import LETTER_OF, default_model
from accord.state.context import Context
from accord.state.lifecycle import BUDGET, Lifecycle, Transition
from accord.state.roles import ActionType
from accord.state.stage import Work

PIPELINE = (
    "initialized",
    "planning",
    "implementing",
    "designing_tests",
    "selecting",
    "testing",
    "debugging",
    "reviewing",
)
"""The development stages in the order a fixed pipeline runs them once each."""


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


def visible_tests(values: Mapping[str, Any]) -> Oracle:
    """Return the oracle a code task's run has without the hidden tests: its stated examples, its own tests
    and the static checks, whatever the run ended with."""
    return development.VISIBLE_TESTS


_SEQUENCE = fixed_sequence(development.LIFECYCLE, PIPELINE)
_IGNORED = {stage: ignoring(gate) for stage, gate in development.GATES.items()}
_ONE_CALL = fixed_sequence(development.LIFECYCLE, ("initialized", "implementing"))


def _one_call(implement: Work) -> dict[str, Role]:
    """Return the roles of a one-call baseline: intake, and a Coder whose one duty is ``implement``."""
    return {
        "intake": development.ROLES["intake"],
        "coder": Role("coder", {"implement": Duty(BASELINE_CODER, implement)}, SPECS["coder"]),
    }


CONFIGURATIONS: dict[str, Configuration] = {
    c.name: dataclasses.replace(c, live_oracle=visible_tests)
    for c in (
        Configuration(
            "single",
            "one plain model call from the task alone, as a benchmark harness makes it",
            _ONE_CALL,
            _one_call(baseline.implement_plainly),
            _IGNORED,
            contracts=False,
            typed_messages=False,
        ),
        Configuration(
            "best-of-n",
            "the single call sampled best_of times, the reply passing most stated examples kept",
            _ONE_CALL,
            _one_call(baseline.implement_best_of),
            _IGNORED,
            contracts=False,
            typed_messages=False,
        ),
        Configuration(
            "self-repair",
            "the single call, its failing stated examples fed back in the same chat, up to best_of calls",
            _ONE_CALL,
            _one_call(baseline.implement_self_repair),
            _IGNORED,
            contracts=False,
            typed_messages=False,
        ),
        Configuration(
            "mapcoder",
            "MapCoder's released strategy (recall, plan, code, improve on sample tests) on the run's model",
            _ONE_CALL,
            _one_call(peers.implement_mapcoder),
            _IGNORED,
            contracts=False,
            typed_messages=False,
            # The released model call's own settings: greedy, up to 4,096 tokens a reply.
            settings={"temperature": 0.0, "max_tokens": 4096},
            needs=lambda: peers.MAPCODER.checkout(),
        ),
        Configuration(
            "agentcoder",
            "AgentCoder's released prompts and loop (programmer, test designer, executor) on the run's model",
            _ONE_CALL,
            _one_call(peers.implement_agentcoder),
            _IGNORED,
            contracts=False,
            typed_messages=False,
            needs=lambda: peers.AGENTCODER.checkout(),
        ),
        Configuration(
            "single-completion",
            "one plain completion of the stub, as the original HumanEval harness makes it",
            _ONE_CALL,
            _one_call(baseline.complete_plainly),
            _IGNORED,
            contracts=False,
            typed_messages=False,
        ),
        Configuration(
            "single-coder",
            "one model call from the task alone, with the Coder's system prompt and instructions",
            _ONE_CALL,
            _one_call(baseline.implement_alone),
            _IGNORED,
            contracts=False,
            typed_messages=False,
        ),
        Configuration(
            "single-holistic",
            "a class asked for in one call with ClassEval's own instruction; any other task as single",
            _ONE_CALL,
            _one_call(baseline.implement_holistically),
            _IGNORED,
            contracts=False,
            typed_messages=False,
        ),
        Configuration(
            "simple",
            "the same roles once each in order; free-text handoffs, no contracts, no gates",
            _SEQUENCE,
            development.ROLES,
            _IGNORED,
            contracts=False,
            typed_messages=False,
        ),
        Configuration(
            "accountable",
            "Accord in full: a plain attempt checked on the stated examples, then the team only if it fails "
            "them; contracts, typed messages, gated lifecycle",
            development.LIFECYCLE,
            development.ROLES,
            development.GATES,
        ),
        Configuration(
            "team",
            "Accord's team on every task, no plain attempt first",
            development.LIFECYCLE,
            development.ROLES,
            development.GATES,
            settings={"first_attempt": False},
        ),
        Configuration(
            "no-contracts",
            "Accord without contract checks and their retries",
            development.LIFECYCLE,
            development.ROLES,
            development.GATES,
            contracts=False,
        ),
        Configuration(
            "no-messages",
            "Accord with free-text handoffs instead of typed messages",
            development.LIFECYCLE,
            development.ROLES,
            development.GATES,
            typed_messages=False,
        ),
        Configuration(
            "no-gates",
            "Accord's roles once each in order, verification results ignored",
            _SEQUENCE,
            development.ROLES,
            _IGNORED,
        ),
        Configuration(
            "no-tester",
            "Accord without the Tester's cases: candidates selected on the task's examples alone",
            skipping(development.LIFECYCLE, "designing_tests"),
            development.ROLES,
            development.GATES,
        ),
        Configuration(
            "no-diversity",
            "Accord with one candidate (temperature 0, from the task alone)",
            development.LIFECYCLE,
            development.ROLES,
            development.GATES,
            settings={"max_candidates": 1},
        ),
        Configuration(
            "no-selection",
            "Accord keeping the first candidate, the Tester's cases trusted as tests",
            skipping(development.LIFECYCLE, "selecting"),
            # With no selection, a revision's pool goes straight to the test run, which runs the code
            # (the first candidate, or the revision) and nothing else of it.
            receiving(development.ROLES, "debugger", "run_tests", "candidates"),
            development.GATES,
        ),
        Configuration(
            "debug-unsolved",
            "Accord sending a pool's best that fails an example to the Debugger instead of failing the run",
            rerouting(development.LIFECYCLE, "selecting", "unsolved", "testing"),
            development.ROLES,
            development.GATES,
        ),
    )
}
"""Every configuration by name, in the order reports list them."""


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
