"""The Tester's proof attempt on Python code: the model writes a script that calls the code with the input
it suspects, and the script runs in the sandbox beside the code; what it printed is evidence the Tester's
finding cites (a ``ToolReport`` named ``proof``).

Only self-contained code is tried: code that parses, imports nothing beyond the standard library and
defines every other name it reads, so it can run alone. A script runs once, offline, under the sandbox's
limits; where the sandbox cannot isolate it, the attempt reports itself unavailable with the fix, and
nothing runs.
"""

from __future__ import annotations

import ast
import sys
import textwrap

from accord.nodes.audit.artifacts import AuditTask, ToolReport
from accord.nodes.llm import text
from accord.nodes.static_check import unbound_names
from accord.nodes.views import code_block
from accord.runtime import harness, sandbox
from accord.state.stage import OutputError, StageCall

MODULE_FILE = "audited.py"
PROVEN = "PROVEN:"
"""How a script says the flaw showed (followed by what happened); a line without it is not a proof,
whatever the exit status."""
MAX_LINES = 6

SYSTEM = """Write a short Python script that tries to prove a security vulnerability in the given code by
running it. The script imports from audited, calls the code with the input most likely to trigger a flaw
(a path with '..', shell metacharacters, a huge size, a malformed or hostile value) and checks what
happened. When the flaw shows, it prints one line that starts with PROVEN: and says what happened. It runs
once, offline, in a sandbox, with no files but audited.py."""

PROMPT = """Python code in audited.py, with its line numbers:
```
{code}
```
Do not copy or rewrite the code: import it. Answer with the script in one ```python code block that
starts with:
from audited import {names}{methods}"""
METHODS = """
{names} take an instance as their first argument (methods cut from their class): pass
unittest.mock.MagicMock() for it, and read the mock's calls (for example
instance.cursor.execute.call_args) to see what the code did with the input."""


def defined(task: AuditTask) -> list[str]:
    """Return the functions and classes the code defines at its top level (what a proof imports)."""
    tree = _parsed(task)
    return [
        node.name
        for node in (tree.body if tree else [])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]


def _method(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A function cut from its class: a script calls it with a mock instance."""
    return bool(node.args.args) and node.args.args[0].arg in ("self", "cls")


def _parsed(task: AuditTask) -> ast.Module | None:
    if task.language != "python":
        return None
    try:
        return ast.parse(textwrap.dedent(task.code))
    except SyntaxError:
        return None


def self_contained(task: AuditTask) -> bool:
    """Return whether ``task`` is Python that can run alone: it parses, imports only the standard library,
    every name it reads is defined in it, a builtin, or a standard module (a function cut from its file
    often uses ``os`` without the import, which the proof run adds), and it defines a function or class
    to call."""
    tree = _parsed(task)
    if tree is None or not defined(task):
        return False
    modules = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    modules += [
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 0
    ]
    relative = any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(tree))
    return (
        not relative
        and all(m.split(".")[0] in sys.stdlib_module_names for m in modules)
        and unbound_names(textwrap.dedent(task.code)) <= sys.stdlib_module_names
    )


def runnable_module(task: AuditTask) -> str:
    """Return the code as a module that runs alone: the standard modules it reads without importing them
    are imported first."""
    missing = sorted(unbound_names(textwrap.dedent(task.code)) & sys.stdlib_module_names)
    return "".join(f"import {name}\n" for name in missing) + textwrap.dedent(task.code) + "\n"


def write_proof(call: StageCall, task: AuditTask) -> str:
    """Ask the model for a proof script (a fenced block in plain text, like all code); return its source,
    or "" when the reply is empty (no script is no proof; the Tester still judges)."""
    tree = _parsed(task)
    methods = [
        node.name
        for node in (tree.body if tree else [])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _method(node)
    ]
    prompt = PROMPT.format(
        code=task.numbered(),
        names=", ".join(defined(task)),
        methods=METHODS.format(names=", ".join(methods)) if methods else "",
    )
    try:
        return code_block(text(call, SYSTEM, prompt, what="ProofScript"))
    except OutputError:
        return ""


_PROOF = """
def checks():
    import sys
    said = []

    class ProofOutput:
        # Only what the proof script itself prints counts: the audited code printing PROVEN from its
        # own lines (print is called from a frame of the audited module) proves nothing.
        def write(self, text):
            if sys._getframe(1).f_code.co_filename == "<proof>":
                said.append(text)
            return len(text)

        def flush(self):
            pass

    sys.stdout, raised = ProofOutput(), ""
    try:
        exec(compile(SCRIPT, "<proof>", "exec"), {"__name__": "__main__", "__builtins__": BUILTINS})
    except BaseException as exc:  # a flaw that shows as an exception still leaves what was printed
        raised = f"{BUILTINS['type'](exc).__name__}: {exc}"[-300:]
    return {"said": "".join(BUILTINS["str"](part) for part in said)[-20000:], "raised": raised}
"""
"""The proof script as a harness (``runtime.harness``): what it printed comes from the harness's record."""


def run_proof(task: AuditTask, script: str, timeout_s: float) -> ToolReport:
    """Run ``script`` in the sandbox beside the code under audit; return what it showed.

    Where model-written code cannot run isolated, nothing runs and the report says why and how to fix it.
    """
    if not script.strip():
        return ToolReport(tool="proof", available=True, issues=("no proof: the model wrote no script",))
    # A script that runs its own copy of the code proves nothing about the audited one.
    script_defines = defined(AuditTask(language="python", code=script))
    copied = sorted(set(defined(task)) & set(script_defines))
    if copied:
        said = f"no proof: the script defines its own {', '.join(copied)} instead of importing the audited"
        return ToolReport(tool="proof", available=True, issues=(f"{said} one",))
    files = {MODULE_FILE: runnable_module(task)}
    try:
        checked = harness.run_checks(
            f"SCRIPT = {script!r}\n{_PROOF}", files, sandbox.Limits(timeout_s=timeout_s)
        )
    except sandbox.SandboxUnavailable as exc:
        return ToolReport(tool="proof", available=False, issues=(f"not run: {exc}",))
    result = checked.result
    printed = checked.value if checked.completed else {"said": "", "raised": checked.error}
    proven = [
        line.strip()
        for line in str(printed["said"]).splitlines()
        if line.strip().startswith(PROVEN) and line.strip()[len(PROVEN) :].strip()
    ]
    ending = f"{result.ending}, exit {result.exit_code}" + (
        f", {printed['raised']}" if printed["raised"] else ""
    )
    if proven:
        return ToolReport(
            tool="proof",
            available=True,
            issues=tuple(f"the script printed {line}" for line in proven[:MAX_LINES]),
        )
    last = (result.stderr.strip().splitlines() or [""])[-1][:200]
    return ToolReport(
        tool="proof",
        available=True,
        issues=(
            f"no proof: the script ended {ending}"
            + (f" ({last})" if last else "")
            + " without printing PROVEN",
        ),
    )
