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
Each subtask has a title, a one-sentence description and acceptance criteria: concrete, checkable
statements about inputs and expected results, including edge cases such as empty input.
For an application, the first subtask defines the data: how items are kept in memory and the functions
that load them from and save them to the data file (a missing file means no items yet). Keep logic apart
from input and output: each feature is a function that takes
arguments and returns a result (no input() inside it), the data file's name is a constant, and the last
subtask is the command-line interface that calls those functions.
For a single function, use 1 to 3 subtasks. Never more than 8 subtasks.
Example subtask: title "Parse the input", description "Split the text into words.",
acceptance criteria ["split('a b') gives ['a', 'b']", "an empty string gives []"]."""


class SubtaskDraft(BaseModel):
    """One subtask of the plan."""

    title: str
    description: str
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
                acceptance_criteria=tuple(c for c in s.acceptance_criteria if c.strip())
                or (s.description.strip() or s.title,))
        for i, s in enumerate(draft.subtasks, 1)
    )
    return {"plan": dump(Plan(subtasks=subtasks, examples=task.examples))}
