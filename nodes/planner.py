"""The Planner: decomposes the task into ordered subtasks with acceptance criteria (LLM)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from graphs.compiler import OutputError, StageCall
from nodes.llm import retry_temperature, structured
from nodes.views import artifacts, task_view
from state.artifacts import Plan, Subtask
from state.contracts import Contract
from state.graph_state import dump

CONTRACT = Contract(role="planner", duty="plan", inputs=("task",), outputs=("plan",))

SYSTEM = """You are the Planner of a small software team (Planner, Coder, Debugger, Reviewer).
Break the task into a short ordered list of subtasks that a Coder can implement one at a time.
Each subtask has a title, a one-sentence description and acceptance criteria: concrete, checkable
statements about inputs and expected results, including edge cases such as empty input.
For an application, keep logic apart from input and output: each feature is a function that takes
arguments and returns a result (no input() inside it), the data file's name is a constant, and the last
subtask is the command-line interface that calls those functions.
For a single function, use 1 to 3 subtasks. Never more than 8 subtasks.
Example subtask: title "Parse the input", description "Split the text into words.",
acceptance criteria ["split('a b') gives ['a', 'b']", "an empty string gives []"]."""
"""For a function stub: the prompt the HumanEval runs were measured with (a small model's greedy output
shifts with any change of wording)."""

APPLICATION_SYSTEM = """You are the Planner of a small software team (Planner, Coder, Debugger, Reviewer).
Break the task into a short ordered list of subtasks that a Coder can implement one at a time.
Each subtask has a title, a one-sentence description, the one Python function it writes (name and
parameters) and acceptance criteria: concrete, checkable statements about inputs and expected results,
including edge cases such as empty input.
The first subtask is the data: load_items(path) reads the items from the data file (a missing file means
no items yet) and save_items(path, items) writes them. Keep logic apart from input and output: each
feature is a function that takes the items as a parameter and returns a result (no input() inside it),
and the last subtask is the command-line interface main() that calls them. Never more than 8 subtasks.
Example subtask: title "Parse the input", description "Split the text into words.", function
"split_words(text)", acceptance criteria ["split_words('a b') gives ['a', 'b']", "'' gives []"]."""


class SubtaskDraft(BaseModel):
    """One subtask of the plan."""

    title: str
    description: str
    acceptance_criteria: list[str] = Field(max_length=4)


class AppSubtaskDraft(SubtaskDraft):
    """One subtask of an application's plan: it names the function it writes."""

    function: str = Field(description="the function it writes, with parameters, e.g. add_item(items, text)")


class PlanDraft(BaseModel):
    """The plan: ordered subtasks."""

    # Bounded lists: the server's grammar enforces maxItems, so a small model cannot ramble on.
    subtasks: list[SubtaskDraft] = Field(max_length=8)


class AppPlanDraft(BaseModel):
    """An application's plan: ordered subtasks, each naming its function."""

    subtasks: list[AppSubtaskDraft] = Field(max_length=8)


MIN_APPLICATION_SUBTASKS = 2
"""A floor, not a target: one feature plus its command-line interface."""


def application_plan_problems(draft: AppPlanDraft) -> list[str]:
    """Return why a draft cannot be an application's plan: too few subtasks, functions unnamed or repeated."""
    problems = []
    if len(draft.subtasks) < MIN_APPLICATION_SUBTASKS:
        problems.append(f"an application needs at least {MIN_APPLICATION_SUBTASKS} subtasks (the data, one "
                        f"per feature the task asks for, the command-line interface); this plan has "
                        f"{len(draft.subtasks)}")
    names = [s.function.split("(")[0].strip() for s in draft.subtasks]
    if unnamed := [s.title for s, name in zip(draft.subtasks, names, strict=True) if not name]:
        problems.append(f"subtasks without a function: {unnamed}")
    if repeated := sorted({n for n in names if n and names.count(n) > 1}):
        problems.append(f"two subtasks write the same function: {repeated}")
    return problems


def plan(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write the plan; the task's own examples are carried over by code, not retyped by the model.

    Raises:
        OutputError: an application's plan is too thin to build from (the contract wrapper retries with
            the reason as feedback).
    """
    task, _, _ = artifacts(state)
    draft: PlanDraft | AppPlanDraft
    if task.level == "application":
        # A plan refused for being thin is asked for again by sampling, not greedily.
        temperature = retry_temperature(call) if call.feedback else None
        draft = structured(call, AppPlanDraft, APPLICATION_SYSTEM, task_view(task), temperature=temperature)
        if problems := application_plan_problems(draft):
            raise OutputError("; ".join(problems))
    else:
        draft = structured(call, PlanDraft, SYSTEM, task_view(task))
    subtasks = tuple(
        Subtask(title=s.title.strip() or f"step {i}", description=s.description.strip(),
                function=getattr(s, "function", "").strip(),
                acceptance_criteria=tuple(c for c in s.acceptance_criteria if c.strip())
                or (s.description.strip() or s.title,))
        for i, s in enumerate(draft.subtasks, 1)
    )
    return {"plan": dump(Plan(subtasks=subtasks, examples=task.examples))}
