"""The pipeline workflow's own artifacts: a multiple-choice question, the Planner's reasoning, the
Executor's answer and the Critic's check."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from accord.state.artifacts import Example, Frozen, register_artifact

Letter = Annotated[str, Field(pattern=r"^[A-J]$")]
"""An option's letter."""


@register_artifact
class Question(Frozen):
    """A multiple-choice question, normalised by the pipeline's intake: the text, then options A, B, ..."""

    kind: Literal["question"] = "question"
    text: str = Field(min_length=1)
    """The passage and the question, without the options."""
    options: tuple[str, ...] = Field(min_length=2, max_length=10)

    @property
    def letters(self) -> str:
        """Return the options' letters, in order (``ABCD``)."""
        return "ABCDEFGHIJ"[: len(self.options)]

    def shown(self) -> str:
        """Return the question as the roles read it: the text, then one lettered option per line."""
        lettered = zip(self.letters, self.options, strict=True)
        return self.text + "\n\n" + "\n".join(f"{letter}. {option}" for letter, option in lettered)


@register_artifact
class Reasoning(Frozen):
    """The pipeline Planner's plan: the steps, and what they commit to (for a question, the option they
    lead to; for code, examples of the behaviour they lead to)."""

    kind: Literal["reasoning"] = "reasoning"
    steps: tuple[str, ...] = Field(min_length=1)
    leads_to: Letter | None = None
    """The option the steps lead to: what a question's plan is judged by (None: a free-text plan that names
    none, judged wrong)."""
    examples: tuple[Example, ...] = ()
    """For code: calls and the values the steps lead them to return, what a code plan is judged by."""

    def text(self) -> str:
        """Return the steps, the option they lead to and their examples, as one paragraph."""
        examples = "; ".join(f"{e.call} == {e.expected}" for e in self.examples)
        leads_to = f" So: {self.leads_to}." if self.leads_to else ""
        return " ".join(self.steps) + leads_to + (f" Examples: {examples}." if examples else "")


@register_artifact
class Answer(Frozen):
    """An option chosen, with why."""

    kind: Literal["answer"] = "answer"
    choice: Letter
    justification: str = Field(min_length=1)

    def text(self) -> str:
        """Return the choice and why."""
        return f"{self.choice}: {self.justification}"


@register_artifact
class Critique(Frozen):
    """The Critic's check of an answer: approved as it is, or corrected (the ``answer`` then changes)."""

    kind: Literal["critique"] = "critique"
    approved: bool
    reason: str = Field(min_length=1)

    def text(self) -> str:
        """Return the Critic's word and its reason."""
        return ("approved: " if self.approved else "corrected: ") + self.reason
