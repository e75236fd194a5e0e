"""The pipeline on a function to write: the Planner plans the implementation and commits to examples of its
behaviour, the Executor writes the function from the plan, the Critic approves the code or corrects it.

A code plan is judged by its examples (``evals.humaneval.plan_holds``), as a question's plan is by the
option it leads to, so the Planner can be right or wrong on its own. Code travels as a fenced block in a
plain-text reply (``nodes.coder.writing``); the accountable Critic must answer APPROVED or give code that
parses and defines the function, the simple one's code is taken when its reply has some, and the code
stands otherwise.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import partial
from typing import Annotated, Any

from pydantic import BaseModel, Field

from nodes.coder.prompts import FUNCTION_PROMPT, SYSTEM
from nodes.coder.writing import function_module, write_function
from nodes.intake import parse_examples
from nodes.llm import structured, text
from nodes.views import code_block, code_view, task_view
from runtime.executor import perform
from state.artifacts import CodeArtifact, Critique, Example, Reasoning, TaskSpec
from state.graph_state import dump, read
from state.stage import OutputError, StageCall, Work

PLANNER = """Plan how to implement the function: at most five short steps, in order. Then give up to three
examples of the behaviour the steps lead to: a call of `{name}` and the value it returns, each a Python
expression."""

SAY_EXAMPLES = "\nEnd with the examples, one per line as `{name}(...) == value`."

CRITIC = """Check the code against the task and the plan: does it return what the docstring asks, on every
case it implies? If it is correct, answer APPROVED and nothing else. Otherwise say in one sentence what is
wrong, then give the corrected implementation of `{name}` in one ```python code block."""

APPROVED = "APPROVED"
Step = Annotated[str, Field(max_length=300)]


class ExampleDraft(BaseModel):
    """A call of the function and the value it returns."""

    call: str = Field(max_length=300, description="a call of the function, e.g. add(1, 2)")
    expected: str = Field(max_length=300, description="the value it returns, as a Python literal, e.g. 3")


class CodePlanDraft(BaseModel):
    """A code plan: the steps first, then the behaviour they lead to."""

    steps: list[Step] = Field(min_length=1, max_length=5,
                              description="the implementation steps, in order, one sentence each")
    examples: list[ExampleDraft] = Field(min_length=1, max_length=3,
                                         description="calls of the function and the values they return")


def _task(state: Mapping[str, Any]) -> TaskSpec:
    task = read(state, "task", TaskSpec)
    assert task is not None and task.entry_point is not None  # the contract's precondition, the intake's stub
    return task


def _expression(source: str) -> ast.expr | None:
    try:
        return ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return None


def example(draft: ExampleDraft, name: str) -> Example:
    """Return the example ``draft`` states: a call of ``name`` and a value, each a Python expression.

    Raises:
        OutputError: the call is not a call of ``name``, or either side does not parse.
    """
    call, expected = _expression(draft.call), _expression(draft.expected)
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == name):
        raise OutputError(f"an example's call must call `{name}(...)` as a Python expression, "
                          f"not {draft.call.strip()[:60]!r}")
    if expected is None:
        raise OutputError(f"an example's value must be a Python expression, "
                          f"not {draft.expected.strip()[:60]!r}")
    return Example(call=draft.call.strip(), expected=draft.expected.strip())


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
    steps = tuple(s.strip() for s in reply.steps if s.strip())
    if not steps:
        raise OutputError("the plan has no steps: give the implementation steps, in order, one sentence each")
    return {"reasoning": dump(Reasoning(steps=steps, examples=examples))}


def write_code(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """The Executor: the function, written from the task and the plan."""
    task, plan = _task(state), read(state, "reasoning", Reasoning)
    assert plan is not None  # the contract's precondition
    prompt = FUNCTION_PROMPT.format(task=task_view(task), plan=plan_view(plan), name=task.entry_point)
    return {"code": dump(write_function(call, SYSTEM, task, prompt))}


def critique_code(state: Mapping[str, Any], call: StageCall, free_text: bool = False) -> dict[str, Any]:
    """The Critic: the code approved as it is, or corrected (the reason, then the code)."""
    task, plan, given = _task(state), read(state, "reasoning", Reasoning), read(state, "code", CodeArtifact)
    assert plan is not None and given is not None  # the contract's precondition
    prompt = f"{task_view(task)}\n\nPlan:\n{plan_view(plan)}\n\nCode:\n{code_view(given, task)}"

    def ask(**_: Any) -> str:
        return text(call, CRITIC.format(name=task.entry_point), prompt, what="critique")

    reply = perform(call, "CodeCritique", ask, task=task, code=given, prompt=prompt)
    corrected: CodeArtifact | None = None
    if reply.strip().upper().startswith(APPROVED):
        pass  # approved, whatever follows (a small model restates the code it approves)
    elif "```" in reply:
        try:
            corrected = function_module(task, code_block(reply, task.entry_point or ""))
        except OutputError:
            if not free_text:
                raise
    elif not free_text:
        raise OutputError(f"answer {APPROVED}, or say what is wrong and give the corrected function in one "
                          f"```python code block")
    if corrected is None or corrected == given:
        return {"critique": dump(Critique(approved=True, reason=APPROVED)), "code": dump(given)}
    reason = reply[:reply.index("```")].strip() or "the code is corrected"
    return {"critique": dump(Critique(approved=False, reason=reason[:800])), "code": dump(corrected)}


def work(free_text: bool = False) -> dict[tuple[str, str], Work]:
    """Return each role's work on a function by (role, duty) (``free_text`` for the simple pipeline)."""
    return {("planner", "plan_code"): partial(plan_code, free_text=free_text),
            ("executor", "write_code"): write_code,
            ("critic", "critique_code"): partial(critique_code, free_text=free_text)}
