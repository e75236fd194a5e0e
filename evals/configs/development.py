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
from collections.abc import Mapping
from typing import Any

from accord.evals.configs import Configuration, fixed_sequence, ignoring, receiving, rerouting, skipping
from accord.graphs import development
from accord.graphs.duties import Duty, Role
from accord.graphs.oracle import Oracle
from accord.nodes.development import baseline, peers
from accord.nodes.development.roles import BASELINE_CODER, SPECS
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
