"""Imports go one way: state ← runtime ← nodes ← graphs ← accountability ← evals ← cli ← the ``accord``
package's public API, all inside the one installed name ``accord``.

Every first-party import of every module is read from its syntax tree, at any depth: a function-level
import may not hide a cycle. The CLI and the public API alone import lazily, so that ``accord --help`` and
``import accord`` stay fast. A layer imported by its bare name (``import graphs``) would load a second copy
of it outside the namespace, so it is refused too.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("state", "runtime", "nodes", "graphs", "accountability", "evals", "cli", "accord")
"""Lowest first: a package may import its own layer and the ones before it. ``accord`` is the package's
own ``__init__``, the public API."""
FOLDERS = {layer: Path(layer) for layer in LAYERS[:-2]} | {"cli": Path("accord/cli")}
"""Where each layer's modules sit in the checkout."""
LAZY = ("cli", "accord")
"""The layers that may import inside functions."""
CHECKOUT_ONLY = ("tests", "bench")
"""Packages a checkout holds and the wheel does not (the tests' fake endpoint, the speed benchmarks)."""


def layer_of(module: str) -> str | None:
    """Return the layer an imported module belongs to, ``"bare"`` for a layer named outside the namespace,
    or None for a module that is not Accord's."""
    parts = module.split(".")
    if parts[0] in LAYERS[:-2]:
        return "bare"
    if parts[0] in CHECKOUT_ONLY:
        return "checkout"
    if parts[0] != "accord":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS[:-1] else "accord"


def first_party_imports(path: Path) -> list[tuple[int, str, str, bool]]:
    """Return (line, module, its layer, at module level) for each first-party import in ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module == "accord":  # ``from accord import graphs`` imports the layer
                names = [f"accord.{alias.name}" for alias in node.names]
        else:
            continue
        found += [
            (node.lineno, name, layer, id(node) in top)
            for name in names
            if (layer := layer_of(name)) is not None
        ]
    return found


def violations(root: Path) -> list[str]:
    """Return every import against the layer order under ``root``, as ``path:line: reason``."""
    problems = []
    modules = [
        (layer, path) for layer, folder in FOLDERS.items() for path in sorted((root / folder).rglob("*.py"))
    ]
    modules += (
        [("accord", root / "accord" / "__init__.py")] if (root / "accord" / "__init__.py").exists() else []
    )
    for layer, path in modules:
        where = path.relative_to(root)
        for line, module, imported, at_top in first_party_imports(path):
            if imported == "bare":
                problems.append(f"{where}:{line}: imports {module} outside the accord namespace")
            elif imported == "checkout":
                problems.append(f"{where}:{line}: imports {module}, which the wheel does not ship")
            elif LAYERS.index(imported) > LAYERS.index(layer):
                problems.append(f"{where}:{line}: {layer} imports {imported}, a higher layer")
            elif not at_top and layer not in LAZY:
                problems.append(f"{where}:{line}: a function-level import of {imported}")
    return problems


def test_every_import_follows_the_layer_order() -> None:
    assert violations(ROOT) == []


def layout(root: Path) -> None:
    for folder in FOLDERS.values():
        (root / folder).mkdir(parents=True)


@pytest.mark.parametrize(
    ("where", "source", "problem"),
    [
        ("nodes", "from accord.graphs.compiler import Compiler\n", "1: nodes imports graphs, a higher layer"),
        ("evals", "from accord.cli import main\n", "1: evals imports cli, a higher layer"),
        ("evals", "import accord\n", "1: evals imports accord, a higher layer"),
        (
            "accountability",
            "from accord.evals import runner\n",
            "1: accountability imports evals, a higher layer",
        ),
        ("graphs", "from accord import accountability\n", "1: graphs imports accountability, a higher layer"),
        (
            "state",
            "def f():\n    import accord.runtime.sandbox\n",
            "2: state imports runtime, a higher layer",
        ),
        ("graphs", "def f():\n    from accord.nodes import roles\n", "2: a function-level import of nodes"),
        ("graphs", "from nodes import roles\n", "1: imports nodes outside the accord namespace"),
        ("accord/cli", "import state.context\n", "1: imports state.context outside the accord namespace"),
        (
            "evals",
            "from tests.endpoint import FakeEndpoint\n",
            "1: imports tests.endpoint, which the wheel does not ship",
        ),
    ],
)
def test_the_check_catches_an_import_against_the_order(
    tmp_path: Path, where: str, source: str, problem: str
) -> None:
    layout(tmp_path)
    (tmp_path / where / "module.py").write_text(source)
    assert violations(tmp_path) == [f"{where}/module.py:{problem}"]


def test_the_cli_and_the_public_api_may_import_lazily(tmp_path: Path) -> None:
    layout(tmp_path)
    (tmp_path / "accord" / "cli" / "main.py").write_text("def main():\n    from accord.graphs import x\n")
    (tmp_path / "accord" / "__init__.py").write_text("def run():\n    from accord.cli import main\n")
    assert violations(tmp_path) == []


def module_imports(path: Path, packages: set[str]) -> list[tuple[int, str]]:
    """Return (line, module) for each import in ``path`` of a module or package named in ``packages``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # ``from accord.nodes.team import tester`` imports the module ``accord.nodes.team.tester``
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
    from accord.graphs import audit, development, pipeline

    graphs = (development, audit, pipeline)
    return {getattr(work, "func", work).__module__ for graph in graphs for work in graph.WORK.values()} - {
        graph.__name__ for graph in graphs
    }


def test_no_role_module_imports_another_roles_module() -> None:
    roles = shipped_role_modules()
    assert {
        "accord.nodes.development.coder",
        "accord.nodes.development.debugger",
        "accord.nodes.audit.analysts",
    } <= roles
    assert role_crossings(ROOT, roles) == []


def test_the_check_catches_a_role_importing_another(tmp_path: Path) -> None:
    team = tmp_path / "accord" / "nodes" / "team"
    team.mkdir(parents=True)
    (team / "fixer.py").write_text("from accord.nodes.team import finder\n")
    (team / "finder.py").write_text("from accord.nodes.team.helpers import x\n")
    roles = {"accord.nodes.team.fixer", "accord.nodes.team.finder"}
    assert role_crossings(tmp_path, roles) == [
        "accord/nodes/team/fixer.py:1: the role module accord.nodes.team.fixer imports "
        "accord.nodes.team.finder"
    ]


CORE = (
    "state/artifacts.py", "state/contracts.py", "state/graph_state.py", "state/history.py",
    "state/lifecycle.py", "state/messages.py", "state/role_specs.py", "state/stage.py",
    "graphs/compiler.py", "graphs/duties.py", "graphs/oracle.py", "graphs/messages.py", "graphs/remote.py",
    "accountability/account.py", "accountability/blame.py", "accountability/cost.py",
    "accountability/mast.py", "accountability/trace.py",
)  # fmt: skip
"""The protocol core: what every workflow is made of and read by. It knows no workflow."""


def named_in_code(path: Path) -> set[str]:
    """Return the string constants and imported modules of ``path``'s code: what could name a workflow, its
    state keys or its parts, and the fields its classes declare (docstrings and comments are prose, and
    other identifiers are the module's own)."""
    tree = ast.parse(path.read_text(), str(path))
    prose = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }  # fmt: skip
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            found.add(node.value)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ClassDef):  # a declared field is a key: a state's, a model's
            found |= {
                f.target.id
                for f in node.body
                if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name)
            }
    return found


def workflow_words(
    workflows: dict[str, set[str]], packages: dict[str, tuple[str, ...]]
) -> dict[str, set[str]]:
    """Return what names each workflow: its name, its own artifact kinds, and its packages."""
    return {name: {name, *kinds, *packages[name]} for name, kinds in workflows.items()}


def workflow_mentions(root: Path, words: dict[str, set[str]], core: tuple[str, ...] = CORE) -> list[str]:
    """Return every core module that names a workflow, as ``path: workflow (what names it)``."""
    problems = []
    for where in core:
        used = named_in_code(root / where)
        for name, own in sorted(words.items()):
            packages = tuple(f"{word}." for word in own if "." in word)
            if hits := sorted(word for word in used if word in own or word.startswith(packages)):
                problems.append(f"{where}: {name} ({', '.join(hits)})")
    return problems


def shipped_workflows() -> tuple[dict[str, set[str]], dict[str, tuple[str, ...]]]:
    """Return each built-in workflow's own artifact kinds (those its own folder registers) and packages."""
    from accord.graphs.catalog import workflows
    from accord.state.artifacts import ARTIFACT_MODELS

    names = [name for name in workflows() if importlib.util.find_spec(f"accord.graphs.{name}") is not None]
    kinds = {
        name: {
            kind
            for kind, model in ARTIFACT_MODELS.items()
            if model.__module__.startswith(f"accord.nodes.{name}")
        }
        for name in names
    }
    return kinds, {name: (f"accord.graphs.{name}", f"accord.nodes.{name}") for name in names}


def test_the_protocol_core_names_no_workflow() -> None:
    kinds, packages = shipped_workflows()
    assert set(kinds) == {"development", "audit", "pipeline"}
    assert {"audit_task", "findings"} <= kinds["audit"] and {"question", "answer"} <= kinds["pipeline"]
    assert workflow_mentions(ROOT, workflow_words(kinds, packages)) == []


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("from accord.nodes.audit.artifacts import AuditTask\n", "audit (accord.nodes.audit.artifacts"),
        ("KINDS = ('code', 'audit_task')\n", "audit (audit_task)"),
        ("def f(state):\n    return state['workflow'] == 'audit'\n", "audit (audit)"),
        ("class State(TypedDict):\n    audit_task: dict\n", "audit (audit_task)"),
    ],
)
def test_the_check_catches_a_core_module_naming_a_workflow(tmp_path: Path, source: str, problem: str) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "lifecycle.py").write_text('"""Say audit in prose: allowed."""\n' + source)
    words = workflow_words(
        {"audit": {"audit_task"}}, {"audit": ("accord.graphs.audit", "accord.nodes.audit")}
    )
    found = workflow_mentions(tmp_path, words, core=("state/lifecycle.py",))
    assert len(found) == 1 and found[0].startswith(f"state/lifecycle.py: {problem}"), found
