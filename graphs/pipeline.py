"""The pipeline graph: the accountability paper's Planner → Executor → Critic, on a multiple-choice question
or a Python function to write.

initialized (intake: a question with lettered options, or a function stub) → planning (the Planner's
reasoning steps and the option they lead to) → executing (the Executor's answer) → critiquing (the Critic
approves the answer or corrects it) → completed; a function goes the same way through planning_code (steps
and examples of the behaviour they lead to), executing_code (the function) and critiquing_code (the code
approved or corrected). A stage whose contract cannot be met ends the run in failed. ``LIFECYCLE`` is the
single source of truth for the edges, compiled by the same compiler as the other workflows; each role may
have a model of its own (``Context.role_models``).

Blame reads every stage's result: a question's plan is judged by the option it leads to (the Planner
commits to one, so that a plan can be right or wrong on its own and the Executor can repair or harm it),
a code plan by its examples, the Executor's and the Critic's answer by the option they choose, code by
the eval's tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from accord.graphs.catalog import Workflow
from accord.graphs.compiler import Compiler, Gate
from accord.graphs.duties import roles_from_specs
from accord.graphs.oracle import Oracle
from accord.nodes.pipeline import coding, work
from accord.nodes.pipeline.artifacts import Answer, Critique, Question, Reasoning
from accord.nodes.pipeline.intake import parse_pipeline_request
from accord.nodes.pipeline.roles import SPECS
from accord.nodes.requests import request_of
from accord.state.artifacts import CodeArtifact, TaskSpec
from accord.state.graph_state import dump, read
from accord.state.lifecycle import Lifecycle, Stage, Transition, with_budget
from accord.state.stage import StageCall, Work

QUESTION_STAGES = ("planning", "executing", "critiquing")
CODE_STAGES = ("planning_code", "executing_code", "critiquing_code")

LIFECYCLE = with_budget(
    Lifecycle(
        name="pipeline",
        initial="initialized",
        stages=(
            Stage(
                name="initialized", roles=("intake",), duty="intake", outcomes=("question", "code", "fail")
            ),
            Stage(name="planning", roles=("planner",), duty="plan", outcomes=("pass", "fail")),
            Stage(name="executing", roles=("executor",), duty="execute", outcomes=("pass", "fail")),
            Stage(
                name="critiquing",
                roles=("critic",),
                duty="critique",
                outcomes=("approved", "corrected", "fail"),
            ),
            Stage(name="planning_code", roles=("planner",), duty="plan_code", outcomes=("pass", "fail")),
            Stage(name="executing_code", roles=("executor",), duty="write_code", outcomes=("pass", "fail")),
            Stage(
                name="critiquing_code",
                roles=("critic",),
                duty="critique_code",
                outcomes=("approved", "corrected", "fail"),
            ),
            Stage(name="completed", terminal=True, status="completed"),
            Stage(name="failed", terminal=True, status="failed"),
        ),
        transitions=(
            Transition(source="initialized", outcome="question", target="planning"),
            Transition(source="initialized", outcome="code", target="planning_code"),
            *(
                Transition(source=stages[i], outcome="pass", target=stages[i + 1])
                for stages in (QUESTION_STAGES, CODE_STAGES)
                for i in range(2)
            ),
            *(
                Transition(source=stages[2], outcome=outcome, target="completed")
                for stages in (QUESTION_STAGES, CODE_STAGES)
                for outcome in ("approved", "corrected")
            ),
            *(
                Transition(source=s, outcome="fail", target="failed")
                for s in ("initialized", *QUESTION_STAGES, *CODE_STAGES)
            ),
        ),
    ),
    target="failed",
)


def intake(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Turn the request into a question with lettered options, or a function task (LOCAL_CODE)."""
    request = parse_pipeline_request(request_of(state))
    return {"question" if isinstance(request, Question) else "task": dump(request)}


def gate_request(state: Mapping[str, Any]) -> tuple[str, str]:
    """Send a question down the question's stages, a function task down the code's."""
    if question := read(state, "question", Question):
        return "question", f"{len(question.options)} options ({question.letters})"
    task = read(state, "task", TaskSpec)
    assert task is not None  # the intake wrote one or the other
    return "code", f"the function {task.entry_point}, {len(task.examples)} examples stated"


def gate_plan(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass a plan (its contract checked it)."""
    plan = read(state, "reasoning", Reasoning)
    assert plan is not None
    commits = (
        f"{len(plan.examples)} examples" if plan.examples else f"leading to {plan.leads_to or 'no option'}"
    )
    return "pass", f"{len(plan.steps)} steps, {commits}"


def gate_answer(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass an answer that names an option (its contract checked it)."""
    answer = read(state, "answer", Answer)
    assert answer is not None
    return "pass", f"{answer.choice}: {answer.justification[:200]}"


def gate_code(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass code that defines the function (its contract and ``function_module`` checked it)."""
    code = read(state, "code", CodeArtifact)
    assert code is not None
    lines = sum(len(body.splitlines()) for body in code.files.values())
    return "pass", f"{lines} lines"


def gate_critique(state: Mapping[str, Any]) -> tuple[str, str]:
    """The Critic's decision: the answer or code approved, or corrected."""
    critique = read(state, "critique", Critique)
    assert critique is not None
    answer = read(state, "answer", Answer)
    said = f"{answer.choice}: " if answer is not None else ""
    return ("approved" if critique.approved else "corrected"), f"{said}{critique.reason[:200]}"


def duties_work(free_text: bool = False) -> dict[tuple[str, str], Work]:
    """Return every duty's work by (role, duty) (``free_text``: the simple pipeline's free-text handoffs)."""
    return {("intake", "intake"): intake, **work.work(free_text), **coding.work(free_text)}


WORK = duties_work()
ROLES = roles_from_specs(SPECS, WORK)
GATES: dict[str, Gate] = {
    "initialized": gate_request,
    "planning": gate_plan,
    "executing": gate_answer,
    "critiquing": gate_critique,
    "planning_code": gate_plan,
    "executing_code": gate_code,
    "critiquing_code": gate_critique,
}


def candidate(state: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A pipeline's candidate result: the answer or the code, else the plan (judged by what it commits
    to: the option it leads to, or its examples)."""
    for key, subject in (("answer", "answer"), ("code", "code"), ("reasoning", "plan")):
        if state.get(key):
            return subject, state[key]
    return None


def gold_oracle(gold: str, name: str = "gold option") -> Oracle:
    """Return the eval oracle for a question whose answer is ``gold``: a candidate is right when the
    option it chooses (or a plan leads to) is the gold one."""

    def plan_right(state: Mapping[str, Any], call: Any) -> tuple[bool, str]:
        said = state["reasoning"]["leads_to"]
        return said == gold, f"leads to {said or 'no option'}"

    def answer_right(state: Mapping[str, Any], call: Any) -> tuple[bool, str]:
        said = state["answer"]["choice"]
        return said == gold, f"chooses {said}"

    return Oracle(name=name, judges={"plan": plan_right, "answer": answer_right}, candidate=candidate)


NO_OPTION = "none"
"""What ``critics_word`` takes as the option of a run that ended without an answer: no plan or answer
chooses it, so every stage of such a run is judged wrong."""


def critics_word(values: Mapping[str, Any]) -> Oracle | None:
    """Return the oracle a question's run has without its gold answer: the option the run ended on, as its
    Critic approved or corrected it (the Executor's, where no Critic ran); None for a function's run, whose
    Critic approves or corrects code, not an option.

    Blame by it is what a user can compute once the run has ended; evals set it beside blame by the gold
    option to measure how often the two agree.
    """
    if not values.get("question"):
        return None
    final = (values.get("answer") or {}).get("choice") or NO_OPTION
    return gold_oracle(final, name="the Critic's word")


def build_graph(
    models: Mapping[str, BaseChatModel] | None = None,
    checkpointer: Checkpointer = None,
    oracle: Oracle | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the pipeline graph.

    Args:
        models: scripted models by role (tests), else the Context's endpoints are used.
        checkpointer: where checkpoints go (None for ``langgraph dev``, which brings its own).
        oracle: judges every stage's answer for blame (evals pass the gold option's oracle).
    """
    return (
        Compiler(LIFECYCLE, ROLES, GATES, models, oracle)
        .build()
        .compile(checkpointer=checkpointer, name="pipeline")
    )


graph = build_graph()
"""The graph ``langgraph dev`` serves (no checkpointer: the server brings its own)."""

WORKFLOW = Workflow(
    "pipeline",
    LIFECYCLE,
    SPECS,
    lambda **options: build_graph(**options),  # looked up when called: a test may replace build_graph
    roles=ROLES,
    judged_after=critics_word,
)
"""The pipeline workflow as Accord registers it (``accord.workflows`` entry point ``pipeline``)."""
