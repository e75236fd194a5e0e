"""A plan's steps, shared by the pipeline's work on questions and on functions: each step a sentence."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field

from accord.state.stage import OutputError

Step = Annotated[str, Field(min_length=12, max_length=300)]
"""A plan's step, a question's or a function's: a sentence (a grammar-constrained small model fills a schema
that allows less with steps too short to be one)."""


def plan_steps(drafted: list[str], what: str) -> tuple[str, ...]:
    """Return the steps of ``drafted`` that are sentences.

    Raises:
        OutputError: none is (``what`` names the kind of steps the feedback asks for).
    """
    # A step is a sentence: a bare number or mark (a small model's list of "1", "2", ...) says nothing.
    steps = tuple(s.strip() for s in drafted if re.search(r"[^\W\d_]{3}", s))
    if not steps:
        raise OutputError(f"the plan has no steps: give the {what} steps, in order, one sentence each")
    return steps
