"""Intake: turn the user's request into a TaskSpec, by code (no model).

A request that parses as Python and holds a function whose body is only a docstring (or ``pass``/``...``),
after any imports of its own, is a function-level task: that function (the last such) is the entry point,
and the examples stated in its docstring (doctest lines, or ``f(x) == y`` / ``f(x) ➞ y`` / ``f(x) => y``
lines) become executable examples. One that holds no such function but a class skeleton (a class with a
stub method that has a docstring) is a class-level task: the class (the last such) is the entry point, and
its methods' doctest examples become examples, each with the statements before it that print nothing
(``stack = Stack()``) as its setup. Anything else is an application-level task.
"""

from __future__ import annotations

import ast
import doctest
import inspect
import re
from collections.abc import Mapping
from typing import Any

from accord.state.artifacts import Example, TaskSpec
from accord.state.stage import OutputError

MAX_REQUEST_CHARS = 50_000
PYTHON_START = re.compile(r"(def|async def|class|import|from|@)\s")
"""A request whose first line starts like this is Python, whatever else it holds."""
_ARROW = re.compile(r"^\s*(?P<call>[A-Za-z_]\w*\(.*\))\s*(?:==|➞|=>|->|→)\s*(?P<expected>.+?)\s*$")


def _stub_docstring(node: ast.FunctionDef) -> str | None:
    """Return a stub's docstring (``""`` if it has none), or None if ``node`` is not a stub.

    A stub's body is its docstring and ``pass``/``...``, after any imports it makes for itself (a stub may
    import inside the function, before its docstring, where ``ast.get_docstring`` does not look).
    """
    body = list(node.body)
    while body and isinstance(body[0], (ast.Import, ast.ImportFrom)):
        body.pop(0)
    docstring = ""
    first = body[0].value if body and isinstance(body[0], ast.Expr) else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        docstring = inspect.cleandoc(first.value)
        body.pop(0)
    stub = all(
        isinstance(s, ast.Pass)
        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and s.value.value is Ellipsis)
        for s in body
    )
    return docstring if stub else None


def expression(text: str) -> ast.expr | None:
    """Return the Python expression ``text`` parses as, or None when it does not parse as one."""
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None


def _valid_expression(text: str) -> bool:
    return expression(text) is not None


def _valid_statement(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def parse_examples(docstring: str, entry_point: str) -> tuple[Example, ...]:
    """Return the examples a docstring states for ``entry_point``.

    A doctest example's setup is the docstring's earlier statements that print nothing (an instance made
    for a method's example); it counts as an example of ``entry_point`` when the call or its setup names it.
    """
    examples: list[Example] = []
    try:
        parsed = doctest.DocTestParser().get_examples(docstring)
    except ValueError:
        parsed = []
    setup: list[str] = []
    for ex in parsed:
        call, expected = ex.source.strip(), ex.want.strip()
        if not expected:
            setup.append(call)
            continue
        names = entry_point in call or any(entry_point in s for s in setup)
        # What print() shows is not a value to compare; a setup line that does not parse (a doctest
        # continued without its "..." prompts) leaves nothing to run.
        printed = call.startswith("print(")
        if (
            names
            and not printed
            and all(_valid_statement(s) for s in setup)
            and _valid_expression(call)
            and _valid_expression(expected)
        ):
            examples.append(Example(call=call, expected=expected, setup=tuple(setup)))
    if not examples:
        for line in docstring.splitlines():
            match = _ARROW.match(line)
            if match and match["call"].startswith(entry_point + "("):
                call, expected = match["call"], match["expected"].rstrip(".")
                if _valid_expression(call) and _valid_expression(expected):
                    examples.append(Example(call=call, expected=expected))
    return tuple(dict.fromkeys(examples))


def _class_skeleton(node: ast.ClassDef) -> tuple[str, ...] | None:
    """Return the docstrings of a class skeleton's stub methods (the class's own first), or None if
    ``node`` is not one: a class with at least one stub method that has a docstring (its other methods,
    such as an ``__init__`` that sets the fields, are given code)."""
    stubs = [d for n in node.body if isinstance(n, ast.FunctionDef) if (d := _stub_docstring(n)) is not None]
    if not any(stubs):
        return None
    return (ast.get_docstring(node) or "", *(d for d in stubs if d))


def request_of(state: Mapping[str, Any]) -> str:
    """Return the run's request: its ``request`` field, else the text of the last human message (a task
    sent over A2A or typed into Studio's chat)."""
    if request := state.get("request"):
        return str(request)
    human = [m for m in state.get("messages", []) if getattr(m, "type", None) == "human"]
    return human[-1].text if human else ""


def parse_request(request: str) -> TaskSpec:
    """Return the TaskSpec for a request.

    Raises:
        OutputError: the request is empty, too large, or not text.
    """
    text = request.strip() if isinstance(request, str) else ""
    if not text:
        raise OutputError("the request is empty: give a task description or a Python stub")
    if len(text) > MAX_REQUEST_CHARS:
        raise OutputError(f"the request has {len(text):,} characters; the limit is {MAX_REQUEST_CHARS:,}")
    if "\x00" in text:
        raise OutputError("the request contains binary data (NUL bytes)")
    try:
        tree = ast.parse(request)
    except SyntaxError as exc:
        if PYTHON_START.match(text):  # meant as a stub: building an application from it would be a guess
            raise OutputError(
                f"the request starts as Python but does not parse (line {exc.lineno}: "
                f"{exc.msg}); fix the stub, or describe the task in prose"
            ) from exc
        return TaskSpec(request=request, level="application")
    functions = [(n, _stub_docstring(n)) for n in tree.body if isinstance(n, ast.FunctionDef)]
    stubs = [(n, doc) for n, doc in functions if doc is not None]
    if stubs:
        stub, docstring = stubs[-1]
        return TaskSpec(
            request=request,
            level="function",
            entry_point=stub.name,
            stub=request,
            examples=parse_examples(docstring, stub.name),
        )
    classes = [
        (n, docs)
        for n in tree.body
        if isinstance(n, ast.ClassDef)
        if (docs := _class_skeleton(n)) is not None
    ]
    if classes:
        skeleton, docstrings = classes[-1]
        examples = tuple(dict.fromkeys(e for d in docstrings for e in parse_examples(d, skeleton.name)))
        return TaskSpec(
            request=request, level="class", entry_point=skeleton.name, stub=request, examples=examples
        )
    return TaskSpec(request=request, level="application")
