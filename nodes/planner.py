"""The Planner: decomposes the task into ordered subtasks with acceptance criteria (LLM)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from graphs.compiler import StageCall
from nodes.llm import structured
from nodes.views import artifacts, task_view
from state.artifacts import Plan, Subtask
from state.contracts import Contract
from state.graph_state import dump

CONTRACT = Contract(role="planner", duty="plan", inputs=("task",), outputs=("plan",))

SYSTEM = """You are the Planner of a small software team (Planner, Coder, Debugger, Reviewer).
Break the task into a short ordered list of subtasks that a Coder can implement one at a time.
Each subtask has a title, a one-sentence description, the one Python function it writes (name and
parameters) and acceptance criteria: concrete, checkable statements about inputs and expected results,
including edge cases such as empty input.
For an application, the first subtask is the data: load_items(path) reads the items from the data file
(a missing file means no items yet) and save_items(path, items) writes them. Keep logic apart from input
and output: each feature is a function that takes the items as a parameter and returns a result (no
input() inside it), and the last subtask is the command-line interface main() that calls them.
For a single function, use 1 to 3 subtasks. Never more than 8 subtasks.
Example subtask: title "Parse the input", description "Split the text into words.", function
"split_words(text)", acceptance criteria ["split_words('a b') gives ['a', 'b']", "'' gives []"]."""


class SubtaskDraft(BaseModel):
    """One subtask of the plan."""

    title: str
    description: str
    function: str = Field(description="the function it writes, with parameters, e.g. add_item(items, text)")
    acceptance_criteria: list[str] = Field(max_length=4)


class PlanDraft(BaseModel):
    """The plan: ordered subtasks."""

    # Bounded lists: the server's grammar enforces maxItems, so a small model cannot ramble on.
    subtasks: list[SubtaskDraft] = Field(max_length=8)


def plan(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write the plan; the task's own examples are carried over by code, not retyped by the model."""
    task, _, _ = artifacts(state)
    draft = structured(call, PlanDraft, SYSTEM, task_view(task))
    subtasks = tuple(
        Subtask(title=s.title.strip() or f"step {i}", description=s.description.strip(),
                function=s.function.strip(),
                acceptance_criteria=tuple(c for c in s.acceptance_criteria if c.strip())
                or (s.description.strip() or s.title,))
        for i, s in enumerate(draft.subtasks, 1)
    )
    return {"plan": dump(Plan(subtasks=subtasks, examples=task.examples))}
