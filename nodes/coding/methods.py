"""A class written method by method: the model continues the module's source after each method that has
only its docstring, up to the method's end.

Asked in a chat for the whole class, the local model hands the skeleton back unchanged: 0 to 3 of 37
methods on the first 10 ClassEval tasks, with EvalPlus's instruction, ClassEval's own or one that names the
empty methods. Asked to continue the source after one method's docstring, it writes that method's body.
"""

from __future__ import annotations

import ast
import re

from accord.nodes.llm import continuation
from accord.nodes.merge import with_imports
from accord.nodes.views import FUNCTION_FILE
from accord.state.artifacts import CodeArtifact, Plan, TaskSpec
from accord.state.stage import OutputError, StageCall

BODY_TOKENS = 512
"""A method body's output limit: the longest reference method of ClassEval is about 400 tokens."""

STOPS = ("\nclass ", "\ndef ", "\nif __name__", "\n@", "\n#", "\nprint(", "\nimport ", "\nfrom ")
"""Where a continuation has left the class (the model's own usage examples, a next class); with the
method's own indentation before ``def``, ``@`` or ``async``, where it starts the next method. Anything
else that ends the method is cut by indentation (``body_of``)."""


def empty_methods(source: str, name: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Return the methods of the last class ``name`` in ``source`` whose body is a docstring at most
    (besides ``pass`` or ``...``), in order."""
    return [m for m in _methods(source, name) if _is_empty(m)]


def _methods(source: str, name: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Return the methods of the last class ``name`` in ``source`` (the one that runs), in order."""
    classes = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == name]
    return [
        n
        for n in (classes[-1].body if classes else [])
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _is_empty(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = method.body[1:] if ast.get_docstring(method) is not None else method.body
    return all(
        isinstance(s, ast.Pass)
        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and s.value.value is Ellipsis)
        for s in body
    )


def body_of(text: str, indent: int) -> str:
    """Return the lines of a continuation that belong to a method indented ``indent`` columns: up to the
    first code line indented no deeper (its next method, or code after the class)."""
    kept: list[str] = []
    for line in text.splitlines():
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        kept.append(line)
    return "\n".join(kept).rstrip()


def has_code(body: str) -> bool:
    """Whether a continuation holds a line of code: given failures as comments, the model can go on
    writing comments alone, which would leave the method empty behind its docstring."""
    return any(line.strip() and not line.lstrip().startswith("#") for line in body.splitlines())


def fill_method(
    call: StageCall,
    source: str,
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    preamble: str,
    temperature: float | None,
    hint: str = "",
) -> str:
    """Return ``source`` with ``method``'s body written by the model, continuing the source after the
    method's docstring (``preamble`` before the source and ``hint`` after the docstring, neither kept).
    A body that does not parse or holds no code is drawn once more, sampled; then the method stays empty,
    and the tests see it."""
    lines = source.splitlines(keepends=True)
    documented = ast.get_docstring(method) is not None
    head_end = method.body[0].end_lineno if documented else method.body[0].lineno - 1
    head, tail = "".join(lines[:head_end]), "".join(lines[method.end_lineno :])
    if not head.endswith("\n"):
        head += "\n"
    indent = " " * method.col_offset
    method_stops = tuple(f"\n{indent}{start}" for start in ("def ", "@", "async def "))
    for temperature_now in (temperature, max(temperature or 0.0, 0.6)):
        try:
            text = continuation(
                call,
                preamble + head + hint,
                (*STOPS, *method_stops),
                temperature_now,
                BODY_TOKENS,
                what="method",
            )
        except OutputError as exc:
            call.record("retry", outcome=method.name, detail=f"method {method.name}: {exc}"[:300])
            continue
        body = body_of(text, method.col_offset)
        if not has_code(body):
            call.record("retry", outcome=method.name, detail=f"method {method.name}: no body")
            continue
        filled = f"{head}{body}\n{tail}"
        try:
            ast.parse(filled)
        except SyntaxError as exc:
            call.record(
                "retry", outcome=method.name, detail=f"method {method.name} does not parse: {exc}"[:300]
            )
            continue
        return filled
    return source


def plan_comment(plan: Plan | None) -> str:
    """Return the plan as comment lines ahead of the source the model continues, or ''."""
    if plan is None or not plan.subtasks:
        return ""
    lines = [f"# {i}. {s.title}: {s.description}".rstrip(": ") for i, s in enumerate(plan.subtasks, 1)]
    return "# Plan:\n" + "\n".join(lines) + "\n\n"


def fill_class(
    call: StageCall,
    task: TaskSpec,
    code: CodeArtifact,
    plan: Plan | None = None,
    temperature: float | None = None,
) -> CodeArtifact:
    """Return ``code`` with every empty method of the task's class written, one continuation each, in
    order (each sees the methods before it written)."""
    source = code.files.get(FUNCTION_FILE, "")
    name = task.entry_point or ""
    done: set[str] = set()
    while todo := [m for m in empty_methods(source, name) if m.name not in done]:
        done.add(todo[0].name)
        source = fill_method(call, source, todo[0], plan_comment(plan), temperature)
    source = with_imports(source)
    return CodeArtifact(
        files={**code.files, FUNCTION_FILE: source}, entry_points=code.entry_points or (FUNCTION_FILE,)
    )


def implicated(source: str, name: str, failures: str) -> list[str]:
    """Return the methods of class ``name`` that the failures' names or tracebacks name, in order."""
    return [m.name for m in _methods(source, name) if re.search(rf"\b{re.escape(m.name)}\b", failures)]


def emptied(source: str, name: str, method_name: str) -> tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Return ``source`` with the body of method ``method_name`` of class ``name`` cut down to its
    docstring (or ``pass``), and that method as it parses there."""
    lines = source.splitlines(keepends=True)
    method = next(m for m in _methods(source, name) if m.name == method_name)
    documented = ast.get_docstring(method) is not None
    keep_to = method.body[0].end_lineno if documented else method.body[0].lineno - 1
    cut = "" if documented else " " * (method.col_offset + 4) + "pass\n"
    result = "".join([*lines[:keep_to], cut, *lines[method.end_lineno :]])
    return result, next(m for m in _methods(result, name) if m.name == method_name)


def failure_hint(failures: str, indent: int, limit: int = 600) -> str:
    """Return the failures as comment lines at a method body's indentation: what the rewritten body is
    to avoid."""
    pad = " " * (indent + 4)
    lines = [line.rstrip() for line in failures[:limit].splitlines() if line.strip()]
    return "".join(f"{pad}# {line}\n" for line in ["An earlier version failed these tests:", *lines])


def fix_methods(
    call: StageCall,
    task: TaskSpec,
    code: CodeArtifact,
    methods: list[str],
    failures: str,
    temperature: float | None = None,
) -> CodeArtifact:
    """Return ``code`` with each of ``methods`` written afresh, continuing the source after its docstring
    with the failures as comments: one continuation per failing method, not one per method of the class.
    A method the model cannot rewrite keeps its earlier body."""
    source = code.files.get(FUNCTION_FILE, "")
    name = task.entry_point or ""
    for method_name in methods:
        blank, method = emptied(source, name, method_name)
        filled = fill_method(call, blank, method, "", temperature, failure_hint(failures, method.col_offset))
        source = filled if filled != blank else source
    return CodeArtifact(
        files={**code.files, FUNCTION_FILE: with_imports(source)},
        entry_points=code.entry_points or (FUNCTION_FILE,),
    )
