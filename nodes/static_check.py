"""Static checks of model-written code (LOCAL_CODE, never executed): names used but never defined.

A small model writes functions that use a global it never defines (``tasks``), or a test file with no
test in it; both fail at run time with little to go on. The symbol tables that CPython builds while
compiling (``symtable``) find the first without running anything, and say where.
"""

from __future__ import annotations

import ast
import builtins
import symtable
from collections.abc import Iterator, Mapping

from accord.state.artifacts import CaseResult

_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__builtins__", "__spec__"}


def _module_names(source: str) -> set[str] | None:
    """Return the names bound at the top of ``source``, or None when it does not parse."""
    try:
        table = symtable.symtable(source, "<module>", "exec")
    except SyntaxError:
        return None
    return {
        s.get_name()
        for s in table.get_symbols()
        if s.is_assigned() or s.is_imported() or s.is_namespace() or s.is_parameter()
    }


def _star_sources(source: str) -> list[str]:
    """Return the module names ``source`` imports with ``*``."""
    return [
        n.module or ""
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
    ]


def _unbound(table: symtable.SymbolTable, known: set[str]) -> Iterator[tuple[str, str]]:
    """Yield (name, scope) for every global a scope reads that nothing binds."""
    scope = "module level" if table.get_type() == "module" else f"{table.get_name()}()"
    for symbol in table.get_symbols():
        name = symbol.get_name()
        reads_global = symbol.is_global() or table.get_type() == "module"
        if (
            symbol.is_referenced()
            and reads_global
            and name not in known
            and name not in _BUILTINS
            and not symbol.is_assigned()
            and not symbol.is_imported()
        ):
            yield name, scope
    for child in table.get_children():
        yield from _unbound(child, known)


def unbound_names(source: str) -> set[str]:
    """Return the globals ``source`` reads that nothing in it binds (empty when it does not parse)."""
    known = _module_names(source)
    return (
        set()
        if known is None
        else {name for name, _ in _unbound(symtable.symtable(source, "<module>", "exec"), known)}
    )


def undefined_names(path: str, files: Mapping[str, str]) -> list[str]:
    """Return one line per name that ``path`` uses but never defines or imports.

    A ``from m import *`` of a file in ``files`` brings that file's names in; one of anything else
    (an installed package) makes the check unknowable, so nothing is reported for that file.
    """
    source = files[path]
    known = _module_names(source)
    if known is None:
        return []
    for module in _star_sources(source):
        imported = files.get(module.replace(".", "/") + ".py")
        names = _module_names(imported) if imported is not None else None
        if names is None:
            return []
        known |= names
    scopes: dict[str, list[str]] = {}
    for name, scope in _unbound(symtable.symtable(source, path, "exec"), known):
        scopes.setdefault(name, []).append(scope)
    return [
        f"`{name}` is used in {', '.join(dict.fromkeys(where))} but never defined or imported"
        for name, where in scopes.items()
    ]


def unbound_in(source: str, function: str) -> list[str]:
    """Return the globals that the top-level function ``function`` reads, itself or in a scope nested in
    it (a comprehension, an inner function), and nothing in ``source`` binds, in the order first read
    (empty when it does not parse or defines no such function)."""
    known = _module_names(source)
    if known is None:
        return []
    tables = [
        t
        for t in symtable.symtable(source, "<module>", "exec").get_children()
        if t.get_type() == "function" and t.get_name() == function
    ]
    return list(dict.fromkeys(name for table in tables for name, _ in _unbound(table, known)))


def test_functions(source: str) -> list[str]:
    """Return the tests pytest would collect from ``source``: ``test*`` functions and ``Test*`` methods."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            found.append(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            found += [
                f"{node.name}.{m.name}"
                for m in node.body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and m.name.startswith("test")
            ]
    return found


def check(files: Mapping[str, str]) -> list[CaseResult]:
    """Return one case per Python file: passed when every name it uses is defined."""
    cases = []
    for path in sorted(p for p in files if p.endswith(".py")):
        problems = undefined_names(path, files)
        cases.append(
            CaseResult(
                name=f"static check: names defined in {path}",
                passed=not problems,
                message="\n".join(problems),
            )
        )
    return cases
