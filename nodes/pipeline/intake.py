"""Pipeline intake: turn the request into a ``Question`` or a function ``TaskSpec``, by code (no model).

A request that parses as Python and holds a function stub (a signature and docstring, ``nodes.requests``) is
a function to write. Anything else is a multiple-choice question: its text followed by its options, one per
line, each opening with its letter: ``A. ...``, ``(A) ...``, ``A) ...`` or ``A: ...``, in order from A.
Anything else (no options, letters out of order, an empty or oversized request) is refused before any
model is called.
"""

from __future__ import annotations

import re

from accord.nodes.pipeline.artifacts import Question
from accord.nodes.requests import parse_request
from accord.state.artifacts import TaskSpec
from accord.state.stage import OutputError

MAX_QUESTION_CHARS = 12_000
"""A long LSAT passage with its options is under 4,000 characters; the local models' context holds 8k
tokens for the question and the stages' work."""
OPTION = re.compile(r"^\s*\(?([A-J])\s*[.):]\s*(.*\S)\s*$")


def parse_question(request: str) -> Question:
    """Return the question ``request`` states, its options lettered from A.

    Raises:
        OutputError: the request is empty, oversized, or does not end in options A, B, ... one per line.
    """
    text = request.strip()
    if not text:
        raise OutputError("the question is empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise OutputError(f"the question has {len(text):,} characters; the limit is {MAX_QUESTION_CHARS:,}")
    lines = text.splitlines()
    # The last line opening with "A": a passage may itself have a line that opens like an option.
    start = next(
        (i for i in reversed(range(len(lines))) if (m := OPTION.match(lines[i])) and m[1] == "A"), None
    )
    if start is None:
        raise OutputError(
            "no options: end the question with its options, one per line, "
            "each opening with its letter (A. ..., B. ...)"
        )
    options: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            continue
        match = OPTION.match(line)
        if match is None or match[1] != "ABCDEFGHIJ"[len(options)]:
            raise OutputError(
                f"options must follow the question one per line, lettered in order from A; "
                f"not {line.strip()[:60]!r}"
            )
        options.append(match[2])
    question = "\n".join(lines[:start]).strip()
    if not question:
        raise OutputError("the options have no question before them")
    if len(options) < 2:
        raise OutputError("a multiple-choice question needs at least two options")
    return Question(text=question, options=tuple(options))


def parse_pipeline_request(request: str) -> Question | TaskSpec:
    """Return the function task a stub states, else the question ``request`` states.

    Raises:
        OutputError: the request is neither (``parse_question``'s reasons).
    """
    try:
        task = parse_request(request)
    except OutputError:
        task = None  # a question may look like broken Python ("from the passage, ..."); judge it as one
    if task is not None and task.level == "function":
        return task
    try:
        return parse_question(request)
    except OutputError as exc:
        if str(exc).startswith("no options"):
            raise OutputError(
                f"{exc}; or give a Python function stub (its signature and docstring) to write"
            ) from exc
        raise
