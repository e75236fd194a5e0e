"""Merging code by top-level definitions (LOCAL_CODE), so each model call only writes what is new.

A small model asked to return a whole growing module drops what was there; asked for just the new or
changed definitions, it does well. ``merge_module`` folds such a piece into a module: a definition
replaces the same-named one, imports are unioned at the top, a ``__main__`` block stays last, other
statements are appended once; calls at module level ("example usage") are dropped. ``without_checks``
keeps a function task's module to its definitions. ``without_calls`` takes an application's storage calls
out of its features, which ``main()`` loads and saves for.
"""

from __future__ import annotations

import ast
import itertools
import sys

from accord.nodes.views import defines

_MAIN = ("main",)
_STRAY = (ast.Return, ast.Break, ast.Continue)


def _escape_newlines_in_strings(code: str) -> str:
    """Return ``code`` with raw newlines inside single-line string literals written as ``\\n``."""
    out: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(code):
        c = code[i]
        if quote is None:
            if c == "#":
                end = code.find("\n", i)
                end = len(code) if end < 0 else end
                out.append(code[i:end])
                i = end
                continue
            if c in "'\"":
                quote = c * 3 if code.startswith(c * 3, i) else c
                out.append(quote)
                i += len(quote)
                continue
        elif c == "\\":
            out.append(code[i : i + 2])
            i += 2
            continue
        elif code.startswith(quote, i):
            out.append(quote)
            i += len(quote)
            quote = None
            continue
        elif c == "\n" and len(quote) == 1:
            out.append("\\n")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def repaired(code: str) -> str:
    """Return model-written code that parses, repairing under-escaped string literals if needed.

    Code inside a JSON string loses one level of escaping when a small model writes ``"\\n"`` as
    ``"\n"``: the decoded source then has a raw newline inside a ``'...'`` literal. That is the only
    repair made, and only when the result parses.

    Raises:
        SyntaxError: the code does not parse, repaired or not.
    """
    try:
        ast.parse(code)
        return code
    except SyntaxError as original:
        fixed = _escape_newlines_in_strings(code)
        try:
            ast.parse(fixed)
        except SyntaxError:
            raise original from None
        return fixed


def _key(node: ast.stmt, source: str) -> tuple[str, ...]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return ("def", node.name)
    if isinstance(node, ast.Import | ast.ImportFrom):
        return ("import", ast.get_source_segment(source, node) or "")
    if (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    ):
        return _MAIN
    if isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return ("assign", *sorted(ast.unparse(t) for t in targets))
    return ("stmt", ast.get_source_segment(source, node) or "")


def _is_bare_expression(node: ast.stmt) -> bool:
    """Return whether ``node`` is a module-level expression other than a docstring."""
    return isinstance(node, ast.Expr) and not (
        isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    )


def _pieces(source: str) -> list[tuple[tuple[str, ...], str]]:
    """Return (key, source text with its decorators and comments above) for each top-level statement."""
    tree = ast.parse(source)
    lines = source.splitlines()
    pieces, start = [], 0
    for node in tree.body:
        if isinstance(node, _STRAY) or _is_bare_expression(node):
            # A line a small model left outside its function, or its "example usage" calls, which would
            # run (and touch files) on every import.
            start = node.end_lineno or node.lineno
            continue
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
        end = node.end_lineno or node.lineno
        # Comments right above a definition belong to it.
        while first > start and lines[first - 1].lstrip().startswith("#"):
            first -= 1
        pieces.append((_key(node, source), "\n".join(lines[first:end]).rstrip()))
        start = end
    return pieces


def _checks(node: ast.stmt) -> bool:
    """Return whether a module-level ``node`` checks or shows the code rather than defining it: an
    assert, a bare call ("example usage"), a stray ``return``, or a loop that asserts or prints."""
    if isinstance(node, (ast.Assert, *_STRAY)) or _is_bare_expression(node):
        return True
    return isinstance(node, ast.For | ast.While) and any(
        isinstance(n, ast.Assert)
        or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print")
        for n in ast.walk(node)
    )


def _complete_prefix(lines: list[str], name: str) -> list[str] | None:
    """Return the longest prefix of ``lines``, cut before a module-level line, that parses and defines
    ``name`` while the lines cut off hold no definition of it (a function cut off is not its stub);
    None if there is none."""
    starts = [i for i, line in enumerate(lines) if line[:1].strip() and not line.startswith("#")]
    for start in reversed(starts):
        if defines("\n".join(lines[start:]), name):
            return None
        # A prefix that does not parse defines no name.
        if name in defined_names("\n".join(lines[:start])):
            return lines[:start]
    return None


def without_checks(source: str, name: str) -> str:
    """Return a function or class task's module without the checks a model writes after its code, and
    without a last statement cut off at the length limit.

    The module is what the task asks for: its definitions. A model's own asserts and example calls run on
    every import, and where the task states no example to copy they are often wrong, so one wrong assert
    fails a right function before any test runs. A reply cut off inside such a check keeps its complete
    statements, as long as they define ``name``; text is kept as written, lines only removed.

    Raises:
        SyntaxError: no complete prefix of ``source`` defines ``name`` (the code itself is cut or broken).
    """
    lines = source.splitlines()
    try:
        tree = ast.parse(source)
    except SyntaxError as original:
        if (prefix := _complete_prefix(lines, name)) is None:
            raise original from None
        lines, tree = prefix, ast.parse("\n".join(prefix))
    # A check sharing a line with code (``x = f(); assert x``) stays with it.
    shared = {b.lineno for a, b in itertools.pairwise(tree.body) if a.end_lineno == b.lineno}
    drop = [node for node in tree.body if _checks(node) and not {node.lineno, node.end_lineno} & shared]
    for node in reversed(drop):
        del lines[node.lineno - 1 : node.end_lineno]
    return "\n".join(lines).rstrip("\n") + "\n"


def _imports_itself(key: tuple[str, ...], module: str | None) -> bool:
    if module is None or key[0] != "import":
        return False
    node = ast.parse(key[1]).body[0]
    if isinstance(node, ast.ImportFrom):
        return node.module == module
    return any(alias.name == module for alias in node.names)  # type: ignore[attr-defined]


def _uses(source: str, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(ast.parse(source)))


def _calls(source: str, names: set[str]) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
        for n in ast.walk(ast.parse(source))
    )


def merge_module(
    existing: str,
    addition: str,
    module: str | None = None,
    keep: frozenset[str] = frozenset(),
    drop: frozenset[str] = frozenset(),
) -> str:
    """Return ``existing`` with the top-level statements of ``addition`` merged in.

    ``module`` is the merged file's own module name: an import of it (a circular self-import that small
    models write) is dropped. ``keep`` names definitions of ``existing`` that ``addition`` may not
    replace; keeping ``main`` keeps the ``__main__`` block too. Definitions of ``addition`` named in
    ``drop`` are left out.

    Raises:
        SyntaxError: ``addition`` (or ``existing``) does not parse.
    """
    old = _pieces(existing) if existing.strip() else []
    kept = {k for k, _ in old if k[0] == "def" and k[1] in keep}
    if ("def", "main") in kept:
        kept.add(_MAIN)
    new = [
        (k, t)
        for k, t in _pieces(repaired(addition))
        if not _imports_itself(k, module) and k not in kept and not (k[0] == "def" and k[1] in drop)
    ]
    new_by_key = dict(new)
    merged = [(k, new_by_key.pop(k, text)) for k, text in old]
    added = [(k, text) for k, text in new if k in new_by_key]
    defs = {k[1] for k, _ in merged + added if k[0] == "def"}
    # A module-level assignment that calls the module's own functions is "example usage"
    # (`new_item = add_task(items, 'Buy groceries')`), which would run on every import.
    added = [(k, t) for k, t in added if not (k[0] == "assign" and _calls(t, defs))]
    # New data goes above the functions that use it.
    hoisted = [(k, t) for k, t in added if k[0] == "assign" and not _uses(t, defs)]
    first_def = next((i for i, (k, _) in enumerate(merged) if k[0] not in ("import", "assign")), len(merged))
    merged[first_def:first_def] = hoisted
    merged += [piece for piece in added if piece not in hoisted]
    imports = [text for k, text in merged if k[0] == "import"]
    body = [text for k, text in merged if k[0] != "import" and k != _MAIN]
    main = [text for k, text in merged if k == _MAIN][-1:]
    parts = ["\n".join(dict.fromkeys(imports))] if imports else []
    return "\n\n\n".join([*parts, *body, *main]) + "\n"


def without_calls(
    source: str,
    names: frozenset[str],
    exempt: frozenset[str] = frozenset(),
    file_parameters: frozenset[str] = frozenset(),
) -> str:
    """Return ``source`` without the statement-level calls to ``names`` inside its top-level functions;
    a block left empty gets ``pass``. Functions named in ``names`` or ``exempt``, and those taking one of
    ``file_parameters`` (a helper handed a path), keep theirs.

    An application's features must not touch the data file, since ``main()`` loads the items before a
    command and saves them after; the small model still writes ``save_items(path, items)`` into every
    feature, with ``path`` undefined, and repeats it when shown the NameError.

    Raises:
        SyntaxError: ``source`` does not parse.
    """
    lines = source.splitlines()
    blocks: list[list[ast.stmt]] = []
    for function in ast.parse(source).body:
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        taken = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
        if function.name in names | exempt or file_parameters & taken:
            continue
        blocks += [
            block
            for node in ast.walk(function)
            for field in ("body", "orelse", "finalbody")
            if isinstance(block := getattr(node, field, None), list)
        ]
    removals: list[tuple[ast.stmt, bool]] = []  # (statement, whether `pass` takes its place)
    for block in blocks:
        calls = [
            s
            for s in block
            if isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Call)
            and isinstance(s.value.func, ast.Name)
            and s.value.func.id in names
            and _alone(s, lines)
        ]
        removals += [(s, len(calls) == len(block) and s is calls[0]) for s in calls]
    for node, with_pass in sorted(removals, key=lambda r: r[0].lineno, reverse=True):
        indent = lines[node.lineno - 1][: node.col_offset]
        lines[node.lineno - 1 : node.end_lineno] = [f"{indent}pass"] if with_pass else []
    return "\n".join(lines) + "\n" if removals else source


def _alone(node: ast.stmt, lines: list[str]) -> bool:
    """Return whether ``node`` has its lines to itself (no ``if x: f()`` or ``a; f()``)."""
    end = lines[(node.end_lineno or node.lineno) - 1][node.end_col_offset or 0 :].strip()
    return not lines[node.lineno - 1][: node.col_offset].strip() and (not end or end.startswith("#"))


def defined_names(source: str) -> set[str]:
    """Return the names of the top-level functions and classes in ``source``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}


def clean_test_module(source: str, app_module: str, app_names: set[str]) -> str:
    """Return a test module that imports the app and does not shadow its definitions with copies."""
    pieces = [
        (k, text) for k, text in _pieces(source) if not (k[0] == "def" and k[1] in app_names) and k != _MAIN
    ]
    header = f"from {app_module} import *"
    texts = [text for _, text in pieces]
    if header not in texts:
        texts.insert(0, header)
    return "\n\n\n".join(texts) + "\n"


def named_tests(source: str, name: str) -> str:
    """Return the imports and the ``test_<name>…`` functions of ``source``, nothing else.

    A small model asked for one test also copies the code under test and the prompt's example test;
    neither belongs in the test module.

    Raises:
        SyntaxError: ``source`` does not parse, repaired or not.
    """
    keep = [
        text
        for key, text in _pieces(repaired(source))
        if key[0] == "import" or (key[0] == "def" and key[1].startswith(f"test_{name}"))
    ]
    return "\n\n\n".join(keep) + "\n" if keep else ""


def definition(source: str, name: str) -> str:
    """Return the source of the top-level function or class ``name`` in ``source`` ('' if none)."""
    try:
        return next((text for key, text in _pieces(source) if key == ("def", name)), "")
    except SyntaxError:
        return ""


def with_imports(source: str) -> str:
    """Return ``source`` importing the standard modules its code uses but never binds (``math.pi`` with
    no ``import math``): a continuation writes inside a method and cannot reach the file's top, and the
    local model's pieces of an application call ``os.path.exists`` with no ``import os``."""
    tree = ast.parse(source)
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    used = sorted(
        {
            n.value.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name)
            and isinstance(n.value.ctx, ast.Load)
        }
    )
    missing = [name for name in used if name not in bound and name in sys.stdlib_module_names]
    if not missing:
        return source
    # After any `from __future__` import, which must come first.
    after = max(
        (n.end_lineno or 0 for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"),
        default=0,
    )
    lines = source.splitlines(keepends=True)
    return "".join([*lines[:after], *(f"import {name}\n" for name in missing), *lines[after:]])
