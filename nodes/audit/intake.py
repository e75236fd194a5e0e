"""Audit intake: turn code to audit into an ``AuditTask``, by code (no model).

The language comes from the source's suffix, else from the code itself: code Python parses (once
dedented: a method cut out of its class is indented) is Python; code with C's punctuation and keywords is
C, or C++ when it uses C++'s own syntax. Anything else is refused, as is an empty, binary or oversized
request, before any model is called. ``function`` picks one function out of a file; the task keeps its
line numbers, so every finding cites the lines of the file.
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import PurePath

from accord.nodes.audit.artifacts import AuditTask, Language
from accord.state.stage import OutputError

MAX_AUDIT_CHARS = 20_000
"""About 500 lines: what the local models' context holds with room for the analysis."""
SUFFIXES: dict[str, Language] = {
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".py": "python",
}
C_KEYWORDS = re.compile(r"\b(int|char|void|return|static|struct|unsigned|const|if|for|while|sizeof)\b")
CPP_SYNTAX = re.compile(r"::|\btemplate\s*<|\bnamespace\b|\bclass\s+\w+\s*[:{]|\bnew\s+\w+|\bdelete\b")
PYTHON_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Assign)


def _python(code: str) -> ast.Module | None:
    """Return the module ``code`` parses to as Python (dedented), or None when it is not Python code."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except (SyntaxError, ValueError):
        return None
    return tree if any(isinstance(node, PYTHON_NODES) for node in ast.walk(tree)) else None


def language_of(code: str, source: str = "") -> Language:
    """Return the code's language: by the source's suffix, else by the code.

    Raises:
        OutputError: neither tells (the request is prose, data or an unsupported language).
    """
    if language := SUFFIXES.get(PurePath(source).suffix.lower()):
        return language
    if _python(code) is not None:
        return "python"
    if re.search(r"[;{}]", code) and C_KEYWORDS.search(code):
        return "cpp" if CPP_SYNTAX.search(code) else "c"
    raise OutputError("the request is not C, C++ or Python code; give a source file or a function")


def _python_function(code: str, name: str) -> tuple[str, int]:
    tree = _python(code)
    found = (
        [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
        ]
        if tree
        else []
    )
    if not found:
        raise OutputError(f"no Python function {name!r} in the code")
    node = found[0]
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    lines = code.splitlines()
    return "\n".join(lines[first - 1 : node.end_lineno]), first


def _c_function(code: str, name: str) -> tuple[str, int]:
    """Return a C/C++ function's definition (signature to closing brace) and its first line."""
    for match in re.finditer(rf"\b{re.escape(name)}\s*\(", code):
        line_start = code.rfind("\n", 0, match.start()) + 1
        body = code.find("{", match.end())
        header = code[match.end() : body]
        if body < 0 or ";" in header:  # a call or a declaration, not the definition
            continue
        depth = 0
        for end in range(body, len(code)):
            depth += {"{": 1, "}": -1}.get(code[end], 0)
            if depth == 0:
                return code[line_start : end + 1], code.count("\n", 0, line_start) + 1
    raise OutputError(f"no definition of the C/C++ function {name!r} in the code")


def parse_audit_request(request: object, source: str = "", function: str | None = None) -> AuditTask:
    """Return the AuditTask for code to audit.

    Raises:
        OutputError: the request is empty, too large, binary or not code, or has no such function.
    """
    code = request if isinstance(request, str) else ""
    if not code.strip():
        raise OutputError("the request is empty: give the code to audit")
    if "\x00" in code:
        raise OutputError("the request contains binary data (NUL bytes)")
    if len(code) > MAX_AUDIT_CHARS:
        raise OutputError(
            f"the code has {len(code):,} characters; the limit is {MAX_AUDIT_CHARS:,} "
            "(pick one function with --function)"
        )
    language = language_of(code, source)
    first_line = 1
    if function:
        extract = _python_function if language == "python" else _c_function
        code, first_line = extract(code, function)
    return AuditTask(
        language=language, code=code.rstrip(), first_line=first_line, function=function, source=source
    )
