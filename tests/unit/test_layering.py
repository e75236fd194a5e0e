"""Imports go one way: state ← runtime ← nodes ← graphs ← accountability ← evals ← accord (the CLI).

Every first-party import of every module is read from its syntax tree, at any depth: a function-level
import may not hide a cycle. The CLI alone imports lazily, so that ``accord --help`` stays fast.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("state", "runtime", "nodes", "graphs", "accountability", "evals", "accord")
"""Lowest first: a package may import its own layer and the ones before it."""


def first_party_imports(path: Path) -> list[tuple[int, str, bool]]:
    """Return (line, imported package, at module level) for each first-party import in ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [(node.lineno, name.split(".")[0], id(node) in top) for name in names
                  if name.split(".")[0] in LAYERS]
    return found


def violations(root: Path) -> list[str]:
    """Return every import against the layer order under ``root``, as ``path:line: reason``."""
    problems = []
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            where = path.relative_to(root)
            for line, imported, at_top in first_party_imports(path):
                if LAYERS.index(imported) > LAYERS.index(layer):
                    problems.append(f"{where}:{line}: {layer} imports {imported}, a higher layer")
                elif not at_top and layer != "accord":
                    problems.append(f"{where}:{line}: a function-level import of {imported}")
    return problems


def test_every_import_follows_the_layer_order() -> None:
    assert violations(ROOT) == []


@pytest.mark.parametrize(("layer", "source", "problem"), [
    ("nodes", "from graphs.compiler import Compiler\n", "1: nodes imports graphs, a higher layer"),
    ("evals", "from accord import cli\n", "1: evals imports accord, a higher layer"),
    ("accountability", "from evals import runner\n", "1: accountability imports evals, a higher layer"),
    ("graphs", "from accountability import blame\n", "1: graphs imports accountability, a higher layer"),
    ("state", "def f():\n    import runtime.sandbox\n", "2: state imports runtime, a higher layer"),
    ("graphs", "def f():\n    from nodes import roles\n", "2: a function-level import of nodes"),
])
def test_the_check_catches_an_import_against_the_order(tmp_path: Path, layer: str, source: str,
                                                       problem: str) -> None:
    for name in LAYERS:
        (tmp_path / name).mkdir()
    (tmp_path / layer / "module.py").write_text(source)
    assert violations(tmp_path) == [f"{layer}/module.py:{problem}"]


def test_the_cli_may_import_lazily(tmp_path: Path) -> None:
    for name in LAYERS:
        (tmp_path / name).mkdir()
    (tmp_path / "accord" / "cli.py").write_text("def main():\n    from graphs import development\n")
    assert violations(tmp_path) == []


def module_imports(path: Path, packages: set[str]) -> list[tuple[int, str]]:
    """Return (line, module) for each import in ``path`` of a module or package named in ``packages``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # ``from nodes.development import tester`` imports the module ``nodes.development.tester``
            found += [(node.lineno, node.module)]
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name in packages]


def role_crossings(root: Path, role_modules: set[str]) -> list[str]:
    """Return every import of one role's module by another's, as ``path:line: reason``."""
    problems = []
    for module in sorted(role_modules):
        path = root / (module.replace(".", "/") + ".py")
        for line, imported in module_imports(path, role_modules - {module}):
            problems.append(f"{path.relative_to(root)}:{line}: the role module {module} imports {imported}")
    return problems


def shipped_role_modules() -> set[str]:
    """Return the modules whose functions do a duty in one of Accord's workflows (their ``WORK`` tables)."""
    from graphs import audit, development, pipeline

    graphs = (development, audit, pipeline)
    return {getattr(work, "func", work).__module__ for graph in graphs
            for work in graph.WORK.values()} - {graph.__name__ for graph in graphs}


def test_no_role_module_imports_another_roles_module() -> None:
    roles = shipped_role_modules()
    assert {"nodes.development.coder", "nodes.development.debugger", "nodes.audit.analysts"} <= roles
    assert role_crossings(ROOT, roles) == []


def test_the_check_catches_a_role_importing_another(tmp_path: Path) -> None:
    (tmp_path / "nodes" / "team").mkdir(parents=True)
    (tmp_path / "nodes" / "team" / "fixer.py").write_text("from nodes.team import finder\n")
    (tmp_path / "nodes" / "team" / "finder.py").write_text("from nodes.team.helpers import x\n")
    roles = {"nodes.team.fixer", "nodes.team.finder"}
    assert role_crossings(tmp_path, roles) == [
        "nodes/team/fixer.py:1: the role module nodes.team.fixer imports nodes.team.finder"]
