"""The pipeline's configurations: the accountability paper's baselines and its accountable pipeline, as data.

- ``single``: one model call from the question (or the function's stub) alone, a typed answer or the code
  (the monolithic baseline);
- ``simple``: Planner → Executor → Critic once each, free-text handoffs whose option is read by pattern,
  no contracts (the paper's simple pipeline);
- ``accountable``: the pipeline graph as it ships: typed handoffs, contracts, strict answers.

Which model each role runs on is not part of a configuration: ``--model ROLE=NAME`` (or ``--mix``) sets
it, and the run's name carries it (``evals.configs.on_models``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from accord.evals.configs import Configuration
from accord.graphs import development, pipeline
from accord.graphs.duties import Duty, Role, roles_from_specs
from accord.graphs.oracle import Oracle
from accord.nodes.development import baseline
from accord.nodes.pipeline import work
from accord.nodes.pipeline.roles import SPECS
from accord.state.contracts import Contract
from accord.state.lifecycle import Lifecycle, Stage, Transition, with_budget

SINGLE = with_budget(
    Lifecycle(
        name="pipeline",
        initial="initialized",
        stages=(
            Stage(
                name="initialized", roles=("intake",), duty="intake", outcomes=("question", "code", "fail")
            ),
            Stage(name="executing", roles=("executor",), duty="execute", outcomes=("pass", "fail")),
            Stage(name="executing_code", roles=("executor",), duty="write_code", outcomes=("pass", "fail")),
            Stage(name="completed", terminal=True, status="completed"),
            Stage(name="failed", terminal=True, status="failed"),
        ),
        transitions=(
            Transition(source="initialized", outcome="question", target="executing"),
            Transition(source="initialized", outcome="code", target="executing_code"),
            Transition(source="initialized", outcome="fail", target="failed"),
            *(
                Transition(source=stage, outcome=outcome, target=target)
                for stage in ("executing", "executing_code")
                for outcome, target in (("pass", "completed"), ("fail", "failed"))
            ),
        ),
    ),
    target="failed",
)
"""One role, one call: the question answered, or the function written, from the request alone."""

SINGLE_ROLES = {
    "intake": pipeline.ROLES["intake"],
    "executor": Role(
        "executor",
        {
            "execute": Duty(
                Contract(role="executor", duty="execute", inputs=("question",), outputs=("answer",)),
                work.answer_alone,
            ),
            "write_code": Duty(
                Contract(role="executor", duty="write_code", inputs=("task",), outputs=("code",)),
                baseline.implement_alone,
            ),
        },
        SPECS["executor"],
    ),
}


def run_time_oracle(values: Mapping[str, Any]) -> Oracle:
    """Return what a pipeline run can judge its stages by without the benchmark's answer: for a question,
    the Critic's word (``pipeline.critics_word``); for a function, its stated examples, as in
    development."""
    return pipeline.critics_word(values) or development.VISIBLE_TESTS


CONFIGURATIONS: dict[str, Configuration] = {
    c.name: dataclasses.replace(c, live_oracle=run_time_oracle)
    for c in (
        Configuration(
            "single",
            "one model call from the question or stub alone",
            SINGLE,
            SINGLE_ROLES,
            {
                "initialized": pipeline.gate_request,
                "executing": pipeline.gate_answer,
                "executing_code": pipeline.gate_code,
            },
            contracts=False,
            typed_messages=False,
        ),
        Configuration(
            "simple",
            "Planner, Executor and Critic once each, free-text handoffs, no contracts",
            pipeline.LIFECYCLE,
            roles_from_specs(SPECS, pipeline.duties_work(free_text=True)),
            pipeline.GATES,
            contracts=False,
            typed_messages=False,
        ),
        Configuration(
            "accountable",
            "Accord's pipeline: typed handoffs, contracts, strict answers",
            pipeline.LIFECYCLE,
            pipeline.ROLES,
            pipeline.GATES,
        ),
    )
}
"""Every pipeline configuration by name, in the order reports list them."""
