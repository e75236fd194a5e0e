"""The pipeline graph: the accountability paper's Planner → Executor → Critic on a multiple-choice question.

initialized (intake: the question and its lettered options) → planning (the Planner's reasoning steps and
the option they lead to) → executing (the Executor's answer) → critiquing (the Critic approves the answer
or corrects it) → completed, or failed when a contract cannot be met. ``LIFECYCLE`` is the single source
of truth for the edges, compiled by the same compiler as the other workflows; each role may have a model
of its own (``Context.role_models``).

Blame reads every stage's answer: the plan is judged by the option it leads to (the Planner commits to one,
so that a plan can be right or wrong on its own and the Executor can repair or harm it), the Executor's and
the Critic's by the option they choose.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from graphs.compiler import Compiler, Gate
from graphs.duties import roles_from_specs
from graphs.oracle import Oracle
from nodes.intake import request_of
from nodes.pipeline import work
from nodes.pipeline.intake import parse_question
from nodes.pipeline.roles import SPECS
from state.artifacts import Answer, Critique, Question, Reasoning
from state.graph_state import dump, read
from state.lifecycle import Lifecycle, Stage, Transition, with_budget
from state.stage import StageCall

LIFECYCLE = with_budget(Lifecycle(
    name="pipeline",
    initial="initialized",
    stages=(
        Stage(name="initialized", roles=("intake",), duty="intake", outcomes=("pass", "fail")),
        Stage(name="planning", roles=("planner",), duty="plan", outcomes=("pass", "fail")),
        Stage(name="executing", roles=("executor",), duty="execute", outcomes=("pass", "fail")),
        Stage(name="critiquing", roles=("critic",), duty="critique",
              outcomes=("approved", "corrected", "fail")),
        Stage(name="completed", terminal=True, status="completed"),
        Stage(name="failed", terminal=True, status="failed"),
    ),
    transitions=(
        Transition(source="initialized", outcome="pass", target="planning"),
        Transition(source="planning", outcome="pass", target="executing"),
        Transition(source="executing", outcome="pass", target="critiquing"),
        Transition(source="critiquing", outcome="approved", target="completed"),
        Transition(source="critiquing", outcome="corrected", target="completed"),
        *(Transition(source=s, outcome="fail", target="failed")
          for s in ("initialized", "planning", "executing", "critiquing")),
    ),
), target="failed")


def intake(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Turn the request into a question with lettered options (LOCAL_CODE)."""
    return {"question": dump(parse_question(request_of(state)))}


def gate_question(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass a well-formed question."""
    question = read(state, "question", Question)
    assert question is not None
    return "pass", f"{len(question.options)} options ({question.letters})"


def gate_plan(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass a plan (its contract checked it)."""
    plan = read(state, "reasoning", Reasoning)
    assert plan is not None
    return "pass", f"{len(plan.steps)} steps, leading to {plan.leads_to or 'no option'}"


def gate_answer(state: Mapping[str, Any]) -> tuple[str, str]:
    """Pass an answer that names an option (its contract checked it)."""
    answer = read(state, "answer", Answer)
    assert answer is not None
    return "pass", f"{answer.choice}: {answer.justification[:200]}"


def gate_critique(state: Mapping[str, Any]) -> tuple[str, str]:
    """The Critic's decision: the answer approved, or corrected to another option."""
    critique, answer = read(state, "critique", Critique), read(state, "answer", Answer)
    assert critique is not None and answer is not None
    return ("approved" if critique.approved else "corrected"), f"{answer.choice}: {critique.reason[:200]}"


WORK = {("intake", "intake"): intake,
        **{(role, SPECS[role].duties[0].name): w for role, w in work.work().items()}}
ROLES = roles_from_specs(SPECS, WORK)
GATES: dict[str, Gate] = {"initialized": gate_question, "planning": gate_plan, "executing": gate_answer,
                          "critiquing": gate_critique}


def answer_candidate(state: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A pipeline's candidate result: the answer, else the plan (judged by the option it leads to)."""
    if state.get("answer"):
        return "answer", state["answer"]
    if state.get("reasoning"):
        return "plan", state["reasoning"]
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

    return Oracle(name=name, judges={"plan": plan_right, "answer": answer_right}, candidate=answer_candidate)


def build_graph(models: Mapping[str, BaseChatModel] | None = None, checkpointer: Checkpointer = None,
                oracle: Oracle | None = None) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the pipeline graph.

    Args:
        models: scripted models by role (tests), else the Context's endpoints are used.
        checkpointer: where checkpoints go (None for ``langgraph dev``, which brings its own).
        oracle: judges every stage's answer for blame (evals pass the gold option's oracle).
    """
    return Compiler(LIFECYCLE, ROLES, GATES, models, oracle).build().compile(checkpointer=checkpointer,
                                                                             name="pipeline")


graph = build_graph()
"""The graph ``langgraph dev`` serves (no checkpointer: the server brings its own)."""
