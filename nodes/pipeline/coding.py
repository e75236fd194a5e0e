"""The pipeline on a function to write: the Planner plans the implementation and commits to examples of its
behaviour, the Executor writes the function from the plan, the Critic approves the code or corrects it.

A code plan is judged by its examples (``evals.benchmarks.humaneval.plan_holds``), as a question's plan is
by the option it leads to, so the Planner can be right or wrong on its own. Code travels as a fenced block
in a plain-text reply (``nodes.coding.writing``). The accountable Critic decides in a typed check, then
writes the corrected function when it finds the code wrong; the simple one answers in free text, and its
code is taken when its reply has some that parses (the code stands otherwise).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import partial
from typing import Any

from pydantic import BaseModel, Field

from accord.nodes.coding.prompts import FUNCTION_PROMPT, SYSTEM
from accord.nodes.coding.writing import function_module, write_function
from accord.nodes.llm import structured, text
from accord.nodes.pipeline.artifacts import Critique, Reasoning
from accord.nodes.pipeline.steps import Step, plan_steps
from accord.nodes.requests import expression, parse_examples
from accord.nodes.views import code_block, code_view, task_view
from accord.runtime.executor import perform
from accord.state.artifacts import CodeArtifact, Example, TaskSpec
from accord.state.graph_state import dump, read
from accord.state.stage import OutputError, StageCall, Work

PLANNER = """Plan how to implement the function: at most five short steps, in order. Then give up to three
examples of the behaviour the steps lead to: the arguments of a call of `{name}` and the value it returns,
each as Python."""

SAY_EXAMPLES = "\nEnd with the examples, one per line as `{name}(...) == value`."

CHECK = """Check the code against the task and the plan: does it return what the docstring asks, on every
case it implies? Say what you checked, then whether the code is correct."""

CORRECT = """{task}

Code:
{code}

The code is wrong: {check}
Return the corrected implementation of `{name}` in one ```python code block."""

CRITIC = """Check the code against the task and the plan: does it return what the docstring asks, on every
case it implies? If it is correct, answer APPROVED and nothing else. Otherwise say in one sentence what is
wrong, then give the corrected implementation of `{name}` in one ```python code block."""
"""The simple Critic's one free-text call."""

APPROVED = "APPROVED"


class ExampleDraft(BaseModel):
    """A call of the function, by its arguments, and the value it returns."""

    # The arguments, not the call: asked for a call, the small local model writes the argument alone.
    arguments: str = Field(max_length=300, description="the call's arguments as Python, e.g. [1, 2], 3")
    returns: str = Field(max_length=300, description="the value the call returns, as a Python literal")


class CodeCheckDraft(BaseModel):
    """A check of the code, then the decision."""

    check: str = Field(
        max_length=800, description="what was checked against the task, and what is wrong if anything"
    )
    correct: bool = Field(description="whether the code returns what the task asks on every case")


class CodePlanDraft(BaseModel):
    """A code plan: the steps first, then the behaviour they lead to."""

    steps: list[Step] = Field(
        min_length=1, max_length=5, description="the implementation steps, in order, one sentence each"
    )
    examples: list[ExampleDraft] = Field(
        min_length=1, max_length=3, description="calls of the function and the values they return"
    )


def _task(state: Mapping[str, Any]) -> TaskSpec:
    task = read(state, "task", TaskSpec)
    assert task is not None and task.entry_point is not None  # the contract's precondition, the intake's stub
    return task


def _calls(node: ast.expr | None, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def example(draft: ExampleDraft, name: str) -> Example:
    """Return the example ``draft`` states: ``name`` called with its arguments (or the whole call, when
    that is what they are), and the value it returns.

    Raises:
        OutputError: the call or the value does not parse as a Python expression.
    """
    arguments = draft.arguments.strip()
    call = arguments if _calls(expression(arguments), name) else f"{name}({arguments})"
    if not _calls(expression(call), name):
        raise OutputError(
            f"an example's arguments must be Python, as in `{name}(ARGUMENTS)`, not {arguments[:60]!r}"
        )
    if expression(draft.returns) is None:
        raise OutputError(f"an example's value must be a Python literal, not {draft.returns.strip()[:60]!r}")
    return Example(call=call, expected=draft.returns.strip())


def plan_view(plan: Reasoning) -> str:
    """Return a code plan as the Executor and the Critic read it: numbered steps, then its examples."""
    lines = [f"{n}. {step}" for n, step in enumerate(plan.steps, 1)]
    lines += [f"- {e.call} == {e.expected}" for e in plan.examples]
    return "\n".join(lines)


def plan_code(state: Mapping[str, Any], call: StageCall, free_text: bool = False) -> dict[str, Any]:
    """The Planner: implementation steps and examples of the behaviour they lead to."""
    task = _task(state)
    name = task.entry_point or ""
    system = PLANNER.format(name=name)

    def ask(**_: Any) -> Any:
        if free_text:
            return text(call, system + SAY_EXAMPLES.format(name=name), task_view(task), what="plan")
        return structured(call, CodePlanDraft, system, task_view(task))

    reply = perform(call, "CodePlanDraft", ask, task=task)
    if free_text:
        return {"reasoning": dump(Reasoning(steps=(reply.strip(),), examples=parse_examples(reply, name)))}
    examples = tuple(dict.fromkeys(example(e, name) for e in reply.examples))
    return {"reasoning": dump(Reasoning(steps=plan_steps(reply.steps, "implementation"), examples=examples))}


def write_code(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """The Executor: the function, written from the task and the plan."""
    task, plan = _task(state), read(state, "reasoning", Reasoning)
    assert plan is not None  # the contract's precondition
    prompt = FUNCTION_PROMPT.format(task=task_view(task), plan=plan_view(plan), name=task.entry_point)
    return {"code": dump(write_function(call, SYSTEM, task, prompt))}


def critique_code(state: Mapping[str, Any], call: StageCall, free_text: bool = False) -> dict[str, Any]:
    """The Critic: the code approved as it is, or corrected (the reason, then the code).

    Accountable: a typed check and decision, then, when the code is wrong, the corrected function in a
    second call (code travels best as plain text). Simple: one free-text reply, APPROVED or the code.
    """
    task, plan, given = _task(state), read(state, "reasoning", Reasoning), read(state, "code", CodeArtifact)
    assert plan is not None and given is not None  # the contract's precondition
    shown = f"{task_view(task)}\n\nPlan:\n{plan_view(plan)}\n\nCode:\n{code_view(given, task)}"
    if free_text:
        corrected, reason = _free_text_critique(call, task, given, shown)
    else:
        draft = perform(
            call,
            "CodeCheckDraft",
            lambda **_: structured(call, CodeCheckDraft, CHECK, shown),
            task=task,
            code=given,
        )
        reason, corrected = draft.check.strip() or "no reason given", None
        if not draft.correct:
            prompt = CORRECT.format(
                task=task_view(task), code=code_view(given, task), check=reason, name=task.entry_point
            )
            corrected = write_function(call, SYSTEM, task, prompt)
    if corrected is None or corrected == given:
        return {"critique": dump(Critique(approved=True, reason=reason[:800])), "code": dump(given)}
    return {"critique": dump(Critique(approved=False, reason=reason[:800])), "code": dump(corrected)}


def _free_text_critique(
    call: StageCall, task: TaskSpec, given: CodeArtifact, shown: str
) -> tuple[CodeArtifact | None, str]:
    """The simple Critic's reply: corrected code when it holds some that parses (else the code stands),
    and what it said."""

    def ask(**_: Any) -> str:
        return text(call, CRITIC.format(name=task.entry_point), shown, what="critique")

    reply = perform(call, "CodeCritique", ask, task=task, code=given, prompt=shown)
    if reply.strip().upper().startswith(APPROVED) or "```" not in reply:
        return None, reply.strip() or APPROVED
    try:
        corrected = function_module(task, code_block(reply, task.entry_point or ""))
    except OutputError:
        return None, reply.strip()
    return corrected, reply[: reply.index("```")].strip() or "the code is corrected"


def work(free_text: bool = False) -> dict[tuple[str, str], Work]:
    """Return each role's work on a function by (role, duty) (``free_text`` for the simple pipeline)."""
    return {
        ("planner", "plan_code"): partial(plan_code, free_text=free_text),
        ("executor", "write_code"): write_code,
        ("critic", "critique_code"): partial(critique_code, free_text=free_text),
    }
